package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/google/go-cmp/cmp"
)

func TestPreviewGolden(t *testing.T) {
	rr := []string{"--compare", "range,roundrobin"}
	runGolden(t, []cliCase{
		{name: "preview_members3", args: []string{"--members", "3", "--topics", "t1:7"}},
		{name: "preview_roundrobin_two_topics", args: []string{"--members", "3", "--topics", "t1:7", "--topics", "t2:3", "--strategy", "roundrobin"}},
		{name: "preview_hetero_racks", args: append([]string{"--member", "c0=t1,t2@a", "--member", "c1=t1@b", "--member", "c2@a", "--topics", "t1:6,t2:3", "--replicas", "1", "--racks", "a,b"}, rr...)},
		{name: "preview_json", args: append([]string{"--members", "2", "--topics", "t1:3", "--format", "json"}, rr...)},
		{name: "preview_jsonl", args: append([]string{"--members", "2", "--topics", "t1:3", "--format", "jsonl"}, rr...)},
		{name: "preview_csv", args: append([]string{"--members", "2", "--topics", "t1:3,t2:2", "--format", "csv"}, rr...)},
		{name: "preview_in_stdin", args: append([]string{"--in", "-", "--strategy", "roundrobin"}, rr...),
			stdin: `{"name": "static", "topics": {"t": 5}, "members": [{"id": "a", "instance": "z", "topics": ["t"]}, {"id": "b", "instance": "y", "topics": ["t"]}, {"id": "c", "topics": ["t"]}, {"id": "B", "topics": ["t"]}]}`},
		{name: "preview_large_summarised", args: append([]string{"--members", "45", "--topics", "t1:100"}, rr...)},
		{name: "preview_more_members_than_partitions", args: append([]string{"--members", "4", "--topics", "t1:2"}, rr...)},
		{name: "preview_unknown_topic_warns", args: append([]string{"--member", "c0=t1,t9", "--member", "c1", "--topics", "t1:4"}, rr...)},
		{name: "preview_version", args: []string{"--version"}},
		{name: "preview_owned_cooperative", args: []string{"--in", "-"},
			stdin: `{"name": "join", "topics": {"t": 6}, "members": [{"id": "c0", "topics": ["t"], "owned": {"t": [0, 1, 2, 3, 4, 5]}, "generation": 3}, {"id": "c1", "topics": ["t"]}]}`},

		// Hand-checked: Range gives c0 t1-0,1 and t2-0,1, c1 t1-2, t2-2,
		// c2 t1-3, t2-3; RoundRobin deals t1-0..t2-3 to c0, c1, c2 in turn:
		// only t1-0 has the same owner.
		{name: "preview_diff", args: []string{"--members", "3", "--topics", "t1:4,t2:4", "--compare", "range,roundrobin", "--diff"}},
		{name: "preview_strategy_list", args: []string{"--members", "2", "--topics", "t1:3", "--strategy", "roundrobin,range"}},
		{name: "bad_unknown_strategy", args: []string{"--members", "3", "--topics", "t1:7", "--strategy", "sticky-ish"}, status: 2},
		{name: "bad_topic_count_not_a_number", args: []string{"--members", "3", "--topics", "t1:x"}, status: 2},
		{name: "bad_topic_count_negative", args: []string{"--members", "3", "--topics", "t1:-3"}, status: 2},
		{name: "bad_topic_without_count", args: []string{"--members", "3", "--topics", "t1"}, status: 2},
		{name: "bad_duplicate_member", args: []string{"--member", "c0", "--member", "c0", "--topics", "t1:3"}, status: 2},
		{name: "bad_duplicate_member_with_members", args: []string{"--members", "2", "--member", "c1", "--topics", "t1:3"}, status: 2},
		{name: "bad_no_topics", args: []string{"--members", "2"}, status: 2},
		{name: "bad_no_members", args: []string{"--topics", "t1:2"}, status: 2},
		{name: "bad_replicas_without_racks", args: []string{"--members", "2", "--topics", "t1:2", "--replicas", "2"}, status: 2},
		{name: "bad_replicas_above_racks", args: []string{"--members", "2", "--topics", "t1:2", "--replicas", "3", "--racks", "a,b"}, status: 2},
		{name: "bad_members_not_a_number", args: []string{"--members", "three", "--topics", "t1:2"}, status: 2},
		{name: "bad_format", args: []string{"--members", "2", "--topics", "t1:2", "--format", "yaml"}, status: 2},
		{name: "bad_in_and_flags", args: []string{"--in", "-", "--members", "2"}, status: 2},
		{name: "bad_in_malformed_json", args: []string{"--in", "-"}, stdin: "{\"topics\": {\"t\": 1},\n \"members\": [{\"id\": \"a\", \"topics\": [\"t\"]}\n", status: 2},
		{name: "bad_in_two_groups", args: []string{"--in", "-"}, stdin: "{\"topics\": {}, \"members\": []}\n{\"topics\": {}, \"members\": []}\n", status: 2},
		{name: "bad_unknown_command", args: []string{"plans"}, status: 2},
	})
}

// TestBadInputMessages checks, apart from the golden files, that each bad
// input's one-line message names what is wrong.
func TestBadInputMessages(t *testing.T) {
	tests := []struct {
		args  []string
		stdin string
		want  []string // substrings of stderr
	}{
		{args: []string{"--members", "3", "--topics", "t1:7", "--strategy", "sticky-ish"}, want: []string{"unknown strategy", `"sticky-ish"`, "range"}},
		{args: []string{"--members", "3", "--topics", "t1:x"}, want: []string{`"t1:x"`, `"x"`, "not a whole number"}},
		{args: []string{"--members", "3", "--topics", "t1:-3"}, want: []string{`"t1:-3"`, "negative"}},
		{args: []string{"--member", "c0", "--member", "c0", "--topics", "t1:3"}, want: []string{`"c0"`, "duplicate member ID"}},
		{args: []string{"--in", "-"}, stdin: "{\"topics\": {\"t\": 1},\n \"members\": [{\"id\": \"a\" \"topics\": []}]}", want: []string{"line 2, column 25", "malformed JSON"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			_, stderr, status := runCase(cliCase{args: tt.args, stdin: tt.stdin})
			if status != exitInput {
				t.Errorf("exit status %d, want %d", status, exitInput)
			}
			if strings.Count(stderr, "\n") != 1 {
				t.Errorf("stderr %q is not one line", stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q does not contain %q", stderr, w)
				}
			}
		})
	}
}

// TestUnknownTopicIsAWarning: Kafka skips a subscription to a topic missing
// from the metadata, so the preview warns and succeeds.
func TestUnknownTopicIsAWarning(t *testing.T) {
	stdout, stderr, status := runCase(cliCase{args: []string{"--member", "c0=t1,t9", "--topics", "t1:2", "--compare", "range"}})
	if status != 0 {
		t.Errorf("exit status %d, want 0", status)
	}
	if !strings.Contains(stderr, "warning") || !strings.Contains(stderr, `"t9"`) {
		t.Errorf("stderr %q: want a warning naming t9", stderr)
	}
	if !strings.Contains(stdout, "t1(0,1)") {
		t.Errorf("stdout does not show c0 with t1(0,1):\n%s", stdout)
	}
}

func TestCompact(t *testing.T) {
	tp := func(topic string, ps ...int32) []assign.TopicPartition {
		var out []assign.TopicPartition
		for _, p := range ps {
			out = append(out, assign.TopicPartition{Topic: topic, Partition: p})
		}
		return out
	}
	tests := []struct {
		in   []assign.TopicPartition
		want string
	}{
		{nil, ""},
		{tp("t1", 5), "t1(5)"},
		{tp("t1", 0, 1), "t1(0,1)"},
		{tp("t1", 0, 1, 2), "t1(0-2)"},
		{append(tp("t1", 0, 1, 2, 5, 7, 8, 9, 10), tp("t2", 5)...), "t1(0-2,5,7-10) t2(5)"},
		{tp("t", 0, 2, 4), "t(0,2,4)"},
	}
	for _, tt := range tests {
		if got := compact(tt.in); got != tt.want {
			t.Errorf("compact(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// A cell too narrow shows the count per topic instead of cutting
	// topics off: t1(0,2,4,6) t2(1) is 17 runes.
	long := append(tp("t1", 0, 2, 4, 6), tp("t2", 1)...)
	if got := fit(long, 17); got != "t1(0,2,4,6) t2(1)" {
		t.Errorf("fit(_, 17) = %q, want the partitions", got)
	}
	if got := fit(long, 16); got != "t1: 4, t2: 1" {
		t.Errorf("fit(_, 16) = %q, want the counts per topic", got)
	}
}

// TestBarColour checks that colour appears only when asked for (a
// terminal without NO_COLOR) and never changes the bar's length.
func TestBarColour(t *testing.T) {
	if got := bar(3, 3, 2.3, false); got != "███" {
		t.Errorf("bar(3, 3, 2.3, false) = %q, want three blocks", got)
	}
	if got := bar(3, 3, 2.3, true); got != "\x1b[33m███\x1b[0m" {
		t.Errorf("bar(3, 3, 2.3, true) = %q, want three yellow blocks", got)
	}
	if got := bar(60, 120, 60, false); len([]rune(got)) != 15 {
		t.Errorf("bar(60, 120, ...) = %q, want 15 blocks (scaled to %d)", got, barWidth)
	}
	e := &env{stdin: strings.NewReader(""), stdout: new(strings.Builder), stderr: new(strings.Builder), colour: true}
	if status := runEnv(e, []string{"assigncalc", "--members", "2", "--topics", "t:3", "--compare", "range"}); status != 0 {
		t.Fatalf("exit status %d", status)
	}
	if !strings.Contains(fmt.Sprint(e.stdout), "\x1b[") {
		t.Errorf("with colour on, the table has no colour:\n%s", e.stdout)
	}
	stdout, _, _ := runCase(cliCase{args: []string{"--members", "2", "--topics", "t:3"}})
	if strings.Contains(stdout, "\x1b[") {
		t.Errorf("output to a non-terminal has colour:\n%s", stdout)
	}
}

// TestPreviewRange checks the detail of the README's example against
// Kafka's documented Range rule, worked out by hand: 7 partitions over 3
// members, the first 7 % 3 = 1 member getting one extra.
func TestPreviewRange(t *testing.T) {
	stdout, _, _ := runCase(cliCase{args: []string{"--members", "3", "--topics", "t1:7", "--format", "csv", "--compare", "range"}})
	want := "row,group,strategy,member,rack,topic,count,partitions,statistic,value\n" +
		"assignment,,range,c0,,t1,3,t1(0-2),,\n" +
		"assignment,,range,c1,,t1,2,\"t1(3,4)\",,\n" +
		"assignment,,range,c2,,t1,2,\"t1(5,6)\",,\n" +
		// counts 3, 2, 2: mean 7/3, variance (4/9 + 1/9 + 1/9)/3 = 2/9
		"stats,,range,,,,,,min,2\nstats,,range,,,,,,max,3\nstats,,range,,,,,,spread,1\nstats,,range,,,,,,stddev,0.47\nstats,,range,,,,,,idle,0\n"
	if diff := cmp.Diff(want, stdout); diff != "" {
		t.Errorf("preview csv mismatch (-want +got):\n%s", diff)
	}
}

func TestWantColour(t *testing.T) {
	env := func(vars map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
	}
	tests := []struct {
		terminal bool
		vars     map[string]string
		want     bool
	}{
		{true, nil, true},
		{false, nil, false},
		{true, map[string]string{"NO_COLOR": "1"}, false},
		{false, map[string]string{"NO_COLOR": "1"}, false},
		{true, map[string]string{"NO_COLOR": ""}, true}, // no-color.org: set and non-empty
		{true, map[string]string{"TERM": "dumb"}, false},
		{true, map[string]string{"TERM": "xterm-256color"}, true},
	}
	for _, tt := range tests {
		if got := wantColour(tt.terminal, env(tt.vars)); got != tt.want {
			t.Errorf("wantColour(%v, %v) = %v, want %v", tt.terminal, tt.vars, got, tt.want)
		}
	}
}

// TestPreviewCooperativeDetail: c0 owns all six partitions and c1 joins.
// Any balanced cooperative answer has c0 revoke three partitions now and
// c1 receive exactly those three in the follow-up rebalance.
func TestPreviewCooperativeDetail(t *testing.T) {
	in := `{"topics": {"t": 6}, "members": [{"id": "c0", "topics": ["t"], "owned": {"t": [0, 1, 2, 3, 4, 5]}, "generation": 3}, {"id": "c1", "topics": ["t"]}]}`
	stdout, _, status := runCase(cliCase{args: []string{"--in", "-", "--strategy", "cooperative-sticky", "--compare", "cooperative-sticky"}, stdin: in})
	if status != 0 {
		t.Fatalf("exit status %d", status)
	}
	if !strings.Contains(stdout, "REVOKED NOW  THEN RECEIVES") {
		t.Fatalf("no revocation columns:\n%s", stdout)
	}
	rows := make(map[string][]string)
	for line := range strings.Lines(stdout) {
		f := strings.Fields(line)
		if len(f) > 0 && (f[0] == "c0" || f[0] == "c1") {
			rows[f[0]] = f
		}
	}
	c0, c1 := rows["c0"], rows["c1"]
	// member, count, partitions, revoked now or then receives (one of
	// them is empty), bar
	if len(c0) != 5 || len(c1) != 5 {
		t.Fatalf("rows c0 %q, c1 %q: want member, count, partitions, one more column and a bar each", c0, c1)
	}
	if c0[1] != "3" || c1[1] != "3" || c0[3] != c1[3] || c0[3] == c0[2] {
		t.Errorf("c0 %q, c1 %q: want 3 each, c0 revoking what c1 then receives", c0, c1)
	}
}

// TestPreviewCrossRack: --racks a,b --replicas 1 puts partition p's one
// replica on rack a for even p, b for odd. KIP-881's Range gives c0 (rack
// a) only even partitions and c1 (rack b) only odd ones: no cross-rack
// read; c2's rack c holds no replica, so all three of its partitions are
// read across racks, and the preview warns about rack c.
func TestPreviewCrossRack(t *testing.T) {
	stdout, stderr, status := runCase(cliCase{args: []string{"--member", "c0=t1,t2@a", "--member", "c1=t1@b", "--member", "c2@c", "--topics", "t1:6,t2:3", "--replicas", "1", "--racks", "a,b", "--compare", "range"}})
	if status != 0 {
		t.Fatalf("exit %d: %s", status, stderr)
	}
	want := map[string]string{"c0": "a 4 0", "c1": "b 2 0", "c2": "c 3 3"}
	for line := range strings.Lines(stdout) {
		f := strings.Fields(line)
		if w, ok := want[f0(f)]; ok && len(f) >= 5 {
			// member, rack, count, cross-rack, partitions (one or two cells), bar
			if got := f[1] + " " + f[2] + " " + f[3]; got != w {
				t.Errorf("%s: rack, count, cross-rack = %q, want %q", f[0], got, w)
			}
			delete(want, f[0])
		}
	}
	if len(want) > 0 {
		t.Errorf("members %v not shown:\n%s", want, stdout)
	}
	if !strings.Contains(stdout, "CROSS-RACK") || !strings.Contains(stderr, `no replica is on rack "c"`) {
		t.Errorf("no CROSS-RACK total or no warning about rack c:\n%s%s", stdout, stderr)
	}
}

func f0(f []string) string {
	if len(f) == 0 {
		return ""
	}
	return f[0]
}
