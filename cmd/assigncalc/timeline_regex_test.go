package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestTimelinePatterns: timeline under the consumer protocol with
// members subscribed by pattern (--member, --join, --subscribe), worked
// by hand as in package timeline's TestTimelinePatterns (each change of a
// pattern's topics is resolved at a heartbeat more than 10 s after the
// last resolution: here the changes are 17 s and 20 s apart): server range
// takes members in HashMap order c0, c1, c2; orders-us, created at 3 s,
// goes to c0, whose /orders-.*/ matches it; c2 joins at 20 s by
// /orders-eu/ alone and takes orders-eu 1 from c0; c1 adds /orders-us/
// at 40 s and takes orders-us 1 from c0. payments stays c1's: c2's
// pattern does not match it. Patterns new to the group start no epoch
// of their own, only their resolutions do (Kafka's coordinator).
func TestTimelinePatterns(t *testing.T) {
	args := []string{"timeline", "--topics", "orders-eu:2,payments:2", "--member", "c0=/orders-.*/", "--member", "c1=payments",
		"--grow", "orders-us:2@3s", "--join", "c2=/orders-eu/@20s", "--subscribe", "c1=payments,/orders-us/@40s",
		"--protocol", "consumer", "--strategy", "server-range", "--topic-id", "orders-eu=Yp0cT2sWQ7ChA0qyU5Ckdg",
		"--topic-id", "orders-us=AAAAAAAAAAAAAAAAAAAAAg", "--topic-id", "payments=AAAAAAAAAAAAAAAAAAAAAw"}
	stdout, stderr, status := runCase(cliCase{args: append(args, "--format", "jsonl")})
	if status != 0 || stderr != "" {
		t.Fatalf("assigncalc %s: status %d, stderr %q", strings.Join(args, " "), status, stderr)
	}
	var got struct {
		Rebalances []struct{ Reason string }
		Partitions map[string]struct{ Owners [][3]any }
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	var reasons []string
	for _, r := range got.Rebalances {
		reasons = append(reasons, r.Reason)
	}
	if want := []string{"patterns resolved again: /orders-.*/ matches orders-eu,orders-us", "patterns resolved again: /orders-eu/ matches orders-eu",
		"patterns resolved again: /orders-us/ matches orders-us"}; !slices.Equal(reasons, want) {
		t.Errorf("rebalances %q; want %q", reasons, want)
	}
	for p, want := range map[string][]string{
		"orders-eu-0": {"c0"}, "orders-eu-1": {"c0", "c2"},
		"orders-us-0": {"c0"}, "orders-us-1": {"c0", "c1"},
		"payments-0": {"c1"}, "payments-1": {"c1"},
	} {
		var owners []string
		for _, o := range got.Partitions[p].Owners {
			owners = append(owners, o[2].(string))
		}
		if !slices.Equal(owners, want) {
			t.Errorf("%s: owners %q; want %q", p, owners, want)
		}
	}
	// The same members from a group file with "topicRegex": the same
	// timeline.
	in := `{"topics": {"orders-eu": 2, "payments": 2}, "members": [{"id": "c0", "topicRegex": "orders-.*"}, {"id": "c1", "topics": ["payments"]}]}`
	fromFile := append([]string{"timeline", "--in", "-"}, args[7:]...)
	again, stderr, status := runCase(cliCase{args: append(fromFile, "--format", "jsonl"), stdin: in})
	if status != 0 || stderr != "" || again != stdout {
		t.Errorf("timeline --in with topicRegex: status %d, stderr %q, output\n%s\nwant the flags' output\n%s", status, stderr, again, stdout)
	}
	stdout, _, status = runCase(cliCase{args: args})
	for _, line := range []string{"- c0 subscribes by pattern /orders-.*/: at the start it resolves to orders-eu\n", "- the coordinator resolves the patterns again at a heartbeat once a topic was created or a new pattern came, never within 10 s"} {
		if status != 0 || !strings.Contains(stdout, line) {
			t.Errorf("timeline table: status %d, lacks %q:\n%s", status, line, stdout)
		}
	}
}

// TestTimelineBadPatterns: a malformed or uncompilable pattern, a
// pattern under the classic protocol, and a classic strategy standing in
// for the coordinator's assignor exit 2 with one line.
func TestTimelineBadPatterns(t *testing.T) {
	base := []string{"timeline", "--topics", "t:2", "--member", "c0=t", "--protocol", "consumer", "--topic-id", "t=Yp0cT2sWQ7ChA0qyU5Ckdg"}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{append(slices.Clone(base), "--join", "c1=/t(/@1s"), `--join "c1=/t(/@1s": topic pattern "t(" does not compile`},
		{append(slices.Clone(base), "--subscribe", "c0=/t@1s"), "the closing '/' is missing"},
		{append(slices.Clone(base), "--subscribe", "c0=t/x/@1s"), "ends the subscription"},
		{[]string{"timeline", "--topics", "t:2", "--member", "c0=t", "--protocol", "consumer", "--subscribe", "c0=/t/@1s", "--strategy", "range"}, "only the consumer protocol's assignors (uniform, server-range) resolve a pattern"},
		{[]string{"timeline", "--topics", "t:2", "--member", "c0=/t/"}, "member c0 subscribes by pattern /t/, which is the consumer protocol's (KIP-848): add --protocol consumer"},
		{[]string{"timeline", "--topics", "t:2", "--member", "c0", "--join", "c1=/t/@1s"}, "add --protocol consumer"},
	} {
		_, stderr, status := runCase(cliCase{args: tt.args})
		if status != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tt.want) {
			t.Errorf("assigncalc %s: status %d, stderr %q; want 2 and one line saying %q", strings.Join(tt.args, " "), status, stderr, tt.want)
		}
	}
}
