package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/cluster/scenario"
)

// cancelAfterRows is stdout that interrupts the command (as Ctrl-C does) once it has taken
// the header and n rows.
type cancelAfterRows struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	n      int
	cancel context.CancelFunc
}

func (w *cancelAfterRows) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Count(w.buf.String(), "\n") >= w.n+1 {
		w.cancel()
	}
	return len(p), nil
}

func TestInterruptedSweepKeepsTheCellsDoneInGridOrder(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &cancelAfterRows{n: 2, cancel: cancel}
	var errOut bytes.Buffer
	start := time.Now()
	code := runContext(ctx, []string{"sweep", "-", "--parallel", "2", "--grid", "seed=1..12:1"}, strings.NewReader(smallLab), out, &errOut)
	t.Logf("stopped %v after the start", time.Since(start))
	assert.Equal(t, exitInterrupted, code, errOut.String())
	rows, err := csv.NewReader(strings.NewReader(out.buf.String())).ReadAll()
	require.NoError(t, err, "what was written is whole CSV rows")
	require.GreaterOrEqual(t, len(rows), 3, "the header and the two rows written before the interrupt")
	require.Less(t, len(rows), 13, "the sweep stopped before its end")
	for i, r := range rows[1:] {
		assert.Equal(t, []string{itoa(i), itoa(i + 1)}, r[:2], "rows in grid order, none missing")
	}
	assert.Contains(t, errOut.String(), "kraftlab sweep: interrupted: "+itoa(len(rows)-1)+" of 12 cells written")

	// JSON: the document is whole, with the cells done.
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	errOut.Reset()
	var js bytes.Buffer
	code = runContext(ctx, []string{"sweep", "-", "--format", "json", "--grid", "seed=1,2"}, strings.NewReader(smallLab), &js, &errOut)
	assert.Equal(t, exitInterrupted, code)
	assert.Contains(t, js.String(), `"cells": []`)
	assert.Contains(t, errOut.String(), "interrupted: 0 of 2 cells written")
}

func TestInterruptedLabSaysSo(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errOut bytes.Buffer
	code := runContext(ctx, []string{"lab", "-"}, strings.NewReader(smallLab), &out, &errOut)
	assert.Equal(t, exitInterrupted, code)
	assert.Empty(t, out.String())
	assert.Contains(t, errOut.String(), "kraftlab lab: interrupted before every run was done")
}

func TestExportCellOutOfRangeIsRefused(t *testing.T) {
	for _, n := range []string{"-2", "-1", "2"} {
		code, out, errOut := cli(t, smallLab, "sweep", "-", "--export-cell", n, "--grid", "seed=1,2")
		assert.Equal(t, exitUsage, code, n)
		assert.Empty(t, out)
		assert.Contains(t, errOut, "kraftlab sweep: --export-cell: cell "+n+" does not exist; cells are 0 to 1")
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestInputCapsAreRefusedAtOnceNamingTheLimit(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.json")
	f, err := os.Create(big)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(scenario.MaxFileBytes+1)) // sparse: no disk, and never read
	require.NoError(t, f.Close())
	start := time.Now()
	code, out, errOut := cli(t, "", "run", big)
	t.Logf("refused in %v", time.Since(start))
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "big.json is 33554433 bytes; a scenario file holds at most 33554432 bytes (32 MiB)")

	// Stdin is read no further than the limit.
	code, _, errOut = cli(t, strings.Repeat(" ", scenario.MaxFileBytes+1), "run", "-")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "stdin is larger; a scenario file holds at most 33554432 bytes (32 MiB)")

	// More events than the format's limit: refused before any runs.
	var ev strings.Builder
	for i := range scenario.MaxListed + 1 {
		if i > 0 {
			ev.WriteByte(',')
		}
		ev.WriteString(`{"at_ms":1,"op":"kill","broker":0}`)
	}
	doc := `{"duration_ms":1000,"cluster":{"brokers":3,"topics":[{"name":"t","partition_count":1,"replication_factor":1}]},"events":[` + ev.String() + `]}`
	code, out, errOut = cli(t, doc, "run", "-")
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "events: lists 100001 entries; a scenario lists at most 100000")

	// A number past its range names the range, not "a non-negative integer".
	code, _, errOut = cli(t, `{"mode":"controller","brokers":[{"id":0}],"steps":[{"op":"advance","ms":1e18}]}`, "run", "-")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "steps[0].ms: must be a non-negative integer, at most 604800000; got 1e18")
}

func TestBinaryPropertiesAreRefused(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "x.bin")
	require.NoError(t, os.WriteFile(bin, []byte("num.partitions=3\n\x00\x01\x7fELF\xff\xfe"), 0o644))
	code, out, errOut := cli(t, smallLab, "lab", "-", "--scenario", "--properties", bin)
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "kraftlab lab: --properties "+bin+": it is not UTF-8 text")
	assert.NotContains(t, errOut, "\x00")
}
