package lessons

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDocsDescribeTheVocabulary keeps docs/lessons.md in step with the code: every predicate,
// broker fact and action is documented, and the whole lesson it shows parses and verifies.
func TestDocsDescribeTheVocabulary(t *testing.T) {
	raw, err := os.ReadFile("../docs/lessons.md")
	require.NoError(t, err)
	doc := string(raw)
	for _, w := range Predicates() {
		assert.True(t, strings.Contains(doc, "`"+w), "docs/lessons.md must document predicate %s", w)
	}
	for _, w := range append(append([]string{}, brokerStates...), brokerCounts...) {
		assert.True(t, strings.Contains(doc, "`"+w+"`"), "docs/lessons.md must document broker fact %s", w)
	}
	for _, w := range recordTypes {
		assert.True(t, strings.Contains(doc, "`"+w+"`"), "docs/lessons.md must document record type %s", w)
	}
	for _, w := range ActionWords() {
		assert.True(t, strings.Contains(doc, "`"+w), "docs/lessons.md must document action %s", w)
	}
	start := strings.Index(doc, "````markdown\n")
	require.GreaterOrEqual(t, start, 0)
	end := strings.Index(doc[start+13:], "````")
	require.GreaterOrEqual(t, end, 0)
	l, err := Parse("docs/lessons.md", []byte(doc[start+13:start+13+end]), nil)
	require.NoError(t, err)
	require.NoError(t, Verify(l))
}
