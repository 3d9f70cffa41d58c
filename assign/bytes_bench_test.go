package assign

import (
	"runtime"
	"testing"
)

// PartitionBytes reports a benchmark's bytes allocated per op and per
// partition of its group (B/partition), so that a figure taken on a
// thousand partitions compares with one taken on a million (issue 30):
// start it before b.Loop, call Report after.
type PartitionBytes struct {
	b     *testing.B
	parts int
	start uint64
}

// CountPartitionBytes starts counting for b, whose calls assign g.
// TotalAlloc counts bytes allocated whether or not they were collected.
func CountPartitionBytes(b *testing.B, g Group) *PartitionBytes {
	parts := 0
	for _, n := range g.Topics {
		parts += int(max(n, 0))
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return &PartitionBytes{b: b, parts: parts, start: ms.TotalAlloc}
}

// Report reports the bytes allocated since CountPartitionBytes per op
// and partition; nothing for a group without partitions.
func (p *PartitionBytes) Report() {
	if p.parts == 0 || p.b.N == 0 {
		return
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	p.b.ReportMetric(float64(ms.TotalAlloc-p.start)/float64(p.b.N)/float64(p.parts), "B/partition")
}
