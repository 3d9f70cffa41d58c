//go:build linux

package benchmem

import (
	"time"

	"golang.org/x/sys/unix"
)

// ThreadCPU is the CPU time the calling OS thread has used, user and
// system, or -1 when unknown. Between two calls on a goroutine locked to
// its thread (runtime.LockOSThread) it counts that goroutine's work with
// the collector's assists it paid while allocating, and leaves out the
// collector's background workers, which then run on other threads: the
// measure Bench.java takes of Kafka's assignors with ThreadMXBean, whose
// collector works on threads of its own. It reads the thread's CPU clock,
// which is exact to the nanosecond; getrusage's thread figure is not (it
// moves by scheduler ticks while the thread runs).
func ThreadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return -1
	}
	return time.Duration(ts.Nano())
}
