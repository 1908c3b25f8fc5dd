package cluster_test

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// layers is each checked package's files in layering order, lowest first: a file may refer to
// what its own file and the files before it declare, never to a later one. A reader can then
// take the files in this order and meet every name before it is used. The package doc
// (doc.go) says what each file holds.
var layers = map[string][]string{
	"broker": {
		"doc.go",
		"state.go",         // the lifecycle states
		"params.go",        // Params
		"client.go",        // what the fleet talks to: ControllerClient, Rates, Listener
		"queue.go",         // a broker's queued metadata changes
		"catalog.go",       // the committed metadata decoded once for all brokers
		"sessions.go",      // fetch sessions and their catch-up groups
		"catchup_notes.go", // CatchUpStatus, CatchUpNote
		"tables.go",        // broker, and the tables every concern shares
		"replica.go",       // the tables' shared reads: a replica's log position, a partition's HW
		"fleet.go",         // Fleet and the types of its concerns
		"warm.go",          // cache warming of the big loops
		"isr.go",           // ISR maintenance on the leader: watch, shrink, expand, propose
		"catchup_status.go",
		"catchup.go",  // catch-up through fetch sessions: groups, rejoins, rate allocation
		"roles.go",    // leaders and followers taking up their roles, produce and high watermark
		"alter.go",    // the AlterPartition round trip
		"metadata.go", // applying queued changes to a broker's view
		"publish.go",  // committed records into the catalog and the brokers' queues
		"lifecycle.go",
		"outofsync.go",
		"view.go",
		"events.go", // the fleet's sim events, dispatched
	},
	"control": {
		"doc.go",
		"invariants.go", // Violation, and the record of them
		"snapshot.go",   // Snapshot and its copy-on-write source, cowImage
		"past.go",       // an image as it was at an offset
		"bytes.go",      // record and snapshot sizes
		"store.go",      // a committed image, shared or a controller's own, and its journal
		"committed.go",  // the cluster's committed log and the replies waiting on it
		"images.go",     // the shared committed image and the replay into images
		"node.go",       // controllerNode, brokerObserver, activation, activeEngine
		"network.go",    // delays and cut links of broker requests
		"observe.go",    // Observer and the requests lent to it
		"config.go",     // Config, Callbacks, Stats
		"controllers.go",
		"activation.go", // an engine's steps: activation, task and ship events, deactivation
		"hooks.go",      // the quorum's hooks: commits, snapshots, elections
		"client.go",     // brokers' requests to the active controller
		"view.go",
		"ops.go", // Admin (operator actions) and faults
		"logview.go",
		"setup.go", // New and the setters
	},
}

// maxMethods is the most methods a type of a checked package may declare: more, and it holds
// more than one concern.
const maxMethods = 50

// TestNoBackArrows type-checks each package of layers and fails on a back-arrow: a use, in one
// file, of a package-level name (type, function, constant, variable, method or struct field)
// declared in a file that comes later in the package's layering order. Names declared in the
// same file, local names, and names of other packages do not count. Every non-test file of the
// package must be in the order, and every file in the order must exist, so that the order
// cannot fall behind the code. It also fails on a type that declares more than maxMethods
// methods.
func TestNoBackArrows(t *testing.T) {
	for _, pkg := range slices.Sorted(func(yield func(string) bool) {
		for k := range layers {
			if !yield(k) {
				return
			}
		}
	}) {
		t.Run(pkg, func(t *testing.T) {
			order := layers[pkg]
			rank := map[string]int{}
			for i, f := range order {
				rank[f] = i
			}
			fset := token.NewFileSet()
			files := parsePackage(t, fset, pkg)
			var names []string
			for _, f := range files {
				names = append(names, filepath.Base(fset.Position(f.Pos()).Filename))
			}
			assert.ElementsMatch(t, order, names, "layers[%q] must list exactly the package's non-test files", pkg)

			info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
			conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
			tpkg, err := conf.Check(pkg, fset, files, info)
			require.NoError(t, err)

			arrows := backArrows(fset, tpkg, info, rank)
			assert.Empty(t, arrows, "files of %s that refer to later files (reorder the files, or move the name down)", pkg)

			for typ, n := range methodCounts(files) {
				assert.LessOrEqual(t, n, maxMethods, "%s.%s declares %d methods; split its concerns into types of their own", pkg, typ, n)
			}
		})
	}
}

// parsePackage parses the non-test Go files of cluster/<pkg>.
func parsePackage(t *testing.T, fset *token.FileSet, pkg string) []*ast.File {
	ents, err := os.ReadDir(pkg)
	require.NoError(t, err)
	var files []*ast.File
	for _, e := range ents {
		n := e.Name()
		if !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(pkg, n), nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		files = append(files, f)
	}
	return files
}

// backArrows lists, sorted, every "file → later file: name" use in the package.
func backArrows(fset *token.FileSet, pkg *types.Package, info *types.Info, rank map[string]int) []string {
	seen := map[string]bool{}
	for id, obj := range info.Uses {
		if obj == nil || obj.Pkg() != pkg || !obj.Pos().IsValid() {
			continue
		}
		if !packageLevel(pkg, obj) {
			continue
		}
		from := filepath.Base(fset.Position(id.Pos()).Filename)
		to := filepath.Base(fset.Position(obj.Pos()).Filename)
		rf, okf := rank[from]
		rt, okt := rank[to]
		if okf && okt && rf < rt {
			seen[fmt.Sprintf("%s → %s: %s", from, to, obj.Name())] = true
		}
	}
	out := make([]string, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// packageLevel reports whether obj is declared at package level: in the package scope, or a
// method or a struct field (whose scope is not the package's but whose declaration is a
// package-level type's).
func packageLevel(pkg *types.Package, obj types.Object) bool {
	switch o := obj.(type) {
	case *types.Func:
		if sig, ok := o.Type().(*types.Signature); ok && sig.Recv() != nil {
			return true
		}
	case *types.Var:
		if o.IsField() {
			return true
		}
	case *types.Label, *types.PkgName:
		return false
	}
	return obj.Parent() == pkg.Scope()
}

// methodCounts counts the methods each receiver type declares.
func methodCounts(files []*ast.File) map[string]int {
	n := map[string]int{}
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || len(fd.Recv.List) == 0 {
				continue
			}
			typ := fd.Recv.List[0].Type
			if s, ok := typ.(*ast.StarExpr); ok {
				typ = s.X
			}
			if ix, ok := typ.(*ast.IndexExpr); ok {
				typ = ix.X
			}
			if id, ok := typ.(*ast.Ident); ok {
				n[id.Name]++
			}
		}
	}
	return n
}
