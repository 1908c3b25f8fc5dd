package lab

import "strings"

// Preset names.
const (
	// PresetSmall is a 3-broker cluster that runs in well under a second: for trying things.
	PresetSmall = "small"
	// PresetKIPLoadTest is KRaft Lab's load test in the spirit of KIP-1358's (which fixes only
	// "≥ 10,000 partitions on the target broker"), as cluster/loadtest_test.go runs it.
	PresetKIPLoadTest = "kip-load-test"
	// PresetLarge is a 24-broker cluster with 240,000 partitions that loses a disk.
	PresetLarge = "large"
)

// PresetNames lists the presets in the order a page offers them.
func PresetNames() []string { return []string{PresetSmall, PresetKIPLoadTest, PresetLarge} }

// Preset returns a fresh copy of a preset description.
func Preset(name string) (*Description, error) {
	switch name {
	case PresetSmall:
		return &Description{Preset: name, Name: "A small cluster: broker 0 killed at 5:00 and started at 6:00",
			Seed: 1, Controllers: 3, Brokers: 3, ReplicationFactor: 3, MinInsyncReplicas: 2,
			Topics:             []Topic{{Name: "orders", Partitions: 300}},
			ProduceBytesPerSec: 60e6, DataBytesPerBroker: 10e9, Skew: 1,
			DiskBytesPerSec: 500e6, NicBytesPerSec: 1250e6,
			Event:      Event{Kind: EventRestart, Broker: 0, AtMs: 5 * 60_000, DownMs: 60_000},
			DurationMs: 30 * 60_000}, nil
	case PresetKIPLoadTest:
		return KIPLoadTest(), nil
	case PresetLarge:
		return &Description{Preset: name, Name: "A large cluster: broker 0's disk replaced at 20:00, back at 25:00",
			Seed: 7, Controllers: 3, Brokers: 24, ReplicationFactor: 3, MinInsyncReplicas: 2,
			Topics:             []Topic{{Name: "orders", Partitions: 200_000}, {Name: "__consumer_offsets", Partitions: 50}, {Name: "clicks", Partitions: 39_950}},
			ProduceBytesPerSec: 24 * 50e6, DataBytesPerBroker: 500e9, Skew: 1,
			DiskBytesPerSec: 500e6, NicBytesPerSec: 1250e6,
			Event:      Event{Kind: EventDiskSwap, Broker: 0, AtMs: 20 * 60_000, DownMs: 5 * 60_000},
			DurationMs: 90 * 60_000}, nil
	}
	return nil, inputErrorf("unknown preset %q; presets: %s", name, strings.Join(PresetNames(), ", "))
}

// KIPLoadTest is KRaft Lab's load test after KIP-1358's. The KIP fixes only "≥ 10,000
// partitions on the target broker"; everything else here is KRaft Lab's choice: 6 brokers,
// 60,000 partitions at replication factor 3 (broker 0 the preferred replica of 10,000),
// min.insync.replicas 2, 3 controllers, seed 42; producers at 50 MB/s led per broker (300 MB/s
// in all) with lognormal skew σ = 1; 2 TB per broker; 500 MB/s disks and 10 Gb/s NICs; broker 0
// killed at 20:00 and started at 21:00; 60 minutes. Log recovery after the kill is fixed at
// 120 s: derived from what the broker holds, it would be over an hour (30,000 logs of about
// 67 MB, each still in its first 1 GiB segment, so Kafka re-reads all 2 TB), and the test is
// about leadership coming back, not log recovery. Every other parameter is the model's default
// (the requests, acks=all...). cluster/loadtest_test.go runs it, so docs/reference.md's table and the
// lab share one definition.
func KIPLoadTest() *Description {
	return &Description{Preset: PresetKIPLoadTest,
		Name: "Load test after KIP-1358's (≥ 10,000 partitions on broker 0; the rest KRaft Lab's choice): broker 0 of 6 (60,000 partitions, RF 3) killed at 20:00 and started at 21:00",
		Seed: 42, Controllers: 3, Brokers: 6, ReplicationFactor: 3, MinInsyncReplicas: 2,
		Topics:             []Topic{{Name: "orders", Partitions: 60_000}},
		ProduceBytesPerSec: 300e6, DataBytesPerBroker: 2e12, Skew: 1,
		DiskBytesPerSec: 500e6, NicBytesPerSec: 1250e6, LogRecoveryHardMs: 120_000,
		Event:      Event{Kind: EventRestart, Broker: 0, AtMs: 20 * 60_000, DownMs: 60_000},
		DurationMs: 60 * 60_000}
}
