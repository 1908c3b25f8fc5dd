package broker

import (
	"errors"

	"github.com/kraftlab/kraftlab/engine/controller"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// flushAlter sends the queued proposals as one AlterPartition request; one request is in flight
// per broker at a time, as DefaultAlterPartitionManager does.
func (ik *isrKeeper) flushAlter(slot int) {
	f := ik.f
	b := &f.brokers[slot]
	if b.alterBusy || len(b.alterQueue) == 0 || !b.active {
		return
	}
	b.alterBatch, b.alterReqs, b.alterIsrBuf = b.alterBatch[:0], b.alterReqs[:0], b.alterIsrBuf[:0]
	for i, p := range b.alterQueue {
		if i%warmChunk == 0 {
			f.warm.warmAlter(b.alterQueue[i:min(i+warmChunk, len(b.alterQueue))], f.isr.alter)
		}
		if f.pt[p].alterSt != alQueued || f.pt[p].leader < 0 {
			continue
		}
		lr := f.pt[p].rbase + int32(f.pt[p].leader)
		if int(f.rp[lr].rb) != slot || f.rp[lr].view.leaderEpoch != ik.alter[p].le {
			f.pt[p].alterSt = alNone
			continue
		}
		b.alterIsrBuf = ik.appendProposedIsr(b.alterIsrBuf, p)
		b.alterBatch = append(b.alterBatch, p)
		f.pt[p].alterSt = alSent
	}
	b.alterQueue = b.alterQueue[:0]
	if len(b.alterBatch) == 0 {
		return
	}
	// NewIsr slices point into alterIsrBuf, which is complete now (no more appends). A fencing's
	// burst is thousands of requests: sized once rather than grown by append.
	if cap(b.alterReqs) < len(b.alterBatch) {
		b.alterReqs = make([]controller.AlterPartitionRequest, 0, len(b.alterBatch))
	}
	off := 0
	for _, p := range b.alterBatch {
		k := popcount(ik.alter[p].isr)
		rs := metadata.NoRecoveryChange
		if f.cat.parts[p].recov == metadata.Recovering {
			rs = metadata.Recovered
		}
		b.alterReqs = append(b.alterReqs, controller.AlterPartitionRequest{BrokerID: b.id, BrokerEpoch: b.epoch,
			Topic: f.topicName(p), Partition: f.cat.parts[p].pnum, LeaderEpoch: ik.alter[p].le, PartitionEpoch: ik.alter[p].pe,
			NewIsr: b.alterIsrBuf[off : off+k : off+k], LeaderRecoveryState: rs})
		off += k
	}
	if cap(b.alterErrs) < len(b.alterReqs) {
		b.alterErrs = make([]error, len(b.alterReqs))
	}
	b.alterErrs = b.alterErrs[:len(b.alterReqs)]
	clear(b.alterErrs)
	delay, err := f.client.AlterPartition(b.alterReqs, b.alterErrs, f.now())
	b.alterBusy, b.alterErr = true, err
	f.at(f.now()+max(0, delay), evAlterReply, int32(slot), int64(b.gen))
}

// alterReply handles the AlterPartition response: accepted proposals wait for their metadata
// record; refused ones fall back to the committed ISR and are looked at again when metadata or
// a broker registration changes; an unanswered request is resent after AlterPartitionRetryMs.
func (ik *isrKeeper) alterReply(slot int) {
	f := ik.f
	b := &f.brokers[slot]
	b.alterBusy = false
	if b.alterErr != nil {
		f.stats.AlterPartitionTimeouts++
		for _, p := range b.alterBatch {
			if f.pt[p].alterSt == alSent {
				f.pt[p].alterSt = alQueued
				b.alterQueue = append(b.alterQueue, p)
			}
		}
		b.alterBatch = b.alterBatch[:0]
		if len(b.alterQueue) > 0 && !b.alterFlush {
			b.alterFlush = true
			f.at(f.now()+f.p.AlterPartitionRetryMs, evAlterFlush, int32(slot), int64(b.gen))
		}
		return
	}
	for i, p := range b.alterBatch {
		if i%warmChunk == 0 {
			f.warm.warmAlter(b.alterBatch[i:min(i+warmChunk, len(b.alterBatch))], f.isr.alter)
		}
		if f.pt[p].alterSt != alSent || f.pt[p].leader < 0 {
			continue
		}
		lr := f.pt[p].rbase + int32(f.pt[p].leader)
		if int(f.rp[lr].rb) != slot {
			continue
		}
		if err := b.alterErrs[i]; err != nil {
			f.stats.AlterPartitionErrors++
			f.pt[p].alterSt = alNone
			f.setIsrMax(p, f.rp[lr].view.isr|1<<f.pt[p].leader)
			var api *controller.APIError
			if errors.As(err, &api) {
				ik.watchPartition(slot, p)
			}
			continue
		}
		if ik.alter[p].expand {
			f.stats.IsrExpands++
		} else {
			f.stats.IsrShrinks++
		}
		f.pt[p].alterSt = alAwait
		if f.rp[lr].view.partEpoch > ik.alter[p].pe {
			f.roles.leaderViewChanged(p)
		}
	}
	if cap(b.alterReqs) > bigBuffer && len(b.alterQueue) == 0 {
		// A burst of ISR changes grew them and nothing more is queued: release them rather
		// than keep that much per broker for good.
		b.alterBatch, b.alterReqs, b.alterErrs, b.alterIsrBuf = nil, nil, nil, nil
	}
	b.alterBatch = b.alterBatch[:0]
	if len(b.alterQueue) > 0 && !b.alterFlush {
		b.alterFlush = true
		f.at(f.now(), evAlterFlush, int32(slot), int64(b.gen))
	}
}
