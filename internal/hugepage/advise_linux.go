package hugepage

import (
	"syscall"
	"unsafe"
)

// adviseRange is madvise(MADV_HUGEPAGE) on n bytes at p, both multiples of pageBytes. An error
// (a kernel built without transparent huge pages says EINVAL) leaves the memory as it was,
// which is all a hint can promise, so it is ignored.
func adviseRange(p unsafe.Pointer, n uintptr) {
	_ = syscall.Madvise(unsafe.Slice((*byte)(p), n), syscall.MADV_HUGEPAGE)
}
