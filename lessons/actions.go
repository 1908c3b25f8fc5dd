package lessons

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/kraftlab/kraftlab/cluster"
)

// ActionWords lists the action vocabulary's first words: the cluster's ops plus wait, until
// and (in play: only) pause. docs/lessons.md documents each.
func ActionWords() []string {
	return append(cluster.Ops(), "wait", "until", "pause")
}

// maxWaitMs bounds one wait or until: a lesson step is minutes of cluster time, not days.
const maxWaitMs = 24 * 3600 * 1000

// parseAction reads one action line. Event actions are checked here for their shape only;
// validate checks brokers, topics, configs and values with the scenario format's rules.
func parseAction(src string, play bool) (Action, error) {
	a := Action{Source: src}
	if strings.HasPrefix(src, "{") {
		// A raw scenario event object, for what the short forms do not cover (create_topic).
		d := json.NewDecoder(bytes.NewReader([]byte(src)))
		d.UseNumber()
		if err := d.Decode(&a.raw); err != nil {
			return a, fmt.Errorf("invalid JSON event: %v", err)
		}
		if _, ok := a.raw["at_ms"]; ok {
			return a, fmt.Errorf("a lesson's event has no at_ms: it happens when the action is reached (use wait before it)")
		}
		op, _ := a.raw["op"].(string)
		if !isOp(op) {
			return a, unknownOp(op)
		}
		return a, nil
	}
	if q, ok := strings.CutPrefix(src, "pause:"); ok {
		if !play {
			return a, fmt.Errorf("pause: only a play: list pauses (reference actions run straight through)")
		}
		a.Kind, a.Pause = ActPause, strings.TrimSpace(q)
		if a.Pause == "" {
			return a, fmt.Errorf("pause: give the question the learner thinks about")
		}
		return a, nil
	}
	f := strings.Fields(src)
	if len(f) == 0 {
		return a, fmt.Errorf("empty action")
	}
	op, args := f[0], f[1:]
	need := func(n int, usage string) error {
		if len(args) != n {
			return fmt.Errorf("%s: expected %q, got %q", op, usage, src)
		}
		return nil
	}
	ev := map[string]any{"op": op}
	switch op {
	case "wait":
		if err := need(1, "wait DURATION (300000, 300s or 5m)"); err != nil {
			return a, err
		}
		ms, err := parseDuration(args[0])
		if err != nil {
			return a, fmt.Errorf("wait: %v", err)
		}
		a.Kind, a.WaitMs = ActWait, ms
		return a, nil
	case "until":
		k := len(args) - 2
		if k < 1 || args[k] != "within" {
			return a, fmt.Errorf(`until: expected "until PREDICATE within DURATION", got %q`, src)
		}
		a.until = strings.Join(args[:k], " ")
		e, err := ParseExpr(a.until)
		if err != nil {
			return a, fmt.Errorf("until: %v", err)
		}
		ms, err := parseDuration(args[k+1])
		if err != nil {
			return a, fmt.Errorf("until: within: %v", err)
		}
		a.Kind, a.Until, a.WaitMs = ActUntil, e, ms
		return a, nil
	case cluster.OpKill, cluster.OpStart, cluster.OpShutdown, cluster.OpDiskSwap:
		if err := need(1, op+" BROKER"); err != nil {
			return a, err
		}
		ev["broker"] = jsonNumber(args[0])
	case cluster.OpSlowDisk:
		if err := need(2, op+" BROKER FACTOR"); err != nil {
			return a, err
		}
		ev["broker"], ev["factor"] = jsonNumber(args[0]), jsonNumber(args[1])
	case cluster.OpKillController, cluster.OpStartController:
		if err := need(1, op+" CONTROLLER (active or an id)"); err != nil {
			return a, err
		}
		ev["controller"] = args[0]
	case cluster.OpSnapshot:
		if len(args) > 1 {
			return a, fmt.Errorf(`snapshot: expected "snapshot [CONTROLLER]", got %q`, src)
		}
		if len(args) == 1 {
			ev["controller"] = args[0]
		}
	case cluster.OpCut, cluster.OpHeal:
		if err := need(2, op+" NODE NODE (broker-0, controller-3000, producers)"); err != nil {
			return a, err
		}
		ev["a"], ev["b"] = args[0], args[1]
	case cluster.OpSetConfig:
		if len(args) < 1 || len(args) > 2 {
			return a, fmt.Errorf(`set_config: expected "set_config NAME=VALUE [topic=TOPIC]", got %q`, src)
		}
		name, val, ok := strings.Cut(args[0], "=")
		if !ok || name == "" {
			return a, fmt.Errorf(`set_config: expected NAME=VALUE, got %q`, args[0])
		}
		ev["name"], ev["value"] = name, configValue(val)
		if len(args) == 2 {
			t, ok := strings.CutPrefix(args[1], "topic=")
			if !ok || t == "" {
				return a, fmt.Errorf(`set_config: expected topic=TOPIC after the value, got %q`, args[1])
			}
			ev["topic"] = t
		}
	case cluster.OpDeleteTopic:
		if err := need(1, op+" TOPIC"); err != nil {
			return a, err
		}
		ev["name"] = args[0]
	case cluster.OpElectLeaders:
		if len(args) < 1 {
			return a, fmt.Errorf(`elect_leaders: expected "elect_leaders preferred|unclean [TOPIC-N ...]", got %q`, src)
		}
		ev["type"] = args[0]
		if len(args) > 1 {
			var ps []any
			for _, t := range args[1:] {
				tp, err := parseTopicPartition("elect_leaders", t)
				if err != nil {
					return a, err
				}
				ps = append(ps, map[string]any{"topic": tp.Topic, "partition": tp.Partition})
			}
			ev["partitions"] = ps
		}
	case cluster.OpDescribe:
		if err := need(0, op); err != nil {
			return a, err
		}
	case cluster.OpRollingRestart:
		for _, arg := range args {
			k, v, _ := strings.Cut(arg, "=")
			switch k {
			case "brokers":
				var ids []any
				for _, b := range strings.Split(v, ",") {
					ids = append(ids, jsonNumber(b))
				}
				ev["brokers"] = ids
			case "interval":
				ms, err := parseDuration(v)
				if err != nil {
					return a, fmt.Errorf("rolling_restart: interval: %v", err)
				}
				ev["interval_ms"] = ms
			case "disk_swap":
				ev["disk_swap"] = true
			default:
				return a, fmt.Errorf(`rolling_restart: unknown argument %q (allowed: brokers=0,1,2 interval=DURATION disk_swap)`, arg)
			}
		}
	case cluster.OpCreateTopic:
		return a, fmt.Errorf(`create_topic: write it as a scenario event object, {"op": "create_topic", "name": ..., "partitions": [...]}`)
	default:
		return a, unknownOp(op)
	}
	a.raw = ev
	return a, nil
}

func isOp(op string) bool {
	for _, o := range cluster.Ops() {
		if o == op {
			return true
		}
	}
	return false
}

func unknownOp(op string) error {
	return fmt.Errorf("unknown action %q (known: %s)", op, strings.Join(ActionWords(), ", "))
}

// jsonNumber passes a number through as JSON writes it, and anything else as a string, so that
// the scenario parser reports "must be a broker id, got "x"" in its own words.
func jsonNumber(s string) any {
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return json.Number(s)
	}
	return s
}

// configValue reads a value as server.properties would: true/false, a number, "null" to
// delete, anything else a string.
func configValue(s string) any {
	switch s {
	case "true":
		return true
	case "false":
		return false
	case "null":
		return nil
	}
	return jsonNumber(s)
}

// parseDuration reads 300000, 300000ms, 300s or 5m as milliseconds.
func parseDuration(s string) (int64, error) {
	t := strings.ReplaceAll(s, "_", "")
	mult := int64(1)
	switch {
	case strings.HasSuffix(t, "ms"):
		t = strings.TrimSuffix(t, "ms")
	case strings.HasSuffix(t, "s"):
		t, mult = strings.TrimSuffix(t, "s"), 1000
	case strings.HasSuffix(t, "m"):
		t, mult = strings.TrimSuffix(t, "m"), 60_000
	}
	v, err := strconv.ParseInt(t, 10, 64)
	if err != nil || v < 0 || v > maxWaitMs/mult {
		return 0, fmt.Errorf("expected a duration from 0 to 24h (300000, 300000ms, 300s or 5m), got %q", s)
	}
	return v * mult, nil
}
