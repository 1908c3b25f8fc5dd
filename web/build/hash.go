package build

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

// Content-hashed names (Options.Hash). A release build renames each script, stylesheet, wasm
// program and icon to name.<hash>.ext, the hash taken over its bytes, and rewrites every
// reference to it, so that a host can let browsers keep them for a year without asking
// (web/server sends Cache-Control: immutable for such names): a changed file has a new name,
// and the pages, which keep their names, are revalidated on every visit. A second visit then
// costs one request per page, answered 304.

// hashLen is how many hex digits of the SHA-256 a hashed name carries: 40 bits, enough that
// two builds' versions of one file never share a name.
const hashLen = 10

// hashedPattern matches a hashed file name: name.<hashLen hex digits>.ext.
var hashedPattern = regexp.MustCompile(`^(.+)\.[0-9a-f]{` + fmt.Sprint(hashLen) + `}(\.[a-z0-9]+)$`)

// hashed lists the files that get hashed names, in an order in which each file comes after
// every file it names: the worker names the wasm programs, the page scripts name the worker,
// the pages name all of them. The pages themselves, sw.js (a service worker's URL must stay
// put) and the licence files keep their names.
var hashed = [][]string{
	{"kraftlab.wasm", "lab.wasm", "rehearse.wasm", "favicon.svg", "app.css", "lab.css"},
	{"worker.js"},
	{"boot.js", "app.js", "lab.js", "lessons.js"},
}

// pages are the files that name hashed files and keep their own names.
var pages = []string{"index.html", "lab.html", "lessons.html"}

// Unhashed returns a file name without its content hash (app.3f2a9c81d0.js: app.js), or the
// name itself when it has none.
func Unhashed(name string) string {
	dir, base := path.Split(name)
	if m := hashedPattern.FindStringSubmatch(base); m != nil {
		return dir + m[1] + m[2]
	}
	return name
}

// hashNames gives the files of hashed in out their content-hashed names, rewrites the
// references to them, and returns the new name of each. A file's source map moves with it
// (app.js.map becomes app.<hash>.js.map) and its sourceMappingURL comment follows.
func hashNames(out string) (map[string]string, error) {
	renamed := map[string]string{}
	for _, level := range hashed {
		for _, name := range level {
			p := filepath.Join(out, name)
			b, err := os.ReadFile(p)
			if err != nil {
				return nil, err
			}
			b = rewriteRefs(b, renamed)
			sum := sha256.Sum256(b)
			ext := filepath.Ext(name)
			to := strings.TrimSuffix(name, ext) + "." + hex.EncodeToString(sum[:])[:hashLen] + ext
			if _, err := os.Stat(p + ".map"); err == nil {
				b = []byte(strings.Replace(string(b), "sourceMappingURL="+name+".map", "sourceMappingURL="+to+".map", 1))
				if err := os.Rename(p+".map", filepath.Join(out, to+".map")); err != nil {
					return nil, err
				}
			}
			if err := os.WriteFile(filepath.Join(out, to), b, 0o644); err != nil {
				return nil, err
			}
			if err := os.Remove(p); err != nil {
				return nil, err
			}
			renamed[name] = to
		}
	}
	// A script, style or program the list forgot would keep its plain name: still served, but
	// revalidated on every visit. Name it instead of shipping it so.
	entries, err := os.ReadDir(out)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		name := e.Name()
		switch filepath.Ext(name) {
		case ".js", ".css", ".wasm", ".svg":
			if name != ServiceWorker && Unhashed(name) == name {
				return nil, fmt.Errorf("%s has no content-hashed name: add it to hashed in web/build/hash.go", name)
			}
		}
	}
	for _, name := range pages {
		p := filepath.Join(out, name)
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, rewriteRefs(b, renamed), 0o644); err != nil {
			return nil, err
		}
	}
	return renamed, nil
}

// refPattern matches a quoted file name as the bundles and pages write one: "worker.js",
// "worker.js?wasm=lab", href="app.css", `lab.wasm`.
var refPattern = regexp.MustCompile("([\"'`])([A-Za-z0-9_-]+\\.[a-z0-9]+)([\"'`?])")

// rewriteRefs replaces each quoted name of renamed in b by its new name.
func rewriteRefs(b []byte, renamed map[string]string) []byte {
	if len(renamed) == 0 {
		return b
	}
	return refPattern.ReplaceAllFunc(b, func(m []byte) []byte {
		sub := refPattern.FindSubmatch(m)
		to, ok := renamed[string(sub[2])]
		if !ok {
			return m
		}
		return []byte(string(sub[1]) + to + string(sub[3]))
	})
}
