package main

import (
	"strings"
	"testing"
)

// regexGroup has a member subscribed by pattern alone and one by a topic
// and a pattern. Server range, worked by hand: orders-eu has subscribers
// c0 and c1, so 3/2 = 1 partition each and the one left over to the
// first, c0: c0 orders-eu 0,1 and c1 orders-eu 2; orders-us is c0's
// alone and payments c1's alone.
const regexGroup = `{"name": "rx", "topics": {"orders-eu": 3, "orders-us": 3, "payments": 2},` +
	` "topicIds": {"orders-eu": "Yp0cT2sWQ7ChA0qyU5Ckdg", "orders-us": "AAAAAAAAAAAAAAAAAAAAAg", "payments": "AAAAAAAAAAAAAAAAAAAAAw"},` +
	` "members": [{"id": "c0", "topicRegex": "orders-.*"}, {"id": "c1", "topics": ["payments"], "topicRegex": "orders-eu"}]}`

const regexServerRange = `"assignment":{"c0":{"orders-eu":[0,1],"orders-us":[0,1,2]},"c1":{"orders-eu":[2],"payments":[0,1]}}`

// TestPlanTopicRegex: plan resolves a pattern for the coordinator's
// assignors and refuses it, on that line, for a classic strategy.
func TestPlanTopicRegex(t *testing.T) {
	stdout, stderr, status := runCase(cliCase{args: []string{"plan", "--in", "-", "--strategy", "server-range", "--format", "jsonl"}, stdin: regexGroup})
	if status != 0 || stderr != "" || !strings.Contains(stdout, regexServerRange) {
		t.Errorf("plan --strategy server-range: status %d, stderr %q, stdout %s; want 0, nothing, and %s", status, stderr, stdout, regexServerRange)
	}
	stdout, _, status = runCase(cliCase{args: []string{"plan", "--in", "-", "--strategy", "range", "--format", "jsonl"}, stdin: regexGroup})
	if status != 2 || !strings.Contains(stdout, `"error":"assign: member \"c0\" (at index 0): topic regex:`) || !strings.Contains(stdout, "classic clients resolve") {
		t.Errorf("plan --strategy range: status %d, stdout %s; want 2 and an error line naming c0 and saying classic clients resolve patterns", status, stdout)
	}
}

// TestPlanBadTopicRegex: a pattern Go cannot compile in a group file is
// that group's bad input, named by line, column and path on its error
// line; plan exits 2 with one line on stderr.
func TestPlanBadTopicRegex(t *testing.T) {
	in := `{"name":"g","topics":{"t":1},"members":[{"id":"c0","topicRegex":"t("}]}`
	stdout, stderr, status := runCase(cliCase{args: []string{"plan", "--in", "-", "--strategy", "uniform", "--format", "jsonl"}, stdin: in})
	want := `"error":"groupfile: line 1, column 65: members[0].topicRegex: topic regex \"t(\": error parsing regexp: missing closing ): ` + "`t(`" + `"`
	if status != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stdout, want) {
		t.Errorf("plan with pattern t(: status %d, stderr %q, stdout %s; want 2, one line, and %s", status, stderr, stdout, want)
	}
}

// TestPreviewTopicRegexDefaults: a preview of a group with a pattern
// member and no --strategy shows the consumer protocol's assignors (the
// classic strategies refuse patterns), server range as worked by hand for
// regexGroup; --protocol classic with a pattern member is refused.
func TestPreviewTopicRegexDefaults(t *testing.T) {
	stdout, stderr, status := runCase(cliCase{args: []string{"--in", "-", "--format", "jsonl"}, stdin: regexGroup})
	if status != 0 || stderr != "" || !strings.Contains(stdout, regexServerRange) || !strings.Contains(stdout, `"strategy":"uniform"`) || strings.Contains(stdout, `"strategy":"range"`) {
		t.Errorf("preview: status %d, stderr %q, stdout %s; want 0, nothing, uniform and server range (%s) only", status, stderr, stdout, regexServerRange)
	}
	_, stderr, status = runCase(cliCase{args: []string{"--in", "-", "--protocol", "classic"}, stdin: regexGroup})
	if status != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "subscribes by pattern") {
		t.Errorf("preview --protocol classic: status %d, stderr %q; want 2 and one line saying a member subscribes by pattern", status, stderr)
	}
}

// TestMemberTopicRegex: --member ID=/PATTERN/ on the preview, and the
// patterns refused with one line on stderr and status 2.
func TestMemberTopicRegex(t *testing.T) {
	args := []string{"--topics", "orders-eu:3,orders-us:3,payments:2", "--member", "c0=/orders-.*/", "--member", "c1=payments,/orders-eu/",
		"--topic-id", "orders-eu=Yp0cT2sWQ7ChA0qyU5Ckdg", "--topic-id", "orders-us=AAAAAAAAAAAAAAAAAAAAAg", "--topic-id", "payments=AAAAAAAAAAAAAAAAAAAAAw",
		"--strategy", "server-range", "--format", "jsonl"}
	stdout, stderr, status := runCase(cliCase{args: args})
	if status != 0 || stderr != "" || !strings.Contains(stdout, regexServerRange) {
		t.Errorf("preview: status %d, stderr %q, stdout %s; want 0, nothing, and %s", status, stderr, stdout, regexServerRange)
	}
	for _, tt := range []struct{ member, want string }{
		{"c1=/orders-(/", `topic pattern "orders-(" does not compile`},
		{"c1=/orders", "the closing '/' is missing"},
		{"c1=//", "empty topic pattern"},
		{"c1=payments/x/", "ends the subscription"},
		{"c1=/x/y", "only @RACK may follow"},
	} {
		_, stderr, status := runCase(cliCase{args: []string{"--topics", "t:1", "--member", tt.member, "--strategy", "uniform"}})
		if status != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tt.want) {
			t.Errorf("--member %s: status %d, stderr %q; want 2 and one line saying %q", tt.member, status, stderr, tt.want)
		}
	}
	// A classic strategy refuses the pattern the preview was given.
	_, stderr, status = runCase(cliCase{args: []string{"--topics", "t:1", "--member", "c0=/t/", "--strategy", "range"}})
	if status != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "classic clients resolve") {
		t.Errorf("--member c0=/t/ --strategy range: status %d, stderr %q; want 2 and one line saying classic clients resolve patterns", status, stderr)
	}
}

// TestSimulateKafka43AsKafka42: simulate plays each consumer-protocol
// rebalance after the previous one settled, so Kafka 4.3's assignment
// interval (KIP-1263) defers no target and 4.3 shows what 4.2 shows, a
// dynamic member's restart (a leave and a rejoin) included. The first
// two rows are worked by hand: at the start c0 and c1 receive three
// partitions each of t in one round, moving nothing; c2 joins, and the
// target gives it one partition from each (moved 2, affected 3, revoked
// 2), which takes two rounds: they revoke, then c2 receives.
func TestSimulateKafka43AsKafka42(t *testing.T) {
	out := map[string]string{}
	for _, v := range []string{"4.2", "4.3"} {
		args := []string{"simulate", "--members", "2", "--topics", "t:6", "--topic-id", "t=Yp0cT2sWQ7ChA0qyU5Ckdg", "--join", "c2", "--restart", "c1",
			"--protocol", "consumer", "--compare", "uniform", "--kafka", v, "--format", "csv"}
		stdout, stderr, status := runCase(cliCase{args: args})
		if status != 0 || stderr != "" {
			t.Fatalf("assigncalc %s: status %d, stderr %q", strings.Join(args, " "), status, stderr)
		}
		out[v] = stdout
	}
	if out["4.2"] != out["4.3"] {
		t.Errorf("simulate --kafka 4.3 differs from 4.2:\n4.2:\n%s\n4.3:\n%s", out["4.2"], out["4.3"])
	}
	for _, row := range []string{"\n0,start,uniform,0,2,0,1,0,0,,,step,,,,,\n", "\n1,join c2,uniform,2,3,2,2,0,2,"} {
		if !strings.Contains(out["4.3"], row) {
			t.Errorf("simulate --kafka 4.3 lacks the row %q:\n%s", row, out["4.3"])
		}
	}
}
