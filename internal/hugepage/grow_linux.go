package hugepage

import (
	"slices"
	"unsafe"
)

// Grow is slices.Grow: it makes room for n more elements without reallocating. A new backing
// array of at least MinBytes is advised before s is copied into it. Like append, it grows the
// capacity by at least a quarter, so that growing a slice one element at a time stays linear.
func Grow[S ~[]E, E any](s S, n int) S {
	if n < 0 {
		panic("hugepage.Grow: negative n")
	}
	if cap(s)-len(s) >= n {
		return s
	}
	want := max(len(s)+n, cap(s)+cap(s)/4)
	if !large[E](want) {
		return slices.Grow(s, n)
	}
	out := make(S, len(s), want)
	advise(out[:cap(out)])
	copy(out, s)
	return out
}

// Clone is slices.Clone, advising a new backing array of at least MinBytes before it is filled.
// Like slices.Clone, it keeps a nil slice nil.
func Clone[S ~[]E, E any](s S) S {
	if s == nil || !large[E](len(s)) {
		return slices.Clone(s)
	}
	out := make(S, len(s))
	advise(out)
	copy(out, s)
	return out
}

// large reports whether n elements of E take at least MinBytes.
func large[E any](n int) bool {
	var e E
	return uintptr(n)*unsafe.Sizeof(e) >= MinBytes
}

// advise hints that s's backing array is to be backed by huge pages: the whole huge pages
// inside it, if any.
func advise[E any](s []E) {
	if len(s) == 0 {
		return
	}
	var e E
	base := unsafe.Pointer(unsafe.SliceData(s))
	start := uintptr(base)
	if skip, n := wholePages(start, uintptr(len(s))*unsafe.Sizeof(e)); n > 0 {
		adviseRange(unsafe.Add(base, skip), n)
	}
}
