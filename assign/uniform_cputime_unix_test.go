//go:build unix

package assign

import (
	"syscall"
	"time"
)

// processCPU is the CPU time this process has used, every thread's (the
// collector's included), or -1 when unknown.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
