package control

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPartitionsHintSizesImagesOnly: the hint gives every controller's committed image room for
// that many partitions when it boots, and changes nothing else: the same seed commits the same
// log with and without it.
func TestPartitionsHintSizesImagesOnly(t *testing.T) {
	run := func(hint int) (*harness, []string) {
		h := newHarness(t, 7, 3, brokerIDs(3), func(c *Config) { c.PartitionsHint = hint })
		h.startBrokers()
		h.run(30_000)
		return h, h.committedTypes()
	}
	plain, want := run(0)
	hinted, got := run(5000)
	assert.Equal(t, want, got)
	for _, v := range VoterIDs(3) {
		id := int32(v)
		assert.GreaterOrEqual(t, cap(hinted.image(id).Partitions), 5000, "controller %d", id)
		assert.Less(t, cap(plain.image(id).Partitions), 5000, "controller %d without a hint", id)
		require.Equal(t, plain.view(id).Applied > 0, hinted.view(id).Applied > 0)
	}
}
