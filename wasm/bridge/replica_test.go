package bridge

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestReplicaLag: a replica whose broker was down trails its leader by the time since it
// last caught up; the leader trails no one; a request for a replica that does not exist
// names the field.
func TestReplicaLag(t *testing.T) {
	b := started(t, `{"brokers":3,"partitions":3}`)
	frameAt(t, b, "sim.advance", `{"ms":5000}`)
	states := map[string]int{}
	victim := int32(-1)
	for _, id := range []int32{1, 2, 3} {
		r := must[ReplicaBody](t, b, "sim.replica", fmt.Sprintf(`{"topic":"payments","partition":0,"broker":%d}`, id))
		states[r.State]++
		assert.Equal(t, int64(5000), r.TimeMs)
		assert.Equal(t, int64(0), r.LagMs, "a healthy replica is caught up: %+v", r)
		assert.Equal(t, r.TimeMs, r.LastCaughtUpMs)
		if r.State == "in-sync" {
			victim = id
		}
	}
	assert.Equal(t, map[string]int{"leader": 1, "in-sync": 2}, states)

	must[ActBody](t, b, "sim.act", fmt.Sprintf(`{"op":"kill","broker":%d}`, victim))
	frameAt(t, b, "sim.advance", `{"ms":40000}`)
	down := must[ReplicaBody](t, b, "sim.replica", fmt.Sprintf(`{"topic":"payments","partition":0,"broker":%d}`, victim))
	assert.Equal(t, "dead", down.State)
	assert.Greater(t, down.LagMs, int64(39000), "it last caught up before it was killed: %+v", down)
	assert.Equal(t, down.TimeMs-down.LagMs, down.LastCaughtUpMs)
	assert.Positive(t, down.BacklogBytes, "the leader kept taking writes")

	assert.Contains(t, failure(t, b, "sim.replica", `{"topic":"orders","partition":0,"broker":1}`).Message, `topic, partition: no partition 0 of topic "orders"`)
	assert.Contains(t, failure(t, b, "sim.replica", `{"topic":"payments","partition":0,"broker":9}`).Message, "broker: broker 9 holds no replica of payments-0")
	fresh := New(Info{})
	assert.Contains(t, failure(t, fresh, "sim.replica", `{"topic":"payments","partition":0,"broker":1}`).Message, "no simulation is running")
}
