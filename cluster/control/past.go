package control

import (
	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// past is the image of a store as it was at an offset: what differs from the image now.
type past struct {
	im      *metadata.Image
	count   int32 // partitions
	topics  int32
	elr     int16
	cluster *config.Values
	configs map[int32]*config.Values // topic configs that differ
	live    map[int32]bool           // topics removed since
	regs    map[int32]*registration  // registrations that differ
	parts   map[int32]*metadata.Partition
	undo    []partUndo // the partition notes from the offset on, in order (first per partition wins)
}

// present is an image seen as it is now.
func present(im *metadata.Image) *past {
	return &past{im: im, count: int32(len(im.Partitions)), topics: int32(len(im.Topics)), elr: im.ElrVersion, cluster: &im.Cluster}
}

// partUndo is a partition's value before the entry at off changed it.
type partUndo struct {
	off int64
	idx int32
	p   metadata.Partition
}

// registration is the part of a broker's registration a snapshot writes.
type registration struct {
	registered           bool
	epoch                int64
	incarnation          string
	logDirs              []string
	fenced, inControlled bool
}

func registrationOf(b *metadata.Broker) *registration {
	if b == nil {
		return &registration{}
	}
	return &registration{registered: b.Registered, epoch: b.Epoch, incarnation: b.IncarnationID, logDirs: b.LogDirs,
		fenced: b.Fenced, inControlled: b.InControlledShutdown}
}

// registration returns broker id's registration at the past offset.
func (p *past) registration(id int32) *registration {
	if r, ok := p.regs[id]; ok {
		return r
	}
	return registrationOf(p.im.Broker(id))
}

// topic returns topic t at the past offset: whether it was live, its partition count and its
// configs.
func (p *past) topic(t int32) (live bool, size int32, configs *config.Values) {
	top := &p.im.Topics[t]
	live = !top.Deleted || p.live[t]
	size = min(top.Count, max(p.count-top.First, 0))
	configs = &top.Configs
	if v, ok := p.configs[t]; ok {
		configs = v
	}
	return live, size, configs
}

// partition returns partition idx at the past offset.
func (p *past) partition(idx int32) *metadata.Partition {
	if q, ok := p.parts[idx]; ok {
		return q
	}
	return &p.im.Partitions[idx]
}
