//go:build !linux

package hugepage

import "unsafe"

// adviseRange does nothing: only Linux takes the hint this package gives.
func adviseRange(unsafe.Pointer, uintptr) {}
