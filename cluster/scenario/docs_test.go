package scenario

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestDocsDescribeTheWholeFormat keeps docs/scenario.md, the format's public description, in
// step with the parser: every op, every field and every scripted scenario is documented.
func TestDocsDescribeTheWholeFormat(t *testing.T) {
	doc := string(readFile(t, filepath.Join("..", "..", "docs", "scenario.md")))
	mention := func(text, what string) {
		if !strings.Contains(doc, text) {
			t.Errorf("docs/scenario.md does not document %s (no %q)", what, text)
		}
	}
	for _, op := range Ops() {
		mention("| `"+op+"` |", "op "+op)
		for _, f := range opFields[op] {
			mention("`"+f+"`", "field "+f+" of "+op)
		}
	}
	for _, f := range append(append(append(topFields, brokerFields...), topicFields...), partitionFields...) {
		mention("| `"+f+"` |", "field "+f)
	}
	for _, file := range scenarioFiles(t) {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		mention("`"+name+"`", "scripted scenario "+name)
	}
	for _, code := range []string{CodeBrokerNotRunning, CodeNoLeader} {
		mention("| `"+code+"` |", "runner error "+code)
	}
}
