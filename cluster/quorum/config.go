package quorum

import (
	"fmt"
	"strings"
)

// Config holds the quorum's settings under Kafka's names and defaults (QuorumConfig,
// MetadataLogConfig, KafkaRaftClient). A few knobs Kafka hard-codes or does not have at all (the
// network model) are marked as KRaft Lab's and named with a "kraftlab." prefix in Set.
type Config struct {
	// Voters is controller.quorum.voters: the voter node ids; 1, 3 or 5 of them.
	Voters []NodeID

	// ElectionTimeoutMs is controller.quorum.election.timeout.ms (1000). Each use is randomised
	// in [t, 2t), as QuorumState.randomElectionTimeoutMs does.
	ElectionTimeoutMs int64
	// FetchTimeoutMs is controller.quorum.fetch.timeout.ms (2000): a voter without a successful
	// fetch for this long becomes Prospective. The leader's check-quorum timeout is 1.5 × this.
	FetchTimeoutMs int64
	// ElectionBackoffMaxMs is controller.quorum.election.backoff.max.ms (1000): the cap on the
	// election backoff successors use after a leader resigns with EndQuorumEpoch.
	ElectionBackoffMaxMs int64
	// RequestTimeoutMs is controller.quorum.request.timeout.ms (2000): a fetch with no answer by
	// then is given up and retried.
	RequestTimeoutMs int64
	// RetryBackoffMs is controller.quorum.retry.backoff.ms (20): the pause before re-sending a
	// failed fetch.
	RetryBackoffMs int64
	// FetchSnapshotMaxBytes is controller.quorum.fetch.snapshot.max.bytes (1 MiB): the largest
	// chunk one FetchSnapshot round trip carries.
	FetchSnapshotMaxBytes int64
	// MaxBytesBetweenSnapshots is metadata.log.max.record.bytes.between.snapshots (20 MiB): a node
	// snapshots once this many committed bytes have been applied since its last snapshot.
	MaxBytesBetweenSnapshots int64
	// MaxSnapshotIntervalMs is metadata.log.max.snapshot.interval.ms (1 h): a node snapshots when
	// new data is committed this long after its last snapshot; 0 disables time-based snapshots.
	MaxSnapshotIntervalMs int64
	// RetentionBytes is metadata.max.retention.bytes (100 MiB; -1 = unlimited). Once log plus
	// snapshots exceed it, the oldest snapshot is deleted and the log start offset moves up to the
	// next one (KafkaMetadataLog.cleanSnapshots); the newest snapshot is always kept.
	RetentionBytes int64
	// RetentionMs is metadata.max.retention.ms (7 days; -1 = unlimited), the same rule by age.
	RetentionMs int64

	// FetchMaxWaitMs is how long a leader parks a fetch that finds no new data before answering
	// empty. Kafka hard-codes it as KafkaRaftClient.MAX_FETCH_WAIT_MS = 500 (Set name
	// "kraftlab.quorum.fetch.max.wait.ms").
	FetchMaxWaitMs int64
	// FetchMaxBytes caps the entry bytes in one fetch response (at least one entry is always
	// sent). Kafka uses KafkaRaftClient.MAX_FETCH_SIZE_BYTES = 8 MiB (Set name
	// "kraftlab.quorum.fetch.max.bytes").
	FetchMaxBytes int64
	// NetworkDelayMs is KRaft Lab's one-way message delay (1 ms; Set name
	// "kraftlab.network.delay.ms"). It must be at least 1 so that a request and its answer never
	// happen at the same instant, which keeps retries from spinning without time passing.
	NetworkDelayMs int64
	// NetworkJitterMs is KRaft Lab's extra random delay per message, uniform in [0, jitter]
	// (1 ms; Set name "kraftlab.network.jitter.ms"). Messages on one link still arrive in order,
	// as on a TCP connection. Without jitter, followers that heard the leader at the same instant
	// time out in perfect lockstep and split every vote, which real networks do not do.
	NetworkJitterMs int64
}

// DefaultConfig returns Kafka's defaults with no voters; set Voters before use.
func DefaultConfig() Config {
	return Config{
		ElectionTimeoutMs:        1000,
		FetchTimeoutMs:           2000,
		ElectionBackoffMaxMs:     1000,
		RequestTimeoutMs:         2000,
		RetryBackoffMs:           20,
		FetchSnapshotMaxBytes:    1 << 20,
		MaxBytesBetweenSnapshots: 20 << 20,
		MaxSnapshotIntervalMs:    3_600_000,
		RetentionBytes:           100 << 20,
		RetentionMs:              7 * 24 * 3_600_000,
		FetchMaxWaitMs:           500,
		FetchMaxBytes:            8 << 20,
		NetworkDelayMs:           1,
		NetworkJitterMs:          1,
	}
}

// CheckQuorumTimeoutMs is when a leader that has not heard from a majority resigns:
// LeaderState.CHECK_QUORUM_TIMEOUT_FACTOR (1.5) × controller.quorum.fetch.timeout.ms.
func (c Config) CheckQuorumTimeoutMs() int64 { return c.FetchTimeoutMs * 3 / 2 }

// maxSetting caps every setting (about 35 years in ms, 1 TiB in bytes) so that deadline and size
// arithmetic can never overflow int64.
const maxSetting = 1 << 40

// setting ties a Kafka config name to its field and allowed minimum.
type setting struct {
	name  string
	field func(*Config) *int64
	min   int64
	rule  string
}

var settings = []setting{
	{"controller.quorum.election.timeout.ms", func(c *Config) *int64 { return &c.ElectionTimeoutMs }, 1, "at least 1"},
	{"controller.quorum.fetch.timeout.ms", func(c *Config) *int64 { return &c.FetchTimeoutMs }, 1, "at least 1"},
	{"controller.quorum.election.backoff.max.ms", func(c *Config) *int64 { return &c.ElectionBackoffMaxMs }, 0, "at least 0"},
	{"controller.quorum.request.timeout.ms", func(c *Config) *int64 { return &c.RequestTimeoutMs }, 1, "at least 1"},
	{"controller.quorum.retry.backoff.ms", func(c *Config) *int64 { return &c.RetryBackoffMs }, 0, "at least 0"},
	{"controller.quorum.fetch.snapshot.max.bytes", func(c *Config) *int64 { return &c.FetchSnapshotMaxBytes }, 1, "at least 1"},
	{"metadata.log.max.record.bytes.between.snapshots", func(c *Config) *int64 { return &c.MaxBytesBetweenSnapshots }, 1, "at least 1"},
	{"metadata.log.max.snapshot.interval.ms", func(c *Config) *int64 { return &c.MaxSnapshotIntervalMs }, 0, "at least 0 (0 disables)"},
	{"metadata.max.retention.bytes", func(c *Config) *int64 { return &c.RetentionBytes }, -1, "at least -1 (-1 = unlimited)"},
	{"metadata.max.retention.ms", func(c *Config) *int64 { return &c.RetentionMs }, -1, "at least -1 (-1 = unlimited)"},
	{"kraftlab.quorum.fetch.max.wait.ms", func(c *Config) *int64 { return &c.FetchMaxWaitMs }, 0, "at least 0"},
	{"kraftlab.quorum.fetch.max.bytes", func(c *Config) *int64 { return &c.FetchMaxBytes }, 1, "at least 1"},
	{"kraftlab.network.delay.ms", func(c *Config) *int64 { return &c.NetworkDelayMs }, 1, "at least 1"},
	{"kraftlab.network.jitter.ms", func(c *Config) *int64 { return &c.NetworkJitterMs }, 0, "at least 0"},
}

// ConfigError says which setting is wrong, what it was set to, and what is allowed.
type ConfigError struct {
	Name    string // the setting, as Kafka spells it
	Value   string // what it was set to
	Allowed string // what would be accepted
}

// Error implements error.
func (e *ConfigError) Error() string {
	return fmt.Sprintf("quorum config %s = %s is not allowed: %s", e.Name, e.Value, e.Allowed)
}

// ConfigNames lists the names Set accepts, in a fixed order.
func ConfigNames() []string {
	names := make([]string, len(settings))
	for i, s := range settings {
		names[i] = s.name
	}
	return names
}

// Set changes one numeric setting by its Kafka (or kraftlab.) name, checking its range.
func (c *Config) Set(name string, value int64) error {
	for _, s := range settings {
		if s.name != name {
			continue
		}
		if value < s.min || value > maxSetting {
			return &ConfigError{Name: name, Value: fmt.Sprint(value), Allowed: "must be " + s.rule + " and at most 2^40"}
		}
		*s.field(c) = value
		return nil
	}
	return &ConfigError{Name: name, Value: fmt.Sprint(value), Allowed: "unknown setting; known settings are " + strings.Join(ConfigNames(), ", ")}
}

// Validate checks every setting and the voter set, reporting the first problem.
func (c Config) Validate() error {
	if n := len(c.Voters); n != 1 && n != 3 && n != 5 {
		return &ConfigError{Name: "controller.quorum.voters", Value: fmt.Sprint(c.Voters),
			Allowed: fmt.Sprintf("has %d voters; KRaft Lab allows 1, 3 or 5", n)}
	}
	for i, v := range c.Voters {
		if v < 0 {
			return &ConfigError{Name: "controller.quorum.voters", Value: fmt.Sprint(c.Voters),
				Allowed: fmt.Sprintf("voter %d has id %d; node ids must be at least 0", i, v)}
		}
		for _, w := range c.Voters[:i] {
			if w == v {
				return &ConfigError{Name: "controller.quorum.voters", Value: fmt.Sprint(c.Voters),
					Allowed: fmt.Sprintf("node %d is listed twice; voter ids must be distinct", v)}
			}
		}
	}
	for _, s := range settings {
		if v := *s.field(&c); v < s.min || v > maxSetting {
			return &ConfigError{Name: s.name, Value: fmt.Sprint(v), Allowed: "must be " + s.rule + " and at most 2^40"}
		}
	}
	return nil
}
