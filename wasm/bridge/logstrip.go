package bridge

import (
	"github.com/kraftlab/kraftlab/cluster/control"
	"github.com/kraftlab/kraftlab/cluster/quorum"
)

// LogStripCells is how many offsets the log strip shows: the newest ones, ending at the log
// end of the controller whose log is the metadata log's present (the quorum leader's).
const LogStripCells = 48

// LogStrip is the tail of the metadata log, as the page's log strip draws it (web/ts/logstrip.ts):
// the last offsets of the quorum leader's log (of the running controller with the longest
// log while there is no leader), each with its record type, the high watermark, and where
// each controller and broker stands along the log.
type LogStrip struct {
	// Start is the offset of Records[0]; the strip covers [Start, Start+len(Records)).
	Start int64 `json:"start"`
	// Records are the record types at those offsets as the metadata log names them
	// (RegisterBrokerRecord, PartitionChangeRecord, LeaderChangeMessage...).
	Records []string `json:"records"`
	// HighWatermark: offsets below it are committed (the first time any node's high
	// watermark passed them).
	HighWatermark int64 `json:"highWatermark"`
	// Leader is the controller whose log the strip shows past the high watermark, -1 none.
	Leader int32 `json:"leader"`
	// Nodes are the controllers, then the brokers, in the frame's order.
	Nodes []LogNode `json:"nodes"`
}

// LogNode is where one controller or broker stands along the metadata log.
type LogNode struct {
	ID         int32 `json:"id"`
	Controller bool  `json:"controller"`
	Running    bool  `json:"running"`
	// EndOffset is the node's log end offset: the next offset it will write (a controller) or
	// fetch (a broker, an observer of the quorum).
	EndOffset int64 `json:"endOffset"`
	// HighWatermark is the high watermark as the node knows it.
	HighWatermark int64 `json:"highWatermark"`
	// Applied: for a controller, the offset its committed image has reached; for a broker,
	// the next offset it will apply to its metadata cache.
	Applied int64 `json:"applied"`
	// Snapshot is the end offset of the node's latest snapshot (offsets below it are in
	// it), -1 when it holds none.
	Snapshot int64 `json:"snapshot"`
}

// logStrip builds the frame's log strip.
func logStrip(ctl *control.Controllers, brokers []int32) *LogStrip {
	ls := &LogStrip{HighWatermark: ctl.CommittedEnd(), Leader: -1}
	// The source of the uncommitted tail: the running quorum leader of the highest epoch, or
	// while there is none the running controller with the longest log.
	var source *control.NodeView
	for _, id := range ctl.Voters() {
		nv, err := ctl.Node(id)
		if err != nil {
			continue
		}
		ls.Nodes = append(ls.Nodes, logNode(id, true, nv))
		switch {
		case !nv.Running:
		case nv.State == quorum.Leader && (ls.Leader < 0 || nv.Epoch > source.Epoch):
			ls.Leader, source = id, &nv
		case ls.Leader < 0 && (source == nil || nv.EndOffset > source.EndOffset):
			source = &nv
		}
	}
	for _, id := range brokers {
		if nv, err := ctl.Node(id); err == nil {
			ls.Nodes = append(ls.Nodes, logNode(id, false, nv))
		}
	}
	end := ls.HighWatermark
	if source != nil {
		end = max(end, source.EndOffset)
	}
	ls.Start = max(0, end-LogStripCells)
	// Committed offsets come from the cluster's committed log, the rest from the source's log.
	for _, e := range ctl.CommittedSince(ls.Start) {
		if e.Offset >= end || e.Offset != ls.Start+int64(len(ls.Records)) {
			break
		}
		ls.Records = append(ls.Records, e.Record.Type())
	}
	if next := ls.Start + int64(len(ls.Records)); source != nil && next < source.EndOffset && next >= source.LogStartOffset {
		ls.Records, _ = ctl.LogTypes(int32(source.ID), next, source.EndOffset, ls.Records)
	}
	return ls
}

func logNode(id int32, controller bool, nv control.NodeView) LogNode {
	n := LogNode{ID: id, Controller: controller, Running: nv.Running, EndOffset: nv.EndOffset,
		HighWatermark: nv.HighWatermark, Applied: nv.Applied, Snapshot: -1}
	if nv.HasSnapshot {
		n.Snapshot = nv.Snapshot.EndOffset
	}
	return n
}
