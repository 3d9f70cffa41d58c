package main

import (
	"slices"
	"strings"
	"testing"
)

// TestMovesEveryReason: simulate --moves names each reason a partition
// changes owner (item 8 of issue 16), on groups worked out by hand:
//
//   - Range over t:2 gives c0 t-0, c1 t-1; when c1 leaves, c0 takes t-1.
//   - When c1 restarts it rejoins as c1-r1, which sorts after c0: t-1 again.
//   - When c1 subscribes to u instead, c0 alone reads t.
//   - s0 is static, so Range puts it first (t-0); it leaves, c1 takes
//     t-0, and when it returns it takes t-0 back.
//   - Sticky gives a second member one of c0's two partitions (t-1, the
//     last); cooperative-sticky the same, a round later.
//   - Range over t:6 on c0..c2 gives 0-1 | 2-3 | 4-5; without c0, 0-2 | 3-5:
//     t-3 moves from c1 to c2 only because the layout shifted; the
//     server-side range lays t:6 out the same way.
//   - Uniform's quota for c0 and c1 over t:2 is one each: c0 keeps t-0,
//     the first of its set, and releases t-1 to c1, to even the counts.
func TestMovesEveryReason(t *testing.T) {
	tests := []struct {
		args []string
		want string // a line of the moves, fields joined by one space
	}{
		{[]string{"--members", "2", "--topics", "t:2", "--leave", "c1", "--compare", "range"}, "t-1: c1 → c0 its owner left"},
		{[]string{"--members", "2", "--topics", "t:2", "--restart", "c1", "--compare", "range"}, "t-1: c1 → c1-r1 its owner restarted with a new member.id"},
		{[]string{"--member", "c0=t", "--member", "c1=t", "--topics", "t:2,u:1", "--subscribe", "c1=u", "--compare", "range"}, "t-1: c1 → c0 its owner unsubscribed"},
		{[]string{"--member", "s0#i0", "--member", "c1", "--topics", "t:2", "--leave", "s0", "--join", "s0", "--compare", "range"}, "t-0: c1 → s0 a static member returned"},
		{[]string{"--members", "1", "--topics", "t:2", "--join", "c1", "--compare", "sticky"}, "t-1: c0 → c1 balance required it"},
		{[]string{"--members", "1", "--topics", "t:2", "--join", "c1", "--compare", "cooperative-sticky"}, "t-1: c0 → c1 balance required it; revoked now, reassigned next round"},
		{[]string{"--members", "3", "--topics", "t:6", "--leave", "c0", "--compare", "range"}, "t-3: c1 → c2 the strategy's layout moved it"},
		{[]string{"--members", "3", "--topics", "t:6", "--leave", "c0", "--protocol", "consumer", "--compare", "server-range"}, "t-3: c1 → c2 the strategy's layout moved it; revoked in heartbeat round 1, received in round 2"},
		{[]string{"--members", "1", "--topics", "t:2", "--join", "c1", "--protocol", "consumer", "--compare", "uniform"}, "t-1: c0 → c1 balance required it; revoked in heartbeat round 1, received in round 2"},
	}
	for _, tt := range tests {
		args := append(append([]string{"simulate"}, tt.args...), "--moves")
		stdout, stderr, status := runCase(cliCase{args: args})
		if status != 0 {
			t.Fatalf("%q: exit %d: %s", args, status, stderr)
		}
		var lines []string
		for line := range strings.Lines(stdout) {
			f := strings.Fields(line)
			if i := slices.Index(f, "→"); i > 0 {
				lines = append(lines, strings.Join(f[i-2:], " "))
			}
		}
		if !slices.Contains(lines, tt.want) {
			t.Errorf("%q: no move %q among %q", args, tt.want, lines)
		}
	}
}
