// Package kraftlab_test holds checks that span the repository, such as the docs staying in step
// with the code they document.
package kraftlab_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/metrics"
)

// TestReferenceDocumentsEveryConfigAndMetric fails when a config or metric is added to the engine
// without being documented in docs/reference.md.
func TestReferenceDocumentsEveryConfigAndMetric(t *testing.T) {
	raw, err := os.ReadFile("docs/reference.md")
	require.NoError(t, err)
	readme := string(raw)
	for _, d := range config.All() {
		assert.Contains(t, readme, "`"+d.Name+"`", "docs/reference.md must document config %s", d.Name)
	}
	for _, m := range metrics.Catalogue() {
		assert.Contains(t, readme, m.MBean, "docs/reference.md must document metric %s", m.Name)
	}
}
