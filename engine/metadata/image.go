package metadata

import (
	"fmt"
	"hash/fnv"
	"slices"
	"sort"

	"github.com/kraftlab/kraftlab/engine/config"
)

// Topic is a topic's registration. A deleted topic keeps its slot (so partition indexes stay
// stable) with Deleted set.
type Topic struct {
	Name    string
	ID      string
	Deleted bool
	// First is the index in Image.Partitions of partition 0; the partitions are consecutive.
	First, Count int32
	Configs      config.Values
	hash         uint32
}

// Broker is a broker's registration plus the per-broker indexes the controller keeps. A broker
// named as a replica but never registered has a slot with Registered false.
type Broker struct {
	ID            int32
	Registered    bool
	Epoch         int64
	IncarnationID string
	// RegisteredDirs are the log directories the incarnation registered with; LogDirs are those
	// still online (a BrokerRegistrationChangeRecord replaces them when a directory fails).
	RegisteredDirs       []string
	LogDirs              []string
	Fenced               bool
	InControlledShutdown bool
	// RegisterOffset is the offset of the broker's RegisterBrokerRecord: a broker has caught up
	// (and may be unfenced) once its metadata offset reaches it.
	RegisterOffset int64

	replicaOf  []int32 // partitions where the broker is a replica
	imbalanced []int32 // imbalanced partitions whose preferred replica is this broker
	// imbKeys holds the IterationKey of each partition in imbalanced, at the same position:
	// computed when a partition joins the set (its registration is at hand then), so that the
	// preferred-leader pass orders the set without reaching into the partitions again.
	imbKeys []uint32
	// imbFlags holds the ImbalancedFlags of each partition in imbalanced, at the same position,
	// so that the preferred-leader pass can tell which partitions it must examine without
	// reading them.
	imbFlags  []uint8
	preferred int32 // partitions whose preferred replica is this broker
	// quietLed counts the imbalanced partitions flagged ImbQuiet whose leader is this broker:
	// their PREFERRED elections are no-ops only while this broker is an acceptable leader.
	quietLed int32
	leads    int32 // partitions this broker leads (as one of their replicas)
}

// The flags of an imbalanced partition (ImbalancedFlags), from its own registration alone.
const (
	// ImbPrefInIsr: the preferred replica is in the ISR.
	ImbPrefInIsr uint8 = 1 << iota
	// ImbQuiet: the leader is in the ISR, the preferred replica is not, and the ELR and
	// LastKnownElr are empty. Kafka's PREFERRED election on such a partition then writes no
	// record as long as the leader is an acceptable leader for it: the preferred replica is not
	// a valid leader whatever its broker's state, the current leader is kept, and no ISR, ELR or
	// LastKnownElr target differs from the current lists.
	ImbQuiet
)

// imbalancedFlags computes a partition's ImbalancedFlags.
func imbalancedFlags(p *Partition) uint8 {
	if p.InIsr(p.replicas[0]) {
		return ImbPrefInIsr
	}
	if p.Leader >= 0 && p.elr.len() == 0 && p.lke.len() == 0 && p.InIsr(p.Leader) {
		return ImbQuiet
	}
	return 0
}

// Image is the metadata state built by replaying the log.
type Image struct {
	Topics     []Topic
	Partitions []Partition
	Cluster    config.Values
	// ElrVersion is the eligible.leader.replicas.version feature level.
	ElrVersion int16

	topicByID, topicByName map[string]int32
	// lastTopic is the topic the latest TopicRecord or PartitionChangeRecord named (-1 for
	// none): the records of one run of changes mostly name the same topic, and comparing its
	// id (usually the very same string) is cheaper than hashing it for a map lookup.
	lastTopic int32
	brokers   []Broker
	slotOf    map[int32]int32
	// denseSlot is slotOf for ids below maxDenseID, as slot+1 (0 for none): the partition
	// indexes look a broker up on every replay, and a slice index beats a map lookup.
	denseSlot   []int32
	sortedSlots []int32 // broker slots in broker-id order
	// configGen counts the ConfigRecords replayed, so that a reader may cache configs it
	// resolves until the next one.
	configGen             uint64
	imbPos                []int32 // position in the preferred broker's imbalanced list, or -1
	noLeader, noLeaderPos []int32
}

// NewImage returns an empty image with the features at their defaults.
func NewImage() *Image {
	return &Image{
		ElrVersion:  1,
		topicByID:   map[string]int32{},
		topicByName: map[string]int32{},
		slotOf:      map[int32]int32{},
		lastTopic:   -1,
	}
}

// maxDenseID bounds the broker ids found through Image.denseSlot rather than the map: broker
// ids are small in practice (and below the toy cluster's first controller id).
const maxDenseID = 4096

// slotIndex finds a broker's slot.
func (im *Image) slotIndex(id int32) (int32, bool) {
	if id >= 0 && int(id) < len(im.denseSlot) {
		s := im.denseSlot[id] - 1
		return s, s >= 0
	}
	if id >= 0 && id < maxDenseID {
		return 0, false
	}
	s, ok := im.slotOf[id]
	return s, ok
}

// topicOf finds a live topic by id, trying the topic of the previous change first.
func (im *Image) topicOf(id string) (int32, bool) {
	if t := im.lastTopic; t >= 0 && int(t) < len(im.Topics) && im.Topics[t].ID == id && !im.Topics[t].Deleted {
		return t, true
	}
	t, ok := im.topicByID[id]
	if ok {
		im.lastTopic = t
	}
	return t, ok
}

// ReservePartitions makes room for n more partitions, so that replaying a batch that creates
// many (a bootstrap, a snapshot) does not grow the partition slices one append at a time. It
// at least doubles the capacity when it grows, so batches in a row stay amortised. Only the
// capacity changes.
func (im *Image) ReservePartitions(n int) {
	if n <= 0 {
		return
	}
	grow := func(have, length int) int {
		if have-length >= n {
			return 0
		}
		return max(n, length)
	}
	if g := grow(cap(im.Partitions), len(im.Partitions)); g > 0 {
		im.Partitions = slices.Grow(im.Partitions, g)
	}
	if g := grow(cap(im.imbPos), len(im.imbPos)); g > 0 {
		im.imbPos = slices.Grow(im.imbPos, g)
	}
	if g := grow(cap(im.noLeaderPos), len(im.noLeaderPos)); g > 0 {
		im.noLeaderPos = slices.Grow(im.noLeaderPos, g)
	}
}

// ConfigGeneration changes whenever a ConfigRecord is replayed: configs resolved from the
// image's cluster and topic levels stay valid while it stays the same.
func (im *Image) ConfigGeneration() uint64 { return im.configGen }

// ElrEnabled reports whether KIP-966's Eligible Leader Replicas are on.
func (im *Image) ElrEnabled() bool { return im.ElrVersion >= 1 }

// TopicByName returns a live topic's index.
func (im *Image) TopicByName(name string) (int32, bool) {
	i, ok := im.topicByName[name]
	return i, ok
}

// PartitionIndex returns the index in Partitions of a topic's partition.
func (im *Image) PartitionIndex(topic string, partition int32) (int32, bool) {
	t := im.lastTopic
	if t < 0 || int(t) >= len(im.Topics) || im.Topics[t].Name != topic || im.Topics[t].Deleted {
		var ok bool
		if t, ok = im.topicByName[topic]; !ok {
			return 0, false
		}
	}
	if partition < 0 || partition >= im.Topics[t].Count {
		return 0, false
	}
	return im.Topics[t].First + partition, true
}

// TopicByID returns a live topic's index, found by its id as RemoveTopicRecord names it.
func (im *Image) TopicByID(id string) (int32, bool) {
	i, ok := im.topicByID[id]
	return i, ok
}

// ChangeIndex returns the index in Partitions of the partition a PartitionChangeRecord changes,
// found as Replay finds it (by topic id), and false when Replay would refuse the record for an
// unknown partition.
func (im *Image) ChangeIndex(r *PartitionChangeRecord) (int32, bool) {
	t, ok := im.topicOf(r.TopicID)
	if !ok || r.PartitionID < 0 || r.PartitionID >= im.Topics[t].Count {
		return 0, false
	}
	return im.Topics[t].First + r.PartitionID, true
}

// TopicName returns the name of a partition's topic.
func (im *Image) TopicName(p *Partition) string { return im.Topics[p.Topic].Name }

// Broker returns a broker's registration, or nil if the broker was never seen.
func (im *Image) Broker(id int32) *Broker {
	s, ok := im.slotIndex(id)
	if !ok {
		return nil
	}
	return &im.brokers[s]
}

// BrokerIDs returns the ids of every broker seen (registered or named as a replica), sorted.
func (im *Image) BrokerIDs() []int32 {
	out := make([]int32, len(im.sortedSlots))
	for i, s := range im.sortedSlots {
		out[i] = im.brokers[s].ID
	}
	return out
}

// ReplicaDir returns the log directory that holds broker id's replica of partition p. The model
// does not record directories per partition: a broker with several directories spreads its
// replicas over them by partition number, as its log manager would, and the assignment stays
// fixed for the incarnation. It returns "" for a broker with no directories.
func (im *Image) ReplicaDir(id int32, p int32) string {
	b := im.Broker(id)
	if b == nil || len(b.RegisteredDirs) == 0 {
		return ""
	}
	return b.RegisteredDirs[int(im.Partitions[p].ID)%len(b.RegisteredDirs)]
}

// ReplicaDirOnline reports whether broker id's replica of partition p is in an online log
// directory (Kafka's ClusterControlManager.hasOnlineDir).
func (im *Image) ReplicaDirOnline(id int32, p int32) bool {
	dir := im.ReplicaDir(id, p)
	if dir == "" {
		return true
	}
	for _, d := range im.Broker(id).LogDirs {
		if d == dir {
			return true
		}
	}
	return false
}

// ReplicaPartitions returns the partitions where broker id is a replica (aliases the image).
func (im *Image) ReplicaPartitions(id int32) []int32 {
	if b := im.Broker(id); b != nil {
		return b.replicaOf
	}
	return nil
}

// ImbalancedPreferring returns the imbalanced partitions whose preferred replica is broker id,
// in no particular order (aliases the image).
func (im *Image) ImbalancedPreferring(id int32) []int32 {
	if b := im.Broker(id); b != nil {
		return b.imbalanced
	}
	return nil
}

// ImbalancedKeys returns the IterationKey of each partition ImbalancedPreferring returns, at the
// same positions (aliases the image).
func (im *Image) ImbalancedKeys(id int32) []uint32 {
	if b := im.Broker(id); b != nil {
		return b.imbKeys
	}
	return nil
}

// ImbalancedFlags returns the flags (ImbPrefInIsr, ImbQuiet) of each partition
// ImbalancedPreferring returns, at the same positions (aliases the image).
func (im *Image) ImbalancedFlags(id int32) []uint8 {
	if b := im.Broker(id); b != nil {
		return b.imbFlags
	}
	return nil
}

// QuietLed is the number of imbalanced partitions flagged ImbQuiet whose leader is broker id.
// While it is 0 for every broker that is not an acceptable leader for all of its replicas, a
// PREFERRED election on any partition flagged ImbQuiet writes nothing.
func (im *Image) QuietLed(id int32) int {
	if b := im.Broker(id); b != nil {
		return int(b.quietLed)
	}
	return 0
}

// DirsOnline reports whether every log directory broker id registered is still online, so that
// each of its replicas is in an online directory.
func (im *Image) DirsOnline(id int32) bool {
	b := im.Broker(id)
	if b == nil {
		return true
	}
	for _, dir := range b.RegisteredDirs {
		if !slices.Contains(b.LogDirs, dir) {
			return false
		}
	}
	return true
}

// LeaderCount is the number of partitions broker id leads, among those where it is a replica
// (ReplicaPartitions): kept as leaders change, so that a controlled shutdown can ask whether
// any leadership is left without reading every partition.
func (im *Image) LeaderCount(id int32) int {
	if b := im.Broker(id); b != nil {
		return int(b.leads)
	}
	return 0
}

// countLeader adds d to the count of partitions p's leader leads, if it is one of p's replicas.
func (im *Image) countLeader(p *Partition, d int32) {
	if p.Leader >= 0 && p.IsReplica(p.Leader) {
		im.Broker(p.Leader).leads += d
	}
}

// PreferredCount is the number of partitions whose preferred replica is broker id.
func (im *Image) PreferredCount(id int32) int {
	if b := im.Broker(id); b != nil {
		return int(b.preferred)
	}
	return 0
}

// ImbalancedCount is the size of Kafka's imbalancedPartitions set, which is also the
// PreferredReplicaImbalanceCount gauge: partitions whose leader is not replicas[0], leaderless
// ones included.
func (im *Image) ImbalancedCount() int {
	n := 0
	for i := range im.brokers {
		n += len(im.brokers[i].imbalanced)
	}
	return n
}

// Leaderless returns the partitions with no leader (aliases the image).
func (im *Image) Leaderless() []int32 { return im.noLeader }

// IterationKey orders partitions the way Kafka's timeline hash set iterates them: by a
// multiplicative hash of the topic id and partition. The order is pseudo-random but stable,
// not grouped by topic or broker, as in Kafka.
func (im *Image) IterationKey(p int32) uint32 {
	part := &im.Partitions[p]
	return (im.Topics[part.Topic].hash*31 + uint32(part.ID)) * 0x9E3779B9
}

// Replay applies one record to the image.
func (im *Image) Replay(e Entry) error {
	switch r := e.Record.(type) {
	case *RegisterBrokerRecord:
		b := im.slot(r.BrokerID)
		b.Registered = true
		b.Epoch = r.BrokerEpoch
		b.IncarnationID = r.IncarnationID
		b.LogDirs = append([]string(nil), r.LogDirs...)
		b.RegisteredDirs = append([]string(nil), r.LogDirs...)
		b.Fenced = r.Fenced
		b.InControlledShutdown = r.InControlledShutdown
		b.RegisterOffset = e.Offset
	case *BrokerRegistrationChangeRecord:
		b := im.Broker(r.BrokerID)
		if b == nil || !b.Registered || b.Epoch != r.BrokerEpoch {
			return fmt.Errorf("offset %d: BrokerRegistrationChangeRecord for broker %d epoch %d, which is not registered", e.Offset, r.BrokerID, r.BrokerEpoch)
		}
		switch r.Fenced {
		case FenceFence:
			b.Fenced = true
		case FenceUnfence:
			b.Fenced = false
		}
		if r.InControlledShutdown == 1 {
			b.InControlledShutdown = true
		}
		if r.LogDirs != nil {
			b.LogDirs = append([]string(nil), r.LogDirs...)
		}
	case *TopicRecord:
		if _, dup := im.topicByName[r.Name]; dup {
			return fmt.Errorf("offset %d: TopicRecord for existing topic %q", e.Offset, r.Name)
		}
		h := fnv.New32a()
		h.Write([]byte(r.TopicID))
		idx := int32(len(im.Topics))
		im.Topics = append(im.Topics, Topic{Name: r.Name, ID: r.TopicID, First: int32(len(im.Partitions)), hash: h.Sum32()})
		im.topicByID[r.TopicID] = idx
		im.topicByName[r.Name] = idx
		im.lastTopic = idx
	case *PartitionRecord:
		return im.replayPartition(e.Offset, r)
	case *PartitionChangeRecord:
		return im.replayPartitionChange(e.Offset, r)
	case *RemoveTopicRecord:
		return im.removeTopic(e.Offset, r)
	case *ClearElrRecord:
		im.clearElr(r)
	case *ConfigRecord:
		return im.replayConfig(e.Offset, r)
	case *FeatureLevelRecord:
		if r.Name == config.EligibleLeaderReplicasVersion {
			im.ElrVersion = r.FeatureLevel
		}
	case *NoOpRecord, *LeaderChangeMessage:
	default:
		return fmt.Errorf("offset %d: unknown record %T", e.Offset, e.Record)
	}
	return nil
}

func (im *Image) slot(id int32) *Broker {
	if s, ok := im.slotIndex(id); ok {
		return &im.brokers[s]
	}
	s := int32(len(im.brokers))
	im.brokers = append(im.brokers, Broker{ID: id})
	im.slotOf[id] = s
	if id >= 0 && id < maxDenseID {
		for int(id) >= len(im.denseSlot) {
			im.denseSlot = append(im.denseSlot, 0)
		}
		im.denseSlot[id] = s + 1
	}
	at := sort.Search(len(im.sortedSlots), func(i int) bool { return im.brokers[im.sortedSlots[i]].ID > id })
	im.sortedSlots = append(im.sortedSlots, 0)
	copy(im.sortedSlots[at+1:], im.sortedSlots[at:])
	im.sortedSlots[at] = s
	return &im.brokers[s]
}

func (im *Image) replayPartition(off int64, r *PartitionRecord) error {
	t, ok := im.topicOf(r.TopicID)
	if !ok {
		return fmt.Errorf("offset %d: PartitionRecord for unknown topic id %s", off, r.TopicID)
	}
	top := &im.Topics[t]
	if top.First+top.Count != int32(len(im.Partitions)) || r.PartitionID != top.Count {
		return fmt.Errorf("offset %d: PartitionRecord %s-%d is out of order", off, top.Name, r.PartitionID)
	}
	if len(r.Replicas) == 0 || len(r.Replicas) > MaxReplicas {
		return fmt.Errorf("offset %d: PartitionRecord %s-%d has %d replicas; the model allows 1 to %d", off, top.Name, r.PartitionID, len(r.Replicas), MaxReplicas)
	}
	if s := r.LeaderRecoveryState; s != Recovered && s != Recovering {
		return fmt.Errorf("offset %d: PartitionRecord %s-%d has LeaderRecoveryState %d; it must be %d (RECOVERED) or %d (RECOVERING)", off, top.Name, r.PartitionID, s, Recovered, Recovering)
	}
	p := Partition{Topic: t, ID: r.PartitionID, Leader: r.Leader, LeaderEpoch: r.LeaderEpoch,
		PartitionEpoch: r.PartitionEpoch}
	p.numReplicas = uint8(len(r.Replicas)) // before setList, which finds positions among them
	p.recovery = r.LeaderRecoveryState
	copy(p.replicas[:], r.Replicas)
	if !p.setList(&p.isr, r.Isr) || !p.setList(&p.elr, r.Elr) || !p.setList(&p.lke, r.LastKnownElr) {
		return fmt.Errorf("offset %d: PartitionRecord %s-%d names a broker that is not a replica", off, top.Name, r.PartitionID)
	}
	idx := int32(len(im.Partitions))
	im.Partitions = append(im.Partitions, p)
	im.imbPos = append(im.imbPos, -1)
	im.noLeaderPos = append(im.noLeaderPos, -1)
	top.Count++
	for _, b := range r.Replicas {
		br := im.slot(b)
		br.replicaOf = append(br.replicaOf, idx)
	}
	im.slot(r.Replicas[0]).preferred++
	im.countLeader(&im.Partitions[idx], 1)
	im.updateIndexes(idx, NoLeaderChange)
	return nil
}

func (im *Image) replayPartitionChange(off int64, r *PartitionChangeRecord) error {
	idx, ok := im.ChangeIndex(r)
	if !ok {
		return fmt.Errorf("offset %d: PartitionChangeRecord for unknown partition %s-%d", off, r.Topic, r.PartitionID)
	}
	p := &im.Partitions[idx]
	next := *p
	next.PartitionEpoch++
	if r.Leader != NoLeaderChange {
		next.Leader = r.Leader
		next.LeaderEpoch++
	}
	ok = true
	if r.Isr != nil {
		ok = ok && next.setList(&next.isr, r.Isr)
	}
	if r.Elr != nil {
		ok = ok && next.setList(&next.elr, r.Elr)
	}
	if r.LastKnownElr != nil {
		ok = ok && next.setList(&next.lke, r.LastKnownElr)
	}
	if !ok {
		return fmt.Errorf("offset %d: PartitionChangeRecord %s-%d names a broker that is not a replica", off, r.Topic, r.PartitionID)
	}
	switch s := r.LeaderRecoveryState; s {
	case NoRecoveryChange:
	case Recovered, Recovering:
		next.recovery = s
	default:
		return fmt.Errorf("offset %d: PartitionChangeRecord %s-%d has LeaderRecoveryState %d; it must be %d (no change), %d (RECOVERED) or %d (RECOVERING)", off, r.Topic, r.PartitionID, s, NoRecoveryChange, Recovered, Recovering)
	}
	// The sets follow the leader, and an imbalanced partition's flags: a change that leaves the
	// partition as imbalanced and as leaderless as it was, with the same flags (an ISR change
	// outside the preferred replica, most records of a rolling restart), leaves them as they
	// are, and skipping them saves two cache misses per record.
	moved := next.HasPreferredLeader() != p.HasPreferredLeader() || (next.Leader == NoLeader) != (p.Leader == NoLeader)
	if !moved && !next.HasPreferredLeader() {
		was := imbalancedFlags(p)
		moved = was != imbalancedFlags(&next) || (was&ImbQuiet != 0 && next.Leader != p.Leader)
	}
	oldLeader := p.Leader
	if next.Leader != oldLeader {
		im.countLeader(p, -1)
		im.countLeader(&next, 1)
	}
	*p = next
	if moved {
		im.updateIndexes(idx, oldLeader)
	}
	return nil
}

// updateIndexes keeps the imbalanced and leaderless sets, and the imbalanced partitions' flags,
// in step with a partition, as Kafka does at the end of every partition replay. oldLeader is the
// partition's leader before the change, or NoLeaderChange for a new partition: the leaderless
// set changes only when the partition gains or loses its leader, so no other change reads its
// position there (a cache miss).
func (im *Image) updateIndexes(idx int32, oldLeader int32) {
	p := &im.Partitions[idx]
	pref := im.Broker(p.Preferred())
	pos := im.imbPos[idx]
	if pos >= 0 && pref.imbFlags[pos]&ImbQuiet != 0 {
		im.Broker(oldLeader).quietLed--
	}
	if p.HasPreferredLeader() {
		if pos >= 0 {
			removeImbalanced(pref, im.imbPos, pos)
		}
	} else {
		f := imbalancedFlags(p)
		if pos >= 0 {
			pref.imbFlags[pos] = f
		} else {
			im.imbPos[idx] = int32(len(pref.imbalanced))
			pref.imbalanced = append(pref.imbalanced, idx)
			pref.imbKeys = append(pref.imbKeys, im.IterationKey(idx))
			pref.imbFlags = append(pref.imbFlags, f)
		}
		if f&ImbQuiet != 0 {
			im.Broker(p.Leader).quietLed++
		}
	}
	if p.Leader == NoLeader && oldLeader != NoLeader {
		im.noLeaderPos[idx] = int32(len(im.noLeader))
		im.noLeader = append(im.noLeader, idx)
	} else if p.Leader != NoLeader && oldLeader == NoLeader {
		removeAt(&im.noLeader, im.noLeaderPos, im.noLeaderPos[idx])
	}
}

// removeAt deletes the element at pos from a dense set by moving the last element into its
// place, keeping the position index of the moved element right.
func removeAt(set *[]int32, posOf []int32, pos int32) {
	s := *set
	gone := s[pos]
	last := s[len(s)-1]
	s[pos] = last
	posOf[last] = pos
	posOf[gone] = -1
	*set = s[:len(s)-1]
}

// removeImbalanced is removeAt for a broker's imbalanced set, moving the keys and flags alike.
// The caller settles quietLed.
func removeImbalanced(b *Broker, posOf []int32, pos int32) {
	last := len(b.imbKeys) - 1
	b.imbKeys[pos] = b.imbKeys[last]
	b.imbKeys = b.imbKeys[:last]
	b.imbFlags[pos] = b.imbFlags[last]
	b.imbFlags = b.imbFlags[:last]
	removeAt(&b.imbalanced, posOf, pos)
}

func (im *Image) removeTopic(off int64, r *RemoveTopicRecord) error {
	t, ok := im.topicByID[r.TopicID]
	if !ok {
		return fmt.Errorf("offset %d: RemoveTopicRecord for unknown topic id %s", off, r.TopicID)
	}
	top := &im.Topics[t]
	for idx := top.First; idx < top.First+top.Count; idx++ {
		p := &im.Partitions[idx]
		if pos := im.imbPos[idx]; pos >= 0 {
			pref := im.Broker(p.Preferred())
			if pref.imbFlags[pos]&ImbQuiet != 0 {
				im.Broker(p.Leader).quietLed--
			}
			removeImbalanced(pref, im.imbPos, pos)
		}
		if pos := im.noLeaderPos[idx]; pos >= 0 {
			removeAt(&im.noLeader, im.noLeaderPos, pos)
		}
		im.Broker(p.Preferred()).preferred--
		im.countLeader(p, -1)
	}
	// Each broker's replica list is compacted once, rather than once per partition.
	for i := range im.brokers {
		b := &im.brokers[i]
		kept := b.replicaOf[:0]
		for _, idx := range b.replicaOf {
			if idx < top.First || idx >= top.First+top.Count {
				kept = append(kept, idx)
			}
		}
		b.replicaOf = kept
	}
	top.Deleted = true
	delete(im.topicByName, top.Name)
	delete(im.topicByID, top.ID)
	return nil
}

func (im *Image) clearElr(r *ClearElrRecord) {
	clear := func(idx int32) {
		p := &im.Partitions[idx]
		if p.elr.len() > 0 || p.lke.len() > 0 {
			p.elr, p.lke = 0, 0
			p.PartitionEpoch++
			// The flags of an imbalanced partition read the ELR and LastKnownElr.
			if pos := im.imbPos[idx]; pos >= 0 && im.Broker(p.Preferred()).imbFlags[pos] != imbalancedFlags(p) {
				im.updateIndexes(idx, p.Leader)
			}
		}
	}
	for t := range im.Topics {
		top := &im.Topics[t]
		if top.Deleted || (r.TopicID != "" && top.ID != r.TopicID) {
			continue
		}
		for idx := top.First; idx < top.First+top.Count; idx++ {
			clear(idx)
		}
	}
}

func (im *Image) replayConfig(off int64, r *ConfigRecord) error {
	im.configGen++
	level, scope := &im.Cluster, config.Cluster
	if r.ResourceType == ResourceTopic {
		t, ok := im.topicByName[r.ResourceName]
		if !ok {
			return fmt.Errorf("offset %d: ConfigRecord for unknown topic %q", off, r.ResourceName)
		}
		level, scope = &im.Topics[t].Configs, config.Topic
	}
	if r.Value == nil {
		level.Delete(r.Name)
		return nil
	}
	if err := level.Set(r.Name, *r.Value, scope); err != nil {
		return fmt.Errorf("offset %d: %w", off, err)
	}
	return nil
}
