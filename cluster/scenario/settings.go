package scenario

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kraftlab/kraftlab/cluster"
	"github.com/kraftlab/kraftlab/engine/config"
)

// Setting is a config given outside the file, as the CLI's --set NAME=VALUE (and compare's --a
// and --b) give it. It overrides the file's entry of the same name: a cluster-level config of
// "config", or, in cluster mode, a broker or producer setting that the "broker" and
// "workload" blocks take under Kafka's name (replica.lag.time.max.ms, acks, linger.ms...).
type Setting struct {
	// Flag is where the setting came from ("--set"), for error messages.
	Flag  string
	Name  string
	Value string
}

// String writes the setting as it was given: NAME=VALUE.
func (s Setting) String() string { return s.Name + "=" + s.Value }

// ParseSetting reads NAME=VALUE and validates it alone: a cluster-level config, with the
// engine's rules, or a Kafka name of the cluster mode's blocks, with theirs. A value is read
// as server.properties would read it ("true", "2", "wait-for-sync").
func ParseSetting(flag, text string) (Setting, error) {
	name, value, ok := strings.Cut(text, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return Setting{}, &Error{Path: flag, Msg: fmt.Sprintf("want NAME=VALUE (a config such as leader.imbalance.election.max.per.run=200), got %q", text)}
	}
	st := Setting{Flag: flag, Name: name, Value: strings.TrimSpace(value)}
	if err := st.check(); err != nil {
		return Setting{}, err
	}
	return st, nil
}

// blockParam finds a Kafka name among the cluster mode's block parameters.
func blockParam(name string) (block string, pr *param) {
	for _, b := range []struct {
		block  string
		params []param
	}{{"workload", workloadParams}, {"broker", brokerParams}} { // acks, in both, is the producers'
		for i := range b.params {
			if b.params[i].kafka == name {
				return b.block, &b.params[i]
			}
		}
	}
	return "", nil
}

// valueNode reads a setting's text as the JSON value a file would hold: a boolean, a number,
// or else a string.
func valueNode(text string) *node {
	switch text {
	case "true", "false":
		return &node{kind: kindBool, b: text == "true"}
	}
	if _, err := strconv.ParseFloat(text, 64); err == nil && !strings.ContainsAny(text, "xXnNiI_") {
		return &node{kind: kindNumber, s: text}
	}
	return &node{kind: kindString, s: text}
}

// check validates the setting alone.
func (s Setting) check() error {
	where := s.Flag + " " + s.String()
	if _, pr := blockParam(s.Name); pr != nil {
		p := &parser{}
		spec := cluster.DefaultSpec()
		p.param(valueNode(s.Value), where, pr, &spec)
		if p.err != nil {
			return p.err
		}
		return nil
	}
	var v config.Values
	if err := v.Set(s.Name, configNode(s.Name, s.Value).raw(), config.Cluster); err != nil {
		return &Error{Path: where, Msg: err.Error()}
	}
	return nil
}

// configNode reads a config's text as the file would hold it: a string for a string config
// (whatever it looks like), else as valueNode reads it, so that the engine's messages show
// the value as typed.
func configNode(name, text string) *node {
	if def, ok := config.Lookup(name); ok && def.Type == config.String {
		return &node{kind: kindString, s: text}
	}
	return valueNode(text)
}

// applySettings writes the settings into the file's tree, replacing an entry of the same name:
// a config into "config" (created if needed), a block parameter into "cluster"'s "broker" or
// "workload" block. The parser then validates the result as one scenario. Each setting is
// checked alone first, so that its own mistakes are reported under its flag rather than as the
// file's.
func applySettings(root *node, settings []Setting) error {
	if len(settings) == 0 || root.kind != kindObject {
		return nil
	}
	clusterMode := true
	if m := root.get("mode"); m != nil {
		clusterMode = m.kind == kindString && m.s == ModeCluster
	}
	for _, st := range settings {
		if st.Flag == "" {
			st.Flag = "--set"
		}
		if err := st.check(); err != nil {
			return err
		}
		block, pr := blockParam(st.Name)
		if pr == nil {
			cfg := child(root, "config")
			if cfg == nil {
				return nil // the parser reports the file's mistake
			}
			put(cfg, st.Name, configNode(st.Name, st.Value))
			continue
		}
		if !clusterMode {
			return &Error{Path: st.Flag + " " + st.String(), Msg: fmt.Sprintf("%s is a setting of the cluster mode's %s block; this scenario is in controller mode", st.Name, block)}
		}
		c := root.get("cluster")
		if c == nil || c.kind != kindObject {
			return nil // the parser reports it
		}
		// A block may hold the parameter under either name (acks in either block); the
		// setting replaces them all.
		for _, other := range []string{"broker", "workload"} {
			if b := c.get(other); b != nil && b.kind == kindObject {
				for _, k := range []string{pr.name(), pr.kafka} {
					if i := slices.Index(b.keys, k); i >= 0 {
						b.keys, b.vals = slices.Delete(b.keys, i, i+1), slices.Delete(b.vals, i, i+1)
					}
				}
			}
		}
		b := child(c, block)
		if b == nil {
			return nil
		}
		put(b, st.Name, valueNode(st.Value))
	}
	return nil
}

// child returns an object's object field, adding an empty one if absent; nil if the field is
// not an object.
func child(obj *node, key string) *node {
	n := obj.get(key)
	if n == nil {
		n = &node{kind: kindObject}
		obj.keys = append(obj.keys, key)
		obj.vals = append(obj.vals, n)
	}
	if n.kind != kindObject {
		return nil
	}
	return n
}

// put sets an object's field, replacing it in place if present.
func put(obj *node, key string, val *node) {
	if i := slices.Index(obj.keys, key); i >= 0 {
		obj.vals[i] = val
		return
	}
	obj.keys = append(obj.keys, key)
	obj.vals = append(obj.vals, val)
}
