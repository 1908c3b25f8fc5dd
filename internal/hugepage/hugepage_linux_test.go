package hugepage

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGrowAndCloneAskLinuxForHugePages reads the process's memory map: the mapping that holds a
// large array from Grow or Clone carries the "hg" flag madvise(MADV_HUGEPAGE) sets. It skips when
// the kernel has no transparent huge pages or has them off, where the hint has no effect, and
// where the process cannot read its own memory map.
func TestGrowAndCloneAskLinuxForHugePages(t *testing.T) {
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || strings.Contains(string(mode), "[never]") {
		t.Skip("this kernel has no transparent huge pages, or has them off")
	}
	if _, err := os.Stat("/proc/self/smaps"); err != nil {
		t.Skip("no /proc/self/smaps to read the mappings' flags from: ", err)
	}
	grown := Grow([]int64(nil), bigLen)[:bigLen]
	cloned := Clone(grown)
	for name, s := range map[string][]int64{"Grow": grown, "Clone": cloned} {
		start := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
		skip, _ := wholePages(start, uintptr(len(s))*8)
		flags, err := vmFlagsAt(start + skip)
		require.NoError(t, err)
		assert.Contains(t, strings.Fields(flags), "hg", "%s: the mapping at %#x has VmFlags %q", name, start+skip, flags)
	}
}

// vmFlagsAt is the VmFlags line of the mapping in /proc/self/smaps that holds addr.
func vmFlagsAt(addr uintptr) (string, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return "", err
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x ", &lo, &hi); n == 2 && !strings.HasSuffix(strings.Fields(line)[0], ":") {
			in = lo <= addr && addr < hi
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmFlags:")), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("no mapping in /proc/self/smaps holds %#x", addr)
}
