package main

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
)

// Scaling tests (issue 30): each command runs on a group and on the group
// doubled, and the bytes and allocations of the second run may grow at
// most maxGrowth times those of the first. A pass per member over every
// member, or a map per partition per strategy where one would do, shows
// as growth well above 2; allocations, unlike time, do not depend on the
// machine's load. The groups are small enough for .ci/run.

// maxGrowth bounds the growth of bytes and allocations when the input
// doubles: 2 for linear work, with room for slices that grow by doubling
// and sorts' n log n.
const maxGrowth = 2.6

// allocated runs the command line args in-process and returns the bytes
// and allocations it made; the run must succeed.
func allocated(t *testing.T, args []string, stdin string) (bytes, allocs uint64) {
	t.Helper()
	var errw strings.Builder
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	status := run(append([]string{"assigncalc"}, args...), strings.NewReader(stdin), io.Discard, &errw)
	runtime.ReadMemStats(&after)
	if status != 0 {
		t.Fatalf("assigncalc %s: exit status %d: %s", strings.Join(args, " "), status, errw.String())
	}
	return after.TotalAlloc - before.TotalAlloc, after.Mallocs - before.Mallocs
}

// checkScales runs args(n) and args(2n) and bounds the growth.
func checkScales(t *testing.T, n int, args func(n int) ([]string, string)) {
	t.Helper()
	a1, in1 := args(n)
	a2, in2 := args(2 * n)
	b1, m1 := allocated(t, a1, in1)
	b2, m2 := allocated(t, a2, in2)
	t.Logf("n=%d: %d bytes, %d allocs; 2n: %d bytes, %d allocs", n, b1, m1, b2, m2)
	if g := float64(b2) / float64(b1); g > maxGrowth {
		t.Errorf("bytes grow %.2f times when the input doubles (%d to %d), more than %v", g, b1, b2, maxGrowth)
	}
	if g := float64(m2) / float64(m1); g > maxGrowth {
		t.Errorf("allocations grow %.2f times when the input doubles (%d to %d), more than %v", g, m1, m2, maxGrowth)
	}
}

// TestSimulateScales: simulate's four classic strategies on members x
// two topics of partitions, one member joining and one leaving.
func TestSimulateScales(t *testing.T) {
	checkScales(t, 100, func(n int) ([]string, string) {
		return []string{"simulate", "--members", fmt.Sprint(n), "--topics", fmt.Sprintf("a:%d,b:%d", 25*n, 25*n),
			"--join", "extra", "--leave", "c5"}, ""
	})
}

// TestPreviewScales: the preview of every strategy as JSON.
func TestPreviewScales(t *testing.T) {
	checkScales(t, 100, func(n int) ([]string, string) {
		return []string{"--members", fmt.Sprint(n), "--topics", fmt.Sprintf("a:%d,b:%d", 25*n, 25*n), "--format", "json"}, ""
	})
}

// TestPlanScales: plan --strategy all on members of one topic of eight
// partitions, the shape whose cooperative-sticky check once scanned every
// member for each member.
func TestPlanScales(t *testing.T) {
	checkScales(t, 2000, func(n int) ([]string, string) {
		var in strings.Builder
		in.WriteString(`{"topics":{"t":8},"members":[`)
		for i := range n {
			if i > 0 {
				in.WriteString(",")
			}
			fmt.Fprintf(&in, `{"id":"c%d","topics":["t"]}`, i)
		}
		in.WriteString("]}")
		return []string{"plan", "--in", "-", "--strategy", "all"}, in.String()
	})
}

// TestTimelineScales: the timeline of a crash on members x two topics of
// partitions, the shape whose ledger once kept a map per partition, and on
// many members of one small topic, the shape whose classic group once
// sorted every member's name at each join, under each protocol. (The
// consumer protocol's heartbeats once each visited every partition of the
// group: time, not allocations, so this test does not see that.)
func TestTimelineScales(t *testing.T) {
	t.Run("partitions", func(t *testing.T) {
		checkScales(t, 200, func(n int) ([]string, string) {
			return []string{"timeline", "--members", fmt.Sprint(n), "--topics", fmt.Sprintf("a:%d,b:%d", 25*n, 25*n),
				"--crash", "c17@10s"}, ""
		})
	})
	for _, protocol := range []string{"classic", "consumer", "share"} {
		t.Run("members/"+protocol, func(t *testing.T) {
			checkScales(t, 1000, func(n int) ([]string, string) {
				return []string{"timeline", "--protocol", protocol, "--members", fmt.Sprint(n), "--topics", "t:8", "--crash", "c17@10s"}, ""
			})
		})
	}
	t.Run("consumer", func(t *testing.T) {
		checkScales(t, 200, func(n int) ([]string, string) {
			return []string{"timeline", "--protocol", "consumer", "--members", fmt.Sprint(n),
				"--topics", fmt.Sprintf("a:%d,b:%d", 25*n, 25*n), "--crash", "c17@10s"}, ""
		})
	})
}
