package scenario

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/kraftlab/kraftlab/cluster"
	"github.com/kraftlab/kraftlab/cluster/broker"
)

// paramKind is the JSON type a parameter takes.
type paramKind uint8

const (
	paramInt    paramKind = iota // a whole number
	paramNumber                  // any finite number
	paramBool
	paramAcks // "all", "-1" or -1, "1" or 1
)

// param is one field of a cluster-mode "broker" or "workload" block: a field of broker.Params
// or workload.Params under its snake_case name and, where Kafka has one, Kafka's name too.
type param struct {
	goName string // the Params field; its snake_case form is the scenario name
	kafka  string // Kafka's config name, or ""
	kind   paramKind
	// min and max bound the value, inclusive unless minOpen or maxOpen; max 0 with an
	// int or number means no upper bound.
	min, max         float64
	minOpen, maxOpen bool
	// unit and zero complete the message: "ms", and what 0 means where it means something.
	unit, zero string
	// field returns the pointer to set: *int64, *int, *float64, *bool or *broker.Acks.
	field func(*cluster.Spec) any
}

// name is the scenario's name for the parameter.
func (pr *param) name() string { return snake(pr.goName) }

// snake writes a Go field name in snake_case: HeartbeatIntervalMs → heartbeat_interval_ms,
// Kip951 → kip951.
func snake(goName string) string {
	var b strings.Builder
	runes := []rune(goName)
	for i, r := range runes {
		if unicode.IsUpper(r) {
			if i > 0 && (unicode.IsLower(runes[i-1]) || unicode.IsDigit(runes[i-1])) {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Ranges shared by many parameters.
const (
	maxCount = 1 << 20 // a bound for counts that keeps the arithmetic safe; no real limit
)

// brokerParams are the "broker" block's fields, in broker.Params order. The ranges are
// broker.Params.Validate's; upper bounds on times keep a run within MaxTimeMs. The tables
// are plain literals (a time in ms: paramInt from 0 or 1 to MaxTimeMs; a positive amount:
// paramNumber with minOpen; a share: max 1) so that the linker lays them out as static
// data: built by helper calls they were 14 KB of init code in the wasm.
var brokerParams = []param{
	{goName: "HeartbeatIntervalMs", kind: paramInt, min: 1, max: MaxTimeMs, unit: "ms", field: func(s *cluster.Spec) any { return &s.Broker.HeartbeatIntervalMs }},
	{goName: "StartingHeartbeatMs", kind: paramInt, min: 1, max: MaxTimeMs, unit: "ms", field: func(s *cluster.Spec) any { return &s.Broker.StartingHeartbeatMs }},
	{goName: "ControlledShutdownRetryMs", kind: paramInt, min: 1, max: MaxTimeMs, unit: "ms", field: func(s *cluster.Spec) any { return &s.Broker.ControlledShutdownRetryMs }},
	{goName: "ProcessStartMs", kind: paramInt, max: MaxTimeMs, unit: "ms", field: func(s *cluster.Spec) any { return &s.Broker.ProcessStartMs }},
	{goName: "LogLoadCleanMs", kind: paramInt, max: MaxTimeMs, unit: "ms", field: func(s *cluster.Spec) any { return &s.Broker.LogLoadCleanMs }},
	{goName: "LogRecoveryHardMs", kind: paramInt, max: MaxTimeMs, unit: "ms", zero: "derived from what the broker holds", field: func(s *cluster.Spec) any { return &s.Broker.LogRecoveryHardMs }},
	{goName: "LogRecoveryPerLogMs", kind: paramNumber, unit: "ms", field: func(s *cluster.Spec) any { return &s.Broker.LogRecoveryPerLogMs }},
	{goName: "LogSegmentBytes", kafka: "log.segment.bytes", kind: paramNumber, minOpen: true, unit: "bytes", field: func(s *cluster.Spec) any { return &s.Broker.LogSegmentBytes }},
	{goName: "NumRecoveryThreadsPerDataDir", kafka: "num.recovery.threads.per.data.dir", kind: paramInt, min: 1, max: 1024, field: func(s *cluster.Spec) any { return &s.Broker.NumRecoveryThreadsPerDataDir }},
	{goName: "LogLoadEmptyMs", kind: paramInt, max: MaxTimeMs, unit: "ms", field: func(s *cluster.Spec) any { return &s.Broker.LogLoadEmptyMs }},
	{goName: "ShutdownFlushMs", kind: paramInt, max: MaxTimeMs, unit: "ms", field: func(s *cluster.Spec) any { return &s.Broker.ShutdownFlushMs }},
	{goName: "ReplicaLagTimeMaxMs", kafka: "replica.lag.time.max.ms", kind: paramInt, min: 1, max: MaxTimeMs, unit: "ms", field: func(s *cluster.Spec) any { return &s.Broker.ReplicaLagTimeMaxMs }},
	{goName: "NumReplicaFetchers", kafka: "num.replica.fetchers", kind: paramInt, min: 1, max: 64, field: func(s *cluster.Spec) any { return &s.Broker.NumReplicaFetchers }},
	{goName: "ReplicaFetchMaxBytes", kafka: "replica.fetch.max.bytes", kind: paramNumber, minOpen: true, unit: "bytes", field: func(s *cluster.Spec) any { return &s.Broker.ReplicaFetchMaxBytes }},
	{goName: "ReplicaFetchResponseMaxBytes", kafka: "replica.fetch.response.max.bytes", kind: paramNumber, minOpen: true, unit: "bytes", field: func(s *cluster.Spec) any { return &s.Broker.ReplicaFetchResponseMaxBytes }},
	{goName: "AlterPartitionRetryMs", kind: paramInt, min: 1, max: MaxTimeMs, unit: "ms", field: func(s *cluster.Spec) any { return &s.Broker.AlterPartitionRetryMs }},
	{goName: "DiskWriteBytesPerSec", kind: paramNumber, minOpen: true, unit: "bytes per second", field: func(s *cluster.Spec) any { return &s.Broker.DiskWriteBytesPerSec }},
	{goName: "DiskReadBytesPerSec", kind: paramNumber, minOpen: true, unit: "bytes per second", field: func(s *cluster.Spec) any { return &s.Broker.DiskReadBytesPerSec }},
	{goName: "NicInBytesPerSec", kind: paramNumber, minOpen: true, unit: "bytes per second", field: func(s *cluster.Spec) any { return &s.Broker.NicInBytesPerSec }},
	{goName: "NicOutBytesPerSec", kind: paramNumber, minOpen: true, unit: "bytes per second", field: func(s *cluster.Spec) any { return &s.Broker.NicOutBytesPerSec }},
	{goName: "CatchUpHeadroomShare", kind: paramNumber, max: 1, minOpen: true, field: func(s *cluster.Spec) any { return &s.Broker.CatchUpHeadroomShare }},
	{goName: "RttMs", kind: paramNumber, minOpen: true, unit: "ms", field: func(s *cluster.Spec) any { return &s.Broker.RttMs }},
	{goName: "InSyncLagMs", kind: paramNumber, unit: "ms", field: func(s *cluster.Spec) any { return &s.Broker.InSyncLagMs }},
	{goName: "ConsumerFanout", kind: paramNumber, unit: "consumer groups", zero: "no consumers", field: func(s *cluster.Spec) any { return &s.Broker.ConsumerFanout }},
	{goName: "LeaderThrottleBytesPerSec", kafka: "leader.replication.throttled.rate", kind: paramNumber, unit: "bytes per second", zero: "no throttle", field: func(s *cluster.Spec) any { return &s.Broker.LeaderThrottleBytesPerSec }},
	{goName: "FollowerThrottleBytesPerSec", kafka: "follower.replication.throttled.rate", kind: paramNumber, unit: "bytes per second", zero: "no throttle", field: func(s *cluster.Spec) any { return &s.Broker.FollowerThrottleBytesPerSec }},
	{goName: "ThrottleAllReplicas", kind: paramBool, field: func(s *cluster.Spec) any { return &s.Broker.ThrottleAllReplicas }},
	{goName: "LocalRetentionSec", kind: paramNumber, unit: "seconds of produce", field: func(s *cluster.Spec) any { return &s.Broker.LocalRetentionSec }},
	{goName: "TieredLocalShare", kind: paramNumber, max: 1, minOpen: true, field: func(s *cluster.Spec) any { return &s.Broker.TieredLocalShare }},
	{goName: "AllocPeriodMs", kind: paramInt, min: 1, max: MaxTimeMs, unit: "ms", field: func(s *cluster.Spec) any { return &s.Broker.AllocPeriodMs }},
	{goName: "Acks", kafka: "acks", kind: paramAcks, field: func(s *cluster.Spec) any { return &s.Broker.Acks }},
}

// workloadParams are the "workload" block's fields, in workload.Params order, plus acks, which
// is a producer config although broker.Params holds it. The ranges are
// workload.Params.Validate's. WindowMs is not among them: the cluster makes the producers'
// latency window the sample interval (sample_ms), so that a sample's percentiles cover it.
var workloadParams = []param{
	{goName: "BytesPerSecPerBroker", kind: paramNumber, minOpen: true, unit: "bytes per second", field: func(s *cluster.Spec) any { return &s.Workload.BytesPerSecPerBroker }},
	{goName: "RequestsPerSecPerBroker", kind: paramNumber, minOpen: true, unit: "requests per second", field: func(s *cluster.Spec) any { return &s.Workload.RequestsPerSecPerBroker }},
	{goName: "RecordBytes", kind: paramNumber, minOpen: true, unit: "bytes", field: func(s *cluster.Spec) any { return &s.Workload.RecordBytes }},
	{goName: "Skew", kind: paramNumber, min: 0, max: 5, unit: "σ of a lognormal", zero: "every partition at the same rate", field: func(s *cluster.Spec) any { return &s.Workload.Skew }},
	{goName: "Classes", kind: paramInt, min: 1, max: broker.MaxClasses, field: func(s *cluster.Spec) any { return &s.Workload.Classes }},
	{goName: "LingerMs", kafka: "linger.ms", kind: paramNumber, unit: "ms", field: func(s *cluster.Spec) any { return &s.Workload.LingerMs }},
	{goName: "RequestTimeoutMs", kafka: "request.timeout.ms", kind: paramInt, min: 1, max: MaxTimeMs, unit: "ms", field: func(s *cluster.Spec) any { return &s.Workload.RequestTimeoutMs }},
	{goName: "DeliveryTimeoutMs", kafka: "delivery.timeout.ms", kind: paramInt, min: 1, max: MaxTimeMs, unit: "ms", field: func(s *cluster.Spec) any { return &s.Workload.DeliveryTimeoutMs }},
	{goName: "RetryBackoffMs", kafka: "retry.backoff.ms", kind: paramNumber, minOpen: true, unit: "ms", field: func(s *cluster.Spec) any { return &s.Workload.RetryBackoffMs }},
	{goName: "RetryBackoffMaxMs", kafka: "retry.backoff.max.ms", kind: paramNumber, minOpen: true, unit: "ms", field: func(s *cluster.Spec) any { return &s.Workload.RetryBackoffMaxMs }},
	{goName: "RetryJitter", kind: paramNumber, max: 1, maxOpen: true, field: func(s *cluster.Spec) any { return &s.Workload.RetryJitter }},
	{goName: "Kip951", kind: paramBool, field: func(s *cluster.Spec) any { return &s.Workload.Kip951 }},
	{goName: "SwitchWindowMs", kind: paramNumber, unit: "ms", field: func(s *cluster.Spec) any { return &s.Workload.SwitchWindowMs }},
	{goName: "LegacySwitchWindowMs", kind: paramNumber, unit: "ms", field: func(s *cluster.Spec) any { return &s.Workload.LegacySwitchWindowMs }},
	{goName: "StaleMetadataRetryProb", kind: paramNumber, max: 1, maxOpen: true, field: func(s *cluster.Spec) any { return &s.Workload.StaleMetadataRetryProb }},
	{goName: "RttMs", kind: paramNumber, unit: "ms", field: func(s *cluster.Spec) any { return &s.Workload.RttMs }},
	{goName: "IoThreads", kafka: "num.io.threads", kind: paramInt, min: 1, max: 1024, field: func(s *cluster.Spec) any { return &s.Workload.IoThreads }},
	{goName: "NetworkThreads", kafka: "num.network.threads", kind: paramInt, min: 1, max: 1024, field: func(s *cluster.Spec) any { return &s.Workload.NetworkThreads }},
	{goName: "IoServiceMs", kind: paramNumber, minOpen: true, unit: "ms", field: func(s *cluster.Spec) any { return &s.Workload.IoServiceMs }},
	{goName: "NetworkServiceMs", kind: paramNumber, minOpen: true, unit: "ms", field: func(s *cluster.Spec) any { return &s.Workload.NetworkServiceMs }},
	{goName: "AppendServiceMs", kind: paramNumber, minOpen: true, unit: "ms", field: func(s *cluster.Spec) any { return &s.Workload.AppendServiceMs }},
	{goName: "MaxUtil", kind: paramNumber, max: 1, minOpen: true, maxOpen: true, field: func(s *cluster.Spec) any { return &s.Workload.MaxUtil }},
	{goName: "SamplesPerWindow", kind: paramInt, min: 1, max: maxCount, field: func(s *cluster.Spec) any { return &s.Workload.SamplesPerWindow }},
	{goName: "StepMs", kind: paramInt, min: 1, max: MaxTimeMs, unit: "ms", field: func(s *cluster.Spec) any { return &s.Workload.StepMs }},
	{goName: "SlidingWindows", kind: paramInt, min: 1, max: 10_000, field: func(s *cluster.Spec) any { return &s.Workload.SlidingWindows }},
	{goName: "MaxPending", kind: paramInt, min: 1, max: 10 * maxCount, field: func(s *cluster.Spec) any { return &s.Workload.MaxPending }},
	{goName: "Acks", kafka: "acks", kind: paramAcks, field: func(s *cluster.Spec) any { return &s.Broker.Acks }},
}

// paramHint points a Kafka name that the engine does not define as a config, but a block
// does, to its block: "replica.lag.time.max.ms" is a broker's setting here, not the
// controller's.
func paramHint(name string) string {
	if block, pr := blockParam(name); pr != nil {
		return fmt.Sprintf(" (in cluster mode, %s is set in cluster.%s)", name, block)
	}
	return ""
}

// allowed describes a parameter's valid values for a message.
func (pr *param) allowed() string {
	var s string
	switch pr.kind {
	case paramBool:
		return "true or false"
	case paramAcks:
		return `"all" (or "-1", -1) or "1" (or 1); acks=0 is not modelled`
	case paramInt:
		s = fmt.Sprintf("an integer from %s to %s", fmtInt(pr.min), fmtInt(pr.max))
	case paramNumber:
		if pr.max == 0 {
			rel := "≥"
			if pr.minOpen {
				rel = ">"
			}
			s = fmt.Sprintf("a number %s %g", rel, pr.min)
			break
		}
		open, close := "[", "]"
		if pr.minOpen {
			open = "("
		}
		if pr.maxOpen {
			close = ")"
		}
		s = fmt.Sprintf("a number in %s%g, %g%s", open, pr.min, pr.max, close)
	}
	var notes []string
	if pr.unit != "" {
		notes = append(notes, pr.unit)
	}
	if pr.zero != "" {
		notes = append(notes, "0 means "+pr.zero)
	}
	if len(notes) > 0 {
		s += " (" + strings.Join(notes, "; ") + ")"
	}
	return s
}

func fmtInt(f float64) string { return strconv.FormatInt(int64(f), 10) }

// inRange checks a number against the parameter's bounds.
func (pr *param) inRange(v float64) bool {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return false
	}
	if v < pr.min || (pr.minOpen && v == pr.min) {
		return false
	}
	if pr.max != 0 && (v > pr.max || (pr.maxOpen && v == pr.max)) {
		return false
	}
	return true
}

// params reads a "broker" or "workload" block into spec. Each field may be given under its
// snake_case name or Kafka's, not both. given maps the scenario name of each field given to
// its path as written, so that a later check names the field the way the file does.
func (p *parser) params(n *node, path string, table []param, spec *cluster.Spec, given map[string]string) {
	if p.err != nil {
		return
	}
	var allowed []string
	byKey := map[string]*param{}
	for i := range table {
		pr := &table[i]
		allowed = append(allowed, pr.name())
		byKey[pr.name()] = pr
		if pr.kafka != "" && pr.kafka != pr.name() {
			allowed = append(allowed, pr.kafka)
			byKey[pr.kafka] = pr
		}
	}
	if !p.object(n, path, allowed, "") {
		return
	}
	for i, key := range n.keys {
		pr := byKey[key]
		at := fieldPath(path, key)
		if prev, dup := given[pr.name()]; dup {
			p.failf(at, "%s is the same setting as %s; give it once", key, prev)
			return
		}
		given[pr.name()] = at
		p.param(n.vals[i], at, pr, spec)
	}
}

// param reads one value.
func (p *parser) param(v *node, at string, pr *param, spec *cluster.Spec) {
	bad := func() { p.failf(at, "must be %s, got %s", pr.allowed(), v.describe()) }
	switch f := pr.field(spec).(type) {
	case *bool:
		*f = p.boolean(v, at)
	case *broker.Acks:
		s := v.s
		if v.kind != kindString && v.kind != kindNumber {
			bad()
			return
		}
		switch s {
		case "all", "-1":
			*f = broker.AcksAll
		case "1":
			*f = broker.AcksLeader
		default:
			bad()
		}
	case *int64, *int:
		x, ok := wholeNumber(v)
		if !ok || !pr.inRange(float64(x)) {
			bad()
			return
		}
		if i64, ok := f.(*int64); ok {
			*i64 = x
		} else {
			*f.(*int) = int(x)
		}
	case *float64:
		x, err := strconv.ParseFloat(v.s, 64)
		if v.kind != kindNumber || err != nil || !pr.inRange(x) {
			bad()
			return
		}
		*f = x
	}
}
