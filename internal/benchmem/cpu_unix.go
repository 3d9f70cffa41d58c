//go:build unix

package benchmem

import (
	"syscall"
	"time"
)

// ProcessCPU is the CPU time this process has used, user and system, on
// every thread (the collector's included), or -1 when unknown. On a
// machine shared with other work, wall-clock ns/op counts the time other
// processes held the cores; a difference of ProcessCPU does not. With
// GOMAXPROCS=1 the two agree on an idle machine.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
