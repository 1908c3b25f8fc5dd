package lab

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The binary form hands an imported cluster over exactly: every topic's replica assignment,
// partition sizes and rates, and every other field, whatever the inputs gave.
func TestDescriptionBinaryRoundTrips(t *testing.T) {
	base, _ := Preset(PresetSmall)
	full := fixtureInputs(t)
	for name, in := range map[string]Inputs{
		"topics, log-dirs, quorum and rates": full,
		"topics alone":                       {Topics: full.Topics},
		"a 3.x describe":                     {Topics: readFixture(t, "topics-3x.txt")},
		"60 brokers with gaps":               {Topics: bigDescribe(60, 2_000)},
	} {
		imp, err := Import(in, base)
		require.NoError(t, err, name)
		bin, err := EncodeDescription(imp.Description)
		require.NoError(t, err, name)
		got, err := DecodeDescription(bin)
		require.NoError(t, err, name)
		assert.Equal(t, imp.Description, got, name)
	}
	// A preset's description (no assignment, a config) too.
	d, _ := Preset(PresetSmall)
	d.Config = []Override{{Name: "leader.imbalance.check.interval.seconds", Value: "60"}}
	bin, err := EncodeDescription(d)
	require.NoError(t, err)
	got, err := DecodeDescription(bin)
	require.NoError(t, err)
	assert.Equal(t, d, got)
}

// A binary form cut short, or with bytes to spare, is refused, never half read.
func TestDescriptionBinaryRefusesDamage(t *testing.T) {
	base, _ := Preset(PresetSmall)
	imp, err := Import(fixtureInputs(t), base)
	require.NoError(t, err)
	bin, err := EncodeDescription(imp.Description)
	require.NoError(t, err)
	for n := range len(bin) {
		got, err := DecodeDescription(bin[:n])
		require.ErrorIs(t, err, errBinary, "cut at %d of %d", n, len(bin))
		require.Nil(t, got)
	}
	_, err = DecodeDescription(append(bin, 0))
	assert.ErrorIs(t, err, errBinary)
}

// BenchmarkDescriptionHandOff200k is the page's hand-off of the 200,000-partition cluster
// from the worker that imported it to another: the first writes its binary form, the other
// reads it (in place of parsing the 40 MB describe again).
func BenchmarkDescriptionHandOff200k(b *testing.B) {
	base, _ := Preset(PresetSmall)
	imp, err := Import(Inputs{Topics: bigDescribe(60, 200_000)}, base)
	if err != nil {
		b.Fatal(err)
	}
	cpu := cpuSeconds()
	var size int
	for b.Loop() {
		bin, err := EncodeDescription(imp.Description)
		if err != nil {
			b.Fatal(err)
		}
		size = len(bin)
		if _, err := DecodeDescription(bin); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(size), "bytes")
	reportCPU(b, cpu)
}
