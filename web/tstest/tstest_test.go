package tstest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evanw/esbuild/pkg/api"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/web/build"
)

// nodePath finds node, or skips (fails under CI=true) when there is none.
func nodePath(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("node"); err == nil {
		return p
	}
	msg := "node not found: the TypeScript unit tests run under `node --test` (apt-get install -y nodejs)"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg + "; CI=true, so a missing node is a failure")
	}
	t.Skip(msg)
	return ""
}

func TestTypeScriptUnits(t *testing.T) {
	node := nodePath(t)
	root, err := build.FindRoot()
	require.NoError(t, err)
	tests, err := filepath.Glob(filepath.Join(root, "web", "ts", "test", "*.test.ts"))
	require.NoError(t, err)
	require.NotEmpty(t, tests, "no web/ts/test/*.test.ts")

	out := t.TempDir()
	entries := make([]api.EntryPoint, 0, len(tests))
	for _, p := range tests {
		name := strings.TrimSuffix(filepath.Base(p), ".ts")
		entries = append(entries, api.EntryPoint{InputPath: p, OutputPath: name})
	}
	res := api.Build(api.BuildOptions{
		AbsWorkingDir:       root,
		EntryPointsAdvanced: entries,
		Bundle:              true,
		Platform:            api.PlatformNode,
		Format:              api.FormatESModule,
		Target:              api.ES2022,
		OutExtension:        map[string]string{".js": ".mjs"},
		Outdir:              out,
		Sourcemap:           api.SourceMapInline, // stack traces point at the .ts lines
		External:            []string{"node:*"},
		LogLevel:            api.LogLevelSilent,
		Write:               true,
	})
	if len(res.Errors) > 0 {
		t.Fatal(strings.Join(api.FormatMessages(res.Errors, api.FormatMessagesOptions{Kind: api.ErrorMessage}), ""))
	}
	bundles, err := filepath.Glob(filepath.Join(out, "*.mjs"))
	require.NoError(t, err)
	require.Len(t, bundles, len(tests))

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{"--enable-source-maps", "--test", "--test-reporter=spec"}, bundles...)...)
	cmd.Dir = out
	output, err := cmd.CombinedOutput()
	t.Logf("node --test:\n%s", output)
	require.NoError(t, err, "TypeScript unit tests failed (output above)")
}

// TestTypeScriptProperties runs the property-based tests (web/ts/test/prop/*.prop.ts) with
// fast-check, an npm package the build does not carry: KRAFTLAB_FAST_CHECK names a
// node_modules directory that holds it (make fuzz installs one); without it the test skips.
func TestTypeScriptProperties(t *testing.T) {
	node := nodePath(t)
	modules := os.Getenv("KRAFTLAB_FAST_CHECK")
	if modules == "" {
		t.Skip("KRAFTLAB_FAST_CHECK is not set: `make fuzz` installs fast-check and runs these")
	}
	root, err := build.FindRoot()
	require.NoError(t, err)
	tests, err := filepath.Glob(filepath.Join(root, "web", "ts", "test", "prop", "*.prop.ts"))
	require.NoError(t, err)
	require.NotEmpty(t, tests)
	out := t.TempDir()
	res := api.Build(api.BuildOptions{
		AbsWorkingDir: root,
		EntryPoints:   tests,
		Bundle:        true,
		Platform:      api.PlatformNode,
		Format:        api.FormatESModule,
		Target:        api.ES2022,
		OutExtension:  map[string]string{".js": ".mjs"},
		Outdir:        out,
		NodePaths:     []string{modules},
		External:      []string{"node:*"},
		LogLevel:      api.LogLevelSilent,
		Write:         true,
	})
	if len(res.Errors) > 0 {
		t.Fatal(strings.Join(api.FormatMessages(res.Errors, api.FormatMessagesOptions{Kind: api.ErrorMessage}), ""))
	}
	bundles, err := filepath.Glob(filepath.Join(out, "*.mjs"))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{"--test", "--test-reporter=spec"}, bundles...)...)
	cmd.Dir = out
	output, err := cmd.CombinedOutput()
	t.Logf("node --test:\n%s", output)
	require.NoError(t, err, "property-based tests failed (output above; fast-check prints the seed and the shrunk input)")
}
