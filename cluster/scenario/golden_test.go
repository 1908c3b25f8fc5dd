package scenario

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// update rewrites the recorded outputs: go test ./cluster/scenario -run Golden -update. The
// diff is the review: read it against docs/kafka-behaviour.md (and docs/model.md for the cluster's
// numbers) before committing; CONTRIBUTING.md says how.
var update = flag.Bool("update", false, "rewrite testdata/*.out (and *.out.json) from the current output")

// scenarioFiles lists the scenario files of testdata (the recorded JSON outputs excepted).
func scenarioFiles(t testing.TB) []string {
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	require.NoError(t, err)
	var out []string
	for _, f := range files {
		if !strings.HasSuffix(f, ".out.json") {
			out = append(out, f)
		}
	}
	require.NotEmpty(t, out)
	return out
}

// render runs a scenario file as the CLI would and returns its text output, or the one-line
// error of an invalid scenario.
func render(t testing.TB, data []byte, text bool) []byte {
	s, err := Parse(data)
	var res *Result
	if err == nil {
		res, err = Run(s)
	}
	if err != nil {
		return []byte("error: " + err.Error() + "\n")
	}
	var b bytes.Buffer
	if text {
		require.NoError(t, res.WriteText(&b))
	} else {
		require.NoError(t, res.WriteJSON(&b))
	}
	return b.Bytes()
}

// TestGolden runs every scripted scenario of testdata and compares its text output with the
// recorded NAME.out; a NAME.out.json, where present, pins the JSON output too.
func TestGolden(t *testing.T) {
	for _, file := range scenarioFiles(t) {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			check := func(path string, got []byte) {
				if *update {
					require.NoError(t, os.WriteFile(path, got, 0o644))
					return
				}
				want, err := os.ReadFile(path)
				require.NoError(t, err, "no recorded output: run go test -run Golden -update and review it")
				if diff := firstDiff(string(want), string(got)); diff != "" {
					t.Errorf("output differs from %s (go test -run Golden -update rewrites it; review the diff)\n%s", path, diff)
				}
			}
			base := strings.TrimSuffix(file, ".json")
			check(base+".out", render(t, data, true))
			if _, err := os.Stat(base + ".out.json"); err == nil {
				check(base+".out.json", render(t, data, false))
			}
		})
	}
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return data
}

// firstDiff describes the first line where two outputs differ, or returns "" if they are equal:
// a whole golden file in a failure message would hide the one line that matters.
func firstDiff(want, got string) string {
	if want == got {
		return ""
	}
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; ; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl || i >= len(w) || i >= len(g) {
			return fmt.Sprintf("line %d:\n  want %q\n  got  %q\n(%d lines recorded, %d now)", i+1, wl, gl, len(w), len(g))
		}
	}
}
