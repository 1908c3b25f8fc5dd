package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// site is a miniature dist/: the variants hold distinguishable text so a test can tell which
// file was served.
func site() fstest.MapFS {
	f := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	return fstest.MapFS{
		"index.html":            f("<!doctype html>index"),
		"index.html.br":         f("BR:index"),
		"index.html.gz":         f("GZ:index"),
		"app.js":                f("console.log(1)"),
		"app.js.gz":             f("GZ:app"), // no .br: gzip is the best on offer
		"app.css":               f("body{}"),
		"kraftlab.wasm":         f("\x00asm-raw"),
		"kraftlab.wasm.br":      f("BR:wasm"),
		"kraftlab.wasm.gz":      f("GZ:wasm"),
		"favicon.svg":           f("<svg/>"),
		"app.0123456789.js":     f("console.log(2)"),
		"app.0123456789.js.gz":  f("GZ:app2"),
		"app.0123456789.js.map": f("{}"),
		"data.bin":              f("\x00\x01"),
		".kraftlab-dist":        f(""),
		"lessons/index.html":    f("lessons"),
		"lessons/one.json":      f("{}"),
		"nested/.hidden/x.js":   f("x"),
	}
}

func get(t *testing.T, h http.Handler, method, target string, hdr map[string]string) *http.Response {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

func body(t *testing.T, r *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(r.Body)
	require.NoError(t, err)
	return string(b)
}

func TestContentTypes(t *testing.T) {
	h := Handler(site())
	cases := map[string]string{
		"/":                 "text/html; charset=utf-8",
		"/index.html":       "text/html; charset=utf-8",
		"/app.js":           "text/javascript; charset=utf-8",
		"/app.css":          "text/css; charset=utf-8",
		"/kraftlab.wasm":    "application/wasm",
		"/favicon.svg":      "image/svg+xml",
		"/lessons/one.json": "application/json",
		"/data.bin":         "application/octet-stream",
	}
	for target, want := range cases {
		r := get(t, h, "GET", target, nil)
		assert.Equal(t, http.StatusOK, r.StatusCode, target)
		assert.Equal(t, want, r.Header.Get("Content-Type"), target)
	}
	// The type is the original file's even when a compressed variant is sent.
	r := get(t, h, "GET", "/kraftlab.wasm", map[string]string{"Accept-Encoding": "br"})
	assert.Equal(t, "application/wasm", r.Header.Get("Content-Type"))
	assert.Equal(t, "br", r.Header.Get("Content-Encoding"))
}

func TestEncodingNegotiation(t *testing.T) {
	h := Handler(site())
	cases := []struct {
		accept, path, wantEnc, wantBody string
	}{
		{"", "/kraftlab.wasm", "", "\x00asm-raw"},
		{"gzip, deflate, br, zstd", "/kraftlab.wasm", "br", "BR:wasm"}, // Chromium's header
		{"gzip, deflate", "/kraftlab.wasm", "gzip", "GZ:wasm"},
		{"br;q=0, gzip", "/kraftlab.wasm", "gzip", "GZ:wasm"},
		{"br;q=0, gzip;q=0", "/kraftlab.wasm", "", "\x00asm-raw"},
		{"BR", "/kraftlab.wasm", "br", "BR:wasm"},
		{"*", "/kraftlab.wasm", "br", "BR:wasm"},
		{"*;q=0, gzip", "/kraftlab.wasm", "gzip", "GZ:wasm"},
		{"x-gzip", "/kraftlab.wasm", "gzip", "GZ:wasm"},
		{"br;q=banana, gzip", "/kraftlab.wasm", "gzip", "GZ:wasm"},
		{"identity", "/kraftlab.wasm", "", "\x00asm-raw"},
		{"deflate", "/kraftlab.wasm", "", "\x00asm-raw"},
		{"br, gzip", "/app.js", "gzip", "GZ:app"}, // no .br variant: fall back to gzip
		{"br, gzip", "/app.css", "", "body{}"},    // no variant at all
		{"br", "/", "br", "BR:index"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s %q", c.path, c.accept), func(t *testing.T) {
			r := get(t, h, "GET", c.path, map[string]string{"Accept-Encoding": c.accept})
			assert.Equal(t, http.StatusOK, r.StatusCode)
			assert.Equal(t, c.wantEnc, r.Header.Get("Content-Encoding"))
			assert.Equal(t, c.wantBody, body(t, r))
			assert.Equal(t, "Accept-Encoding", r.Header.Get("Vary"), "caches must key on Accept-Encoding")
			assert.Equal(t, fmt.Sprint(len(c.wantBody)), r.Header.Get("Content-Length"))
		})
	}
}

// TestCacheLifetimes: a content-hashed name is cached for a year and never revalidated, in
// every encoding; the pages and plain names are revalidated on each use.
func TestCacheLifetimes(t *testing.T) {
	h := Handler(site())
	for target, want := range map[string]string{
		"/app.0123456789.js":     ImmutableCacheControl,
		"/app.0123456789.js.map": ImmutableCacheControl,
		"/":                      "no-cache",
		"/index.html":            "no-cache",
		"/app.js":                "no-cache",
		"/kraftlab.wasm":         "no-cache",
	} {
		for _, enc := range []string{"", "gzip"} {
			r := get(t, h, "GET", target, map[string]string{"Accept-Encoding": enc})
			assert.Equal(t, http.StatusOK, r.StatusCode, target)
			assert.Equal(t, want, r.Header.Get("Cache-Control"), "%s, Accept-Encoding %q", target, enc)
		}
	}
	for name, want := range map[string]bool{
		"app.0123456789.js": true, "lab.abcdef0123.wasm": true, "x/app.0123456789.css.map": true,
		"app.js": false, "index.html": false, "sw.js": false, "app.0123456789": false,
		"app.ABCDEF0123.js": false, "app.012345678.js": false,
	} {
		assert.Equal(t, want, Immutable(name), name)
	}
}

func TestSecurityHeadersOnEveryResponse(t *testing.T) {
	h := Handler(site())
	for _, target := range []string{"/", "/app.js", "/kraftlab.wasm", "/missing", "/../etc/passwd"} {
		for _, method := range []string{"GET", "POST"} {
			r := get(t, h, method, target, nil)
			csp := r.Header.Get("Content-Security-Policy")
			assert.Equal(t, ContentSecurityPolicy, csp, "%s %s", method, target)
			assert.Equal(t, "nosniff", r.Header.Get("X-Content-Type-Options"), "%s %s", method, target)
			assert.Equal(t, "same-origin", r.Header.Get("Cross-Origin-Opener-Policy"))
			assert.Equal(t, "no-referrer", r.Header.Get("Referrer-Policy"))
		}
	}
}

func TestPolicyIsStrict(t *testing.T) {
	directives := map[string]string{}
	for _, d := range strings.Split(ContentSecurityPolicy, ";") {
		name, value, _ := strings.Cut(strings.TrimSpace(d), " ")
		directives[name] = value
	}
	assert.Equal(t, "'none'", directives["default-src"])
	assert.Equal(t, "'self' 'wasm-unsafe-eval'", directives["script-src"])
	assert.Equal(t, "'self'", directives["worker-src"])
	assert.Equal(t, "'none'", directives["frame-ancestors"])
	assert.NotContains(t, ContentSecurityPolicy, "unsafe-inline")
	assert.NotContains(t, ContentSecurityPolicy, "'unsafe-eval'")
	assert.NotContains(t, ContentSecurityPolicy, "*")

	meta := MetaContentSecurityPolicy()
	assert.NotContains(t, meta, "frame-ancestors", "ignored in <meta>, and Chromium warns about it")
	assert.True(t, strings.HasPrefix(ContentSecurityPolicy, meta))
}

func TestCachingRevalidatesWithContentETags(t *testing.T) {
	h := Handler(site())
	r := get(t, h, "GET", "/kraftlab.wasm", map[string]string{"Accept-Encoding": "br"})
	assert.Equal(t, "no-cache", r.Header.Get("Cache-Control"))
	brTag := r.Header.Get("ETag")
	require.Regexp(t, `^"[0-9a-f]{24}"$`, brTag)
	assert.Empty(t, r.Header.Get("Last-Modified"))

	r = get(t, h, "GET", "/kraftlab.wasm", map[string]string{"Accept-Encoding": "gzip"})
	assert.NotEqual(t, brTag, r.Header.Get("ETag"), "each encoding is its own representation")

	r = get(t, h, "GET", "/kraftlab.wasm", map[string]string{"Accept-Encoding": "br", "If-None-Match": brTag})
	assert.Equal(t, http.StatusNotModified, r.StatusCode)
	assert.Empty(t, body(t, r))

	// Same bytes in a fresh handler (a rebuild): same tag, so browsers keep their copy.
	r = get(t, Handler(site()), "GET", "/kraftlab.wasm", map[string]string{"Accept-Encoding": "br"})
	assert.Equal(t, brTag, r.Header.Get("ETag"))

	changed := site()
	changed["kraftlab.wasm.br"] = &fstest.MapFile{Data: []byte("BR:wasm v2")}
	r = get(t, Handler(changed), "GET", "/kraftlab.wasm", map[string]string{"Accept-Encoding": "br", "If-None-Match": brTag})
	assert.Equal(t, http.StatusOK, r.StatusCode, "new bytes, new tag")
}

func TestWhatIsNotServed(t *testing.T) {
	h := Handler(site())
	for _, target := range []string{
		"/missing.js", "/.kraftlab-dist", "/nested/.hidden/x.js", "/kraftlab.wasm.br", "/index.html.gz",
		"/..%2fgo.mod", "/lessons/../../x",
	} {
		r := get(t, h, "GET", target, nil)
		assert.Equal(t, http.StatusNotFound, r.StatusCode, target)
		assert.Equal(t, "no-store", r.Header.Get("Cache-Control"), target)
		assert.Equal(t, "text/plain; charset=utf-8", r.Header.Get("Content-Type"), target)
	}
	r := get(t, h, "POST", "/", nil)
	assert.Equal(t, http.StatusMethodNotAllowed, r.StatusCode)
	assert.Equal(t, "GET, HEAD", r.Header.Get("Allow"))
}

func TestDirectories(t *testing.T) {
	h := Handler(site())
	r := get(t, h, "GET", "/lessons/", nil)
	assert.Equal(t, http.StatusOK, r.StatusCode)
	assert.Equal(t, "lessons", body(t, r))
	r = get(t, h, "GET", "/lessons", nil)
	assert.Equal(t, http.StatusMovedPermanently, r.StatusCode)
	assert.Equal(t, "/lessons/", r.Header.Get("Location"))
	r = get(t, h, "GET", "/nested/", nil)
	assert.Equal(t, http.StatusNotFound, r.StatusCode, "no listings")
}

func TestHeadAndRange(t *testing.T) {
	h := Handler(site())
	r := get(t, h, "HEAD", "/kraftlab.wasm", map[string]string{"Accept-Encoding": "gzip"})
	assert.Equal(t, http.StatusOK, r.StatusCode)
	assert.Equal(t, "7", r.Header.Get("Content-Length"))
	assert.Empty(t, body(t, r))
	r = get(t, h, "GET", "/app.css", map[string]string{"Range": "bytes=0-3"})
	assert.Equal(t, http.StatusPartialContent, r.StatusCode)
	assert.Equal(t, "body", body(t, r))
	r = get(t, h, "GET", "/kraftlab.wasm", map[string]string{"Range": "bytes=0-1", "Accept-Encoding": "br"})
	assert.Equal(t, http.StatusOK, r.StatusCode, "a compressed variant is always sent whole")
	assert.Equal(t, "BR:wasm", body(t, r))
}

func TestCheckLoopback(t *testing.T) {
	for _, ok := range []string{"127.0.0.1:8080", "127.0.0.1:0", "127.1.2.3:80", "[::1]:8080", "localhost:9", "LOCALHOST:9"} {
		assert.NoError(t, CheckLoopback(ok), ok)
	}
	for _, bad := range []string{":8080", "0.0.0.0:8080", "[::]:8080", "192.168.1.4:80", "example.com:80", "8080", ""} {
		assert.Error(t, CheckLoopback(bad), bad)
	}
	err := CheckLoopback("0.0.0.0:8080")
	assert.True(t, errors.Is(err, ErrNotLoopback))
	_, err = Listen("0.0.0.0:0")
	assert.ErrorContains(t, err, "non-loopback")
}

func TestServeOnLoopbackAndShutDown(t *testing.T) {
	l, err := Listen("localhost:0")
	require.NoError(t, err)
	host, _, _ := net.SplitHostPort(l.Addr().String())
	assert.Equal(t, "127.0.0.1", host)

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, l, site()) }()

	resp, err := http.Get("http://" + l.Addr().String() + "/app.css")
	require.NoError(t, err)
	assert.Equal(t, "body{}", body(t, resp))
	resp.Body.Close()

	cancel()
	select {
	case err := <-done:
		assert.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after its context ended")
	}
}
