package main

import (
	"strings"
	"testing"
)

// Each line below was written by hand to break one rule (or none).
const checkResults = `{"name": "two", "strategy": "range", "assignment": {"a": {"t": [0, 1]}, "b": {"t": [2, 3]}}}
{"name": "two", "strategy": "range", "assignment": {"a": {"t": [0, 1, 2]}, "b": {"t": [2, 3]}}}
{"name": "two", "strategy": "roundrobin", "assignment": {"a": {"t": [0, 1]}, "b": {"t": [2, 3]}}}
{"name": "two", "strategy": "roundrobin", "assignment": {"a": {"t": [0, 1]}}}
{"name": "two", "strategy": "sticky", "assignment": {"a": {"t": [0, 1, 2]}, "b": {"t": [3]}}}
{"name": "join", "strategy": "cooperative-sticky", "assignment": {"a": {"t": [0, 1]}, "b": {}}, "target": {"a": {"t": [0, 1]}, "b": {"t": [2, 3]}}}
{"name": "join", "strategy": "cooperative-sticky", "assignment": {"a": {"t": [0, 1]}, "b": {"t": [2, 3]}}}
{"name": "nope", "strategy": "range", "assignment": {}}
{"name": "two", "strategy": "range", "assignment": {"a": {"t": [0, 1, 2, 3]}}}
{"name": "join", "strategy": "cooperative-sticky", "assignment": {"a": {"t": [0]}, "b": {"t": [1, 2, 3]}}, "target": {"a": {"t": [0]}, "b": {"t": [1, 2, 3]}}}
`

func TestCheckGolden(t *testing.T) {
	runGolden(t, []cliCase{
		{name: "check_kafka_examples", args: []string{"check", "--in", "../../testdata/groups.jsonl", "--results", "../../testdata/kafka-java-range-roundrobin.jsonl"}},
		{name: "check_missing_results", args: []string{"check", "--in", "x"}, status: 2},
		{name: "check_hand_made", args: []string{"check", "--in", "testdata/check_groups.jsonl", "--results", "-"}, stdin: checkResults, status: exitFailed},
		{name: "check_hand_made_jsonl", args: []string{"check", "--in", "testdata/check_groups.jsonl", "--results", "-", "--format", "jsonl"}, stdin: checkResults, status: exitFailed},
		// t-0 listed under c0 and c1: the fault is the double listing, as
		// listed, not the tie assign.Owned would resolve it to.
		{name: "check_from_describe_shared", args: []string{"check", "--from-describe", "-", "--strategy", "range,sticky"},
			stdin: "member,topic,partition\nc0,t,0\nc1,t,0\nc1,t,1\n", status: exitFailed},
	})
}

// TestCheckVerdicts reads the verdicts of the hand-made lines: which must
// pass and which must fail, with the reason named.
func TestCheckVerdicts(t *testing.T) {
	stdout, _, status := runCase(cliCase{args: []string{"check", "--in", "testdata/check_groups.jsonl", "--results", "-", "--format", "csv"}, stdin: checkResults})
	if status != exitFailed {
		t.Errorf("exit status %d, want %d", status, exitFailed)
	}
	_, all := readCSV(t, stdout)
	rows := ofKind(all, "verdict")
	want := []struct {
		valid    string
		contains string
	}{
		{"true", ""},
		{"false", `t-2 assigned to both "a" and "b"`},
		{"true", ""},                     // valid, though not what RoundRobin gives
		{"false", "t-2 is not assigned"}, // b, left out, gets nothing
		{"false", "unbalanced"},          // 3 against 1
		{"true", ""},
		{"false", "not cooperative: t-2"}, // b gets t-2 while a still owns it
		{"false", `no group named "nope"`},
		{"true", ""}, // b left out gets nothing: valid for Range, though not Range's answer
		// Both faults: a still owns t-1 (generation 1, newest) as b gets
		// it, and the target gives 1 against 3.
		{"false", `not cooperative: t-1 is assigned to "b" while "a" still owns it at generation 1, its newest; assign: invalid assignment: unbalanced`},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d verdicts, want %d:\n%s", len(rows), len(want), stdout)
	}
	for i, w := range want {
		if rows[i]["valid"] != w.valid || !strings.Contains(rows[i]["problem"], w.contains) {
			t.Errorf("verdict %d = %q, want valid=%s, problem containing %q", i+1, rows[i], w.valid, w.contains)
		}
	}
	// Range on two members and four partitions, worked out by hand: a gets
	// 0-1, b gets 2-3, so the first line is what ours gives; the third is
	// not RoundRobin's (a 0,2; b 1,3).
	if rows[0]["ours"] != "same" || rows[2]["ours"] != "differs" {
		t.Errorf("OURS of lines 1 and 3 = %q, %q; want same, differs", rows[0]["ours"], rows[2]["ours"])
	}
	// Line 3 gives a 0,1 and b 2,3 where RoundRobin gives a 0,2 and b
	// 1,3: t-1 and t-2 differ. Line 9 gives a all four where Range gives
	// b t-2 and t-3.
	if rows[2]["differences"] != "2" || rows[8]["differences"] != "2" {
		t.Errorf("differences of lines 3 and 9 = %q, %q; want 2 and 2", rows[2]["differences"], rows[8]["differences"])
	}
}

// TestCheckFromDescribe judges what a live group owns. In
// members_scala_static.txt, with orders:3, the static c0 owns orders-0,1
// and c1 orders-2: valid and balanced (2 against 1) for every strategy.
// Range, static members first, gives exactly that; RoundRobin would deal
// c0 0 and 2, c1 1: orders-1 and orders-2 differ. In offsets_4x.txt payments-1 has
// no owner: every strategy's check fails on it, status 4 (exitFailed).
func TestCheckFromDescribe(t *testing.T) {
	stdout, stderr, status := runCase(cliCase{args: []string{"check", "--from-describe", describeData + "members_scala_static.txt", "--topics", "orders:3", "--strategy", "range,roundrobin,sticky", "--format", "csv"}})
	if status != 0 {
		t.Fatalf("exit %d, stderr %q", status, stderr)
	}
	_, rows := readCSV(t, stdout)
	var got []string
	for _, r := range ofKind(rows, "verdict") {
		got = append(got, strings.Join([]string{r["strategy"], r["valid"], r["ours"], r["differences"]}, " "))
	}
	want := []string{"range true same 0", "roundrobin true differs 2", "sticky true same 0"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("verdicts %q, want %q", got, want)
	}
	runGolden(t, []cliCase{
		{name: "check_from_describe_unowned", args: []string{"check", "--from-describe", describeData + "offsets_4x.txt"}, status: exitFailed},
	})
}
