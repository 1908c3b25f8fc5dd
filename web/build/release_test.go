package build

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReleaseSizes builds the release site as `make dist` does (content-hashed names, gzip and
// brotli copies at their best quality, the programs' copies through the brotli cache),
// holds every wasm program and page load to the size budgets, and checks the hashed names
// (checkHashedSite). Brotli at its best quality costs tens of seconds on the three programs
// that the cache has no copy of, so it runs once per `make test` (which sets
// KRAFTLAB_RELEASE_SIZES=1) and is skipped otherwise.
func TestReleaseSizes(t *testing.T) {
	if os.Getenv("KRAFTLAB_RELEASE_SIZES") != "1" {
		t.Skip("builds the release site with brotli (tens of seconds): set KRAFTLAB_RELEASE_SIZES=1, as make test does")
	}
	out := filepath.Join(t.TempDir(), "dist")
	var log strings.Builder
	assets, err := Build(context.Background(), Options{Root: root(t), Out: out,
		Version: "size-test", Gzip: true, Brotli: true, BrotliCache: DefaultBrotliCache(), Offline: true, Hash: true, Log: &log})
	require.NoError(t, err)
	var table strings.Builder
	WriteSizes(&table, assets)
	t.Logf("the release build:\n%s\n%s", log.String(), table.String())
	assert.Empty(t, OverBudget(assets))
	for _, p := range Programs {
		assert.True(t, slices.ContainsFunc(assets, func(a Asset) bool { return Unhashed(a.Name) == p.File && a.Brotli > 0 }),
			"%s is in the release build, with its brotli copy", p.File)
	}
	for _, a := range assets {
		if a.Shrink != "" {
			// Stripped, or shipped larger because internal/wasmstrip did not recognise this
			// Go's runtime layout (see shrinkWasm): the sizes above mean different things.
			t.Logf("%s: %s", a.Name, a.Shrink)
		}
	}
	checkHashedSite(t, out)
}

// TestOverBudget: the budget check names what is over, by how much, and refuses a build it
// cannot measure.
func TestOverBudget(t *testing.T) {
	within := []Asset{
		{Name: "index.html", Raw: 13_000, Gzip: 3_000, Brotli: 2_500},
		{Name: "kraftlab.wasm", Raw: 6_000_000, Gzip: 1_200_000, Brotli: 900_000},
		{Name: "lab.wasm", Raw: 6_000_000, Gzip: 1_200_000, Brotli: 999_999},
		{Name: "lab.html", Raw: 13_000, Gzip: 3_000, Brotli: 2_500},
	}
	assert.Empty(t, OverBudget(within))

	over := append([]Asset(nil), within...)
	over[1].Brotli = 1_000_001
	got := OverBudget(over)
	require.Len(t, got, 1, "the wasm is over; its page load (1,002,501) is not")
	assert.Contains(t, got[0], "kraftlab.wasm: 1,000,001 bytes brotli")

	over[1].Brotli = 999_000
	over = append(over, Asset{Name: "app.js", Raw: 900_000, Gzip: 300_000, Brotli: 250_000})
	got = OverBudget(over)
	require.Len(t, got, 1)
	assert.Contains(t, got[0], "load index.html: 1,251,500 bytes brotli, over the 1,200,000 budget per page load")

	assert.Contains(t, OverBudget([]Asset{{Name: "kraftlab.wasm", Raw: 6_000_000, Gzip: 1_200_000}})[0], "no brotli copies")
}

// TestOverBudgetSaysWhenAProgramWasNotStripped: a wasm over budget because wasmstrip refused
// it says so, so that the fix (a toolchain wasmstrip knows) is not mistaken for code growth.
func TestOverBudgetSaysWhenAProgramWasNotStripped(t *testing.T) {
	over := OverBudget([]Asset{{Name: "kraftlab.wasm", Raw: 8_000_000, Brotli: 1_300_000, Shrink: ShrinkRefused + ": no table"}})
	require.Len(t, over, 1)
	assert.Contains(t, over[0], "over the 1,000,000 budget per wasm ("+ShrinkRefused+": no table)")
}
