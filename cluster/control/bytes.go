package control

import (
	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// Sizes of the framing around every metadata record, in bytes. The quorum counts entry bytes
// for metadata.log.max.record.bytes.between.snapshots, retention and fetch sizes, so the
// figures aim at the order of magnitude of Kafka's encoding rather than at exactness.
const (
	// BatchHeaderBytes is Kafka's record batch header (DefaultRecordBatch.RECORD_BATCH_OVERHEAD,
	// 61 bytes). The records one engine call writes are one batch, as one controller event's
	// records are in Kafka, so the first record of each batch is charged for it.
	BatchHeaderBytes = 61
	// recordFrameBytes is a record's own framing inside a batch (length, attributes, timestamp
	// and offset deltas, a null key, value length, header count: about 8 bytes of varints) plus
	// the metadata frame around the message (frame version, api key, version: 3 bytes).
	recordFrameBytes = 11
	// snapshotBatchBytes is how many record bytes a snapshot packs under one batch header. A
	// model choice: snapshots are written in batches of 8 KiB.
	snapshotBatchBytes = 8 << 10
)

// Field sizes in Kafka's flexible (compact) encoding.
const (
	uuidBytes   = 16
	int64Bytes  = 8
	int32Bytes  = 4
	int16Bytes  = 2
	tagBytes    = 1 // the tagged-field count of a flexible message (no tags)
	taggedField = 2 // one tagged field's tag and size varints
)

func strBytes(s string) int32 { return 1 + int32(len(s)) } // compact string: uvarint(len+1) + bytes

func int32sBytes(n int) int32 { return 1 + int32Bytes*int32(n) } // compact int32 array

// RecordBytes estimates the bytes one metadata record takes in the metadata log: the record's
// framing plus its fields as Kafka's schemas (flexible versions) encode them:
//
//	RegisterBrokerRecord            ~104 + 16 per log dir (id, incarnation uuid, epoch, one
//	                                listener, two feature ranges, flags, directory uuids)
//	BrokerRegistrationChangeRecord  13 + 3 per flag set + 16 per log dir
//	TopicRecord                     18 + name
//	PartitionRecord                 39 + 24 per replica + 4 per ISR member (+ ELR, LastKnownElr)
//	PartitionChangeRecord           21 + only the tagged fields it sets
//	RemoveTopicRecord               17
//	ClearElrRecord                  2 + topic name
//	NoOpRecord                      1
//	ConfigRecord                    5 + resource name + config name + value
//	FeatureLevelRecord              4 + feature name
//
// each plus 11 bytes of record framing. A LeaderChangeMessage is written by the quorum and
// charged quorum.LeaderChangeBytes there. The result is at least 1, as the quorum requires.
func RecordBytes(r metadata.Record) int32 {
	return recordFrameBytes + bodyBytes(r)
}

func bodyBytes(r metadata.Record) int32 {
	switch v := r.(type) {
	case *metadata.RegisterBrokerRecord:
		const listener = 1 + 10 + 9 + int16Bytes + int16Bytes + tagBytes // name, host, port, protocol
		const features = 1 + 2*(17+int16Bytes+int16Bytes+tagBytes)       // metadata.version, kraft.version
		return int32Bytes + 1 + uuidBytes + int64Bytes + listener + features + 1 + 1 + 1 +
			1 + uuidBytes*int32(len(v.LogDirs)) + tagBytes
	case *metadata.BrokerRegistrationChangeRecord:
		n := int32(int32Bytes + int64Bytes + tagBytes)
		if v.Fenced != metadata.FenceNone {
			n += taggedField + 1
		}
		if v.InControlledShutdown != 0 {
			n += taggedField + 1
		}
		if v.LogDirs != nil {
			n += taggedField + 1 + uuidBytes*int32(len(v.LogDirs))
		}
		return n
	case *metadata.TopicRecord:
		return strBytes(v.Name) + uuidBytes + tagBytes
	case *metadata.PartitionRecord:
		return partitionBodyBytes(len(v.Replicas), len(v.Isr), len(v.Elr), len(v.LastKnownElr))
	case *metadata.PartitionChangeRecord:
		n := int32(int32Bytes + uuidBytes + tagBytes)
		if v.Leader != metadata.NoLeaderChange {
			n += taggedField + int32Bytes
		}
		if v.Isr != nil {
			n += taggedField + int32sBytes(len(v.Isr))
		}
		if v.Elr != nil {
			n += taggedField + int32sBytes(len(v.Elr))
		}
		if v.LastKnownElr != nil {
			n += taggedField + int32sBytes(len(v.LastKnownElr))
		}
		if v.LeaderRecoveryState != metadata.NoRecoveryChange {
			n += taggedField + 1
		}
		return n
	case *metadata.RemoveTopicRecord:
		return uuidBytes + tagBytes
	case *metadata.ClearElrRecord:
		return strBytes(v.Topic) + tagBytes
	case *metadata.NoOpRecord:
		return tagBytes
	case *metadata.ConfigRecord:
		n := 1 + strBytes(v.ResourceName) + strBytes(v.Name) + 1 + tagBytes
		if v.Value != nil {
			n += int32(len(*v.Value))
		}
		return n
	case *metadata.FeatureLevelRecord:
		return strBytes(v.Name) + int16Bytes + tagBytes
	}
	// A record type added to the engine later: charge a typical small record rather than 0.
	return 32
}

// imageSnapshotBytes is snapshotBytes(im.SnapshotRecords()) without building the records: it
// sizes the same records in the same way, each partition's PartitionRecord from its list
// lengths (partitionBodyBytes), so a million-partition snapshot costs a pass over flat slices
// rather than millions of allocations. TestImageSnapshotBytesMatchesTheRecords keeps the two in step.
func imageSnapshotBytes(im *metadata.Image) int64 {
	n := int64(RecordBytes(&metadata.FeatureLevelRecord{Name: config.EligibleLeaderReplicasVersion, FeatureLevel: im.ElrVersion}))
	n += configsBytes(metadata.ResourceBroker, "", &im.Cluster)
	for _, id := range im.BrokerIDs() {
		b := im.Broker(id)
		if b.Registered {
			n += int64(RecordBytes(&metadata.RegisterBrokerRecord{BrokerID: b.ID, IncarnationID: b.IncarnationID, BrokerEpoch: b.Epoch,
				LogDirs: b.LogDirs, Fenced: b.Fenced, InControlledShutdown: b.InControlledShutdown}))
		}
	}
	for t := range im.Topics {
		top := &im.Topics[t]
		if top.Deleted {
			continue
		}
		n += int64(RecordBytes(&metadata.TopicRecord{Name: top.Name, TopicID: top.ID}))
		n += configsBytes(metadata.ResourceTopic, top.Name, &top.Configs)
		n += topicBytes(im, top)
	}
	return withBatchHeaders(n)
}

// topicBytes is the encoded size of the PartitionRecords of one topic of im.
func topicBytes(im *metadata.Image, top *metadata.Topic) int64 {
	return rangeBytes(top, top.Count, present(im))
}

// rangeBytes is the encoded size of the PartitionRecords of the first size partitions of top,
// as they were at p.
func rangeBytes(top *metadata.Topic, size int32, p *past) int64 {
	var n int64
	for i := top.First; i < top.First+size; i++ {
		q := &p.im.Partitions[i]
		if p.parts != nil {
			q = p.partition(i)
		}
		n += int64(partitionBodyBytes(len(q.Replicas()), q.IsrLen(), q.ElrLen(), q.LastKnownElrLen()))
	}
	return n + int64(size)*recordFrameBytes
}

// partitionBodyBytes is the body size of a PartitionRecord with lists of these lengths: all
// its size depends on, which lets a snapshot's million partitions be sized from their list
// lengths alone (rangeBytes).
func partitionBodyBytes(replicas, isr, elr, lastKnownElr int) int32 {
	n := int32(int32Bytes+uuidBytes) + int32sBytes(replicas) + int32sBytes(isr) +
		1 + 1 + int32Bytes + 1 + int32Bytes + int32Bytes + 1 + uuidBytes*int32(replicas) + tagBytes
	if elr > 0 {
		n += taggedField + int32sBytes(elr)
	}
	if lastKnownElr > 0 {
		n += taggedField + int32sBytes(lastKnownElr)
	}
	return n
}

// withBatchHeaders adds the record-batch headers a snapshot of n record bytes is written in.
func withBatchHeaders(n int64) int64 {
	batches := (n + snapshotBatchBytes - 1) / snapshotBatchBytes
	return n + max(batches, 1)*BatchHeaderBytes
}

// configsBytes sizes the ConfigRecords a snapshot writes for one resource's configs.
func configsBytes(resType int8, name string, v *config.Values) int64 {
	var n int64
	for _, k := range v.Names() {
		val, _ := v.Get(k)
		s := metadata.ConfigText(val)
		n += int64(RecordBytes(&metadata.ConfigRecord{ResourceType: resType, ResourceName: name, Name: k, Value: &s}))
	}
	return n
}

// snapshotBytes is the size of a snapshot made of recs: the records plus one batch header per
// snapshotBatchBytes of them.
func snapshotBytes(recs []metadata.Record) int64 {
	var n int64
	for _, r := range recs {
		n += int64(RecordBytes(r))
	}
	batches := (n + snapshotBatchBytes - 1) / snapshotBatchBytes
	return n + max(batches, 1)*BatchHeaderBytes
}
