package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/assigncalc/assigncalc/internal/groupfile"
)

// patternSimulation: c0 subscribes by the pattern /orders-.*/, c1 to
// payments; orders-us is created, then audit; c1 adds /orders-us/ to its
// subscription; c2 joins by /orders-eu/.
var patternSimulation = []string{"--grow", "orders-us:2", "--grow", "audit:1", "--subscribe", "c1=payments,/orders-us/", "--join", "c2=/orders-eu/",
	"--protocol", "consumer", "--compare", "server-range", "--format", "csv"}

// patternRows are patternSimulation's rows under server-range, worked by
// hand (Kafka's server range gives each topic's partitions to its
// subscribers in HashMap order: c0, c1, c2, whose hashCodes 3117, 3118
// and 3119 fall in buckets 13, 14 and 15 of 16):
//   - start: c0 takes orders-eu 0,1 and c1 payments 0,1, each the one
//     subscriber of its topic: both affected, one round, spread 0;
//   - orders-us is created and c0's pattern matches it: one rebalance in
//     which c0 receives orders-us 0,1; new partitions move nothing; c0
//     holds 4, c1 2: spread 2;
//   - audit, which nothing matches, starts no rebalance;
//   - c1 subscribes to orders-us too: one partition each, c0 keeping
//     orders-us 0 and c1 receiving orders-us 1 once c0 has revoked it
//     (two heartbeat rounds, one stop): 3 and 3, spread 0;
//   - c2 joins for orders-eu: c0 keeps orders-eu 0 and orders-eu 1 goes
//     to c2 the same way; c0 holds 2, c1 3, c2 1: spread 2.
var patternRows = []string{
	`0,start,server-range,0,2,0,1,0,0,"c0 subscribes to /orders-.*/, which resolves to orders-eu",`,
	`1,grow orders-us:2,server-range,0,1,0,1,2,0,"the pattern /orders-.*/ of c0 matches the new topic orders-us: `,
	`2,grow audit:1,server-range,0,0,0,0,2,0,nobody subscribes to audit: its growth starts no rebalance,`,
	`3,"subscribe c1=payments,/orders-us/",server-range,1,2,1,2,0,1,"c1 subscribes to payments,/orders-us/, which resolves to payments,orders-us",`,
	`4,join c2=/orders-eu/,server-range,1,2,1,2,2,1,"c2 is new and subscribes to /orders-eu/, which resolves to orders-eu",`,
}

// TestSimulatePatterns: simulate with members subscribed by pattern
// (--member, --subscribe, --join) resolves them at every step, a created
// topic included, and says what they resolve to.
func TestSimulatePatterns(t *testing.T) {
	args := append([]string{"simulate", "--topics", "orders-eu:2,payments:2", "--member", "c0=/orders-.*/", "--member", "c1=payments"}, patternSimulation...)
	stdout, stderr, status := runCase(cliCase{args: args})
	if status != 0 {
		t.Fatalf("assigncalc %s: status %d, stderr %q", strings.Join(args, " "), status, stderr)
	}
	for _, row := range patternRows {
		if !strings.Contains(stdout, "\n"+row) {
			t.Errorf("simulate lacks the row %q:\n%s", row, stdout)
		}
	}
	// Without --compare, the strategies that cannot resolve a pattern
	// are left out: uniform and server-range run.
	args = []string{"simulate", "--topics", "t:2", "--member", "c0=/t/", "--protocol", "consumer", "--format", "csv"}
	stdout, _, status = runCase(cliCase{args: args})
	if status != 0 || !strings.Contains(stdout, "\n0,start,uniform,") || !strings.Contains(stdout, "\n0,start,server-range,") || strings.Contains(stdout, ",range,") || strings.Contains(stdout, "sticky") {
		t.Errorf("simulate with a pattern and no --compare: status %d, stdout:\n%s\nwant uniform and server-range alone", status, stdout)
	}
}

// TestSimulatePatternsFromJSON: the same simulation from a group file
// whose members carry "topicRegex", and from that file as groupfile
// writes it back, gives the same rows as the flags.
func TestSimulatePatternsFromJSON(t *testing.T) {
	in := `{"name": "rx", "topics": {"orders-eu": 2, "payments": 2}, "members": [{"id": "c0", "topicRegex": "orders-.*"}, {"id": "c1", "topics": ["payments"]}]}`
	entries, err := groupfile.ReadAll(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := groupfile.WriteGroup(&again, entries[0]); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(again.String(), `"topicRegex":"orders-.*"`) {
		t.Fatalf("WriteGroup lost the pattern: %s", again.String())
	}
	for _, src := range []string{in, again.String()} {
		args := append([]string{"simulate", "--in", "-"}, patternSimulation...)
		stdout, stderr, status := runCase(cliCase{args: args, stdin: src})
		if status != 0 {
			t.Fatalf("simulate --in %s: status %d, stderr %q", src, status, stderr)
		}
		for _, row := range patternRows {
			if !strings.Contains(stdout, "\n"+row) {
				t.Errorf("simulate --in %s lacks the row %q:\n%s", src, row, stdout)
			}
		}
	}
}

// TestSimulateBadPatterns: each malformed or uncompilable pattern, a
// pattern without the consumer protocol, and a classic strategy named
// for a group with a pattern, exit 2 with one line on stderr.
func TestSimulateBadPatterns(t *testing.T) {
	base := []string{"simulate", "--topics", "t:2", "--member", "c0=t", "--protocol", "consumer", "--compare", "uniform", "--topic-id", "t=Yp0cT2sWQ7ChA0qyU5Ckdg"}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--join", "c1=/t(/"}, `--join "c1=/t(/": topic pattern "t(" does not compile`},
		{[]string{"--subscribe", "c0=/t(/"}, `--subscribe "c0=/t(/": topic pattern "t(" does not compile`},
		{[]string{"--subscribe", "c0=/t"}, "the closing '/' is missing"},
		{[]string{"--subscribe", "c0=//"}, "empty topic pattern //"},
		{[]string{"--subscribe", "c0=/t/x"}, `nothing may follow a topic pattern, not "x"`},
		{[]string{"--subscribe", "c0=t/x/"}, "ends the subscription"},
		{[]string{"--subscribe", "c9=/t/"}, `c9`},
	} {
		args := append(append([]string(nil), base...), tt.args...)
		_, stderr, status := runCase(cliCase{args: args})
		if status != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tt.want) {
			t.Errorf("assigncalc %s: status %d, stderr %q; want 2 and one line saying %q", strings.Join(args, " "), status, stderr, tt.want)
		}
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"simulate", "--topics", "t:2", "--member", "c0=/t/"}, "add --protocol consumer"},
		{[]string{"simulate", "--topics", "t:2", "--member", "c0", "--join", "c1=/t/"}, "add --protocol consumer"},
		{[]string{"simulate", "--topics", "t:2", "--member", "c0=/t/", "--protocol", "consumer", "--compare", "range"}, "range cannot resolve it"},
		{[]string{"simulate", "--in", "-", "--protocol", "consumer"}, `topicRegex: topic regex "t(": error parsing regexp`},
		{[]string{"simulate", "--topics", "t:2", "--member", "c0", "--join", "c1=/t/", "--protocol", "share"}, "share groups subscribe by topic names only"},
	} {
		in := `{"topics": {"t": 1}, "members": [{"id": "c0", "topicRegex": "t("}]}`
		_, stderr, status := runCase(cliCase{args: tt.args, stdin: in})
		if status != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tt.want) {
			t.Errorf("assigncalc %s: status %d, stderr %q; want 2 and one line saying %q", strings.Join(tt.args, " "), status, stderr, tt.want)
		}
	}
}
