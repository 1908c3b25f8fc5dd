package metadata

// MaxReplicas is the largest replication factor the image stores inline. Keeping a partition's
// replica lists inline (no per-partition pointers) keeps the image small and invisible to the
// garbage collector, which matters in WebAssembly where a GC pause blocks the page.
const MaxReplicas = 8

// replicaPositions is an ordered list of replicas (ISR, ELR, LastKnownElr), stored as positions
// in the partition's replica list so that Kafka's list order is kept: its length in bits 0–3
// and position i in the three bits from 4+3i (MaxReplicas positions take 28 bits).
type replicaPositions uint32

const posBits = 3

func (l replicaPositions) len() int     { return int(l & 0xf) }
func (l replicaPositions) at(i int) int { return int(l>>(4+posBits*i)) & (1<<posBits - 1) }

// Partition is one partition's registration, as Kafka's PartitionRegistration holds it.
type Partition struct {
	Topic          int32 // index into Image.Topics
	ID             int32 // the partition number within its topic
	Leader         int32
	LeaderEpoch    int32
	PartitionEpoch int32
	replicas       [MaxReplicas]int32 // the first numReplicas are the replica list
	isr, elr, lke  replicaPositions
	numReplicas    uint8
	recovery       int8 // LeaderRecoveryState
}

// count is the number of replicas.
func (p *Partition) count() int { return int(p.numReplicas) }

// Recovery is the partition's LeaderRecoveryState (Recovered or Recovering).
func (p *Partition) Recovery() int8 { return p.recovery }

// Replicas returns the replica list; replicas[0] is the preferred replica. The slice aliases
// the image and must not be modified.
func (p *Partition) Replicas() []int32 { return p.replicas[:p.count()] }

// Preferred returns the preferred replica, replicas[0].
func (p *Partition) Preferred() int32 {
	if p.count() == 0 {
		return NoLeader
	}
	return p.replicas[0]
}

// HasPreferredLeader reports leader == replicas[0]; a leaderless partition does not have it.
func (p *Partition) HasPreferredLeader() bool { return p.count() > 0 && p.Leader == p.replicas[0] }

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
	for i := range l.len() {
		dst = append(dst, p.replicas[l.at(i)])
	}
	return dst
}

// InIsr reports whether broker b is in the ISR.
func (p *Partition) InIsr(b int32) bool { return p.has(&p.isr, b) }

// InElr reports whether broker b is in the ELR.
func (p *Partition) InElr(b int32) bool { return p.has(&p.elr, b) }

// IsrLen is the size of the ISR.
func (p *Partition) IsrLen() int { return p.isr.len() }

// ElrLen is the size of the ELR.
func (p *Partition) ElrLen() int { return p.elr.len() }

// LastKnownElrLen is the size of the last known ELR.
func (p *Partition) LastKnownElrLen() int { return p.lke.len() }

// IsReplica reports whether broker b holds a replica.
func (p *Partition) IsReplica(b int32) bool { return p.position(b) >= 0 }

func (p *Partition) ids(l *replicaPositions) []int32 {
	out := make([]int32, l.len())
	for i := range out {
		out[i] = p.replicas[l.at(i)]
	}
	return out
}

func (p *Partition) has(l *replicaPositions, b int32) bool {
	for i := range l.len() {
		if p.replicas[l.at(i)] == b {
			return true
		}
	}
	return false
}

func (p *Partition) position(b int32) int {
	for i := range p.count() {
		if p.replicas[i] == b {
			return i
		}
	}
	return -1
}

// setList stores an ordered list of brokers as positions; members that are not replicas are an
// error in the record, reported by the caller.
func (p *Partition) setList(l *replicaPositions, ids []int32) bool {
	*l = 0
	for n, b := range ids {
		i := p.position(b)
		if i < 0 || n >= MaxReplicas {
			return false
		}
		*l |= replicaPositions(i) << (4 + posBits*n)
		*l = *l&^0xf | replicaPositions(n+1)
	}
	return true
}
