package main

import (
	"strings"
	"testing"
)

// describeData is where internal/describe keeps describe outputs written
// from Kafka's layouts.
const describeData = "../../internal/describe/testdata/"

func TestFromDescribeGolden(t *testing.T) {
	rr := []string{"--compare", "range,sticky"}
	runGolden(t, []cliCase{
		{name: "describe_offsets_preview", args: append([]string{"--from-describe", describeData + "offsets_4x.txt", "--strategy", "sticky"}, rr...)},
		{name: "describe_members_static_preview", args: append([]string{"--from-describe", describeData + "members_scala_static.txt", "--topics", "orders:4"}, rr...)},
		{name: "describe_kip1099_preview", args: append([]string{"--from-describe", describeData + "members_kip1099.txt"}, rr...)},
		{name: "describe_csv_stdin_override", args: append([]string{"--from-describe", "-", "--member", "c1=orders", "--member", "c9"}, rr...),
			stdin: "member,topic,partition,lag\nc0,orders,0,5\nc0,payments,0,7\nc1,orders,1,0\n"},
		{name: "describe_simulate_leave", args: []string{"simulate", "--from-describe", describeData + "offsets_4x.txt", "--compare", "sticky", "--leave", "consumer-orders-2-0a1b2c3d-4e5f-4061-8a9b-cdef01234567", "--moves"}},
		{name: "describe_refused_plain_members", args: []string{"--from-describe", describeData + "members_plain.txt"}, status: 2},
		{name: "describe_refused_38", args: []string{"--from-describe", describeData + "members_38.txt"}, status: 2},
		{name: "describe_with_in", args: []string{"--from-describe", "-", "--in", "x"}, status: 2},
	})
}

// TestFromDescribeLag: in offsets_4x.txt c0 holds orders-0 (lag 50) and
// orders-1 (0), c1 orders-2 (1000) and payments-0 (2), c2 nothing, and
// payments-1 (0) is nobody's. Sticky keeps every claim when that is
// balanced (2, 2, 1): c2 gets payments-1. So LAG and MAX LAG are 50/50,
// 1002/1000 and 0/0.
func TestFromDescribeLag(t *testing.T) {
	stdout, stderr, status := runCase(cliCase{args: []string{"--from-describe", describeData + "offsets_4x.txt", "--strategy", "sticky", "--compare", "sticky"}})
	if status != 0 {
		t.Fatalf("exit %d, stderr %q", status, stderr)
	}
	want := map[string][]string{
		"consumer-orders-1-": {"2", "50", "50"},
		"consumer-orders-2-": {"2", "1002", "1000"},
		"consumer-orders-3-": {"1", "0", "0"},
	}
	found := 0
	for line := range strings.Lines(stdout) {
		f := strings.Fields(line)
		for prefix, w := range want {
			if len(f) >= 5 && strings.HasPrefix(f[0], prefix) {
				found++
				// member, count, lag, max lag, partitions (one or two cells), bar
				got := f[1:4]
				if strings.Join(got, " ") != strings.Join(w, " ") {
					t.Errorf("%s: count, lag, max lag = %q, want %q", f[0], got, w)
				}
			}
		}
	}
	if found != 3 {
		t.Errorf("found %d of 3 members in:\n%s", found, stdout)
	}
	if !strings.Contains(stderr, "assumed:") || !strings.Contains(stderr, "orders:3, payments:2") {
		t.Errorf("stderr %q does not say what was assumed", stderr)
	}
}

// TestGroupCommandGolden: group prints what a paste was read as, in the
// JSON contract; several groups are refused with their names unless
// --group picks one.
func TestGroupCommandGolden(t *testing.T) {
	runGolden(t, []cliCase{
		{name: "group_from_rpk", args: []string{"group", "--from-describe", describeData + "rpk_one.txt"}},
		{name: "group_all_groups_refused", args: []string{"group", "--from-describe", describeData + "all_groups.txt"}, status: 2},
		{name: "group_all_groups_pick", args: []string{"group", "--from-describe", describeData + "all_groups.txt", "--group", "billing-app", "--topics", "payments:4"}},
		{name: "group_missing", args: []string{"group", "--from-describe", describeData + "all_groups.txt", "--group", "g11"}, status: 2},
		{name: "group_flags", args: []string{"group", "--members", "2", "--topics", "t:3", "--format", "json"}},
	})
}

// TestGroupCommandReplays: the group printed from a paste, read back with
// --in, previews as the paste does (the contract has no LAG, so the
// comparison stops before the detail's table).
func TestGroupCommandReplays(t *testing.T) {
	for _, file := range []string{"offsets_4x.txt", "members_scala_static.txt", "rpk_one.txt", "kafkago.txt"} {
		saved, stderr, status := runCase(cliCase{args: []string{"group", "--from-describe", describeData + file}})
		if status != 0 {
			t.Fatalf("group %s: exit %d, %s", file, status, stderr)
		}
		direct, _, status1 := runCase(cliCase{args: []string{"--from-describe", describeData + file, "--compare", "sticky,range"}})
		replayed, stderr2, status2 := runCase(cliCase{args: []string{"--in", "-", "--compare", "sticky,range"}, stdin: saved})
		if status1 != 0 || status2 != 0 {
			t.Fatalf("%s: exit %d and %d; %s", file, status1, status2, stderr2)
		}
		direct, _, _ = strings.Cut(direct, "\nrange:")
		replayed, _, _ = strings.Cut(replayed, "\nrange:")
		// Nor does it say the brokers are Redpanda's, which place the
		// coordinator elsewhere.
		direct, replayed = withoutLine(direct, "coordinator: "), withoutLine(replayed, "coordinator: ")
		if direct != replayed || !strings.Contains(direct, "MOVED") {
			t.Errorf("%s: the preview of the paste and of its saved group differ:\n%s\n---\n%s", file, direct, replayed)
		}
	}
}

// TestConsumerProtocolPaste: item 2 of issue 28. A paste showing the
// consumer protocol (KIP-1099 epochs, a state view's GROUP-EPOCH and
// uniform) makes --protocol consumer and the group's assignor the
// default of the preview, simulate, timeline and migrate, said on
// stderr; migrate no longer calls such a group classic.
func TestConsumerProtocolPaste(t *testing.T) {
	paste := describeData + "state_consumer.txt"
	runGolden(t, []cliCase{
		{name: "describe_consumer_preview", args: []string{"--from-describe", paste, "--topic-id", "orders=Yp0cT2sWQ7ChA0qyU5Ckdg", "--topic-id", "payments=Bx2cT2sWQ7ChA0qyU5Ckdg"}},
		{name: "describe_consumer_migrate", args: []string{"migrate", "--from-describe", paste, "--topic-id", "orders=Yp0cT2sWQ7ChA0qyU5Ckdg", "--topic-id", "payments=Bx2cT2sWQ7ChA0qyU5Ckdg"}},
	})
	for _, args := range [][]string{
		{"--from-describe", paste},
		{"simulate", "--from-describe", paste},
		{"timeline", "--from-describe", paste},
		{"migrate", "--from-describe", paste},
	} {
		stdout, stderr, status := runCase(cliCase{args: args})
		if status != 0 || !strings.Contains(stderr, "consumer protocol (KIP-848)") || !strings.Contains(stdout, "uniform") || strings.Contains(stdout, "(classic)") {
			t.Errorf("assigncalc %s: status %d, stdout\n%s\nstderr\n%s\nwant the consumer protocol and uniform, said on stderr", strings.Join(args, " "), status, stdout, stderr)
		}
	}
	// --protocol classic overrides the paste.
	stdout, stderr, _ := runCase(cliCase{args: []string{"--from-describe", paste, "--protocol", "classic"}})
	if strings.Contains(stderr, "KIP-848") || strings.Contains(stdout, "uniform") {
		t.Errorf("--protocol classic: stdout\n%s\nstderr\n%s\nwant the classic strategies alone", stdout, stderr)
	}
}

// withoutLine drops the lines of s that begin with prefix.
func withoutLine(s, prefix string) string {
	var b strings.Builder
	for l := range strings.Lines(s) {
		if !strings.HasPrefix(l, prefix) {
			b.WriteString(l)
		}
	}
	return b.String()
}

// TestMemberNames: item 4 of issue 28. --leave, --restart, --crash and
// friends name a member as operators do: by member.id, group.instance.id,
// a client.id only it has, or a prefix only its id has. In offsets_4x.txt
// the members are consumer-orders-1-5f0c…, -2-0a1b… and -3-9999…, with
// client ids consumer-orders-1, -2 and -3; in members_scala_static.txt
// the first is static, orders-host-a.
func TestMemberNames(t *testing.T) {
	offsets, static := describeData+"offsets_4x.txt", describeData+"members_scala_static.txt"
	full2 := "consumer-orders-2-0a1b2c3d-4e5f-4061-8a9b-cdef01234567"
	for _, tt := range []struct {
		args   []string
		want   string // in stdout, or in stderr when status is 2
		status int
	}{
		{[]string{"simulate", "--from-describe", offsets, "--compare", "sticky", "--leave", "consumer-orders-2", "--moves"}, "orders-2: " + full2 + " →", 0},
		{[]string{"simulate", "--from-describe", offsets, "--compare", "sticky", "--leave", "consumer-orders-2-0a1b", "--moves"}, "orders-2: " + full2 + " →", 0},
		{[]string{"simulate", "--from-describe", static, "--compare", "sticky", "--restart", "orders-host-a"}, "restart orders-host-a", 0},
		{[]string{"simulate", "--from-describe", offsets, "--compare", "sticky", "--leave", "consumer-orders-"}, "3 members' ids begin so: consumer-orders-1-5f0c6a1e-2b7d-4a0e-9d3c-1f2e3d4c5b6a, " + full2, 2},
		{[]string{"simulate", "--from-describe", offsets, "--compare", "sticky", "--leave", "consumer-orders-4"}, "did you mean consumer-orders-1?", 2},
		{[]string{"timeline", "--from-describe", offsets, "--strategy", "range", "--crash", "consumer-orders-2@10s"}, "session timeout", 0},
		{[]string{"timeline", "--from-describe", offsets, "--strategy", "range", "--crash", "nobody@10s"}, "no member is named so", 2},
	} {
		stdout, stderr, status := runCase(cliCase{args: tt.args})
		got := stdout
		if tt.status != 0 {
			got = stderr
		}
		if status != tt.status || !strings.Contains(got, tt.want) {
			t.Errorf("assigncalc %s: status %d, stdout\n%s\nstderr %q\nwant status %d and %q", strings.Join(tt.args, " "), status, stdout, stderr, tt.status, tt.want)
		}
	}
}
