// Package server serves a built KRaft Lab site (the dist/ directory that build.go writes) over
// HTTP, for `make run` (through web/cmd/serve) and the end-to-end tests.
//
// It does what a careful static host would: exact content types (instantiateStreaming refuses
// a .wasm without application/wasm), the precompressed .br or .gz copy chosen by
// Accept-Encoding, a strict Content-Security-Policy, and caching that keeps a content-hashed
// file for good and revalidates everything else. It listens on loopback addresses only: it is
// a local playground server, not a public web server.
//
// This package imports nothing of KRaft Lab's.
package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net"
	"net/http"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ContentSecurityPolicy is sent with every response. Scripts, workers and fetches are limited
// to the site itself; no inline script or style and no eval are allowed, except that
// 'wasm-unsafe-eval' lets the worker compile WebAssembly (and nothing else). The page must not
// be framed, and it has no forms.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; " +
	"worker-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// MetaContentSecurityPolicy is the policy for the page's <meta http-equiv> tag, which keeps the
// page strict on a static host that sends no headers. It is ContentSecurityPolicy minus
// frame-ancestors, which browsers ignore (with a console warning) in a meta tag.
func MetaContentSecurityPolicy() string {
	return strings.TrimSuffix(ContentSecurityPolicy, "; frame-ancestors 'none'")
}

// contentTypes are the types this site needs, fixed here rather than taken from the host's
// mime database, which varies between machines (and lacks application/wasm on some).
var contentTypes = map[string]string{
	".html":  "text/html; charset=utf-8",
	".js":    "text/javascript; charset=utf-8",
	".mjs":   "text/javascript; charset=utf-8",
	".css":   "text/css; charset=utf-8",
	".wasm":  "application/wasm",
	".json":  "application/json",
	".map":   "application/json",
	".svg":   "image/svg+xml",
	".png":   "image/png",
	".ico":   "image/x-icon",
	".txt":   "text/plain; charset=utf-8",
	".md":    "text/markdown; charset=utf-8",
	".woff2": "font/woff2",
}

// ImmutableCacheControl is the Cache-Control of a content-hashed file: a year, the longest
// lifetime HTTP caches honour, and immutable, so that a reload does not revalidate it either.
const ImmutableCacheControl = "public, max-age=31536000, immutable"

// hashedName is a content-hashed file name as KRaft Lab's release build writes one: a name, a
// dot, ten lowercase hex digits, the extension (with .map after it for a source map).
var hashedName = regexp.MustCompile(`\.[0-9a-f]{10}\.[a-z0-9]+(\.map)?$`)

// Immutable reports whether name is content-hashed, so that its bytes can never change.
func Immutable(name string) bool { return hashedName.MatchString(path.Base(name)) }

// ContentType returns the Content-Type for a file name.
func ContentType(name string) string {
	ext := strings.ToLower(path.Ext(name))
	if t, ok := contentTypes[ext]; ok {
		return t
	}
	if t := mime.TypeByExtension(ext); t != "" {
		return t
	}
	return "application/octet-stream"
}

// encodings are the precompressed variants, in order of preference: brotli is about 25%
// smaller than gzip on the wasm binary, so it wins whenever the client accepts both.
var encodings = []struct{ token, ext string }{
	{"br", ".br"},
	{"gzip", ".gz"},
}

// Handler serves the site in fsys (the root of a built dist/).
//
//   - GET and HEAD only; "/" and any "dir/" serve index.html; no directory listings.
//   - Names starting with "." and the .br/.gz variants themselves are not served directly.
//   - If name+".br" (or ".gz") exists and the client accepts that encoding, the variant is
//     sent with Content-Encoding; every file response carries Vary: Accept-Encoding.
//   - A content-hashed name (app.3f2a9c81d0.js, see Immutable) is cached for a year without
//     revalidation: its bytes never change under that name. Any other file (the pages, sw.js,
//     a development build's plain names) gets Cache-Control: no-cache with a content-hash
//     ETag: a browser revalidates it each time, and an unchanged file costs only a 304.
//   - Every response, errors included, carries the security headers.
func Handler(fsys fs.FS) http.Handler {
	return &handler{fsys: fsys, etags: map[etagKey]string{}}
}

type handler struct {
	fsys  fs.FS
	mu    sync.Mutex
	etags map[etagKey]string
}

type etagKey struct {
	name    string
	size    int64
	modTime time.Time
}

func setSecurityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", ContentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	// Cross-origin isolation: nothing here is loaded from elsewhere, and it keeps the door open
	// to SharedArrayBuffer between the page and the worker.
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Embedder-Policy", "require-corp")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	setSecurityHeaders(w.Header())
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		httpError(w, http.StatusMethodNotAllowed)
		return
	}
	name, ok := fileName(r.URL.Path)
	if !ok {
		httpError(w, http.StatusNotFound)
		return
	}
	info, err := fs.Stat(h.fsys, name)
	if err != nil {
		httpError(w, http.StatusNotFound)
		return
	}
	if info.IsDir() {
		// A directory without its trailing slash: redirect, as a static host would, so that
		// relative URLs in its index.html resolve inside it.
		if _, err := fs.Stat(h.fsys, path.Join(name, "index.html")); err != nil {
			httpError(w, http.StatusNotFound)
			return
		}
		http.Redirect(w, r, path.Base(r.URL.Path)+"/", http.StatusMovedPermanently)
		return
	}

	hdr := w.Header()
	hdr.Set("Vary", "Accept-Encoding")
	hdr.Set("Content-Type", ContentType(name))
	if Immutable(name) {
		hdr.Set("Cache-Control", ImmutableCacheControl)
	} else {
		hdr.Set("Cache-Control", "no-cache")
	}
	served := name
	for _, enc := range negotiate(r.Header.Get("Accept-Encoding")) {
		if vi, err := fs.Stat(h.fsys, name+enc.ext); err == nil && !vi.IsDir() {
			served, info = name+enc.ext, vi
			hdr.Set("Content-Encoding", enc.token)
			break
		}
	}

	f, err := h.fsys.Open(served)
	if err != nil {
		hdr.Del("Content-Encoding")
		httpError(w, http.StatusNotFound)
		return
	}
	defer f.Close()
	content, ok := f.(io.ReadSeeker)
	if !ok {
		// Not every fs.FS returns seekable files; ServeContent needs one for ranges.
		b, err := io.ReadAll(f)
		if err != nil {
			httpError(w, http.StatusInternalServerError)
			return
		}
		content = strings.NewReader(string(b))
	}
	etag, err := h.etag(served, info, content)
	if err != nil {
		httpError(w, http.StatusInternalServerError)
		return
	}
	hdr.Set("ETag", etag)
	if hdr.Get("Content-Encoding") != "" {
		// ServeContent leaves out Content-Length whenever Content-Encoding is set (it cannot
		// know whether a later layer will compress again). Here the bytes are final, and the
		// length lets a browser show download progress for the wasm, so set it ourselves, and
		// serve the whole variant: a byte range of a compressed copy is of no use to anyone.
		hdr.Set("Content-Length", strconv.FormatInt(info.Size(), 10))
		r = r.Clone(r.Context())
		r.Header.Del("Range")
	}
	// The ETag alone drives revalidation; the zero modtime keeps ServeContent from also
	// sending Last-Modified, which embed.FS could not provide anyway.
	http.ServeContent(w, r, "", time.Time{}, content)
}

// etag returns a strong ETag over the served bytes, computed once per file version. Content
// hashing (rather than size and time) keeps 304s across rebuilds that produce identical files.
func (h *handler) etag(name string, info fs.FileInfo, content io.ReadSeeker) (string, error) {
	key := etagKey{name, info.Size(), info.ModTime()}
	h.mu.Lock()
	tag, ok := h.etags[key]
	h.mu.Unlock()
	if ok {
		return tag, nil
	}
	sum := sha256.New()
	if _, err := io.Copy(sum, content); err != nil {
		return "", err
	}
	if _, err := content.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	tag = `"` + hex.EncodeToString(sum.Sum(nil)[:12]) + `"`
	h.mu.Lock()
	h.etags[key] = tag
	h.mu.Unlock()
	return tag, nil
}

// fileName maps a URL path to a name in the site, or reports that it must not be served.
func fileName(urlPath string) (string, bool) {
	if !strings.HasPrefix(urlPath, "/") {
		return "", false
	}
	name := strings.TrimPrefix(urlPath, "/")
	if name == "" || strings.HasSuffix(name, "/") {
		name += "index.html"
	}
	if !fs.ValidPath(name) {
		return "", false // "..", "//", "." elements and the like
	}
	for _, elem := range strings.Split(name, "/") {
		if strings.HasPrefix(elem, ".") {
			return "", false // .kraftlab-dist marker, editor files, .git
		}
	}
	for _, enc := range encodings {
		if strings.HasSuffix(name, enc.ext) {
			return "", false // variants are reached through Accept-Encoding only
		}
	}
	return name, true
}

// negotiate returns the precompressed encodings the client accepts, best first. It follows
// RFC 9110 §12.5.3: q=0 refuses a coding, "*" stands for codings not named.
func negotiate(header string) []struct{ token, ext string } {
	if header == "" {
		return nil
	}
	q := map[string]float64{}
	for _, part := range strings.Split(header, ",") {
		token, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		token = strings.ToLower(strings.TrimSpace(token))
		if token == "" {
			continue
		}
		weight := 1.0
		for _, p := range strings.Split(params, ";") {
			k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
			if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
				if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
					weight = f
				} else {
					weight = 0 // an unreadable weight is not consent
				}
			}
		}
		q[token] = weight
	}
	var out []struct{ token, ext string }
	for _, enc := range encodings {
		w, named := q[enc.token]
		if !named && enc.token == "gzip" {
			w, named = q["x-gzip"]
		}
		if !named {
			w, named = q["*"]
		}
		if named && w > 0 {
			out = append(out, enc)
		}
	}
	return out
}

func httpError(w http.ResponseWriter, code int) {
	w.Header().Set("Cache-Control", "no-store")
	http.Error(w, http.StatusText(code), code)
}

// ErrNotLoopback is returned for an address that is not on the loopback interface.
var ErrNotLoopback = errors.New("server: refusing to listen on a non-loopback address")

// CheckLoopback accepts "host:port" only when host is a loopback IP (127.0.0.0/8, ::1) or
// "localhost". An empty host (":8080") would mean every interface, so it is refused too.
func CheckLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("server: bad address %q: %w", addr, err)
	}
	if strings.EqualFold(host, "localhost") {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%w: %q (use 127.0.0.1:PORT or [::1]:PORT)", ErrNotLoopback, addr)
}

// Listen opens a TCP listener on a loopback address (see CheckLoopback). Port 0 picks a free
// port; the listener's Addr says which.
func Listen(addr string) (net.Listener, error) {
	if err := CheckLoopback(addr); err != nil {
		return nil, err
	}
	host, port, _ := net.SplitHostPort(addr)
	if strings.EqualFold(host, "localhost") {
		// Resolve it ourselves: a hosts file could map "localhost" anywhere.
		host = "127.0.0.1"
	}
	return net.Listen("tcp", net.JoinHostPort(host, port))
}

// Serve serves fsys on l until ctx is done, then shuts down gracefully (in-flight requests
// get five seconds). It returns nil after a shutdown caused by ctx.
func Serve(ctx context.Context, l net.Listener, fsys fs.FS) error {
	srv := &http.Server{
		Handler:           Handler(fsys),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(l) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(shutdownCtx); err != nil {
			return err
		}
		if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}
