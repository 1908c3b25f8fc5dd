//go:build !linux

package hugepage

import "slices"

// Outside Linux there is no hint to give, so Grow and Clone are slices.Grow and slices.Clone
// themselves: the browser's wasm then shares slices' own instantiations instead of carrying a
// second copy of each for nothing.

// Grow is slices.Grow.
func Grow[S ~[]E, E any](s S, n int) S { return slices.Grow(s, n) }

// Clone is slices.Clone.
func Clone[S ~[]E, E any](s S) S { return slices.Clone(s) }
