package assign

import (
	"testing"

	"github.com/assigncalc/assigncalc/internal/benchmem"
)

// CountPartitionBytes starts counting, for b, whose calls assign g, the
// bytes allocated per op and per partition of g (B/partition,
// [benchmem]); call Report on the result after b.Loop.
func CountPartitionBytes(b *testing.B, g Group) *benchmem.Counter {
	return benchmem.Start(b, benchmem.Partitions(g.Topics))
}
