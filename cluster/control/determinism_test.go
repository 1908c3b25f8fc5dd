package control

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/engine/controller"
)

// scriptedRun plays the same inputs under a seed: brokers start, the active controller is killed
// and restarted, a topic is created. It returns the committed log as JSON lines, the trace, and
// when the first controller activated.
func scriptedRun(t *testing.T, seed uint64) (log, trace []byte, firstActivation int64) {
	t.Helper()
	h := newHarness(t, seed, 3, brokerIDs(4), nil)
	var tr bytes.Buffer
	h.c.SetTrace(&tr)
	h.startBrokers()
	first, epoch := h.waitActive(0, 5000)
	firstActivation = h.view(first).ActivatedMs
	h.run(10_000 - h.s.Now())
	require.NoError(t, h.c.Admin().CreateTopic(controller.CreateTopicRequest{Name: "t", NumPartitions: 8, ReplicationFactor: 3}))
	h.run(2000)
	require.NoError(t, h.c.Kill(first))
	h.waitActive(epoch, 15_000)
	h.run(5000)
	require.NoError(t, h.c.Start(first))
	h.run(30_000)
	var b bytes.Buffer
	for _, e := range h.c.Committed() {
		line, err := json.Marshal(e)
		require.NoError(t, err)
		b.Write(line)
		b.WriteByte('\n')
	}
	require.NoError(t, h.c.Check())
	return b.Bytes(), tr.Bytes(), firstActivation
}

func TestSameSeedSameCommittedLogOtherSeedOtherTiming(t *testing.T) {
	a, traceA, atA := scriptedRun(t, 21)
	b, traceB, atB := scriptedRun(t, 21)
	require.NotEmpty(t, a)
	assert.Equal(t, string(a), string(b), "the same seed commits the same log, byte for byte")
	assert.Equal(t, string(traceA), string(traceB), "and traces the same events")
	assert.Equal(t, atA, atB)

	c, _, atC := scriptedRun(t, 22)
	assert.NotEqual(t, atA, atC, "another seed elects at another time")
	assert.NotEqual(t, string(a), string(c))
	assert.Contains(t, string(a), `"type":"LeaderChangeMessage"`)
	assert.Contains(t, string(a), `"commit_ms":`)
}
