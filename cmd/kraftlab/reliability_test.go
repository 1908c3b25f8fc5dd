package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
