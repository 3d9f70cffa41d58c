package main

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
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

// describePaste is kafka-consumer-groups.sh --describe's offsets view (Kafka
// 4.x, GROUP column first) of n members sharing two topics of 25n
// partitions each, dealt round-robin: the paste operators bring.
func describePaste(n int) string {
	var b strings.Builder
	b.WriteString("GROUP  TOPIC  PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG  CONSUMER-ID  HOST  CLIENT-ID\n")
	for _, topic := range []string{"a", "b"} {
		for p := range 25 * n {
			m := p % n
			fmt.Fprintf(&b, "app  %s  %d  100  150  50  consumer-app-%d-0a1b2c3d  /10.0.0.%d  consumer-app-%d\n",
				topic, p, m, m%250, m)
		}
	}
	return b.String()
}

// TestDescribeScales: the commands that read a paste, on the paste of a
// group and of the group doubled: the preview, group, check and migrate.
func TestDescribeScales(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"preview", []string{"--from-describe", "-", "--strategy", "all", "--format", "json"}},
		{"group", []string{"group", "--from-describe", "-"}},
		{"check", []string{"check", "--from-describe", "-", "--strategy", "all", "--format", "json"}},
		{"migrate", []string{"migrate", "--from-describe", "-", "--moves", "--format", "json"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkScales(t, 100, func(n int) ([]string, string) { return tc.args, describePaste(n) })
		})
	}
}

// TestCheckScales: check of plan's results for every strategy, read from
// files as an operator passes them.
func TestCheckScales(t *testing.T) {
	dir := t.TempDir()
	checkScales(t, 100, func(n int) ([]string, string) {
		var in strings.Builder
		fmt.Fprintf(&in, `{"name":"g","topics":{"a":%d,"b":%d},"members":[`, 25*n, 25*n)
		for i := range n {
			if i > 0 {
				in.WriteString(",")
			}
			fmt.Fprintf(&in, `{"id":"c%d","topics":["a","b"]}`, i)
		}
		in.WriteString("]}\n")
		groups := filepath.Join(dir, fmt.Sprintf("groups%d.jsonl", n))
		results := filepath.Join(dir, fmt.Sprintf("results%d.jsonl", n))
		if err := os.WriteFile(groups, []byte(in.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		var out, errw strings.Builder
		if status := run([]string{"assigncalc", "plan", "--in", groups, "--strategy", "all", "--format", "jsonl"},
			strings.NewReader(""), &out, &errw); status != 0 {
			t.Fatalf("plan: exit status %d: %s", status, errw.String())
		}
		if err := os.WriteFile(results, []byte(out.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		return []string{"check", "--in", groups, "--results", results, "--format", "json"}, ""
	})
}

// TestVoteScales: the two-step upgrade to cooperative-sticky on members
// x two topics of partitions. The vote itself is members x steps (every
// step votes on every member and lists them, and a rolling restart has a
// step per member and phase), so the bound is on what the topics add:
// the assignments of the steps, which must not be one per step (they
// once were: members x partitions).
func TestVoteScales(t *testing.T) {
	args := func(n int, topics bool) []string {
		a := []string{"vote", "--upgrade", "range", "--to", "cooperative-sticky,range", "--to", "cooperative-sticky",
			"--members", fmt.Sprint(n)}
		if topics {
			a = append(a, "--topics", fmt.Sprintf("a:%d,b:%d", 250*n, 250*n))
		}
		return a
	}
	const n = 50
	var added [2]uint64
	for k, members := range []int{n, 2 * n} {
		with, _ := allocated(t, args(members, true), "")
		without, _ := allocated(t, args(members, false), "")
		added[k] = with - without
		t.Logf("%d members: %d bytes with topics, %d without", members, with, without)
	}
	if g := float64(added[1]) / float64(added[0]); g > maxGrowth {
		t.Errorf("the bytes the topics add grow %.2f times when members and partitions double (%d to %d), more than %v",
			g, added[0], added[1], maxGrowth)
	}
}

// TestDecodeScales: a subscription (v1) to 50n topics with an owned
// partition of each, given as hex on stdin.
func TestDecodeScales(t *testing.T) {
	checkScales(t, 100, func(n int) ([]string, string) {
		var b []byte
		b = binary.BigEndian.AppendUint16(b, 1) // version
		b = binary.BigEndian.AppendUint32(b, uint32(50*n))
		for i := range 50 * n {
			name := fmt.Sprintf("topic-%d", i)
			b = binary.BigEndian.AppendUint16(b, uint16(len(name)))
			b = append(b, name...)
		}
		b = binary.BigEndian.AppendUint32(b, 0xffffffff) // null user data
		b = binary.BigEndian.AppendUint32(b, uint32(50*n))
		for i := range 50 * n {
			name := fmt.Sprintf("topic-%d", i)
			b = binary.BigEndian.AppendUint16(b, uint16(len(name)))
			b = append(b, name...)
			b = binary.BigEndian.AppendUint32(b, 1)
			b = binary.BigEndian.AppendUint32(b, 0)
		}
		return []string{"decode", "subscription", "-", "--format", "json"}, hex.EncodeToString(b)
	})
}
