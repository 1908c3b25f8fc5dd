package lab

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/kraftlab/kraftlab/engine/config"
)

// Override is one NAME=VALUE change to a scenario. NAME is one of:
//   - a config the engine models (leader.imbalance.election.max.per.run...), written into the
//     scenario's "config" (the controllers' server.properties);
//   - a broker or producer setting under Kafka's name (follower.replication.throttled.rate,
//     replica.lag.time.max.ms, linger.ms, acks...), written into cluster.broker or
//     cluster.workload;
//   - broker.NAME or workload.NAME, a model parameter under its scenario name
//     (broker.disk_write_bytes_per_sec, workload.append_service_ms): how the sensitivity view
//     moves the model's assumptions;
//   - seed or duration_ms, the scenario's own fields.
//
// VALUE is text, read as server.properties reads it.
type Override struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// String writes NAME=VALUE.
func (o Override) String() string { return o.Name + "=" + o.Value }

// InputError is input the lab refuses before anything runs: a bad override, grid, policy or
// description file. Its text names the field and the value.
type InputError struct{ Err error }

// Error is the cause's text, which names the field.
func (e *InputError) Error() string { return e.Err.Error() }

// Unwrap returns the cause (a *config.ConfigError, a *scenario.Error...).
func (e *InputError) Unwrap() error { return e.Err }

func inputErrorf(format string, args ...any) error { return &InputError{fmt.Errorf(format, args...)} }

// ParseOverride reads NAME=VALUE.
func ParseOverride(text string) (Override, error) {
	name, value, ok := strings.Cut(text, "=")
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	if !ok || name == "" {
		return Override{}, inputErrorf("want NAME=VALUE (such as leader.imbalance.election.max.per.run=200), got %q", text)
	}
	return Override{Name: name, Value: value}, nil
}

// kafkaAlias is a cluster mode's block parameter that Kafka names: the scenario accepts either
// spelling (docs/scenario.md), and an override replaces both.
type kafkaAlias struct{ kafka, block, param string }

// kafkaAliases are the block parameters Kafka names. acks is in both blocks (the producers'
// setting); the lab writes it into workload. A slice rather than a map: the linker lays a
// literal table out as static data, where a map literal is code that builds it at start-up.
var kafkaAliases = []kafkaAlias{
	{"replica.lag.time.max.ms", "broker", "replica_lag_time_max_ms"},
	{"num.replica.fetchers", "broker", "num_replica_fetchers"},
	{"replica.fetch.max.bytes", "broker", "replica_fetch_max_bytes"},
	{"replica.fetch.response.max.bytes", "broker", "replica_fetch_response_max_bytes"},
	{"leader.replication.throttled.rate", "broker", "leader_throttle_bytes_per_sec"},
	{"follower.replication.throttled.rate", "broker", "follower_throttle_bytes_per_sec"},
	{"log.segment.bytes", "broker", "log_segment_bytes"},
	{"num.recovery.threads.per.data.dir", "broker", "num_recovery_threads_per_data_dir"},
	{"linger.ms", "workload", "linger_ms"},
	{"request.timeout.ms", "workload", "request_timeout_ms"},
	{"delivery.timeout.ms", "workload", "delivery_timeout_ms"},
	{"retry.backoff.ms", "workload", "retry_backoff_ms"},
	{"retry.backoff.max.ms", "workload", "retry_backoff_max_ms"},
	{"num.io.threads", "workload", "io_threads"},
	{"num.network.threads", "workload", "network_threads"},
	{"acks", "workload", "acks"},
}

// aliasOf finds the block parameter Kafka calls name.
func aliasOf(name string) (kafkaAlias, bool) {
	for _, a := range kafkaAliases {
		if a.kafka == name {
			return a, true
		}
	}
	return kafkaAlias{}, false
}

// spellings returns every key a block parameter may be written under.
func spellings(param string) []string {
	out := []string{param}
	for _, a := range kafkaAliases {
		if a.param == param && a.kafka != param {
			out = append(out, a.kafka)
		}
	}
	return out
}

// target is where an override goes in the scenario tree.
type target struct {
	top   string // "seed", "duration_ms" or "config"
	block string // "broker" or "workload" under "cluster"
	key   string
	value any
}

// resolve finds an override's place and its typed value, or explains why it has none.
func resolve(o Override) (target, error) {
	switch o.Name {
	case "seed", "duration_ms":
		n, err := strconv.ParseUint(o.Value, 10, 63)
		if err != nil {
			return target{}, inputErrorf("%s: invalid value %q: must be a whole number of at least 0", o, o.Value)
		}
		return target{top: o.Name, value: json.Number(strconv.FormatUint(n, 10))}, nil
	}
	if def, ok := config.Lookup(o.Name); ok {
		v, err := parseConfig(def, o.Value)
		if err != nil {
			return target{}, inputErrorf("%s: %w", o, err)
		}
		if n, ok := v.(int64); ok {
			v = json.Number(strconv.FormatInt(n, 10))
		}
		return target{top: "config", key: o.Name, value: v}, nil
	}
	if block, param, ok := strings.Cut(o.Name, "."); ok && (block == "broker" || block == "workload") && !strings.Contains(param, ".") {
		return target{block: block, key: param, value: textValue(o.Value)}, nil
	}
	if a, ok := aliasOf(o.Name); ok {
		return target{block: a.block, key: o.Name, value: textValue(o.Value)}, nil
	}
	return target{}, inputErrorf("%s: %v; an override is a config the engine models, a broker or producer setting under Kafka's name, broker.PARAM or workload.PARAM (a model parameter, docs/scenario.md), seed or duration_ms",
		o, config.UnknownError(o.Name))
}

// parseConfig validates a config's text with the engine's rules. A whole number is passed as
// one, so that the engine's message shows the value as Kafka's ConfigException does
// (Invalid value 105, not "105").
func parseConfig(def *config.Def, text string) (any, error) {
	if def.Type == config.Int || def.Type == config.Long {
		if n, err := strconv.ParseInt(text, 10, 64); err == nil {
			return def.Parse(n)
		}
	}
	return def.Parse(text)
}

// textValue reads a value as a scenario file would hold it: a boolean, a number, or a string.
func textValue(s string) any {
	switch s {
	case "true", "false":
		return s == "true"
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil && !strings.ContainsAny(s, "xXnNiI_") {
		return json.Number(s)
	}
	return s
}

// ApplyOverrides writes overrides into a cluster-mode scenario file, in order (a later one
// wins), and checks the result with the scenario parser. An error names the override and the
// field. The file must be valid on its own: its own mistakes are reported as the file's.
func ApplyOverrides(doc []byte, ovs []Override) ([]byte, error) {
	if _, err := readFile(doc); err != nil {
		return nil, err
	}
	return applyChecked(doc, ovs, readFile)
}

// applyChecked is ApplyOverrides on a file already known to be valid, checked with read. The
// result is checked once; only when it fails are the overrides checked one at a time, so that
// the error names the one at fault (a check parses the whole file: seconds at 200,000
// partitions).
func applyChecked(doc []byte, ovs []Override, read reader) ([]byte, error) {
	if len(ovs) == 0 {
		return doc, nil
	}
	out, err := applyOverrides(doc, ovs, nil)
	if err != nil {
		return nil, err
	}
	if _, err := read(out); err != nil {
		return applyOverrides(doc, ovs, read)
	}
	return out, nil
}

// applyOverrides writes ovs into doc; with each set, it also checks the file with it after
// each override and returns the first error, naming that override.
func applyOverrides(doc []byte, ovs []Override, each reader) ([]byte, error) {
	var root map[string]any
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	if err := dec.Decode(&root); err != nil {
		return nil, err
	}
	obj := func(parent map[string]any, key string) map[string]any {
		m, ok := parent[key].(map[string]any)
		if !ok {
			m = map[string]any{}
			parent[key] = m
		}
		return m
	}
	for _, o := range ovs {
		t, err := resolve(o)
		if err != nil {
			return nil, err
		}
		switch {
		case t.top == "config":
			obj(root, "config")[t.key] = t.value
		case t.top != "":
			root[t.top] = t.value
		default:
			cl := obj(root, "cluster")
			param := t.key
			if a, ok := aliasOf(t.key); ok {
				param = a.param
			}
			// Remove every spelling from both blocks (acks may sit in either), then set it.
			for _, b := range []string{"broker", "workload"} {
				if m, ok := cl[b].(map[string]any); ok {
					for _, k := range spellings(param) {
						delete(m, k)
					}
				}
			}
			obj(cl, t.block)[t.key] = t.value
		}
		if each == nil {
			continue
		}
		raw, err := json.Marshal(root)
		if err != nil {
			return nil, err
		}
		if _, err := each(raw); err != nil {
			return nil, inputErrorf("%s: %w", o, err)
		}
	}
	return marshalDoc(root)
}
