package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// Go's collector in the worker is no V8 event: the wasm's Go runtime collects its own heap,
// inside the worker's calls into Go. On js/wasm it has one thread, and when a message's
// handler is done and nothing else can run, the runtime finishes the mark phase there and
// then (idle marking, then sweeping) before it returns to JavaScript: the worker answers no
// message meanwhile. So the pause that matters is a cycle's mark phase, which Go's own trace
// (GODEBUG=gctrace=1) gives per cycle.

// gcTracing wraps a site's handler so that its worker scripts run Go with GODEBUG=gctrace=1 and
// keep Go's output in self.__gctrace, where goGC reads it. Only measurements use it.
func gcTracing(t *testing.T) func(http.Handler) http.Handler {
	workerJS := regexp.MustCompile(`^/worker(\.[0-9a-f]+)?\.js$`)
	const hook = `;(() => { const fs = globalThis.fs, write = fs.writeSync.bind(fs), dec = new TextDecoder();
	self.__gctrace = ""; fs.writeSync = (fd, buf) => { self.__gctrace += dec.decode(buf, { stream: true }); return write(fd, buf); }; })();`
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !workerJS.MatchString(r.URL.Path) {
				h.ServeHTTP(w, r)
				return
			}
			// The site's own answer (its headers: the page is cross-origin isolated, and so
			// must its worker be), with Go's environment set and the hook added.
			// Asked for without compression, so that the script can be edited.
			r = r.Clone(r.Context())
			r.Header.Del("Accept-Encoding")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			src := rec.Body.Bytes()
			// wasm_exec.js's Go starts with an empty environment.
			env := regexp.MustCompile(`this\.env\s*=\s*\{\}`)
			if rec.Code != http.StatusOK || !env.Match(src) {
				t.Errorf("%s: %d, or wasm_exec.js's environment is not where gcTracing looks for it", r.URL.Path, rec.Code)
			}
			src = env.ReplaceAll(src, []byte(`this.env={GODEBUG:"gctrace=1"}`))
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.Header().Del("Content-Length")
			w.Header().Del("ETag")
			w.Header().Set("Cache-Control", "no-store")
			_, _ = w.Write(append(src, hook...))
		})
	}
}

// goGCFigures are the Go collector's cycles in the worker since the last goGC call, from
// gctrace: the longest mark phase (wall time from the cycle's start to its end, during which
// the worker's step finishes and then the rest of the mark runs before any other message), its
// idle marking (the part run after the handler, all at once), the longest stop-the-world
// pauses, and the largest heap live after a cycle.
type goGCFigures struct {
	cycles                int
	markMs, idleMs, stwMs float64
	liveMB, goalMB        float64
}

func (g goGCFigures) String() string {
	if g.cycles == 0 {
		return "Go GC: no cycle"
	}
	return fmt.Sprintf("Go GC: %d cycles, longest mark %.1f ms (idle marking %.1f ms of CPU), longest stop-the-world %.2f ms, live heap up to %.0f MB (goal %.0f MB)",
		g.cycles, g.markMs, g.idleMs, g.stwMs, g.liveMB, g.goalMB)
}

// gcLine is one gctrace line: gc N @Ts P%: a+b+c ms clock, d+e/f/g+h ms cpu, A->B->C MB, D MB goal, ...
var gcLine = regexp.MustCompile(`gc \d+ @[\d.]+s \d+%: ([\d.]+)\+([\d.]+)\+([\d.]+) ms clock, [\d.]+\+[\d.]+/[\d.]+/([\d.]+)\+[\d.]+ ms cpu, ([\d.]+)->([\d.]+)->([\d.]+) MB, ([\d.]+) MB goal`)

// goGC reads and clears the gctrace output of every worker of the browser (see gcTracing).
func goGC(t *testing.T, bctx context.Context) goGCFigures {
	t.Helper()
	targets, err := chromedp.Targets(bctx)
	require.NoError(t, err)
	var g goGCFigures
	for _, tg := range targets {
		if tg.Type != "worker" {
			continue
		}
		wctx, cancel := chromedp.NewContext(bctx, chromedp.WithTargetID(tg.TargetID), chromedp.WithDetachOnCancel())
		ctx, cancelT := context.WithTimeout(wctx, time.Minute)
		out, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => { const s = self.__gctrace ?? ""; self.__gctrace = ""; return s; })()`))
		cancelT()
		cancel()
		require.NoError(t, err)
		for _, m := range gcLine.FindAllStringSubmatch(out, -1) {
			f := make([]float64, len(m))
			for i := 1; i < len(m); i++ {
				f[i], _ = strconv.ParseFloat(m[i], 64)
			}
			g.cycles++
			g.stwMs = max(g.stwMs, f[1], f[3])
			g.markMs = max(g.markMs, f[2])
			g.idleMs = max(g.idleMs, f[4])
			g.liveMB = max(g.liveMB, f[7])
			g.goalMB = max(g.goalMB, f[8])
		}
	}
	return g
}
