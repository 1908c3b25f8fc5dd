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

func ms(goName, kafka string, min float64, field func(*cluster.Spec) any) param {
	return param{goName: goName, kafka: kafka, kind: paramInt, min: min, max: MaxTimeMs, unit: "ms", field: field}
}

func positive(goName, kafka, unit string, field func(*cluster.Spec) any) param {
	return param{goName: goName, kafka: kafka, kind: paramNumber, min: 0, minOpen: true, unit: unit, field: field}
}

func nonNegative(goName, kafka, unit, zero string, field func(*cluster.Spec) any) param {
	return param{goName: goName, kafka: kafka, kind: paramNumber, min: 0, unit: unit, zero: zero, field: field}
}

func share(goName string, minOpen, maxOpen bool, field func(*cluster.Spec) any) param {
	return param{goName: goName, kind: paramNumber, min: 0, max: 1, minOpen: minOpen, maxOpen: maxOpen, field: field}
}

func count(goName, kafka string, max float64, field func(*cluster.Spec) any) param {
	return param{goName: goName, kafka: kafka, kind: paramInt, min: 1, max: max, field: field}
}

// brokerParams are the "broker" block's fields, in broker.Params order. The ranges are
// broker.Params.Validate's; upper bounds on times keep a run within MaxTimeMs.
var brokerParams = []param{
	ms("HeartbeatIntervalMs", "", 1, func(s *cluster.Spec) any { return &s.Broker.HeartbeatIntervalMs }),
	ms("StartingHeartbeatMs", "", 1, func(s *cluster.Spec) any { return &s.Broker.StartingHeartbeatMs }),
	ms("ControlledShutdownRetryMs", "", 1, func(s *cluster.Spec) any { return &s.Broker.ControlledShutdownRetryMs }),
	ms("ProcessStartMs", "", 0, func(s *cluster.Spec) any { return &s.Broker.ProcessStartMs }),
	ms("LogLoadCleanMs", "", 0, func(s *cluster.Spec) any { return &s.Broker.LogLoadCleanMs }),
	ms("LogRecoveryHardMs", "", 0, func(s *cluster.Spec) any { return &s.Broker.LogRecoveryHardMs }),
	ms("LogLoadEmptyMs", "", 0, func(s *cluster.Spec) any { return &s.Broker.LogLoadEmptyMs }),
	ms("ShutdownFlushMs", "", 0, func(s *cluster.Spec) any { return &s.Broker.ShutdownFlushMs }),
	ms("ReplicaLagTimeMaxMs", "replica.lag.time.max.ms", 1, func(s *cluster.Spec) any { return &s.Broker.ReplicaLagTimeMaxMs }),
	count("NumReplicaFetchers", "num.replica.fetchers", 64, func(s *cluster.Spec) any { return &s.Broker.NumReplicaFetchers }),
	positive("ReplicaFetchMaxBytes", "replica.fetch.max.bytes", "bytes", func(s *cluster.Spec) any { return &s.Broker.ReplicaFetchMaxBytes }),
	positive("ReplicaFetchResponseMaxBytes", "replica.fetch.response.max.bytes", "bytes", func(s *cluster.Spec) any { return &s.Broker.ReplicaFetchResponseMaxBytes }),
	ms("AlterPartitionRetryMs", "", 1, func(s *cluster.Spec) any { return &s.Broker.AlterPartitionRetryMs }),
	positive("DiskWriteBytesPerSec", "", "bytes per second", func(s *cluster.Spec) any { return &s.Broker.DiskWriteBytesPerSec }),
	positive("DiskReadBytesPerSec", "", "bytes per second", func(s *cluster.Spec) any { return &s.Broker.DiskReadBytesPerSec }),
	positive("NicInBytesPerSec", "", "bytes per second", func(s *cluster.Spec) any { return &s.Broker.NicInBytesPerSec }),
	positive("NicOutBytesPerSec", "", "bytes per second", func(s *cluster.Spec) any { return &s.Broker.NicOutBytesPerSec }),
	share("CatchUpHeadroomShare", true, false, func(s *cluster.Spec) any { return &s.Broker.CatchUpHeadroomShare }),
	positive("RttMs", "", "ms", func(s *cluster.Spec) any { return &s.Broker.RttMs }),
	nonNegative("InSyncLagMs", "", "ms", "", func(s *cluster.Spec) any { return &s.Broker.InSyncLagMs }),
	nonNegative("ConsumerFanout", "", "consumer groups", "no consumers", func(s *cluster.Spec) any { return &s.Broker.ConsumerFanout }),
	nonNegative("LeaderThrottleBytesPerSec", "leader.replication.throttled.rate", "bytes per second", "no throttle", func(s *cluster.Spec) any { return &s.Broker.LeaderThrottleBytesPerSec }),
	nonNegative("FollowerThrottleBytesPerSec", "follower.replication.throttled.rate", "bytes per second", "no throttle", func(s *cluster.Spec) any { return &s.Broker.FollowerThrottleBytesPerSec }),
	{goName: "ThrottleAllReplicas", kind: paramBool, field: func(s *cluster.Spec) any { return &s.Broker.ThrottleAllReplicas }},
	nonNegative("LocalRetentionSec", "", "seconds of produce", "", func(s *cluster.Spec) any { return &s.Broker.LocalRetentionSec }),
	share("TieredLocalShare", true, false, func(s *cluster.Spec) any { return &s.Broker.TieredLocalShare }),
	ms("AllocPeriodMs", "", 1, func(s *cluster.Spec) any { return &s.Broker.AllocPeriodMs }),
	{goName: "Acks", kafka: "acks", kind: paramAcks, field: func(s *cluster.Spec) any { return &s.Broker.Acks }},
}

// workloadParams are the "workload" block's fields, in workload.Params order, plus acks, which
// is a producer config although broker.Params holds it. The ranges are
// workload.Params.Validate's. WindowMs is not among them: the cluster makes the producers'
// latency window the sample interval (sample_ms), so that a sample's percentiles cover it.
var workloadParams = []param{
	positive("BytesPerSecPerBroker", "", "bytes per second", func(s *cluster.Spec) any { return &s.Workload.BytesPerSecPerBroker }),
	positive("RequestsPerSecPerBroker", "", "requests per second", func(s *cluster.Spec) any { return &s.Workload.RequestsPerSecPerBroker }),
	positive("RecordBytes", "", "bytes", func(s *cluster.Spec) any { return &s.Workload.RecordBytes }),
	{goName: "Skew", kind: paramNumber, min: 0, max: 5, unit: "σ of a lognormal", zero: "every partition at the same rate", field: func(s *cluster.Spec) any { return &s.Workload.Skew }},
	count("Classes", "", broker.MaxClasses, func(s *cluster.Spec) any { return &s.Workload.Classes }),
	nonNegative("LingerMs", "linger.ms", "ms", "", func(s *cluster.Spec) any { return &s.Workload.LingerMs }),
	ms("RequestTimeoutMs", "request.timeout.ms", 1, func(s *cluster.Spec) any { return &s.Workload.RequestTimeoutMs }),
	ms("DeliveryTimeoutMs", "delivery.timeout.ms", 1, func(s *cluster.Spec) any { return &s.Workload.DeliveryTimeoutMs }),
	positive("RetryBackoffMs", "retry.backoff.ms", "ms", func(s *cluster.Spec) any { return &s.Workload.RetryBackoffMs }),
	positive("RetryBackoffMaxMs", "retry.backoff.max.ms", "ms", func(s *cluster.Spec) any { return &s.Workload.RetryBackoffMaxMs }),
	share("RetryJitter", false, true, func(s *cluster.Spec) any { return &s.Workload.RetryJitter }),
	{goName: "Kip951", kind: paramBool, field: func(s *cluster.Spec) any { return &s.Workload.Kip951 }},
	nonNegative("SwitchWindowMs", "", "ms", "", func(s *cluster.Spec) any { return &s.Workload.SwitchWindowMs }),
	nonNegative("LegacySwitchWindowMs", "", "ms", "", func(s *cluster.Spec) any { return &s.Workload.LegacySwitchWindowMs }),
	share("StaleMetadataRetryProb", false, true, func(s *cluster.Spec) any { return &s.Workload.StaleMetadataRetryProb }),
	nonNegative("RttMs", "", "ms", "", func(s *cluster.Spec) any { return &s.Workload.RttMs }),
	count("IoThreads", "num.io.threads", 1024, func(s *cluster.Spec) any { return &s.Workload.IoThreads }),
	count("NetworkThreads", "num.network.threads", 1024, func(s *cluster.Spec) any { return &s.Workload.NetworkThreads }),
	positive("IoServiceMs", "", "ms", func(s *cluster.Spec) any { return &s.Workload.IoServiceMs }),
	positive("NetworkServiceMs", "", "ms", func(s *cluster.Spec) any { return &s.Workload.NetworkServiceMs }),
	positive("AppendServiceMs", "", "ms", func(s *cluster.Spec) any { return &s.Workload.AppendServiceMs }),
	share("MaxUtil", true, true, func(s *cluster.Spec) any { return &s.Workload.MaxUtil }),
	count("SamplesPerWindow", "", maxCount, func(s *cluster.Spec) any { return &s.Workload.SamplesPerWindow }),
	ms("StepMs", "", 1, func(s *cluster.Spec) any { return &s.Workload.StepMs }),
	count("SlidingWindows", "", 10_000, func(s *cluster.Spec) any { return &s.Workload.SlidingWindows }),
	count("MaxPending", "", 10*maxCount, func(s *cluster.Spec) any { return &s.Workload.MaxPending }),
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
