package lab

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Limits of a sweep.
const (
	// MaxCells bounds a grid: 400 runs of the KIP's load test are several minutes of CPU.
	MaxCells = 400
	// MaxAxes is one or two configs: a heatmap has two dimensions.
	MaxAxes = 2
)

// Axis is one swept override: a name and the values it takes.
type Axis struct {
	Name   string   `json:"name"`
	Values []string `json:"values"`
}

// ParseAxis reads NAME=v1,v2,... or NAME=FROM..TO:STEP (both ends included when the steps
// land on TO: threshold=0..20:5 is 0, 5, 10, 15, 20). The name is checked when the sweep is
// planned, against the scenario.
func ParseAxis(text string) (Axis, error) {
	name, list, ok := strings.Cut(text, "=")
	name, list = strings.TrimSpace(name), strings.TrimSpace(list)
	if !ok || name == "" || list == "" {
		return Axis{}, inputErrorf("want NAME=v1,v2,... or NAME=FROM..TO:STEP (such as leader.imbalance.election.max.per.run=50..1000:50), got %q", text)
	}
	a := Axis{Name: name}
	if from, rest, isRange := strings.Cut(list, ".."); isRange {
		to, step, hasStep := strings.Cut(rest, ":")
		f, err1 := strconv.ParseFloat(strings.TrimSpace(from), 64)
		t, err2 := strconv.ParseFloat(strings.TrimSpace(to), 64)
		s, err3 := 1.0, error(nil)
		if hasStep {
			s, err3 = strconv.ParseFloat(strings.TrimSpace(step), 64)
		}
		bad := func(why string) (Axis, error) {
			return Axis{}, inputErrorf("%s: invalid range %q: %s", name, list, why)
		}
		switch {
		case err1 != nil || err2 != nil || err3 != nil || math.IsNaN(f+t+s) || math.IsInf(f+t+s, 0):
			return bad("want FROM..TO:STEP with numbers, such as 0..20:5")
		case !(s > 0):
			return bad("the step must be above 0")
		case t < f:
			return bad("TO must be at least FROM")
		}
		n := math.Floor((t-f)/s+1e-9) + 1
		if n > MaxCells {
			return bad(fmt.Sprintf("%.0f values, more than the %d cells a grid may have", n, MaxCells))
		}
		for i := 0; i < int(n); i++ {
			// Rounded to 9 decimals so 0.1 steps read 0.3, not 0.30000000000000004.
			v := math.Round((f+float64(i)*s)*1e9) / 1e9
			a.Values = append(a.Values, strconv.FormatFloat(v, 'f', -1, 64))
		}
		return a, nil
	}
	for _, v := range strings.Split(list, ",") {
		v = strings.TrimSpace(v)
		if v == "" {
			return Axis{}, inputErrorf("%s: an empty value in %q", name, list)
		}
		if slices.Contains(a.Values, v) {
			return Axis{}, inputErrorf("%s: value %s is listed twice", name, v)
		}
		a.Values = append(a.Values, v)
	}
	return a, nil
}

// Cell is one point of the grid: a value of each axis, the scenario it makes, its run, the
// immediate run on the same cluster and the verdicts.
type Cell struct {
	Index int `json:"cell"`
	// Values holds each axis's value, in axis order.
	Values   []string   `json:"values"`
	Scenario []byte     `json:"-"`
	Result   *RunResult `json:"-"`
	Baseline *RunResult `json:"-"`
	Verdicts []Verdict  `json:"verdicts"`
	runIdx   int
	baseIdx  int
}

// Sweep is a grid of one or two axes over a scenario: cells in row-major order (the first
// axis slowest), whatever order they ran in.
type Sweep struct {
	Axes  []Axis `json:"axes"`
	Cells []Cell `json:"cells"`
	batch batch
}

// PlanSweep checks the grid and writes every cell's scenario: the file, the base overrides,
// then the cell's values. Nothing runs until Run; any invalid value is reported now, naming
// the axis and the value. Each cell's baseline is the same scenario under
// ImmediateOverrides, so that a swept cluster parameter (a throttle) is compared with today's
// policy on the same cluster; cells that share a baseline share its run.
func PlanSweep(doc []byte, base []Override, axes []Axis) (*Sweep, error) {
	if len(axes) == 0 || len(axes) > MaxAxes {
		return nil, inputErrorf("grid: give one or two axes (configs with their values), got %d", len(axes))
	}
	cells := 1
	var sizes []string
	for i, a := range axes {
		if len(a.Values) == 0 {
			return nil, inputErrorf("grid %s: no values", a.Name)
		}
		for _, b := range axes[:i] {
			if b.Name == a.Name {
				return nil, inputErrorf("grid %s: the same config is swept twice", a.Name)
			}
		}
		cells *= len(a.Values)
		sizes = append(sizes, fmt.Sprintf("%s has %d values", a.Name, len(a.Values)))
	}
	if cells > MaxCells {
		return nil, inputErrorf("grid %s: %d cells, more than %d (%s)", axes[len(axes)-1].Name, cells, MaxCells, strings.Join(sizes, ", "))
	}
	if _, err := ApplyOverrides(doc, base); err != nil {
		return nil, err
	}
	s := &Sweep{Axes: axes}
	for c := range cells {
		cell := Cell{Index: c, Values: make([]string, len(axes))}
		ovs := slices.Clone(base)
		rest := c
		for i := len(axes) - 1; i >= 0; i-- {
			cell.Values[i] = axes[i].Values[rest%len(axes[i].Values)]
			rest /= len(axes[i].Values)
		}
		for i, a := range axes {
			ovs = append(ovs, Override{Name: a.Name, Value: cell.Values[i]})
		}
		d, err := ApplyOverrides(doc, ovs)
		if err != nil {
			return nil, inputErrorf("grid %s: %w", axisAt(axes, cell.Values), err)
		}
		bd, err := ApplyOverrides(d, ImmediateOverrides())
		if err != nil {
			return nil, err
		}
		cell.Scenario = d
		cell.runIdx, cell.baseIdx = s.batch.add(d), s.batch.add(bd)
		s.Cells = append(s.Cells, cell)
	}
	return s, nil
}

// axisAt names a cell by its values: "max.per.run=200, threshold=5".
func axisAt(axes []Axis, values []string) string {
	parts := make([]string, len(axes))
	for i, a := range axes {
		parts[i] = a.Name + "=" + values[i]
	}
	return strings.Join(parts, ", ")
}

// Runs is how many distinct runs the sweep makes (cells and their baselines).
func (s *Sweep) Runs() int { return len(s.batch.docs) }

// Run plays every cell and baseline, opts.Workers at a time, and judges every cell.
func (s *Sweep) Run(ctx context.Context, opts Options) error {
	_, err := s.Stream(ctx, opts, nil)
	return err
}

// Stream plays the sweep as Run does and hands each cell to emit (if set) as soon as it and
// every cell before it are judged: in grid order, whatever order the runs finish in, so that
// an interrupted sweep keeps a prefix of its rows. It returns how many cells were handed on.
// When ctx ends first, each run stops at its next simulated minute and Stream returns ctx's
// error; an error from emit stops the sweep the same way and is returned.
func (s *Sweep) Stream(ctx context.Context, opts Options, emit func(c *Cell) error) (int, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	results := make([]*RunResult, s.Runs())
	next := 0
	onRun := func(i int, r *RunResult) {
		results[i] = r
		for next < len(s.Cells) && context.Cause(ctx) == nil {
			c := &s.Cells[next]
			if results[c.runIdx] == nil || results[c.baseIdx] == nil {
				return
			}
			c.Result, c.Baseline = results[c.runIdx], results[c.baseIdx]
			c.Verdicts = Verdicts(c.Result, c.Baseline)
			if emit != nil {
				if err := emit(c); err != nil {
					cancel(err)
					return
				}
			}
			next++
		}
	}
	_, err := s.batch.run(ctx, opts, onRun)
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		err = cause // emit's error, not the cancellation it caused
	}
	return next, err
}
