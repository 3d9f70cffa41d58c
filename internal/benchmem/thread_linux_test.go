//go:build linux

package benchmem

import (
	"runtime"
	"testing"
	"time"
)

// TestThreadCPULeavesOutOtherThreads holds ThreadCPU to its thread: a
// goroutine on another thread spinning for 50ms adds to the process's CPU
// time and not to this thread's, while spinning here adds to both.
func TestThreadCPULeavesOutOtherThreads(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if ThreadCPU() < 0 {
		t.Fatal("ThreadCPU unknown on linux")
	}
	spin := func(d time.Duration) {
		for start := ThreadCPU(); ThreadCPU()-start < d; {
		}
	}
	const d = 50 * time.Millisecond

	before, procBefore := ThreadCPU(), ProcessCPU()
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		spin(d)
		close(done)
	}()
	<-done // this thread sleeps meanwhile
	if got := ThreadCPU() - before; got >= d/2 {
		t.Errorf("another thread's %v of spinning counted %v on this one", d, got)
	}
	if got := ProcessCPU() - procBefore; got < d {
		t.Errorf("process CPU grew by %v while a thread spun %v", got, d)
	}

	before = ThreadCPU()
	spin(d)
	if got := ThreadCPU() - before; got < d {
		t.Errorf("this thread spun %v and ThreadCPU grew by %v", d, got)
	}
}
