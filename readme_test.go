// Package kraftlab_test holds checks that span the repository, such as the README staying in step
// with the code it documents.
package kraftlab_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/metrics"
)

// TestReadmeDocumentsEveryConfigAndMetric fails when a config or metric is added to the engine
// without being documented in the README.
func TestReadmeDocumentsEveryConfigAndMetric(t *testing.T) {
	raw, err := os.ReadFile("README.md")
	require.NoError(t, err)
	readme := string(raw)
	for _, d := range config.All() {
		assert.Contains(t, readme, "`"+d.Name+"`", "README must document config %s", d.Name)
	}
	for _, m := range metrics.Catalogue() {
		assert.Contains(t, readme, m.MBean, "README must document metric %s", m.Name)
	}
}
