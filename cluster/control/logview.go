package control

import (
	"github.com/kraftlab/kraftlab/cluster/quorum"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// LogTypes appends to dst the record type of each of node's log entries at offsets
// [from, to), committed or not: LeaderChangeMessage for the quorum's control entries, the
// record's Type otherwise. The range must lie in the node's log (as for quorum.Read). It is
// what the page's metadata log strip reads past the high watermark, where the committed log
// (Committed) has nothing yet.
func (c *Controllers) LogTypes(node int32, from, to int64, dst []string) ([]string, error) {
	ents, err := c.q.Read(quorum.NodeID(node), from, to, nil)
	if err != nil {
		return dst, err
	}
	for _, e := range ents {
		dst = append(dst, entryType(e))
	}
	return dst, nil
}

// entryType names a quorum entry's record.
func entryType(e quorum.Entry[metadata.Record]) string {
	if e.Control != nil || e.Payload == nil {
		return metadata.LeaderChangeMessage{}.Type()
	}
	return e.Payload.Type()
}
