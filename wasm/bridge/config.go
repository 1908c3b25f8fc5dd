package bridge

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/kraftlab/kraftlab/engine/config"
)

// ConfigDef is one config definition as the page sees it (the config.defs reply).
type ConfigDef struct {
	Name string `json:"name"`
	// Type is Kafka's type name: boolean, int (32-bit), long (64-bit) or string.
	Type string `json:"type" ts:"ConfigType"`
	// Default is the typed default (a JSON boolean, number or string); DefaultText is the same
	// value as text, exact even for longs beyond JavaScript's 2^53.
	Default     any    `json:"default" ts:"boolean | number | string"`
	DefaultText string `json:"defaultText"`
	// Allowed is the human description of the valid values, as Def.AllowedText gives it.
	Allowed string `json:"allowed"`
	// Choices lists the valid values of an enumerated string config (for a select box).
	Choices []string `json:"choices,omitempty"`
	// Min and Max bound int and long configs (inclusive); Max is absent when unbounded.
	Min *int64 `json:"min,omitempty"`
	Max *int64 `json:"max,omitempty"`
	// Dynamic configs may change while the controller runs.
	Dynamic bool `json:"dynamic"`
	// Scope is "cluster" or "topic" (a topic config may also be set per topic).
	Scope string `json:"scope" ts:"ConfigScope"`
	// Source is the label shown to the reader (e.g. "KIP-1358"); SourceKey is a stable
	// identifier of the same thing for styling: kafka, kip-1358, pr-22934 or model.
	Source    string `json:"source"`
	SourceKey string `json:"sourceKey" ts:"SourceKey"`
	Doc       string `json:"doc"`
	Note      string `json:"note,omitempty"`
}

// ConfigDefsBody is the reply to config.defs.
type ConfigDefsBody struct {
	Configs []ConfigDef `json:"configs"`
}

// SourceKey maps a config source to the stable key the page styles by. The page must not
// parse the label text, which may be reworded.
func SourceKey(s config.Source) string {
	switch s {
	case config.Kafka:
		return "kafka"
	case config.KIP1358:
		return "kip-1358"
	case config.PR22934:
		return "pr-22934"
	case config.Model:
		return "model"
	}
	return "other"
}

func scopeName(s config.Scope) string {
	if s == config.Topic {
		return "topic"
	}
	return "cluster"
}

// DescribeDef converts an engine definition to its protocol form.
func DescribeDef(d *config.Def) ConfigDef {
	cd := ConfigDef{
		Name: d.Name, Type: d.Type.String(), Default: d.Default, DefaultText: valueText(d.Default),
		Allowed: d.AllowedText(), Choices: d.Allowed, Dynamic: d.Dynamic, Scope: scopeName(d.Scope),
		Source: string(d.Source), SourceKey: SourceKey(d.Source), Doc: d.Doc, Note: d.Note,
	}
	if d.Type == config.Int || d.Type == config.Long {
		lo := d.Min
		cd.Min = &lo
		if d.HasMax {
			hi := d.Max
			cd.Max = &hi
		}
	}
	return cd
}

func valueText(v any) string {
	switch x := v.(type) {
	case int64:
		return strconv.FormatInt(x, 10)
	case bool:
		return strconv.FormatBool(x)
	case string:
		return x
	}
	return fmt.Sprint(v)
}

func configDefs(body json.RawMessage) (any, error) {
	if err := Decode(body, &struct{}{}); err != nil {
		return nil, err
	}
	all := config.All()
	out := ConfigDefsBody{Configs: make([]ConfigDef, len(all))}
	for i, d := range all {
		out.Configs[i] = DescribeDef(d)
	}
	return out, nil
}

// ValidateRequest is the body of config.validate.
type ValidateRequest struct {
	Name string `json:"name"`
	// Value is any JSON value: a boolean, a number or a string. A string is read as text, the
	// way a server.properties line is ("105", " true ").
	Value any `json:"value" ts:"ConfigValue"`
	// Scope is "cluster" (the default) or "topic": a cluster-only config cannot be set on a
	// topic.
	Scope string `json:"scope,omitempty" ts:"ConfigScope"`
}

// ValidateBody is the reply to config.validate. A rejected value is a successful reply with
// Valid false: the request was understood, the value was not acceptable.
type ValidateBody struct {
	Valid bool `json:"valid"`
	// Value and Text are the parsed value (when Valid), typed and as exact text.
	Value any    `json:"value,omitempty" ts:"boolean | number | string"`
	Text  string `json:"text,omitempty"`
	// Error is the full ConfigError message, worded like Kafka's ConfigException, and Reason
	// its last part (what is allowed), for a short hint next to a field.
	Error  string `json:"error,omitempty"`
	Reason string `json:"reason,omitempty"`
}

func configValidate(body json.RawMessage) (any, error) {
	var req ValidateRequest
	if err := Decode(body, &req); err != nil {
		return nil, err
	}
	if req.Name == "" {
		return nil, BadRequest("name is required")
	}
	scope := config.Cluster
	switch req.Scope {
	case "", "cluster":
	case "topic":
		scope = config.Topic
	default:
		return nil, BadRequest("scope must be cluster or topic, not %q", req.Scope)
	}
	var vals config.Values
	if err := vals.Set(req.Name, req.Value, scope); err != nil {
		var ce *config.ConfigError
		if !errors.As(err, &ce) {
			return nil, err
		}
		return ValidateBody{Error: ce.Error(), Reason: ce.Reason}, nil
	}
	v, _ := vals.Get(req.Name)
	return ValidateBody{Valid: true, Value: v, Text: valueText(v)}, nil
}
