// Package benchmem reports what a benchmark allocates per partition of
// its input (the B/partition metric), so that a figure taken on a
// thousand partitions compares with one taken on a million (issue 30:
// every benchmark of the repository's groups reports it), and the
// process's CPU time (ProcessCPU) for the cpu-ns/op metrics and the
// calling thread's (ThreadCPU). Benchmarks of every module import it; the
// library never does.
package benchmem

import (
	"runtime"
	"testing"
)

// Counter counts the bytes a benchmark allocates from Start to Report.
type Counter struct {
	b     *testing.B
	parts int
	start uint64
}

// Start starts counting for b, whose every op works on partitions
// partitions. Call it before the timed loop; runtime.MemStats.TotalAlloc
// counts bytes allocated whether or not they were collected.
func Start(b *testing.B, partitions int) *Counter {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return &Counter{b: b, parts: partitions, start: ms.TotalAlloc}
}

// Report reports the bytes allocated since Start per op and partition as
// B/partition; nothing when there are no partitions or no ops.
func (c *Counter) Report() {
	if c.parts <= 0 || c.b.N == 0 {
		return
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	c.b.ReportMetric(float64(ms.TotalAlloc-c.start)/float64(c.b.N)/float64(c.parts), "B/partition")
}

// Partitions returns the partitions of topics, a partition count per
// topic as every group of the repository holds them; negative counts
// count none.
func Partitions(topics map[string]int32) int {
	n := 0
	for _, c := range topics {
		n += int(max(c, 0))
	}
	return n
}
