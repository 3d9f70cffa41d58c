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
		{name: "simulate_grow_too_large", args: []string{"simulate", "--members", "2", "--topics", "t:4", "--grow", "t:+2147483647"}, status: 2},

		// Items 2-4 and 8 of issue 16.
		{name: "simulate_faithful_rejoin_moves", args: []string{"simulate", "--member", "c0=t1,t2", "--member", "s5#i5=t1@rack-a", "--topics", "t1:4,t2:2", "--leave", "s5", "--join", "s5", "--compare", "range", "--moves"}},
		{name: "simulate_static_flags_restart", args: []string{"simulate", "--member", "c0#i0", "--member", "c1", "--topics", "t:4", "--restart", "i0", "--restart", "c1", "--compare", "range", "--moves"}},
		{name: "simulate_keep_member_id", args: []string{"simulate", "--members", "2", "--topics", "t:4", "--restart", "c1", "--keep-member-id", "--compare", "range"}},
		{name: "simulate_grow_unseen", args: []string{"simulate", "--member", "c0=t", "--member", "c1=t", "--topics", "t:4,u:2", "--grow", "u:+3", "--grow", "t:+0", "--compare", "range,cooperative-sticky"}},
		{name: "simulate_moves_cooperative_jsonl", args: []string{"simulate", "--members", "1", "--topics", "t:4", "--join", "c1", "--compare", "cooperative-sticky", "--moves", "--format", "jsonl"}},
		{name: "simulate_moves_csv", args: []string{"simulate", "--members", "3", "--topics", "t1:12", "--leave", "c0", "--compare", "range", "--moves", "--format", "csv"}},
	})
}

// TestSimulateRejoinKeepsSubscription is a regression test: a member with
// its own subscription that left and rejoined came back subscribed to
// every topic. c0 reads t1 and c1 t2, two partitions each, so Range gives
// each its topic and the spread is 0; had c1 come back subscribed to both,
// Range would give c0 t1-0 and c1 t1-1, t2-0, t2-1: spread 2.
func TestSimulateRejoinKeepsSubscription(t *testing.T) {
	got := simulateCSV(t, "--member", "c0=t1", "--member", "c1=t2", "--topics", "t1:2,t2:2", "--leave", "c1", "--join", "c1", "--compare", "range")
	var spreads []string
	for _, r := range got {
		spreads = append(spreads, r[1]+": "+r[7])
	}
	// While c1 is away nobody reads t2; c0 keeps its two: spread 0.
	want := []string{"start: 0", "leave c1: 0", "join c1: 0"}
	if diff := cmp.Diff(want, spreads); diff != "" {
		t.Errorf("spread per step mismatch (-want +got):\n%s", diff)
	}
}

// TestSimulateNoRebalance: growing a topic nobody reads, or by nothing,
// starts no rebalance: no round, nothing revoked, even for Range.
func TestSimulateNoRebalance(t *testing.T) {
	got := simulateCSV(t, "--member", "c0=t", "--member", "c1=t", "--topics", "t:4,u:2", "--grow", "u:+3", "--grow", "t:+0", "--grow", "t:4", "--compare", "range")
	want := [][]string{
		// step, change, strategy, moved, affected, revoked, rounds, spread
		{"0", "start", "range", "0", "2", "0", "1", "0"},
		{"1", "grow u:+3", "range", "0", "0", "0", "0", "0"},
		{"2", "grow t:+0", "range", "0", "0", "0", "0", "0"},
		{"3", "grow t:4", "range", "0", "0", "0", "0", "0"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("simulate mismatch (-want +got):\n%s", diff)
	}
}

// TestSimulateRestartKinds: Range over t:4 with c0 static (first in
// Range's order) and c1 dynamic gives c0 0,1 and c1 2,3. Restarting c0 by
// its instance id starts no rebalance. Restarting c1 is a leave and a
// join as c1-r1: two rounds; eager revokes c0's 2, then c0's 4; t-2 and
// t-3 move to c1-r1. With --keep-member-id nothing moves.
func TestSimulateRestartKinds(t *testing.T) {
	got := simulateCSV(t, "--member", "c0#i0", "--member", "c1", "--topics", "t:4", "--restart", "i0", "--restart", "c1", "--compare", "range")
	want := [][]string{
		{"0", "start", "range", "0", "2", "0", "1", "0"},
		{"1", "restart i0", "range", "0", "0", "0", "0", "0"},
		{"2", "restart c1", "range", "2", "1", "6", "2", "0"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("simulate mismatch (-want +got):\n%s", diff)
	}
	got = simulateCSV(t, "--members", "2", "--topics", "t:4", "--restart", "c1", "--keep-member-id", "--compare", "range")
	if r := got[1]; r[3] != "0" || r[5] != "6" || r[6] != "2" {
		t.Errorf("restart keeping the member.id: %q; want 0 moved, 6 revoked, 2 rounds", r)
	}
}

// simulateCSV runs a simulation and returns its CSV rows without header,
// each cut to the columns of the table (step to spread): the stops,
// notes and assumptions after them are TestSimulateTableEqualsJSON's.
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
	for i, r := range rows {
		rows[i] = r[:8]
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
