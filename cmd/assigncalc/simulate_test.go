package main

import (
	"encoding/csv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSimulateGolden(t *testing.T) {
	rr := []string{"--compare", "range,roundrobin"}
	runGolden(t, []cliCase{
		{name: "simulate_range_roundrobin", args: append([]string{"simulate", "--members", "3", "--topics", "t1:12", "--leave", "c0", "--join", "c9", "--grow", "t1:+4", "--restart", "c1", "--subscribe", "c2=t1", "--topics", "t2:2"}, rr...)},
		{name: "simulate_jsonl", args: append([]string{"simulate", "--members", "2", "--topics", "t1:4", "--join", "c2", "--format", "jsonl"}, rr...)},
		{name: "simulate_json", args: append([]string{"simulate", "--members", "2", "--topics", "t1:2", "--grow", "t1:+1", "--format", "json"}, rr...)},
		{name: "simulate_csv", args: append([]string{"simulate", "--members", "2", "--topics", "t1:4", "--leave", "c1", "--format", "csv"}, rr...)},
		{name: "simulate_join_sticky", args: []string{"simulate", "--members", "1", "--topics", "t:6", "--join", "c1", "--compare", "sticky,cooperative-sticky"}},
		{name: "simulate_static_restart", args: append([]string{"simulate", "--in", "-", "--restart", "s1"}, rr...),
			stdin: `{"topics": {"t": 4}, "members": [{"id": "s1", "instance": "i1", "topics": ["t"]}, {"id": "d2", "topics": ["t"]}]}`},
		{name: "simulate_unknown_member", args: []string{"simulate", "--members", "2", "--topics", "t:2", "--leave", "c7"}, status: 2},
		{name: "simulate_join_twice", args: []string{"simulate", "--members", "2", "--topics", "t:2", "--join", "c1"}, status: 2},
		{name: "simulate_shrink", args: []string{"simulate", "--members", "2", "--topics", "t:4", "--grow", "t:2"}, status: 2},
		{name: "simulate_bad_grow", args: []string{"simulate", "--members", "2", "--topics", "t:4", "--grow", "t:+x"}, status: 2},
	})
}

// simulateCSV runs a simulation and returns its CSV rows without header.
func simulateCSV(t *testing.T, args ...string) [][]string {
	t.Helper()
	stdout, stderr, status := runCase(cliCase{args: append(append([]string{"simulate"}, args...), "--format", "csv")})
	if status != 0 {
		t.Fatalf("exit status %d, stderr %q", status, stderr)
	}
	rows, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows[1:]
}

// TestSimulateJoin works out by hand what a second member joining a member
// that owns all six partitions costs. Any balanced sticky answer gives the
// newcomer three of them (3 moved, both members affected). Eager sticky
// revokes all six and settles in one rebalance; cooperative-sticky revokes
// only the three that move and needs a second rebalance to hand them over
// (KIP-429).
func TestSimulateJoin(t *testing.T) {
	got := simulateCSV(t, "--members", "1", "--topics", "t:6", "--join", "c1", "--compare", "sticky,cooperative-sticky")
	want := [][]string{
		// step, change, strategy, moved, affected, revoked, rounds, spread
		{"0", "start", "sticky", "0", "1", "0", "1", "0"},
		{"0", "start", "cooperative-sticky", "0", "1", "0", "1", "0"},
		{"1", "join c1", "sticky", "3", "2", "6", "1", "0"},
		{"1", "join c1", "cooperative-sticky", "3", "2", "3", "2", "0"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("simulate join mismatch (-want +got):\n%s", diff)
	}
}

// TestSimulateRangeLeave: Range over 12 partitions gives c0 0-3, c1 4-7,
// c2 8-11; when c0 leaves, c1 takes 0-5 and c2 6-11, so 0-3 move (from the
// member that left) and 6-7 move from c1 to c2: 6 moved, c1 and c2
// affected; eager revokes the 8 partitions c1 and c2 held.
func TestSimulateRangeLeave(t *testing.T) {
	got := simulateCSV(t, "--members", "3", "--topics", "t1:12", "--leave", "c0", "--compare", "range")
	want := [][]string{
		{"0", "start", "range", "0", "3", "0", "1", "0"},
		{"1", "leave c0", "range", "6", "2", "8", "1", "0"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("simulate leave mismatch (-want +got):\n%s", diff)
	}
}

// TestSimulateStaticRestart: a static member that restarts gets its
// assignment back without a rebalance (KIP-345), a dynamic one causes two.
func TestSimulateStaticRestart(t *testing.T) {
	in := `{"topics": {"t": 4}, "members": [{"id": "s1", "instance": "i1", "topics": ["t"]}, {"id": "d2", "topics": ["t"]}]}`
	stdout, _, status := runCase(cliCase{args: []string{"simulate", "--in", "-", "--restart", "s1", "--restart", "d2", "--compare", "range", "--format", "csv"}, stdin: in})
	if status != 0 {
		t.Fatalf("exit status %d", status)
	}
	rows, _ := csv.NewReader(strings.NewReader(stdout)).ReadAll()
	var rounds []string
	for _, r := range rows[1:] {
		rounds = append(rounds, r[1]+": "+r[6])
	}
	want := []string{"start: 1", "restart s1: 0", "restart d2: 2"}
	if diff := cmp.Diff(want, rounds); diff != "" {
		t.Errorf("rounds per step mismatch (-want +got):\n%s", diff)
	}
}
