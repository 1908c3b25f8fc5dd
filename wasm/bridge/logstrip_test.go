package bridge

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLogStripShowsTheCommittedTail: the strip ends at the leader's log end, names every
// offset as the committed log does, and places every controller and broker along it.
func TestLogStripShowsTheCommittedTail(t *testing.T) {
	b := started(t, `{"brokers":4,"partitions":12}`)
	f, _ := frameAt(t, b, "sim.advance", `{"ms":60000}`)
	ls := f.Log
	require.NotNil(t, ls)
	end := ls.Start + int64(len(ls.Records))
	assert.Equal(t, min(end, LogStripCells), int64(len(ls.Records)), "the strip's last cells")
	assert.Equal(t, ls.HighWatermark, end, "nothing waits for a commit in a quiet cluster")
	ctl := b.session.c.Controllers()
	for i, e := range ctl.CommittedSince(ls.Start)[:len(ls.Records)] {
		assert.Equal(t, ls.Start+int64(i), e.Offset)
		assert.Equal(t, e.Record.Type(), ls.Records[i], "offset %d", e.Offset)
	}
	active, _, ok := ctl.Active()
	require.True(t, ok)
	assert.Equal(t, active, ls.Leader)
	require.Len(t, ls.Nodes, 3+4)
	for i, n := range ls.Nodes {
		assert.Equal(t, i < 3, n.Controller, "controllers first, then brokers: %+v", n)
		assert.True(t, n.Running)
		assert.LessOrEqual(t, n.EndOffset, end, "no node is past the leader: %+v", n)
		assert.LessOrEqual(t, n.Applied, n.EndOffset, "a node applies what it has: %+v", n)
		assert.Equal(t, int64(-1), n.Snapshot, "no snapshot yet: %+v", n)
	}
	assert.Equal(t, []int32{1, 2, 3, 4}, []int32{ls.Nodes[3].ID, ls.Nodes[4].ID, ls.Nodes[5].ID, ls.Nodes[6].ID})

	// A snapshot shows as its end offset on the controller that took it.
	must[ActBody](t, b, "sim.act", fmt.Sprintf(`{"op":"snapshot","controller":"%d"}`, active))
	f, _ = frameAt(t, b, "sim.advance", `{"ms":100}`)
	assert.Contains(t, strings.Join(texts(f.Events), "\n"), fmt.Sprintf("you asked controller %d for a metadata snapshot: it covers offsets below ", active))
	for _, n := range f.Log.Nodes {
		if n.ID == active {
			assert.Positive(t, n.Snapshot, "the active controller took a snapshot")
			assert.LessOrEqual(t, n.Snapshot, f.Log.HighWatermark, "a snapshot holds committed offsets only")
		}
	}
}

// TestLogStripShowsTheUncommittedTail: with both followers down the leader's new records
// cannot commit; the strip still shows them, past the high watermark, from the leader's log.
func TestLogStripShowsTheUncommittedTail(t *testing.T) {
	b := started(t, `{"brokers":3,"partitions":6}`)
	f, _ := frameAt(t, b, "sim.advance", `{"ms":2000}`)
	leader := f.Log.Leader
	require.GreaterOrEqual(t, leader, int32(0))
	for _, n := range f.Log.Nodes {
		if n.Controller && n.ID != leader {
			must[ActBody](t, b, "sim.act", fmt.Sprintf(`{"op":"kill_controller","controller":"%d"}`, n.ID))
		}
	}
	must[ActBody](t, b, "sim.act", `{"op":"create_topic","topic":"orders","partitions":2,"replicationFactor":3}`)
	f, _ = frameAt(t, b, "sim.advance", `{"ms":200}`)
	ls := f.Log
	end := ls.Start + int64(len(ls.Records))
	require.Greater(t, end, ls.HighWatermark, "the new topic's records wait for a majority")
	tail := ls.Records[ls.HighWatermark-ls.Start:]
	assert.Contains(t, tail, "TopicRecord")
	assert.Contains(t, tail, "PartitionRecord")
	assert.Equal(t, leader, ls.Leader, "check-quorum has not yet made it resign")
}
