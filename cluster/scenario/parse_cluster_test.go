package scenario

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/cluster"
	"github.com/kraftlab/kraftlab/cluster/broker"
	"github.com/kraftlab/kraftlab/cluster/workload"
	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/controller"
)

// clusterBase is a valid cluster-mode scenario: 3 brokers and a topic "foo" of 6 partitions,
// 10 simulated minutes; %s takes its events.
const clusterBase = `{"duration_ms": 600000, "cluster": {"brokers": 3, "topics": [{"name": "foo", "partition_count": 6, "replication_factor": 3}]}, "events": [%s]}`

func withEvents(events ...string) string { return fmt.Sprintf(clusterBase, strings.Join(events, ",")) }

// withCluster is a 10-minute cluster-mode scenario with the given cluster object.
func withCluster(c string) string { return `{"duration_ms": 600000, "cluster": ` + c + `}` }

// withBlock is a 3-broker cluster whose broker or workload block holds fields.
func withBlock(block, fields string) string {
	return withCluster(`{"brokers": 3, "topics": [{"name": "t", "partition_count": 1, "replication_factor": 1}], "` + block + `": {` + fields + `}}`)
}

func parseCluster(t *testing.T, src string, settings ...Setting) *ClusterScenario {
	t.Helper()
	s, err := Parse([]byte(src), settings...)
	require.NoError(t, err)
	require.Equal(t, ModeCluster, s.Mode)
	require.NotNil(t, s.Cluster)
	return s.Cluster
}

func TestClusterParseErrorsNameTheFieldAndTheProblem(t *testing.T) {
	cases := []struct{ in, want string }{
		{withCluster(`{}`), `cluster.brokers: required (a count, or a list of broker ids)`},
		{`{"duration_ms": 0, "cluster": {"brokers": 3, "topics": [{"name": "t", "partition_count": 1, "replication_factor": 1}]}}`, `duration_ms: must be an integer from 1 to 604800000 (7 days), got 0`},
		{`{"duration_ms": 604800001, "cluster": {"brokers": 3, "topics": [{"name": "t", "partition_count": 1, "replication_factor": 1}]}}`, `duration_ms: must be an integer from 1 to 604800000 (7 days), got 604800001`},
		{`{"duration_ms": 60000, "sample_ms": 0, "cluster": {"brokers": 3, "topics": [{"name": "t", "partition_count": 1, "replication_factor": 1}]}}`, `sample_ms: must be an integer from 1 to 604800000, got 0`},
		{`{"duration_ms": 60000, "sample_ms": 1500, "cluster": {"brokers": 3, "topics": [{"name": "t", "partition_count": 1, "replication_factor": 1}]}}`, `sample_ms: sample_ms (1500) is not a multiple of step_ms (1000): a sample's latency window is made of whole steps`},
		{`{"duration_ms": 60000}`, `cluster: required (the controllers, brokers and topics)`},
		{`{"duration_ms": 60000, "cluster": []}`, `cluster: must be an object, got an array`},
		{withCluster(`{"brokers": 3, "racks": 2}`), `cluster.racks: unknown field (allowed: controllers, brokers, topics, broker, workload)`},
		{withCluster(`{"brokers": 0}`), `cluster.brokers: must be a count from 1 to 3000, or a list of broker ids, got 0`},
		{withCluster(`{"brokers": 3001}`), `cluster.brokers: must be a count from 1 to 3000, or a list of broker ids, got 3001`},
		{withCluster(`{"brokers": []}`), `cluster.brokers: must name at least one broker`},
		{withCluster(`{"brokers": [0, 1, 1]}`), `cluster.brokers[2]: broker 1 is listed twice`},
		{withCluster(`{"brokers": [0, 3000]}`), `cluster.brokers[1]: 3000 is a controller's id (controllers: 3000, 3001, 3002); brokers and controllers share one id space`},
		{withCluster(`{"brokers": "3"}`), `cluster.brokers: must be a count of brokers or a list of broker ids, got "3"`},
		{withCluster(`{"brokers": 3, "controllers": 2}`), `cluster.controllers: must be 1, 3 or 5 (a quorum of controller voters), got 2`},
		{withCluster(`{"brokers": 3, "controllers": 7}`), `cluster.controllers: must be 1, 3 or 5 (a quorum of controller voters), got 7`},
		{withCluster(`{"brokers": 3, "topics": [{"name": "a", "partition_count": 2, "replication_factor": 4}]}`), `cluster.topics[0].replication_factor: 4 is more than the 3 listed brokers`},
		{withCluster(`{"brokers": 3, "topics": [{"name": "a", "partitions": [{"replicas": [0, 5]}]}]}`), `cluster.topics[0].partitions[0].replicas[1]: broker 5 does not exist (brokers: 0, 1, 2)`},
		{withCluster(`{"brokers": 3, "topics": [{"name": "a", "partitions": [{"replicas": [0, 1], "isr": [0]}]}]}`), `cluster.topics[0].partitions[0].isr: unknown field (allowed: replicas, size_bytes, produce_bytes_per_sec); in cluster mode every replica starts in sync and the preferred replica leads`},
		{withCluster(`{"brokers": 3, "topics": [{"name": "a", "partitions": [{"replicas": [0], "size_bytes": -1}]}]}`), `cluster.topics[0].partitions[0].size_bytes: must be a size in bytes, a finite number ≥ 0 (kafka-log-dirs.sh's size), got -1`},
		{withCluster(`{"brokers": 3, "topics": [{"name": "a", "partitions": [{"replicas": [0], "produce_bytes_per_sec": "fast"}]}]}`), `cluster.topics[0].partitions[0].produce_bytes_per_sec: must be a rate in bytes per second, a finite number ≥ 0, got "fast"`},
		{withCluster(`{"brokers": 3, "topics": [{"name": "a", "partitions": [{"replicas": [0]}, {"replicas": [1], "size_bytes": 5e9}]}]}`), `cluster.topics[0].partitions[0].size_bytes: required: cluster.topics[0].partitions[1] gives size_bytes, and then every starting partition must`},
		{withCluster(`{"brokers": 3, "topics": [{"name": "a", "partitions": [{"replicas": [0], "produce_bytes_per_sec": 5}]}, {"name": "b", "partition_count": 1, "replication_factor": 1}]}`), `cluster.topics[1].partition_count: must list its partitions with their replicas and produce_bytes_per_sec: cluster.topics[0].partitions[0] gives produce_bytes_per_sec, and then every starting partition must`},
		{withEvents(`{"at_ms": 1000, "op": "create_topic", "name": "x", "partitions": [{"replicas": [0], "size_bytes": 1}]}`), `events[0].partitions[0].size_bytes: unknown field (allowed: replicas); create_topic lets the controller choose the ISR and leader`},
		{`{"duration_ms": 604800000, "sample_ms": 1000, "cluster": {"brokers": 2999}}`, `sample_ms: the scenario is too large: the simulation would need about 216.37 GiB (604802 samples of 2999 brokers), above the limit of 2.00 GiB; use fewer partitions, brokers, samples or describes`},
		{withCluster(`{"brokers": 8, "topics": [{"name": "a", "partition_count": 700000, "replication_factor": 8}]}`), `cluster.topics[0]: the scenario is too large: the simulation would need about 2.09 GiB (5600000 replicas at 400 bytes, 62 samples of 8 brokers), above the limit of 2.00 GiB; use fewer partitions, brokers, samples or describes`},
		{withBlock("broker", `"disk_write_bytes_per_sec": -1`), `cluster.broker.disk_write_bytes_per_sec: must be a number > 0 (bytes per second), got -1`},
		{withBlock("broker", `"disk_write_bytes_per_sec": 0`), `cluster.broker.disk_write_bytes_per_sec: must be a number > 0 (bytes per second), got 0`},
		{withBlock("broker", `"follower_throttle_bytes_per_sec": -1`), `cluster.broker.follower_throttle_bytes_per_sec: must be a number ≥ 0 (bytes per second; 0 means no throttle), got -1`},
		{withBlock("broker", `"follower.replication.throttled.rate": "lots"`), `cluster.broker["follower.replication.throttled.rate"]: must be a number ≥ 0 (bytes per second; 0 means no throttle), got "lots"`},
		{withBlock("broker", `"leader_throttle_bytes_per_sec": 5, "leader.replication.throttled.rate": 6`), `cluster.broker["leader.replication.throttled.rate"]: leader.replication.throttled.rate is the same setting as cluster.broker.leader_throttle_bytes_per_sec; give it once`},
		{withBlock("broker", `"log_recovery_hard_ms": 1.5`), `cluster.broker.log_recovery_hard_ms: must be an integer from 0 to 604800000 (ms; 0 means derived from what the broker holds), got 1.5`},
		{withBlock("broker", `"num.replica.fetchers": 65`), `cluster.broker["num.replica.fetchers"]: must be an integer from 1 to 64, got 65`},
		{withBlock("broker", `"catch_up_headroom_share": 0`), `cluster.broker.catch_up_headroom_share: must be a number in (0, 1], got 0`},
		{withBlock("broker", `"throttle_all_replicas": "yes"`), `cluster.broker.throttle_all_replicas: must be true or false, got "yes"`},
		{withBlock("broker", `"replica.fetch.max.bytes": 20000000`), `cluster.broker["replica.fetch.max.bytes"]: replica_fetch_response_max_bytes (10485760) is below replica_fetch_max_bytes (20000000): a fetch response must hold at least one partition's fetch`},
		{withBlock("broker", `"disk_speed": 1`), `cluster.broker.disk_speed: unknown field (allowed: heartbeat_interval_ms, starting_heartbeat_ms, controlled_shutdown_retry_ms, process_start_ms, log_load_clean_ms, log_recovery_hard_ms, log_recovery_per_log_ms, log_segment_bytes, log.segment.bytes, num_recovery_threads_per_data_dir, num.recovery.threads.per.data.dir, log_load_empty_ms, shutdown_flush_ms, replica_lag_time_max_ms, replica.lag.time.max.ms, num_replica_fetchers, num.replica.fetchers, replica_fetch_max_bytes, replica.fetch.max.bytes, replica_fetch_response_max_bytes, replica.fetch.response.max.bytes, alter_partition_retry_ms, disk_write_bytes_per_sec, disk_read_bytes_per_sec, nic_in_bytes_per_sec, nic_out_bytes_per_sec, catch_up_headroom_share, rtt_ms, in_sync_lag_ms, consumer_fanout, leader_throttle_bytes_per_sec, leader.replication.throttled.rate, follower_throttle_bytes_per_sec, follower.replication.throttled.rate, throttle_all_replicas, local_retention_sec, tiered_local_share, alloc_period_ms, acks)`},
		{withBlock("broker", `"acks": "0"`), `cluster.broker.acks: must be "all" (or "-1", -1) or "1" (or 1); acks=0 is not modelled, got "0"`},
		{withBlock("workload", `"acks": 0`), `cluster.workload.acks: must be "all" (or "-1", -1) or "1" (or 1); acks=0 is not modelled, got 0`},
		{withBlock("workload", `"skew": 6`), `cluster.workload.skew: must be a number in [0, 5] (σ of a lognormal; 0 means every partition at the same rate), got 6`},
		{withBlock("workload", `"linger.ms": -1`), `cluster.workload["linger.ms"]: must be a number ≥ 0 (ms), got -1`},
		{withBlock("workload", `"retry_backoff_max_ms": 50`), `cluster.workload.retry_backoff_max_ms: retry_backoff_max_ms (50) is below retry_backoff_ms (100)`},
		{withBlock("workload", `"delivery.timeout.ms": 1000`), `cluster.workload["delivery.timeout.ms"]: delivery_timeout_ms (1000) is below request_timeout_ms (30000): a record must be given at least one request's time`},
		{withBlock("workload", `"step_ms": 3000`), `cluster.workload.step_ms: sample_ms (10000) is not a multiple of step_ms (3000): a sample's latency window is made of whole steps`},
		{withBlock("workload", `"window_ms": 10000`), `cluster.workload.window_ms: not a setting here: the producers' latency window is the sample interval, sample_ms`},
		{withBlock("workload", `"max_util": 1`), `cluster.workload.max_util: must be a number in (0, 1), got 1`},
		{withBlock("workload", `"classes": 65`), `cluster.workload.classes: must be an integer from 1 to 64, got 65`},
		{`{"duration_ms": 60000, "config": {"broker.heartbeat.interval.ms": 1000}, "cluster": {"brokers": 3, "topics": [{"name": "t", "partition_count": 1, "replication_factor": 1}], "broker": {"heartbeat_interval_ms": 3000}}}`, `cluster.broker.heartbeat_interval_ms: is 3000 but config["broker.heartbeat.interval.ms"] is 1000: they are the same setting; give it once`},
		{`{"duration_ms": 60000, "config": {"replica.lag.time.max.ms": 1000}, "cluster": {"brokers": 3, "topics": [{"name": "t", "partition_count": 1, "replication_factor": 1}]}}`, `config["replica.lag.time.max.ms"]: Unknown configuration "replica.lag.time.max.ms" (in cluster mode, replica.lag.time.max.ms is set in cluster.broker)`},
		{`{"duration_ms": 60000, "config": {"acks": "all"}, "cluster": {"brokers": 3, "topics": [{"name": "t", "partition_count": 1, "replication_factor": 1}]}}`, `config.acks: Unknown configuration "acks" (in cluster mode, acks is set in cluster.workload)`},
		{`{"duration_ms": 60000, "cluster": {"brokers": 3, "topics": [{"name": "t", "partition_count": 1, "replication_factor": 1}], "broker": {"acks": "1"}, "workload": {"acks": "1"}}}`, `cluster.workload.acks: acks is the same setting as cluster.broker.acks; give it once`},
		{`{"duration_ms": 60000, "cluster": {"brokers": 3, "topics": [{"name": "t", "partition_count": 1, "replication_factor": 1}]}, "output": {"records": "no"}}`, `output.records: must be true or false, got "no"`},
		{`{"duration_ms": 60000, "cluster": {"brokers": 3, "topics": [{"name": "t", "partition_count": 1, "replication_factor": 1}]}, "output": {"samples": false}}`, `output.samples: unknown field (allowed: records)`},
		{`{"duration_ms": 60000, "cluster": {"brokers": 3, "topics": [{"name": "t", "partition_count": 1, "replication_factor": 1}]}, "events": {}}`, `events: must be an array, got an object`},
		{withEvents(`1`), `events[0]: must be an object, got 1`},
		{withEvents(`{"at_ms": 5}`), `events[0].op: required (ops: create_topic, cut, delete_topic, describe, disk_swap, elect_leaders, heal, kill, kill_controller, rolling_restart, set_config, shutdown, slow_disk, snapshot, start, start_controller)`},
		{withEvents(`{"at_ms": 5, "op": "crash", "broker": 0}`), `events[0].op: unknown op "crash" (ops: create_topic, cut, delete_topic, describe, disk_swap, elect_leaders, heal, kill, kill_controller, rolling_restart, set_config, shutdown, slow_disk, snapshot, start, start_controller)`},
		{withEvents(`{"at_ms": 5, "op": "advance", "ms": 1}`), `events[0].op: unknown op "advance" (ops: create_topic, cut, delete_topic, describe, disk_swap, elect_leaders, heal, kill, kill_controller, rolling_restart, set_config, shutdown, slow_disk, snapshot, start, start_controller); "advance" is a controller-mode step`},
		{withEvents(`{"op": "kill", "broker": 0}`), `events[0].at_ms: required`},
		{withEvents(`{"at_ms": -1, "op": "kill", "broker": 0}`), `events[0].at_ms: must be an integer from 0 to duration_ms (600000), got -1`},
		{withEvents(`{"at_ms": 600001, "op": "kill", "broker": 0}`), `events[0].at_ms: must be an integer from 0 to duration_ms (600000), got 600001`},
		{withEvents(`{"at_ms": 5, "op": "kill", "broker": 0, "factor": 1}`), `events[0].factor: unknown field (allowed: at_ms, op, note, broker)`},
		{withEvents(`{"at_ms": 5, "op": "kill"}`), `events[0].broker: required by op "kill"`},
		{withEvents(`{"at_ms": 5, "op": "kill", "broker": 7}`), `events[0].broker: broker 7 does not exist (brokers: 0, 1, 2)`},
		{withEvents(`{"at_ms": 5, "op": "slow_disk", "broker": 0, "factor": 0}`), `events[0].factor: must be a number in (0, 1], the share of the disk's capacity left (1 is full speed), got 0`},
		{withEvents(`{"at_ms": 5, "op": "slow_disk", "broker": 0, "factor": 2}`), `events[0].factor: must be a number in (0, 1], the share of the disk's capacity left (1 is full speed), got 2`},
		{withEvents(`{"at_ms": 5, "op": "kill_controller", "controller": 3003}`), `events[0].controller: must be "active" or a controller id (3000, 3001, 3002), got 3003`},
		{withEvents(`{"at_ms": 5, "op": "kill_controller", "controller": "leader"}`), `events[0].controller: must be "active" or a controller id (3000, 3001, 3002), got "leader"`},
		{withEvents(`{"at_ms": 5, "op": "start_controller", "controller": "active"}`), `events[0].controller: must be a controller id (3000, 3001, 3002): the active controller is running, so name the one to start`},
		{withEvents(`{"at_ms": 5, "op": "snapshot", "controller": 7}`), `events[0].controller: must be "active" or a controller id (3000, 3001, 3002), got 7`},
		{withEvents(`{"at_ms": 5, "op": "cut", "a": "broker-0", "b": "broker-0"}`), `events[0].b: is "broker-0", as a is: name two different nodes`},
		{withEvents(`{"at_ms": 5, "op": "cut", "a": "broker-0", "b": "broker-9"}`), `events[0].b: broker 9 does not exist (brokers: 0, 1, 2)`},
		{withEvents(`{"at_ms": 5, "op": "cut", "a": "producers", "b": "controller-3000"}`), `events[0].b: producers talk to brokers only: there is no link between producers and controller-3000 to cut`},
		{withEvents(`{"at_ms": 5, "op": "heal", "a": "controller-3005", "b": "broker-1"}`), `events[0].a: controller 3005 does not exist (controllers: 3000, 3001, 3002)`},
		{withEvents(`{"at_ms": 5, "op": "cut", "a": "zookeeper", "b": "broker-1"}`), `events[0].a: must be a node name: "broker-N", "controller-N" or "producers", got "zookeeper"`},
		{withEvents(`{"at_ms": 5, "op": "cut", "a": "broker-01", "b": "broker-1"}`), `events[0].a: must be a node name: "broker-N", "controller-N" or "producers", got "broker-01"`},
		{withEvents(`{"at_ms": 5, "op": "set_config", "name": "min.insync.replicas", "value": 0}`), `events[0].value: Invalid value 0 for configuration min.insync.replicas: Value must be at least 1`},
		{withEvents(`{"at_ms": 5, "op": "set_config", "name": "min.insync.replica", "value": 2}`), `events[0].name: Unknown configuration "min.insync.replica" (did you mean "min.insync.replicas"?)`},
		{withEvents(`{"at_ms": 5, "op": "set_config", "name": "replica.lag.time.max.ms", "value": 2}`), `events[0].name: Unknown configuration "replica.lag.time.max.ms" (in cluster mode, replica.lag.time.max.ms is set in cluster.broker)`},
		{withEvents(`{"at_ms": 5, "op": "set_config", "name": "follower.replication.throttled.rate", "value": -1}`), `events[0].value: Invalid value -1 for configuration follower.replication.throttled.rate: Value must be at least 0`},
		{withEvents(`{"at_ms": 5, "op": "set_config", "name": "follower.replication.throttled.replicas", "value": "0:1"}`), `events[0].value: must be "*" (throttle every replica) or "" (none): the model has no per-replica lists, got "0:1"`},
		{withEvents(`{"at_ms": 5, "op": "set_config", "name": "leader.replication.throttled.rate", "value": 5, "topic": "foo"}`), `events[0].topic: leader.replication.throttled.rate applies to every broker and topic in this model; leave topic out`},
		{withEvents(`{"at_ms": 5, "op": "set_config", "topic": "bar", "name": "min.insync.replicas", "value": 2}`), `events[0].topic: topic "bar" does not exist (topics: foo)`},
		{withEvents(`{"at_ms": 9, "op": "set_config", "topic": "bar", "name": "min.insync.replicas", "value": 2}`, `{"at_ms": 10, "op": "create_topic", "name": "bar", "partition_count": 1, "replication_factor": 1}`), `events[0].topic: topic "bar" does not exist (topics: foo)`},
		{withEvents(`{"at_ms": 5, "op": "create_topic", "name": "bar", "partitions": [{"replicas": [0, 4]}]}`), `events[0].partitions[0].replicas[1]: broker 4 does not exist (brokers: 0, 1, 2)`},
		{withEvents(`{"at_ms": 5, "op": "create_topic", "name": "bar", "partitions": [{"replicas": [0], "leader": 0}]}`), `events[0].partitions[0].leader: unknown field (allowed: replicas); create_topic lets the controller choose the ISR and leader`},
		{withEvents(`{"at_ms": 5, "op": "delete_topic", "name": "bar"}`), `events[0].name: topic "bar" does not exist (topics: foo)`},
		{withEvents(`{"at_ms": 5, "op": "elect_leaders", "type": "preferred", "partitions": [{"topic": "foo", "partition": -1}]}`), `events[0].partitions[0].partition: must be a non-negative integer, got -1`},
		{withEvents(`{"at_ms": 5, "op": "rolling_restart", "brokers": [0, 9], "interval_ms": 1000}`), `events[0].brokers[1]: broker 9 does not exist (brokers: 0, 1, 2)`},
		{withEvents(`{"at_ms": 5, "op": "rolling_restart", "brokers": [], "interval_ms": 1000}`), `events[0].brokers: must name at least one broker (or leave brokers out: all of them, by id)`},
		{withEvents(`{"at_ms": 5, "op": "rolling_restart"}`), `events[0].interval_ms: required by op "rolling_restart"`},
		{withEvents(`{"at_ms": 5, "op": "rolling_restart", "interval_ms": -1}`), `events[0].interval_ms: must be a non-negative integer (ms from one broker's start to the next one's shutdown), got -1`},
		{withEvents(`{"at_ms": 5, "op": "rolling_restart", "interval_ms": 1, "disk_swap": 1}`), `events[0].disk_swap: must be true or false, got 1`},
		{withEvents(`{"at_ms": 5, "op": "describe", "broker": 1}`), `events[0].broker: unknown field (allowed: at_ms, op, note)`},
		{withEvents(`{"at_ms": 50, "op": "kill", "broker": 0}`, `{"at_ms": 10, "op": "kill", "broker": 8}`), `events[1].broker: broker 8 does not exist (brokers: 0, 1, 2)`},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.in))
		if !assert.Error(t, err, c.in) {
			continue
		}
		assert.Equal(t, c.want, err.Error(), c.in)
		var se *Error
		assert.ErrorAs(t, err, &se)
		assert.NotContains(t, err.Error(), "\n", "the CLI prints the error on one line")
	}
}

func TestClusterModeIsTheDefault(t *testing.T) {
	for _, mode := range []string{``, `"mode": "cluster", `} {
		cs := parseCluster(t, `{`+mode+`"duration_ms": 1000, "cluster": {"brokers": 1, "topics": [{"name": "t", "partition_count": 1, "replication_factor": 1}]}}`)
		assert.Equal(t, int64(1000), cs.DurationMs)
	}
	s, err := Parse([]byte(`{"mode": "controller"}`))
	require.NoError(t, err)
	assert.Nil(t, s.Cluster, "a controller-mode scenario has no cluster part")
}

func TestClusterParseReadsEveryField(t *testing.T) {
	cs := parseCluster(t, `{"seed": 7, "description": "d", "duration_ms": 3600000, "sample_ms": 5000,
	 "features": {"eligible.leader.replicas.version": 0},
	 "config": {"leader.imbalance.election.algorithm": "wait-for-sync", "broker.heartbeat.interval.ms": 1500},
	 "cluster": {"controllers": 5, "brokers": [4, 2, 9],
	   "topics": [{"name": "orders", "partition_count": 60, "replication_factor": 3, "config": {"min.insync.replicas": 2}},
	              {"name": "audit", "partitions": [{"replicas": [9, 2]}, {"replicas": [4]}]}],
	   "broker": {"disk_write_bytes_per_sec": 2.5e8, "log_recovery_hard_ms": 90000, "follower.replication.throttled.rate": 5e7,
	              "throttle_all_replicas": true},
	   "workload": {"bytes_per_sec_per_broker": 1e7, "skew": 0, "acks": "1", "linger.ms": 10, "kip951": false}},
	 "events": [
	   {"at_ms": 600000, "op": "kill", "broker": 4, "note": "n"},
	   {"at_ms": 600000, "op": "disk_swap", "broker": 4},
	   {"at_ms": 100, "op": "slow_disk", "broker": 2, "factor": 0.2},
	   {"at_ms": 200, "op": "kill_controller", "controller": "active"},
	   {"at_ms": 300, "op": "start_controller", "controller": 3004},
	   {"at_ms": 400, "op": "cut", "a": "broker-9", "b": "controller-3001"},
	   {"at_ms": 500, "op": "heal", "a": "producers", "b": "broker-9"},
	   {"at_ms": 900000, "op": "set_config", "name": "leader.imbalance.election.max.per.run", "value": 200},
	   {"at_ms": 900000, "op": "set_config", "name": "follower.replication.throttled.rate", "value": 0},
	   {"at_ms": 700000, "op": "create_topic", "name": "new", "partition_count": 3, "replication_factor": 2, "config": {"unclean.leader.election.enable": true}},
	   {"at_ms": 800000, "op": "set_config", "topic": "new", "name": "min.insync.replicas", "value": null},
	   {"at_ms": 800001, "op": "elect_leaders", "type": "unclean", "partitions": [{"topic": "new", "partition": 2}]},
	   {"at_ms": 800002, "op": "delete_topic", "name": "new"},
	   {"at_ms": 800003, "op": "snapshot"},
	   {"at_ms": 800004, "op": "snapshot", "controller": "3002"},
	   {"at_ms": 800005, "op": "describe"},
	   {"at_ms": 800006, "op": "rolling_restart", "interval_ms": 60000, "disk_swap": true},
	   {"at_ms": 800007, "op": "rolling_restart", "brokers": [9, 2], "interval_ms": 0}],
	 "output": {"records": false}}`)
	spec := cs.Spec
	assert.Equal(t, uint64(7), spec.Seed)
	assert.Equal(t, int64(3600000), cs.DurationMs)
	assert.Equal(t, int64(5000), spec.SampleMs)
	assert.Equal(t, int16(0), spec.ElrVersion)
	assert.Equal(t, 5, spec.Controllers)
	assert.Equal(t, []int32{2, 4, 9}, spec.Brokers, "listed ids, sorted")
	assert.Equal(t, config.AlgorithmWaitForSync, config.Str(config.LeaderImbalanceElectionAlgorithm, &spec.Static))
	assert.Equal(t, []cluster.TopicSpec{
		{Name: "orders", PartitionCount: 60, ReplicationFactor: 3, Configs: []controller.ConfigEntry{{Name: "min.insync.replicas", Value: int64(2)}}},
		{Name: "audit", Replicas: [][]int32{{9, 2}, {4}}},
	}, spec.Topics)

	want := broker.DefaultParams()
	want.HeartbeatIntervalMs = 1500 // from config: one setting for the controller and the brokers
	want.DiskWriteBytesPerSec, want.LogRecoveryHardMs, want.FollowerThrottleBytesPerSec, want.ThrottleAllReplicas = 2.5e8, 90000, 5e7, true
	want.Acks = broker.AcksLeader
	assert.Equal(t, want, spec.Broker)
	wantW := workload.DefaultParams()
	wantW.BytesPerSecPerBroker, wantW.Skew, wantW.LingerMs, wantW.Kip951 = 1e7, 0, 10, false
	wantW.WindowMs = 5000 // the latency window is the sample interval
	assert.Equal(t, wantW, spec.Workload)
	assert.False(t, cs.Output.Records)

	// Sorted stably by time: the two events at 600000 ms keep their order.
	var order []int
	for _, ev := range cs.Events {
		order = append(order, ev.Index)
	}
	assert.Equal(t, []int{2, 3, 4, 5, 6, 0, 1, 9, 10, 11, 12, 13, 14, 15, 16, 17, 7, 8}, order)
	ev := func(index int) Event {
		for _, e := range cs.Events {
			if e.Index == index {
				return e
			}
		}
		t.Fatalf("no event %d", index)
		return Event{}
	}
	assert.Equal(t, Event{Event: cluster.Event{Op: cluster.OpKill, Broker: 4}, AtMs: 600000, Index: 0, Note: "n"}, ev(0))
	assert.Equal(t, cluster.Event{Op: cluster.OpSlowDisk, Broker: 2, Factor: 0.2}, ev(2).Event)
	assert.Equal(t, cluster.Event{Op: cluster.OpKillController, Controller: "active"}, ev(3).Event)
	assert.Equal(t, cluster.Event{Op: cluster.OpStartController, Controller: "3004"}, ev(4).Event)
	assert.Equal(t, cluster.Event{Op: cluster.OpCut, A: "broker-9", B: "controller-3001"}, ev(5).Event)
	assert.Equal(t, cluster.Event{Op: cluster.OpHeal, A: "producers", B: "broker-9"}, ev(6).Event)
	assert.Equal(t, cluster.Event{Op: cluster.OpSetConfig, Name: "leader.imbalance.election.max.per.run", Value: json.Number("200")}, ev(7).Event)
	assert.Equal(t, cluster.Event{Op: cluster.OpSetConfig, Name: "follower.replication.throttled.rate", Value: json.Number("0")}, ev(8).Event)
	assert.Equal(t, cluster.TopicSpec{Name: "new", PartitionCount: 3, ReplicationFactor: 2,
		Configs: []controller.ConfigEntry{{Name: "unclean.leader.election.enable", Value: true}}}, ev(9).TopicSpec)
	assert.Equal(t, cluster.Event{Op: cluster.OpSetConfig, Topic: "new", Name: "min.insync.replicas"}, ev(10).Event, "null deletes")
	assert.Equal(t, cluster.Event{Op: cluster.OpElectLeaders, Election: controller.ElectionUnclean,
		Partitions: []controller.TopicPartition{{Topic: "new", Partition: 2}}}, ev(11).Event)
	assert.Equal(t, cluster.Event{Op: cluster.OpDeleteTopic, Name: "new"}, ev(12).Event)
	assert.Equal(t, cluster.Event{Op: cluster.OpSnapshot, Controller: "active"}, ev(13).Event, "the active controller by default")
	assert.Equal(t, cluster.Event{Op: cluster.OpSnapshot, Controller: "3002"}, ev(14).Event)
	assert.Equal(t, cluster.Event{Op: cluster.OpDescribe}, ev(15).Event)
	assert.Equal(t, cluster.Event{Op: cluster.OpRollingRestart, Brokers: []int32{2, 4, 9}, IntervalMs: 60000, DiskSwap: true}, ev(16).Event,
		"all brokers, by id, by default")
	assert.Equal(t, cluster.Event{Op: cluster.OpRollingRestart, Brokers: []int32{9, 2}}, ev(17).Event, "in the order given")
}

func TestClusterParseDefaults(t *testing.T) {
	cs := parseCluster(t, `{"duration_ms": 60000, "cluster": {"brokers": 3, "topics": [{"name": "t", "partition_count": 1, "replication_factor": 1}]}}`)
	def := cluster.DefaultSpec()
	assert.Equal(t, []int32{0, 1, 2}, cs.Spec.Brokers, "a count is ids 0 to n-1")
	assert.Equal(t, def.Controllers, cs.Spec.Controllers)
	assert.Equal(t, def.SampleMs, cs.Spec.SampleMs)
	assert.Equal(t, def.ElrVersion, cs.Spec.ElrVersion)
	assert.Equal(t, def.Broker, cs.Spec.Broker)
	assert.Equal(t, def.Workload, cs.Spec.Workload)
	assert.Equal(t, uint64(0), cs.Spec.Seed)
	assert.True(t, cs.Output.Records)
	assert.Empty(t, cs.Events)
}

// TestBlocksCoverEveryParam fails when broker.Params or workload.Params gains a field that the
// scenario format does not take (or takes under another name).
func TestBlocksCoverEveryParam(t *testing.T) {
	names := func(table []param) map[string]bool {
		out := map[string]bool{}
		for _, pr := range table {
			out[pr.name()] = true
		}
		return out
	}
	check := func(typ reflect.Type, table []param, skip ...string) {
		have := names(table)
		for i := range typ.NumField() {
			f := typ.Field(i)
			if slices.Contains(skip, f.Name) {
				assert.False(t, have[snake(f.Name)], "%s.%s is set by the cluster, not the file", typ, f.Name)
				continue
			}
			assert.True(t, have[snake(f.Name)], "%s.%s has no scenario field %q", typ, f.Name, snake(f.Name))
		}
	}
	check(reflect.TypeFor[broker.Params](), brokerParams)
	check(reflect.TypeFor[workload.Params](), workloadParams, "WindowMs")
	assert.Equal(t, "heartbeat_interval_ms", snake("HeartbeatIntervalMs"))
	assert.Equal(t, "kip951", snake("Kip951"))
	assert.Equal(t, "nic_in_bytes_per_sec", snake("NicInBytesPerSec"))
}

// TestKafkaNamesSetTheSameField sets every parameter that has a Kafka name both ways.
func TestKafkaNamesSetTheSameField(t *testing.T) {
	for _, b := range []struct {
		block string
		table []param
	}{{"broker", brokerParams}, {"workload", workloadParams}} {
		for _, pr := range b.table {
			if pr.kafka == "" || pr.kafka == pr.name() {
				continue
			}
			// A valid value unlike the default, whatever the other defaults require.
			val := map[string]string{"replica.fetch.response.max.bytes": "20971520", "retry.backoff.max.ms": "2000",
				"delivery.timeout.ms": "200000"}[pr.kafka]
			if val == "" {
				val = "7"
			}
			snakeSpec := parseCluster(t, withBlock(b.block, fmt.Sprintf("%q: %s", pr.name(), val))).Spec
			kafkaSpec := parseCluster(t, withBlock(b.block, fmt.Sprintf("%q: %s", pr.kafka, val))).Spec
			assert.Equal(t, snakeSpec, kafkaSpec, pr.kafka)
			def := cluster.DefaultSpec()
			assert.True(t, snakeSpec.Broker != def.Broker || snakeSpec.Workload != def.Workload, "%s changed nothing", pr.kafka)
		}
	}
	for _, acks := range []string{`"all"`, `"-1"`, `-1`} {
		assert.Equal(t, broker.AcksAll, parseCluster(t, withBlock("workload", `"acks": `+acks)).Spec.Broker.Acks)
	}
	for _, acks := range []string{`"1"`, `1`} {
		assert.Equal(t, broker.AcksLeader, parseCluster(t, withBlock("broker", `"acks": `+acks)).Spec.Broker.Acks)
	}
}

func TestZeroMeansNoThrottle(t *testing.T) {
	spec := parseCluster(t, withBlock("broker", `"leader_throttle_bytes_per_sec": 0, "follower.replication.throttled.rate": 0, "consumer_fanout": 0`)).Spec
	assert.Zero(t, spec.Broker.LeaderThrottleBytesPerSec)
	assert.Zero(t, spec.Broker.FollowerThrottleBytesPerSec)
}

func TestHeartbeatIntervalIsOneSetting(t *testing.T) {
	cs := parseCluster(t, withBlock("broker", `"heartbeat_interval_ms": 1000`))
	assert.Equal(t, int64(1000), config.Int64(config.BrokerHeartbeatIntervalMs, &cs.Spec.Static), "the block's value reaches the controller's config")
	cs = parseCluster(t, `{"duration_ms": 60000, "config": {"broker.heartbeat.interval.ms": 3000}, "cluster": {"brokers": 1, "topics": [{"name": "t", "partition_count": 1, "replication_factor": 1}], "broker": {"heartbeat_interval_ms": 3000}}}`)
	assert.Equal(t, int64(3000), cs.Spec.Broker.HeartbeatIntervalMs, "both may say the same")
}

func TestEventsMayNameATopicCreatedEarlierInTime(t *testing.T) {
	// Listed after its use in the file, created before it in time.
	cs := parseCluster(t, withEvents(
		`{"at_ms": 20, "op": "set_config", "topic": "bar", "name": "min.insync.replicas", "value": 2}`,
		`{"at_ms": 10, "op": "create_topic", "name": "bar", "partition_count": 1, "replication_factor": 1}`,
		`{"at_ms": 30, "op": "delete_topic", "name": "bar"}`,
		// A deleted topic stays known: the cluster's answer about it is the lesson.
		`{"at_ms": 40, "op": "elect_leaders", "type": "preferred", "partitions": [{"topic": "bar", "partition": 0}]}`))
	assert.Equal(t, []int{1, 0, 2, 3}, []int{cs.Events[0].Index, cs.Events[1].Index, cs.Events[2].Index, cs.Events[3].Index})
}

func TestMemoryEstimate(t *testing.T) {
	cs := parseCluster(t, withCluster(`{"brokers": 6, "topics": [{"name": "a", "partition_count": 1000000, "replication_factor": 3}]}`))
	assert.Equal(t, int64(3_000_000*BytesPerReplica+62*(6*bytesPerSampleBroker+bytesPerSample)), cs.MemoryBytes)
	assert.Less(t, cs.MemoryBytes, MemoryLimit, "a million partitions at RF 3 fit, as the lead measured (1.2 GB)")
	// Describes of a large cluster cost as much as the cluster.
	_, err := Parse([]byte(`{"duration_ms": 600000, "cluster": {"brokers": 6, "topics": [{"name": "a", "partition_count": 1000000, "replication_factor": 3}]},
	 "events": [{"at_ms": 1, "op": "describe"}, {"at_ms": 2, "op": "describe"}, {"at_ms": 3, "op": "describe"}]}`))
	assert.EqualError(t, err, "events[2]: the scenario is too large: the simulation would need about 2.24 GiB (3000000 replicas at 400 bytes, 62 samples of 6 brokers, 3000000 partitions in describes), above the limit of 2.00 GiB; use fewer partitions, brokers, samples or describes")
	// Topics created by events count too.
	_, err = Parse([]byte(withEvents(`{"at_ms": 1, "op": "create_topic", "name": "b", "partition_count": 500000, "replication_factor": 3}`,
		`{"at_ms": 2, "op": "create_topic", "name": "c", "partition_count": 500000, "replication_factor": 3}`)))
	assert.EqualError(t, err, "events[1]: the scenario would hold more than 1000000 partitions (this model's limit)")
}

// ParseClusterSetup reads everything but the events: the same cluster as ParseCluster, no
// events, and an event ParseCluster refuses is not looked at; "events" must still be a list.
func TestParseClusterSetupSkipsTheEvents(t *testing.T) {
	src := []byte(withEvents(`{"at_ms": 1000, "op": "kill", "broker": 1}`, `{"at_ms": 5000, "op": "start", "broker": 1}`))
	full, err := ParseCluster(src)
	require.NoError(t, err)
	require.Len(t, full.Cluster.Events, 2)
	setup, err := ParseClusterSetup(src)
	require.NoError(t, err)
	assert.Empty(t, setup.Cluster.Events)
	assert.Equal(t, full.Cluster.Spec, setup.Cluster.Spec)
	assert.Equal(t, full.Cluster.DurationMs, setup.Cluster.DurationMs)

	bad := []byte(withEvents(`{"at_ms": 1000, "op": "kill", "broker": 9}`))
	_, err = ParseCluster(bad)
	require.Error(t, err)
	_, err = ParseClusterSetup(bad)
	assert.NoError(t, err)

	_, err = ParseClusterSetup([]byte(strings.Replace(withEvents(), `"events": []`, `"events": {}`, 1)))
	var se *Error
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "events", se.Path)
	_, err = ParseClusterSetup([]byte(`{"mode": "controller", "brokers": []}`))
	assert.ErrorIs(t, err, ErrControllerMode)
}

// ParseClusterSetupWith reads the file with the starting partitions given apart exactly as
// ParseClusterSetup reads the same file with them written in, and checks them by the same
// rules, naming the same paths.
func TestParseClusterSetupWithIsTheFileWithItsPartitions(t *testing.T) {
	const head = `{"duration_ms": 600000, "events": [], "cluster": {"brokers": [1, 2, 4],
		"topics": [{"name": "a", %s"config": {"min.insync.replicas": 2}}, {"name": "b"%s}],
		"broker": {"disk_write_bytes_per_sec": 5e8}}}`
	parts := [][]Partition{
		{{Replicas: []int32{1, 2, 4}, SizeBytes: 1e9, HasSize: true, ProduceBytesPerSec: 13333.333333333334, HasRate: true},
			{Replicas: []int32{4, 1}, SizeBytes: 0, HasSize: true, ProduceBytesPerSec: 2.5, HasRate: true}},
		{{Replicas: []int32{2}, SizeBytes: 7, HasSize: true, ProduceBytesPerSec: 0, HasRate: true}},
	}
	full := fmt.Sprintf(head,
		`"partitions": [{"replicas": [1, 2, 4], "size_bytes": 1e9, "produce_bytes_per_sec": 13333.333333333334}, {"replicas": [4, 1], "size_bytes": 0, "produce_bytes_per_sec": 2.5}], `,
		`, "partitions": [{"replicas": [2], "size_bytes": 7, "produce_bytes_per_sec": 0}]`)
	want, err := ParseClusterSetup([]byte(full))
	require.NoError(t, err)
	got, err := ParseClusterSetupWith([]byte(fmt.Sprintf(head, "", "")), parts)
	require.NoError(t, err)
	assert.Equal(t, want, got)

	// Nil partitions are ParseClusterSetup; a nil entry leaves the topic as the file has it.
	got, err = ParseClusterSetupWith([]byte(full), nil)
	require.NoError(t, err)
	assert.Equal(t, want, got)
	got, err = ParseClusterSetupWith([]byte(fmt.Sprintf(head, "", `, "partitions": [{"replicas": [2], "size_bytes": 7, "produce_bytes_per_sec": 0}]`)), [][]Partition{parts[0], nil})
	require.NoError(t, err)
	assert.Equal(t, want, got)

	// What the file's partitions would be refused for, with the path the file's would have.
	bad := func(edit func(p *Partition)) [][]Partition {
		c := []Partition{parts[0][0], parts[0][1]}
		c[1].Replicas = slices.Clone(c[1].Replicas)
		edit(&c[1])
		return [][]Partition{c, parts[1]}
	}
	for _, c := range []struct {
		parts [][]Partition
		path  string
		msg   string
	}{
		{bad(func(p *Partition) { p.Replicas = []int32{4, 3} }), "cluster.topics[0].partitions[1].replicas[1]", "broker 3 does not exist"},
		{bad(func(p *Partition) { p.Replicas = []int32{4, 4} }), "cluster.topics[0].partitions[1].replicas[1]", "broker 4 is listed twice"},
		{bad(func(p *Partition) { p.Replicas = []int32{4, -1} }), "cluster.topics[0].partitions[1].replicas[1]", "broker -1 does not exist (brokers: 1, 2, 4)"},
		{bad(func(p *Partition) { p.Replicas = nil }), "cluster.topics[0].partitions[1].replicas", "must name 1 to"},
		{bad(func(p *Partition) { p.SizeBytes = -1 }), "cluster.topics[0].partitions[1].size_bytes", "finite number ≥ 0, got -1"},
		{bad(func(p *Partition) { p.ProduceBytesPerSec = math.Inf(1) }), "cluster.topics[0].partitions[1].produce_bytes_per_sec", "finite number ≥ 0, got +Inf"},
		{bad(func(p *Partition) { p.HasRate = false }), "cluster.topics[0].partitions[1].produce_bytes_per_sec", "required: cluster.topics[0].partitions[0] gives produce_bytes_per_sec"},
		{[][]Partition{parts[0], {}}, "cluster.topics[1].partitions", "at least one partition"},
		{[][]Partition{parts[0]}, "cluster.topics", "lists 2 topics, but partitions are given apart for 1"},
	} {
		_, err := ParseClusterSetupWith([]byte(fmt.Sprintf(head, "", "")), c.parts)
		var se *Error
		require.ErrorAs(t, err, &se, c.path)
		assert.Equal(t, c.path, se.Path)
		assert.Contains(t, se.Msg, c.msg)
	}
	// Given both ways, a topic's partitions are refused.
	_, err = ParseClusterSetupWith([]byte(full), parts)
	assert.ErrorContains(t, err, "cluster.topics[0].partitions: are given apart")
}
