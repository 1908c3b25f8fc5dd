// Package hugepage allocates the simulation's largest arrays so that the operating system can
// back them with huge pages.
//
// The 1M-partition run reads arrays of tens of megabytes at random places: the fleet's
// partition and replica state, the controllers' snapshot copies, the invariant checker's
// epochs. (The engine's own image stays plain Go: engine/ imports nothing but the standard
// library.) With 4 KiB pages almost every such read
// also misses the processor's TLB, and the page walk costs another trip to memory. A 2 MiB page
// covers 512 times as much, so the TLB then holds most of what the run touches. Linux gives a
// process huge pages for its anonymous memory only where it asked for them (madvise
// MADV_HUGEPAGE), unless transparent huge pages are set to "always" system-wide; Go's runtime no
// longer asks for its heap.
//
// Grow and Clone are slices.Grow and slices.Clone, except that a new backing array of at least
// MinBytes is advised before anything is written to it, so that its first touch faults in huge
// pages. It is a hint: the kernel may ignore it, it changes no value the program computes, and
// outside Linux (in the browser's wasm, for one) it does nothing.
package hugepage

// MinBytes is the smallest backing array worth advising: a few huge pages. Below it, Grow and
// Clone are exactly slices.Grow and slices.Clone.
const MinBytes = 4 << 20

// pageBytes is the size of a huge page on the architectures Go's Linux ports run on (x86-64's
// 2 MiB; arm64 with 4 KiB base pages has the same). Only whole huge pages inside an array are
// advised, so that the hint never covers memory shared with other objects.
const pageBytes = 2 << 20

// wholePages is the run of whole huge pages inside the n bytes at address start: how far into
// them it begins, and its length (0 when no whole page fits).
func wholePages(start, n uintptr) (skip, length uintptr) {
	first := (start + pageBytes - 1) &^ (pageBytes - 1)
	last := (start + n) &^ (pageBytes - 1)
	if last <= first {
		return 0, 0
	}
	return first - start, last - first
}
