package workload

import (
	"fmt"
	"math"
)

// Params are the workload's inputs. Defaults are docs/model.md §8's; numbers without a
// Kafka or published source are marked [assumption]. The ones that drive the latency curve
// are the service times (AppendServiceMs above all: the append stage carries ρ_dw, which
// catch-up raises), the thread counts, LingerMs and RttMs for the steady level, and
// SwitchWindowMs, Kip951 and StaleMetadataRetryProb for the leader-change tail.
type Params struct {
	// BytesPerSecPerBroker is the produce bytes led per broker: total = this × brokers,
	// spread over the partitions. 50 MB/s (Jason Taylor example; Confluent forum).
	BytesPerSecPerBroker float64
	// RequestsPerSecPerBroker is the produce requests (partition batches) per broker; a
	// partition's batch rate is proportional to its byte rate. [assumption] 2,000/s.
	RequestsPerSecPerBroker float64
	// RecordBytes is one record's size, to count records. [assumption] 1,000 B.
	RecordBytes float64
	// Skew is σ of the lognormal per-partition rate. [assumption] 1.0; 0 = uniform.
	Skew float64
	// Classes is the number of equal-probability rate classes the lognormal is quantised
	// into (at most broker.MaxClasses). [assumption] 16: the top class then carries the
	// conditional mean of the top 6 % of partitions, which keeps the hot-partition tail.
	Classes int

	// LingerMs is linger.ms: 5 since Kafka 4.0 (KIP-1030). A record waits U(0, linger).
	LingerMs float64
	// RequestTimeoutMs is request.timeout.ms (30,000).
	RequestTimeoutMs int64
	// DeliveryTimeoutMs is delivery.timeout.ms (120,000): a record still unsent then fails.
	DeliveryTimeoutMs int64
	// RetryBackoffMs and RetryBackoffMaxMs are retry.backoff.ms (100) and
	// retry.backoff.max.ms (1,000) of KIP-580's exponential backoff.
	RetryBackoffMs, RetryBackoffMaxMs float64
	// RetryJitter is the backoff's relative jitter, ±20 % (CommonClientConfigs).
	RetryJitter float64
	// Kip951 is on when clients and brokers are ≥ 3.7: NOT_LEADER_OR_FOLLOWER carries the new
	// leader, so a request redirects at once instead of waiting for a metadata refresh.
	Kip951 bool
	// SwitchWindowMs is d with KIP-951: how long after a leader change producers still send to
	// the old leader: 0.2 s; an all-leaders move then gives p99.9 of the minute 0.1–0.2 s
	// (KIP-951 measured 215 ms).
	SwitchWindowMs float64
	// LegacySwitchWindowMs is d without KIP-951, when producers learn the new leader only from
	// a metadata refresh. [assumption] 1 s, the low end of 1–3 s for a metadata refresh; with
	// StaleMetadataRetryProb it puts p99.9 of an all-leaders move at 1–2.5 s (KIP-951
	// baseline: 0.86–2.97 s).
	LegacySwitchWindowMs float64
	// StaleMetadataRetryProb is, without KIP-951, the chance that a retry after a metadata
	// refresh still finds stale metadata and backs off again (a geometric chain of backoffs).
	// [assumption] 0.5 (see LegacySwitchWindowMs).
	StaleMetadataRetryProb float64

	// RttMs is the client ↔ broker round trip. [assumption] 0.5 ms.
	RttMs float64
	// IoThreads, NetworkThreads are num.io.threads (8) and num.network.threads (3).
	IoThreads, NetworkThreads int
	// IoServiceMs is s_io, a request handler's service time per request. [assumption]
	// 0.5 ms.
	IoServiceMs float64
	// NetworkServiceMs is a network thread's time per request. [assumption] 0.1 ms.
	NetworkServiceMs float64
	// AppendServiceMs is s_a, the append stage's service time: A(b) is exponential with mean
	// s_a / (1 − ρ_dw(b)). Calibrated: 0.85 ms puts the sampled steady p50 at 6.3 ms and p99 at
	// 13.2 ms at ρ_dw = 0.3 with the other defaults, as KIP-951's baseline (p50 6 ms, p99
	// 12–14 ms). The uncalibrated guess, 0.5 ms, gave ≈13 ms as a sum of stage p99s, an upper bound; sampled,
	// 0.5 ms gives p99 ≈ 9.8 ms.
	AppendServiceMs float64
	// MaxUtil caps every utilisation used in a queueing formula; a stage at or above capacity
	// is treated as this busy. [assumption] 0.99.
	MaxUtil float64

	// WindowMs is the reporting window. [assumption] 10 s.
	WindowMs int64
	// SamplesPerWindow is how many requests a window samples, in proportion to request rate.
	// [assumption] 2,000. The sampling cost is about 80 ns a request.
	SamplesPerWindow int
	// StepMs is how often samples are drawn (a share of SamplesPerWindow each time) and the
	// brokers' loads re-read. [assumption] 1 s.
	StepMs int64
	// SlidingWindows is how many windows the sliding percentiles span. [assumption] 60 s = 6.
	SlidingWindows int
	// MaxPending bounds requests waiting for a retry or for the HW; further samples that would
	// wait are dropped (and counted). [assumption] 50,000.
	MaxPending int
}

// DefaultParams returns the defaults documented on each field.
func DefaultParams() Params {
	return Params{
		BytesPerSecPerBroker:    50e6,
		RequestsPerSecPerBroker: 2000,
		RecordBytes:             1000,
		Skew:                    1,
		Classes:                 16,
		LingerMs:                5,
		RequestTimeoutMs:        30_000,
		DeliveryTimeoutMs:       120_000,
		RetryBackoffMs:          100,
		RetryBackoffMaxMs:       1000,
		RetryJitter:             0.2,
		Kip951:                  true,
		SwitchWindowMs:          200,
		LegacySwitchWindowMs:    1000,
		StaleMetadataRetryProb:  0.5,
		RttMs:                   0.5,
		IoThreads:               8,
		NetworkThreads:          3,
		IoServiceMs:             0.5,
		NetworkServiceMs:        0.1,
		AppendServiceMs:         0.85,
		MaxUtil:                 0.99,
		WindowMs:                10_000,
		SamplesPerWindow:        2000,
		StepMs:                  1000,
		SlidingWindows:          6,
		MaxPending:              50_000,
	}
}

// Validate checks every field and names the first bad one, its value and what is allowed.
func (p *Params) Validate() error {
	pos := []struct {
		name string
		v    float64
	}{
		{"BytesPerSecPerBroker", p.BytesPerSecPerBroker},
		{"RequestsPerSecPerBroker", p.RequestsPerSecPerBroker},
		{"RecordBytes", p.RecordBytes},
		{"RetryBackoffMs", p.RetryBackoffMs},
		{"RetryBackoffMaxMs", p.RetryBackoffMaxMs},
		{"IoServiceMs", p.IoServiceMs},
		{"NetworkServiceMs", p.NetworkServiceMs},
		{"AppendServiceMs", p.AppendServiceMs},
	}
	for _, f := range pos {
		if !(f.v > 0) || math.IsInf(f.v, 0) {
			return fmt.Errorf("workload params: %s = %g; must be a positive finite number", f.name, f.v)
		}
	}
	nonNeg := []struct {
		name string
		v    float64
	}{
		{"Skew", p.Skew}, {"LingerMs", p.LingerMs}, {"SwitchWindowMs", p.SwitchWindowMs},
		{"LegacySwitchWindowMs", p.LegacySwitchWindowMs}, {"RttMs", p.RttMs},
	}
	for _, f := range nonNeg {
		if !(f.v >= 0) || math.IsInf(f.v, 0) {
			return fmt.Errorf("workload params: %s = %g; must be a finite number ≥ 0", f.name, f.v)
		}
	}
	if p.Skew > 5 {
		return fmt.Errorf("workload params: Skew = %g; must be at most 5 (σ of a lognormal)", p.Skew)
	}
	if p.Classes < 1 || p.Classes > 64 {
		return fmt.Errorf("workload params: Classes = %d; must be in [1, 64]", p.Classes)
	}
	if !(p.RetryJitter >= 0 && p.RetryJitter < 1) {
		return fmt.Errorf("workload params: RetryJitter = %g; must be in [0, 1)", p.RetryJitter)
	}
	if !(p.StaleMetadataRetryProb >= 0 && p.StaleMetadataRetryProb < 1) {
		return fmt.Errorf("workload params: StaleMetadataRetryProb = %g; must be in [0, 1)", p.StaleMetadataRetryProb)
	}
	if !(p.MaxUtil > 0 && p.MaxUtil < 1) {
		return fmt.Errorf("workload params: MaxUtil = %g; must be in (0, 1)", p.MaxUtil)
	}
	if p.RetryBackoffMaxMs < p.RetryBackoffMs {
		return fmt.Errorf("workload params: RetryBackoffMaxMs = %g is below RetryBackoffMs = %g", p.RetryBackoffMaxMs, p.RetryBackoffMs)
	}
	ints := []struct {
		name string
		v    int64
	}{
		{"RequestTimeoutMs", p.RequestTimeoutMs}, {"DeliveryTimeoutMs", p.DeliveryTimeoutMs},
		{"WindowMs", p.WindowMs}, {"StepMs", p.StepMs},
		{"IoThreads", int64(p.IoThreads)}, {"NetworkThreads", int64(p.NetworkThreads)},
		{"SamplesPerWindow", int64(p.SamplesPerWindow)}, {"SlidingWindows", int64(p.SlidingWindows)},
		{"MaxPending", int64(p.MaxPending)},
	}
	for _, f := range ints {
		if f.v < 1 {
			return fmt.Errorf("workload params: %s = %d; must be at least 1", f.name, f.v)
		}
	}
	if p.WindowMs%p.StepMs != 0 {
		return fmt.Errorf("workload params: WindowMs = %d is not a multiple of StepMs = %d", p.WindowMs, p.StepMs)
	}
	if p.DeliveryTimeoutMs < p.RequestTimeoutMs {
		return fmt.Errorf("workload params: DeliveryTimeoutMs = %d is below RequestTimeoutMs = %d", p.DeliveryTimeoutMs, p.RequestTimeoutMs)
	}
	return nil
}
