package metadata

// MaxReplicas is the largest replication factor the image stores inline. Keeping a partition's
// replica lists inline (no per-partition pointers) keeps the image small and invisible to the
// garbage collector, which matters in WebAssembly where a GC pause blocks the page.
const MaxReplicas = 8

// replicaPositions is an ordered list of replicas (ISR, ELR, LastKnownElr), stored as positions
// in the partition's replica list, so that Kafka's list order is kept in nine bytes.
type replicaPositions struct {
	pos [MaxReplicas]int8
	n   uint8
}

// Partition is one partition's registration, as Kafka's PartitionRegistration holds it.
type Partition struct {
	Topic          int32 // index into Image.Topics
	ID             int32 // the partition number within its topic
	Leader         int32
	LeaderEpoch    int32
	PartitionEpoch int32
	Recovery       int8 // LeaderRecoveryState
	nReplicas      uint8
	replicas       [MaxReplicas]int32
	isr, elr, lke  replicaPositions
}

// Replicas returns the replica list; replicas[0] is the preferred replica. The slice aliases
// the image and must not be modified.
func (p *Partition) Replicas() []int32 { return p.replicas[:p.nReplicas] }

// Preferred returns the preferred replica, replicas[0].
func (p *Partition) Preferred() int32 {
	if p.nReplicas == 0 {
		return NoLeader
	}
	return p.replicas[0]
}

// HasPreferredLeader reports leader == replicas[0]; a leaderless partition does not have it.
func (p *Partition) HasPreferredLeader() bool { return p.nReplicas > 0 && p.Leader == p.replicas[0] }

// Isr returns the in-sync replicas in Kafka's order (a new slice).
func (p *Partition) Isr() []int32 { return p.ids(&p.isr) }

// Elr returns the eligible leader replicas (a new slice).
func (p *Partition) Elr() []int32 { return p.ids(&p.elr) }

// LastKnownElr returns the last known ELR (a new slice).
func (p *Partition) LastKnownElr() []int32 { return p.ids(&p.lke) }

// AppendIsr appends the ISR to dst and returns it: the allocation-free form of Isr.
func (p *Partition) AppendIsr(dst []int32) []int32 { return p.appendIDs(dst, &p.isr) }

// AppendElr appends the ELR to dst and returns it.
func (p *Partition) AppendElr(dst []int32) []int32 { return p.appendIDs(dst, &p.elr) }

// AppendLastKnownElr appends the last known ELR to dst and returns it.
func (p *Partition) AppendLastKnownElr(dst []int32) []int32 { return p.appendIDs(dst, &p.lke) }

func (p *Partition) appendIDs(dst []int32, l *replicaPositions) []int32 {
	for i := uint8(0); i < l.n; i++ {
		dst = append(dst, p.replicas[l.pos[i]])
	}
	return dst
}

// InIsr reports whether broker b is in the ISR.
func (p *Partition) InIsr(b int32) bool { return p.has(&p.isr, b) }

// InElr reports whether broker b is in the ELR.
func (p *Partition) InElr(b int32) bool { return p.has(&p.elr, b) }

// IsrLen is the size of the ISR.
func (p *Partition) IsrLen() int { return int(p.isr.n) }

// ElrLen is the size of the ELR.
func (p *Partition) ElrLen() int { return int(p.elr.n) }

// LastKnownElrLen is the size of the last known ELR.
func (p *Partition) LastKnownElrLen() int { return int(p.lke.n) }

// IsReplica reports whether broker b holds a replica.
func (p *Partition) IsReplica(b int32) bool { return p.position(b) >= 0 }

func (p *Partition) ids(l *replicaPositions) []int32 {
	out := make([]int32, l.n)
	for i := range out {
		out[i] = p.replicas[l.pos[i]]
	}
	return out
}

func (p *Partition) has(l *replicaPositions, b int32) bool {
	for i := uint8(0); i < l.n; i++ {
		if p.replicas[l.pos[i]] == b {
			return true
		}
	}
	return false
}

func (p *Partition) position(b int32) int {
	for i := uint8(0); i < p.nReplicas; i++ {
		if p.replicas[i] == b {
			return int(i)
		}
	}
	return -1
}

// setList stores an ordered list of brokers as positions; members that are not replicas are an
// error in the record, reported by the caller.
func (p *Partition) setList(l *replicaPositions, ids []int32) bool {
	l.n = 0
	for _, b := range ids {
		i := p.position(b)
		if i < 0 || int(l.n) >= MaxReplicas {
			return false
		}
		l.pos[l.n] = int8(i)
		l.n++
	}
	return true
}
