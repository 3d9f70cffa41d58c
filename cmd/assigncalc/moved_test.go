package main

import (
	"runtime"
	"strings"
	"testing"
)

// TestHugeOwnedPartitionNumber is a regression test. The preview and
// simulate counted moves with a copy of assign.Moved that grew a slice up
// to the largest partition number an owned list named: a group file
// claiming partition 2147483647 made them allocate 8 GiB and die. They now
// call assign.Moved, whose memory follows the partitions that exist. The
// claim of a partition that no longer exists is dropped, so nothing moves
// from it, and both commands answer in a few kilobytes.
func TestHugeOwnedPartitionNumber(t *testing.T) {
	group := `{"topics": {"t1": 3}, "members": [` +
		`{"id": "c0", "topics": ["t1"], "owned": {"t1": [2147483647, 0]}, "generation": 1},` +
		`{"id": "c1", "topics": ["t1"]}]}`
	for _, args := range [][]string{
		{"--in", "-", "--format", "jsonl"},
		{"simulate", "--in", "-", "--leave", "c1", "--format", "jsonl"},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		stdout, stderr, status := runCase(cliCase{args: args, stdin: group})
		runtime.ReadMemStats(&after)
		if status != 0 {
			t.Fatalf("%q: exit %d, stderr %q", args, status, stderr)
		}
		if !strings.Contains(stdout, `"c0"`) {
			t.Errorf("%q: output names no member:\n%s", args, stdout)
		}
		// Generous: the answer itself is a few kilobytes; 8 GiB is what
		// the old count asked for.
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
			t.Errorf("%q allocated %d bytes", args, grew)
		}
	}
}
