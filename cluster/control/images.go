package control

import (
	"fmt"
	"slices"

	"github.com/kraftlab/kraftlab/engine/metadata"
)

// images is what the controllers' committed images share: the cluster's committed image (root,
// CommittedView), which the controllers that booted with no snapshot share (see store), the pool
// their snapshots save old partitions in, and how many partitions to size a new image for.
type images struct {
	root *store
	// saved lends the snapshots of every store the chunks they keep old partitions in.
	saved savedPool
	hint  int // Config.PartitionsHint
	iv    *invariants
	// booting is set while quorum.New boots the voters: a voter booting with no snapshot joins
	// root.
	booting bool
}

// newImages returns the shared committed image, empty, sized for hint partitions.
func newImages(hint int, iv *invariants) *images {
	ims := &images{hint: hint, iv: iv}
	ims.root = newStore(hint, &ims.saved)
	ims.root.shared = true
	return ims
}

// newStore returns an empty committed image of a controller's own.
func (ims *images) newStore() *store { return newStore(ims.hint, &ims.saved) }

// commitRoot replays entries the cluster has just committed into the shared committed image, in
// order, calling before and after (either may be nil) around each replay with the entry and, for
// after, the replay's error.
func (ims *images) commitRoot(fresh []CommittedEntry, before func(CommittedEntry), after func(CommittedEntry, error)) {
	reservePartitions(ims.root.image, len(fresh), func(i int) metadata.Record { return fresh[i].Record })
	if st := ims.root; len(st.users) > 0 {
		// A broker's fencing commits tens of thousands of partition changes at once, each
		// journaled: room for them at once rather than a copy of the journal at every growth.
		changes := 0
		for i := range fresh {
			if _, ok := fresh[i].Record.(*metadata.PartitionChangeRecord); ok {
				changes++
			}
		}
		st.parts = slices.Grow(st.parts, changes)
	}
	for i := range fresh {
		if before != nil {
			before(fresh[i])
		}
		err := ims.replayRoot(fresh[i].Entry)
		if after != nil {
			after(fresh[i], err)
		}
	}
}

// replayRoot replays one newly committed entry into the shared committed image, noting first
// what it changes for the controllers behind it.
func (ims *images) replayRoot(e metadata.Entry) error {
	st := ims.root
	if e.Offset != st.at {
		ims.iv.violate("controllers apply the committed log without gaps", fmt.Sprintf("the shared committed image is at offset %d", st.at),
			fmt.Sprintf("the cluster commits offset %d", e.Offset))
	}
	if len(st.users) > 0 {
		st.journal(e)
	}
	err := ims.replayEntry(st, e, sharedImage)
	st.at = e.Offset + 1
	return err
}

// replayEntry replays one committed entry into st's image: the snapshots reading from it keep
// what it changes, and a partition's epochs must not go down. node is the controller whose own
// image it is, or sharedImage (for the messages).
func (ims *images) replayEntry(st *store, e metadata.Entry, node int32) error {
	im := st.image
	var idx int32 = -1
	var le, pe int32
	if pc, ok := e.Record.(*metadata.PartitionChangeRecord); ok {
		if p, ok := im.ChangeIndex(pc); ok {
			idx, le, pe = p, im.Partitions[p].LeaderEpoch, im.Partitions[p].PartitionEpoch
		}
	}
	if len(st.snaps) > 0 {
		st.beforeReplay(e.Record, idx)
	}
	if err := im.Replay(e); err != nil {
		ims.iv.violate("committed records replay", fmt.Sprintf("%s is at offset %d", whose(node), e.Offset), err.Error())
		return err
	}
	if idx >= 0 {
		p := &im.Partitions[idx]
		if p.LeaderEpoch < le || p.PartitionEpoch < pe {
			ims.iv.violate("partition epochs never go down", fmt.Sprintf("%s had %s-%d at leader epoch %d, partition epoch %d", whose(node), im.TopicName(p), p.ID, le, pe),
				fmt.Sprintf("offset %d leaves it at leader epoch %d, partition epoch %d", e.Offset, p.LeaderEpoch, p.PartitionEpoch))
		}
	}
	st.at = e.Offset + 1
	return nil
}

// sharedImage stands for the shared committed image where replayEntry takes a node id.
const sharedImage int32 = -1

// whose names the committed image replayEntry replays into, for its messages.
func whose(node int32) string {
	if node == sharedImage {
		return "the shared committed image"
	}
	return fmt.Sprintf("node %d's committed image", node)
}
