package metadata

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// MarshalJSON writes an entry as one flat object: its offset, its record type, then the fields
// the record sets, in snake_case. This is the record format of the scenario results.
func (e Entry) MarshalJSON() ([]byte, error) {
	body, err := recordJSON(e.Record)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"offset":%d,"type":%q`, e.Offset, e.Record.Type())
	if len(body) > 2 { // more than "{}"
		b.WriteByte(',')
		b.Write(body[1:])
	} else {
		b.WriteByte('}')
	}
	return b.Bytes(), nil
}

func recordJSON(r Record) ([]byte, error) {
	switch v := r.(type) {
	case *PartitionChangeRecord:
		return partitionChangeJSON(v)
	case PartitionChangeRecord:
		return partitionChangeJSON(&v)
	case *BrokerRegistrationChangeRecord:
		return brokerChangeJSON(v)
	case BrokerRegistrationChangeRecord:
		return brokerChangeJSON(&v)
	case NoOpRecord, *NoOpRecord:
		return []byte("{}"), nil
	}
	return json.Marshal(r)
}

// partitionChangeJSON writes only the fields the change sets; an empty ISR or ELR is written
// as [] because it is a change, unlike an absent (nil) one.
func partitionChangeJSON(r *PartitionChangeRecord) ([]byte, error) {
	type out struct {
		Topic               string   `json:"topic"`
		PartitionID         int32    `json:"partition"`
		Leader              *int32   `json:"leader,omitempty"`
		Isr                 *[]int32 `json:"isr,omitempty"`
		Elr                 *[]int32 `json:"elr,omitempty"`
		LastKnownElr        *[]int32 `json:"last_known_elr,omitempty"`
		LeaderRecoveryState *int8    `json:"leader_recovery_state,omitempty"`
	}
	o := out{Topic: r.Topic, PartitionID: r.PartitionID}
	if r.Leader != NoLeaderChange {
		o.Leader = &r.Leader
	}
	if r.Isr != nil {
		o.Isr = &r.Isr
	}
	if r.Elr != nil {
		o.Elr = &r.Elr
	}
	if r.LastKnownElr != nil {
		o.LastKnownElr = &r.LastKnownElr
	}
	if r.LeaderRecoveryState != NoRecoveryChange {
		o.LeaderRecoveryState = &r.LeaderRecoveryState
	}
	return json.Marshal(o)
}

func brokerChangeJSON(r *BrokerRegistrationChangeRecord) ([]byte, error) {
	type out struct {
		BrokerID             int32     `json:"broker"`
		BrokerEpoch          int64     `json:"broker_epoch"`
		Fenced               *bool     `json:"fenced,omitempty"`
		InControlledShutdown *bool     `json:"in_controlled_shutdown,omitempty"`
		LogDirs              *[]string `json:"log_dirs,omitempty"`
	}
	o := out{BrokerID: r.BrokerID, BrokerEpoch: r.BrokerEpoch}
	if r.LogDirs != nil { // an empty list (no directory left online) is a change too
		o.LogDirs = &r.LogDirs
	}
	yes, no := true, false
	switch r.Fenced {
	case FenceFence:
		o.Fenced = &yes
	case FenceUnfence:
		o.Fenced = &no
	}
	if r.InControlledShutdown == 1 {
		o.InControlledShutdown = &yes
	}
	return json.Marshal(o)
}
