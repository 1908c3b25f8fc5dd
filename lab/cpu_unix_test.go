//go:build unix

package lab

import "syscall"

// cpuSeconds is the CPU time the process has used, user and system, as the OS counts it.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return -1
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
