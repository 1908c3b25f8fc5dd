package lab

import (
	"strconv"

	"github.com/kraftlab/kraftlab/cluster"
)

// Assumption is an uncertain model parameter (marked [assumption] in the doc comments of
// cluster/broker.Params and cluster/workload.Params, or calibrated rather than sourced) with
// the range the sensitivity view tries. Names are overrides (broker.PARAM, workload.PARAM);
// one assumption may move several parameters together (a disk's read and write capacity).
type Assumption struct {
	// Key names the assumption in tables and flags.
	Key   string
	Names []string
	// Low and High are the values tried: factors of the scenario's value when Relative,
	// else absolute values.
	Low, High float64
	Relative  bool
	// Source is where the default and the range come from (docs/model.md §8 unless said
	// otherwise).
	Source string
	// Drives lists the criteria (Criterion ids) the parameter moves in this model.
	Drives []string
	get    func(*cluster.Spec) float64
}

// Assumptions are the uncertain parameters the sensitivity view moves, in the order it
// reports them. Parameters marked [assumption] that are not here are in notVaried, with the
// reason (a test keeps the two lists complete).
var Assumptions = []Assumption{
	{Key: "disk", Names: []string{"broker.disk_write_bytes_per_sec", "broker.disk_read_bytes_per_sec"}, Low: 0.5, High: 2, Relative: true,
		Source: "assumed: 500 MB/s; AWS gp3 ranges 125–1,000 MiB/s", Drives: []string{CriterionP99, CriterionTimeouts, CriterionRecovery},
		get: func(s *cluster.Spec) float64 { return s.Broker.DiskWriteBytesPerSec }},
	{Key: "nic", Names: []string{"broker.nic_in_bytes_per_sec", "broker.nic_out_bytes_per_sec"}, Low: 0.5, High: 2.5, Relative: true,
		Source: "assumed: 10 Gb/s; 5–25 Gb/s instances are common", Drives: []string{CriterionP99, CriterionRecovery},
		get: func(s *cluster.Spec) float64 { return s.Broker.NicInBytesPerSec }},
	{Key: "catch_up_share", Names: []string{"broker.catch_up_headroom_share"}, Low: 0.5, High: 1,
		Source: "assumed: η = 0.9 (DataDog autothrottle aims at 90 %; ≈250 MB/s observed unthrottled)", Drives: []string{CriterionP99, CriterionTimeouts, CriterionRecovery},
		get: func(s *cluster.Spec) float64 { return s.Broker.CatchUpHeadroomShare }},
	{Key: "log_recovery_hard", Names: []string{"broker.log_recovery_hard_ms"}, Low: 30_000, High: 600_000,
		Source: "0 by default: derived from what the broker holds (its logs' active segments, log.segment.bytes, re-read at the disk's read rate; LogLoader.recoverLog); the sensitivity fixes it from 30 s to 600 s: moves when the broker is unfenced against today's 300 s tick", Drives: []string{CriterionRecovery},
		get: func(s *cluster.Spec) float64 { return float64(s.Broker.LogRecoveryHardMs) }},
	{Key: "log_load_clean", Names: []string{"broker.log_load_clean_ms"}, Low: 10_000, High: 300_000,
		Source: "assumed: about 60 s from start to unfenced after a clean shutdown: moves the unfencing against today's tick", Drives: []string{CriterionRecovery},
		get: func(s *cluster.Spec) float64 { return float64(s.Broker.LogLoadCleanMs) }},
	{Key: "local_data", Names: []string{"broker.local_retention_sec"}, Low: 0.25, High: 4, Relative: true,
		Source: "assumed: 2 TB per broker; no public data set of partition sizes: what a replaced disk copies", Drives: []string{CriterionP99, CriterionRecovery},
		get: func(s *cluster.Spec) float64 { return s.Broker.LocalRetentionSec }},
	{Key: "append_service", Names: []string{"workload.append_service_ms"}, Low: 0.5, High: 1.2,
		Source: "calibrated: 0.85 ms puts the steady p99 at KIP-951's 12–14 ms", Drives: []string{CriterionP99, CriterionTimeouts},
		get: func(s *cluster.Spec) float64 { return s.Workload.AppendServiceMs }},
	{Key: "requests", Names: []string{"workload.requests_per_sec_per_broker"}, Low: 0.5, High: 5, Relative: true,
		Source: "assumed: 2,000 produce requests/s per broker, to be calibrated on a real cluster", Drives: []string{CriterionP99},
		get: func(s *cluster.Spec) float64 { return s.Workload.RequestsPerSecPerBroker }},
	{Key: "skew", Names: []string{"workload.skew"}, Low: 0.5, High: 2,
		Source: "assumed: lognormal σ = 1.0, to be replaced by measured data: the stragglers", Drives: []string{CriterionP99, CriterionRecovery},
		get: func(s *cluster.Spec) float64 { return s.Workload.Skew }},
}

// notVaried are the [assumption] parameters the sensitivity view leaves alone, and why: in
// this model they do not move the KIP's three criteria, or move them less than the ones above.
var notVaried = map[string]string{
	"ProcessStartMs":         "5 s of a start: small beside log loading, which is varied",
	"LogLoadEmptyMs":         "1 s on an empty disk: the copy-back that follows dominates (local_data is varied)",
	"LogRecoveryPerLogMs":    "10 ms a log after a hard stop: re-reading the active segments dominates (log_recovery_hard is varied)",
	"ShutdownFlushMs":        "before the broker is down: moves nothing after unfencing",
	"AlterPartitionRetryMs":  "only when the controller does not answer",
	"RttMs":                  "0.5 ms in a 12–14 ms p99; both the broker and client RTTs",
	"InSyncLagMs":            "what acks=1 loses at a clean leader change; acks=all is the default",
	"ConsumerFanout":         "NIC out only, far from saturation at the defaults (nic is varied)",
	"AllocPeriodMs":          "a numerical step of the catch-up model, not a property of the cluster",
	"RecordBytes":            "counts records; no latency or recovery figure depends on it",
	"Classes":                "the lognormal's quantisation; skew is varied",
	"LegacySwitchWindowMs":   "only without KIP-951 (clients before 3.7); shapes p99.9 rather than p99",
	"StaleMetadataRetryProb": "only without KIP-951",
	"IoServiceMs":            "the handler pool is far from saturation at the defaults; append_service is varied",
	"NetworkServiceMs":       "as IoServiceMs",
	"MaxUtil":                "a numerical cap on queueing formulas",
	"MaxPending":             "a memory bound on sampled requests",
	"WindowMs":               "how the output is reported (the KIP's criteria read the sliding minute), not a property of the cluster",
	"SamplesPerWindow":       "the sampling's resolution, not a property of the cluster",
	"StepMs":                 "a numerical step of the sampling, not a property of the cluster",
	"SlidingWindows":         "the KIP's criteria are read over a sliding minute",
}

// Driver is an uncertain parameter behind a verdict, with its value in the run and whether
// the scenario states it (the operator saw it) or left it at the model's default.
type Driver struct {
	Key    string  `json:"key"`
	Names  string  `json:"names"`
	Value  float64 `json:"value"`
	Source string  `json:"source"`
	// InScenario is true when the scenario file sets the parameter (a description writes the
	// disk, NIC and data size it states); false means the model's default, unseen.
	InScenario bool `json:"in_scenario"`
}

// drivers lists the assumptions that drive a criterion, with their values in spec; set holds
// the parameters the scenario file states (explicitParams).
func drivers(criterion string, spec *cluster.Spec, set map[string]bool) []Driver {
	var out []Driver
	for _, a := range Assumptions {
		for _, d := range a.Drives {
			if d == criterion {
				names := ""
				for i, n := range a.Names {
					if i > 0 {
						names += ", "
					}
					names += n
				}
				out = append(out, Driver{Key: a.Key, Names: names, Value: a.get(spec), Source: a.Source, InScenario: set[a.Names[0]]})
			}
		}
	}
	return out
}

// variants returns the overrides that put the assumption at its low and high values for a
// run whose spec is given.
func (a *Assumption) variants(spec *cluster.Spec) (low, high []Override) {
	v := a.get(spec)
	lo, hi := a.Low, a.High
	if a.Relative {
		lo, hi = v*a.Low, v*a.High
	}
	for _, n := range a.Names {
		low = append(low, Override{Name: n, Value: formatValue(lo)})
		high = append(high, Override{Name: n, Value: formatValue(hi)})
	}
	return low, high
}

// formatValue writes a value for an override in plain decimal ("600000", "0.5"), which the
// scenario reads as a whole number where the parameter needs one.
func formatValue(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
