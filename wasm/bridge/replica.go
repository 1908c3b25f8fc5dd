package bridge

import (
	"encoding/json"

	"github.com/kraftlab/kraftlab/cluster/broker"
)

// ReplicaRequest is the body of sim.replica: one replica, named by its partition and broker.
type ReplicaRequest struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Broker    int32  `json:"broker"`
}

// ReplicaBody is the reply to sim.replica: what the replica is doing and how far it trails
// its leader, for the canvas's tooltip (frames carry no per-replica lag: it would be 8 more
// bytes per replica in every frame for a figure read one replica at a time).
type ReplicaBody struct {
	// TimeMs is the cluster time the figures are for.
	TimeMs int64 `json:"timeMs"`
	// State is dead, stalled, leader, in-sync or catching-up.
	State string `json:"state"`
	// LogEndBytes is the replica's log end offset in bytes; BacklogBytes how far it trails
	// the leader's.
	LogEndBytes  float64 `json:"logEndBytes"`
	BacklogBytes float64 `json:"backlogBytes"`
	// LastCaughtUpMs is when it last was caught up with the leader (the leader's
	// lastCaughtUpTimeMs for it), and LagMs how long ago that is: what the leader compares with
	// replica.lag.time.max.ms to drop it from the ISR.
	LastCaughtUpMs int64 `json:"lastCaughtUpMs"`
	LagMs          int64 `json:"lagMs"`
}

func (s *Session) replica(body json.RawMessage) (any, error) {
	var req ReplicaRequest
	if err := s.decodeLive(body, &req); err != nil {
		return nil, err
	}
	fleet := s.c.Fleet()
	p, ok := fleet.PartitionIndex(req.Topic, req.Partition)
	if !ok {
		return nil, BadRequest("topic, partition: no partition %d of topic %q (topics: %s)", req.Partition, req.Topic, s.topicNames())
	}
	info, err := fleet.Replica(p, req.Broker)
	if err != nil {
		return nil, BadRequest("broker: broker %d holds no replica of %s-%d", req.Broker, req.Topic, req.Partition)
	}
	now := s.c.Now()
	last := info.LastCaughtUpMs - s.t0
	out := ReplicaBody{TimeMs: now, State: info.State.String(), LogEndBytes: info.LogEnd,
		BacklogBytes: max(0, info.Backlog), LastCaughtUpMs: last, LagMs: max(0, now-last)}
	// The leader trails no one, and an in-sync follower fetches the leader's end continuously:
	// both are caught up now (the model keeps lastCaughtUp only for the other states).
	switch info.State {
	case broker.ReplicaLeader:
		out.BacklogBytes, out.LastCaughtUpMs, out.LagMs = 0, now, 0
	case broker.ReplicaInSync:
		out.LastCaughtUpMs, out.LagMs = now, 0
	}
	return out, nil
}
