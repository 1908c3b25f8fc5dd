package config

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// ConfigError is a rejected config, worded like Kafka's ConfigException: it names the config,
// the value and what is allowed.
type ConfigError struct {
	Name   string
	Value  string
	Reason string
}

// Error reads as Kafka's ConfigException does ("Invalid value V for configuration N: why"); an
// unknown name has only its reason.
func (e *ConfigError) Error() string {
	if e.Value == "" && strings.HasPrefix(e.Reason, "Unknown") {
		return e.Reason
	}
	return fmt.Sprintf("Invalid value %s for configuration %s: %s", e.Value, e.Name, e.Reason)
}

// Parse converts a raw value into the config's typed value (bool, int64 or string) and checks
// it against the definition. Raw values come from JSON (bool, float64, json.Number, string) or
// from text such as a CLI flag or a server.properties line (string).
func (d *Def) Parse(raw any) (any, error) {
	bad := func(reason string) error {
		return &ConfigError{Name: d.Name, Value: display(raw), Reason: reason}
	}
	switch d.Type {
	case Boolean:
		switch v := raw.(type) {
		case bool:
			return v, nil
		case string:
			switch strings.ToLower(strings.TrimSpace(v)) {
			case "true":
				return true, nil
			case "false":
				return false, nil
			}
		}
		return nil, bad("Expected value to be either true or false")
	case Int, Long:
		n, ok := integer(raw)
		if !ok {
			width := "64-bit"
			if d.Type == Int {
				width = "32-bit"
			}
			return nil, bad(fmt.Sprintf("Expected value to be a %s integer, but it was %s", width, describe(raw)))
		}
		if d.Type == Int && (n > math.MaxInt32 || n < math.MinInt32) {
			return nil, bad("Expected value to be a 32-bit integer, but it is out of range")
		}
		if n < d.Min {
			return nil, bad(fmt.Sprintf("Value must be at least %d", d.Min))
		}
		if d.HasMax && n > d.Max {
			return nil, bad(fmt.Sprintf("Value must be no more than %d", d.Max))
		}
		return n, nil
	default:
		s, ok := raw.(string)
		if !ok {
			return nil, bad(fmt.Sprintf("Expected value to be a string, but it was %s", describe(raw)))
		}
		s = strings.TrimSpace(s)
		if len(d.Allowed) > 0 {
			for _, a := range d.Allowed {
				if s == a {
					return s, nil
				}
			}
			return nil, bad("String must be one of: " + strings.Join(d.Allowed, ", "))
		}
		return s, nil
	}
}

// integer reads a whole number from JSON or text; fractions and non-numbers are refused.
func integer(raw any) (int64, bool) {
	switch v := raw.(type) {
	case int:
		return int64(v), true
	case int32:
		return int64(v), true
	case int64:
		return v, true
	case float64:
		if v != math.Trunc(v) || math.IsInf(v, 0) || math.Abs(v) > 1<<62 {
			return 0, false
		}
		return int64(v), true
	case json.Number:
		n, err := strconv.ParseInt(string(v), 10, 64)
		return n, err == nil
	case string:
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		return n, err == nil
	}
	return 0, false
}

func describe(raw any) string {
	switch raw.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case float64, json.Number:
		return "a number with a fraction or out of range"
	default:
		return fmt.Sprintf("a %T", raw)
	}
}

func display(raw any) string {
	switch v := raw.(type) {
	case string:
		return strconv.Quote(v)
	case nil:
		return "null"
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	default:
		return fmt.Sprint(v)
	}
}

// UnknownError is returned for a name that is neither a Kafka config the engine models nor a
// model option. It suggests the closest known name when there is one.
func UnknownError(name string) error {
	msg := fmt.Sprintf("Unknown configuration %q", name)
	if s := closest(name); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	return &ConfigError{Name: name, Reason: msg}
}

// closest returns the known name nearest to name in edit distance, if it is near enough to be
// a plausible typo.
func closest(name string) string {
	best, bestDist := "", len(name)/3+1
	for _, d := range All() {
		if dist := editDistance(name, d.Name); dist < bestDist {
			best, bestDist = d.Name, dist
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Values holds the configs set at one level (the cluster, or one topic). Unset configs fall
// back to the next level and finally to the default.
type Values struct {
	set map[string]any
}

// Set validates and stores one config. scope is the level being set: a cluster-only config
// cannot be set on a topic.
func (v *Values) Set(name string, raw any, scope Scope) error {
	d, ok := Lookup(name)
	if !ok {
		return UnknownError(name)
	}
	if scope == Topic && d.Scope != Topic {
		return &ConfigError{Name: name, Value: display(raw), Reason: "Not a topic config: it can only be set for the cluster"}
	}
	val, err := d.Parse(raw)
	if err != nil {
		return err
	}
	if v.set == nil {
		v.set = make(map[string]any)
	}
	v.set[name] = val
	return nil
}

// Delete removes an override, so the next level applies again.
func (v *Values) Delete(name string) { delete(v.set, name) }

// Get returns the value set at this level, if any.
func (v *Values) Get(name string) (any, bool) {
	val, ok := v.set[name]
	return val, ok
}

// Names returns the configs set at this level, sorted.
func (v *Values) Names() []string {
	out := make([]string, 0, len(v.set))
	for n := range v.set {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Clone returns an independent copy.
func (v *Values) Clone() Values {
	if v.set == nil {
		return Values{}
	}
	c := Values{set: make(map[string]any, len(v.set))}
	for k, x := range v.set {
		c.set[k] = x
	}
	return c
}

// Resolve returns a config's effective value: the first level that sets it, else the default.
// It panics on an unknown name, which is a programming error (names are constants).
func Resolve(name string, levels ...*Values) any {
	for _, l := range levels {
		if l == nil {
			continue
		}
		if val, ok := l.set[name]; ok {
			return val
		}
	}
	d, ok := Lookup(name)
	if !ok {
		panic("config: unknown name " + name)
	}
	return d.Default
}

// Bool resolves a boolean config.
func Bool(name string, levels ...*Values) bool { return Resolve(name, levels...).(bool) }

// Int64 resolves an Int or Long config.
func Int64(name string, levels ...*Values) int64 { return Resolve(name, levels...).(int64) }

// Str resolves a String config.
func Str(name string, levels ...*Values) string { return Resolve(name, levels...).(string) }
