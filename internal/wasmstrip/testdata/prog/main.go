// Command prog exercises what a Go js/wasm program needs its function table for, so that
// wasmstrip's tests can run it before and after stripping: stack growth and garbage collection
// with pointers live on the stack, goroutines, defer and recover, reflection, and tracebacks.
// It prints its results, then a traceback between "trace:" and "end"; with the argument
// "crash" it ends in an unrecovered panic instead.
package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
)

type node struct {
	next  *node
	value int
}

// deep recurses n levels with a pointer live in every frame, collects garbage at the bottom
// (the collector scans every frame through the stack maps) and sums the list on the way up,
// after the stack has been grown and copied several times.
//
//go:noinline
func deep(n int, list *node) int {
	if n == 0 {
		runtime.GC()
		sum := 0
		for p := list; p != nil; p = p.next {
			sum += p.value
		}
		return sum
	}
	var pad [64]byte
	pad[n%64] = byte(n)
	return deep(n-1, &node{next: list, value: n}) + int(pad[n%64]) - int(byte(n))
}

// churn allocates a linked structure through garbage and collects it while goroutines hold
// parts of it.
func churn() int {
	results := make(chan int)
	for g := range 4 {
		go func() {
			var keep []*node
			for i := range 20000 {
				n := &node{value: i + g}
				if i%100 == 0 {
					keep = append(keep, n)
				}
			}
			runtime.GC()
			total := 0
			for _, n := range keep {
				total += n.value
			}
			results <- total
		}()
	}
	sum := 0
	for range 4 {
		sum += <-results
	}
	return sum
}

// recovered panics three calls down and recovers in a deferred call, with an open-coded defer
// on the way.
func recovered() (msg string) {
	defer func() {
		if p := recover(); p != nil {
			msg = fmt.Sprint("recovered: ", p)
		}
	}()
	level1()
	return "not reached"
}

//go:noinline
func level1() {
	done := false
	defer func() { done = true }()
	level2()
	_ = done
}

//go:noinline
func level2() { level3(nil) }

//go:noinline
func level3(m map[string]int) { m["x"] = 1 }

type shape interface{ Area() float64 }

type rect struct{ W, H float64 }

func (r rect) Area() float64 { return r.W * r.H }

// reflected formats values through reflection and calls a method through an interface.
func reflected() string {
	shapes := []shape{rect{2, 3}, rect{4, 5}}
	var parts []string
	for _, s := range shapes {
		parts = append(parts, fmt.Sprintf("%+v=%.0f", s, s.Area()))
	}
	m := map[string]int{"b": 2, "a": 1, "c": 3}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(parts, " ") + " " + fmt.Sprint(m) + " " + strings.Join(keys, ",")
}

// traced returns a traceback taken inside a function the compiler inlines into it.
//
//go:noinline
func traced() string { return inlinedStack() }

func inlinedStack() string { return string(debug.Stack()) }

// callerNames names the functions runtime.Callers sees, from itself up.
//
//go:noinline
func callerNames() string {
	pcs := make([]uintptr, 8)
	n := runtime.Callers(0, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	var names []string
	for {
		f, more := frames.Next()
		names = append(names, f.Function)
		if !more || f.Function == "main.main" {
			break
		}
	}
	return strings.Join(names, " < ")
}

//go:noinline
func crash() { panic("boom") }

func main() {
	if len(os.Args) > 1 && os.Args[1] == "crash" {
		crash()
	}
	fmt.Println("deep:", deep(5000, nil))
	fmt.Println("churn:", churn())
	fmt.Println(recovered())
	fmt.Println("reflected:", reflected())
	fmt.Println("callers:", callerNames())
	fmt.Println("trace:")
	fmt.Print(traced())
	fmt.Println("end")
}
