package scenario

import (
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/kraftlab/kraftlab/cluster"
)

// TestDocsDescribeTheWholeFormat keeps docs/scenario.md, the format's public description, in
// step with the parser: every op, every field, every parameter, every result figure and every
// scripted scenario is documented.
func TestDocsDescribeTheWholeFormat(t *testing.T) {
	doc := string(readFile(t, filepath.Join("..", "..", "docs", "scenario.md")))
	mention := func(text, what string) {
		if !strings.Contains(doc, text) {
			t.Errorf("docs/scenario.md does not document %s (no %q)", what, text)
		}
	}
	for _, op := range Ops() {
		mention("| `"+op+"` |", "op "+op)
		for _, f := range first(opFields.get(op)) {
			mention("`"+f+"`", "field "+f+" of "+op)
		}
	}
	for _, f := range append(append(append(topFields, brokerFields...), topicFields...), append(partitionFields, partitionFigureFields...)...) {
		mention("| `"+f+"` |", "field "+f)
	}
	for _, file := range scenarioFiles(t) {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		mention("`"+name+"`", "scripted scenario "+name)
	}
	for _, code := range []string{CodeBrokerNotRunning, CodeNoLeader, CodeEventRefused} {
		mention("| `"+code+"` |", "runner error "+code)
	}

	// The cluster mode.
	for _, op := range ClusterOps() {
		mention("| `"+op+"` |", "event op "+op)
		for _, f := range first(clusterOpFields.get(op)) {
			mention("`"+f+"`", "field "+f+" of event "+op)
		}
	}
	for _, f := range append(append(slices.Clone(clusterTopFields), clusterFields...), eventFields...) {
		mention("`"+f+"`", "cluster-mode field "+f)
	}
	for _, f := range outputFields {
		mention("`"+f+"`", "output field "+f)
	}
	for _, table := range [][]param{brokerParams, workloadParams} {
		for _, pr := range table {
			mention("| `"+pr.name()+"` |", "parameter "+pr.name())
			if pr.kafka != "" {
				mention("| `"+pr.kafka+"` |", "Kafka name "+pr.kafka)
			}
		}
	}
	for _, name := range ThrottleConfigs {
		mention("`"+name+"`", "throttle config "+name)
	}
	for _, f := range summary(cluster.Summary{}).Fields {
		mention("`"+f.Name+"`", "summary field "+f.Name)
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[SampleResult](), reflect.TypeFor[BrokerSample](), reflect.TypeFor[EventResult]()} {
		for i := range typ.NumField() {
			if tag := strings.Split(typ.Field(i).Tag.Get("json"), ",")[0]; tag != "" {
				mention("`"+tag+"`", "result field "+tag+" of "+typ.Name())
			}
		}
	}
}

// first is a table lookup's fields, without its found flag.
func first(fields []string, _ bool) []string { return fields }
