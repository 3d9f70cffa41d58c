package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/assigncalc/assigncalc/internal/groupfile"
	"github.com/google/go-cmp/cmp"
)

// ids gives topics t1 and t2 fixed topic ids, so that the server-side
// assignors run without the derived-id warning.
var ids = []string{"--topic-id", "t1=Yp0cT2sWQ7ChA0qyU5Ckdg", "--topic-id", "t2=Zp0cT2sWQ7ChA0qyU5Ckdg", "--topic-id", "t=Xp0cT2sWQ7ChA0qyU5Ckdg"}

func TestConsumerProtocolGolden(t *testing.T) {
	runGolden(t, []cliCase{
		{name: "preview_consumer", args: append([]string{"--members", "3", "--topics", "t1:7,t2:4", "--protocol", "consumer"}, ids...)},
		{name: "preview_consumer_kafka40_owned", args: []string{"--in", "-", "--protocol", "consumer", "--kafka", "4.0", "--strategy", "uniform"},
			stdin: `{"topics": {"t": 4}, "topicIds": {"t": "Yp0cT2sWQ7ChA0qyU5Ckdg"}, "members": [{"id": "A", "topics": ["t"], "owned": {"t": [0]}}, {"id": "B", "topics": ["t"], "owned": {"t": [1]}}, {"id": "C", "topics": ["t"], "owned": {"t": [2, 3]}}]}`},
		{name: "preview_uniform_derived_ids", args: []string{"--members", "3", "--topics", "t1:7", "--strategy", "uniform"}},
		{name: "simulate_consumer", args: append([]string{"simulate", "--members", "2", "--topics", "t:4", "--join", "c2", "--leave", "c0", "--protocol", "consumer", "--compare", "cooperative-sticky,uniform,server-range"}, ids...)},
		{name: "simulate_consumer_moves", args: append([]string{"simulate", "--members", "2", "--topics", "t:4", "--join", "c2", "--protocol", "consumer", "--compare", "uniform", "--moves"}, ids...)},
		{name: "simulate_consumer_jsonl", args: append([]string{"simulate", "--members", "2", "--topics", "t:4", "--join", "c2", "--compare", "uniform", "--format", "jsonl"}, ids...)},
		{name: "simulate_consumer_grow_new_topic", args: []string{"simulate", "--members", "2", "--topics", "t:4", "--grow", "u:2", "--subscribe", "c1=t,u", "--compare", "uniform"}},
		{name: "migrate_owned", args: []string{"migrate", "--in", "-", "--moves"},
			stdin: `{"topics": {"t": 4}, "topicIds": {"t": "Yp0cT2sWQ7ChA0qyU5Ckdg"}, "members": [{"id": "c0", "topics": ["t"], "owned": {"t": [0, 1, 2, 3]}}, {"id": "c1", "topics": ["t"]}]}`},
		{name: "migrate_from_range_jsonl", args: append([]string{"migrate", "--members", "3", "--topics", "t1:4,t2:4", "--from", "range", "--format", "jsonl"}, ids...)},
		{name: "migrate_assumes_range", args: []string{"migrate", "--members", "2", "--topics", "t:3", "--to", "server-range", "--kafka", "4.0"}},
		{name: "simulate_consumer_all", args: append([]string{"simulate", "--members", "2", "--topics", "t:2", "--leave", "c1", "--protocol", "consumer", "--compare", "all", "--format", "csv"}, ids...)},
		{name: "bad_protocol", args: []string{"--members", "2", "--topics", "t:2", "--protocol", "kip848"}, status: 2},
		{name: "bad_topic_id", args: []string{"--members", "2", "--topics", "t:2", "--strategy", "uniform", "--topic-id", "t=short"}, status: 2},
		{name: "bad_topic_id_reserved", args: []string{"--members", "2", "--topics", "t:2", "--strategy", "uniform", "--topic-id", "t=AAAAAAAAAAAAAAAAAAAAAA"}, status: 2},
		{name: "bad_topic_id_classic", args: []string{"--members", "2", "--topics", "t:2", "--topic-id", "t=Yp0cT2sWQ7ChA0qyU5Ckdg"}, status: 2},
		{name: "bad_migrate_to_classic", args: []string{"migrate", "--members", "2", "--topics", "t:2", "--to", "range"}, status: 2},
		{name: "bad_migrate_from_server", args: []string{"migrate", "--members", "2", "--topics", "t:2", "--from", "uniform"}, status: 2},
	})
}

// TestSimulateConsumerJoin works a join under the consumer protocol by
// hand. c0 and c1 (String.hashCode 3117 and 3118, HashMap buckets 13 and
// 14, so c0 first) share t-0..3 as c0 0,1 | c1 2,3 under uniform and
// server-range alike. c2 joins (bucket 15, last). Uniform: quotas of one
// and one +1, which c0, first and holding two, keeps; c1 keeps t-2 and
// releases t-3 to c2. Server-side range over c0, c1, c2: 0,1 | 2 | 3, the
// same. Either way c1 revokes t-3 at its first heartbeat while c2 waits
// for it, and c2 receives it in the second round: one move, two members
// affected, one revoked, two rounds, spread 1. Cooperative-sticky moves
// the same partition in two rebalances.
func TestSimulateConsumerJoin(t *testing.T) {
	got := simulateCSV(t, append([]string{"--members", "2", "--topics", "t:4", "--join", "c2", "--compare", "cooperative-sticky,uniform,server-range"}, ids...)...)
	want := [][]string{
		// step, change, strategy, moved, affected, revoked, rounds, spread
		{"0", "start", "cooperative-sticky", "0", "2", "0", "1", "0"},
		{"0", "start", "uniform", "0", "2", "0", "1", "0"},
		{"0", "start", "server-range", "0", "2", "0", "1", "0"},
		{"1", "join c2", "cooperative-sticky", "1", "2", "1", "2", "1"},
		{"1", "join c2", "uniform", "1", "2", "1", "2", "1"},
		{"1", "join c2", "server-range", "1", "2", "1", "2", "1"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("simulate mismatch (-want +got):\n%s", diff)
	}
}

// TestMigrateOwned works by hand the migration of a classic group where
// c0 owns all four partitions of t and c1 none. Uniform's quota is two;
// c0, first in HashMap order, keeps the first two of its HashSet
// {0,1,2,3} (which iterates in value order) and releases t-2 and t-3 to
// c1. Heartbeating c0, c1: in round 1 c0 must revoke t-2, t-3 and c1 waits
// for them, so both are idle; in round 2 c0 is done and c1 receives them.
func TestMigrateOwned(t *testing.T) {
	stdout, stderr, status := runCase(cliCase{
		args:  []string{"migrate", "--in", "-", "--format", "json"},
		stdin: `{"topics": {"t": 4}, "topicIds": {"t": "Yp0cT2sWQ7ChA0qyU5Ckdg"}, "members": [{"id": "c0", "topics": ["t"], "owned": {"t": [0, 1, 2, 3]}}, {"id": "c1", "topics": ["t"]}]}`,
	})
	if status != 0 || stderr != "" {
		t.Fatalf("exit status %d, stderr %q", status, stderr)
	}
	var got []struct {
		Assignment map[string]map[string][]int32
		From       string
		Moved      int
		Moves      []groupfile.Move
		Heartbeats []groupfile.Heartbeat
	}
	if err := json.NewDecoder(strings.NewReader(stdout)).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("%d results, want 1", len(got))
	}
	r := got[0]
	wantAssignment := map[string]map[string][]int32{"c0": {"t": {0, 1}}, "c1": {"t": {2, 3}}}
	wantMoves := []groupfile.Move{
		{Topic: "t", Partition: 2, From: "c0", To: "c1", Revoked: 1, Received: 2},
		{Topic: "t", Partition: 3, From: "c0", To: "c1", Revoked: 1, Received: 2},
	}
	wantBeats := []groupfile.Heartbeat{{Round: 1, Unrevoked: 1, Unreleased: 1, Idle: 2}, {Round: 2, Stable: 2}}
	if diff := cmp.Diff(wantAssignment, r.Assignment); diff != "" {
		t.Errorf("target mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantMoves, r.Moves); diff != "" {
		t.Errorf("moves mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantBeats, r.Heartbeats); diff != "" {
		t.Errorf("heartbeats mismatch (-want +got):\n%s", diff)
	}
	if r.From != "owned" || r.Moved != 2 {
		t.Errorf("from %q, moved %d; want owned, 2", r.From, r.Moved)
	}
}

// TestPreviewMoveBound: c0 holds all four partitions of t and c1 none.
// Any balanced answer gives each two, so at least two move, and every
// strategy here moves exactly two: no strategy is listed beyond the
// bound. Uniform keeps t-0, t-1 on c0 (TestMigrateOwned) and spreads the
// one topic as evenly as the totals: UNSPREAD 0 throughout.
func TestPreviewMoveBound(t *testing.T) {
	stdout, stderr, status := runCase(cliCase{
		args:  []string{"--in", "-", "--protocol", "consumer"},
		stdin: `{"topics": {"t": 4}, "topicIds": {"t": "Yp0cT2sWQ7ChA0qyU5Ckdg"}, "members": [{"id": "c0", "topics": ["t"], "owned": {"t": [0, 1, 2, 3]}, "generation": 1}, {"id": "c1", "topics": ["t"]}]}`,
	})
	if status != 0 || stderr != "" {
		t.Fatalf("exit status %d, stderr %q", status, stderr)
	}
	const want = "MOVED: at least 2 for an assignment as balanced as the best above\n"
	if !strings.Contains(stdout, want) {
		t.Errorf("preview lacks %q:\n%s", want, stdout)
	}
	for _, line := range strings.Split(stdout, "\n")[3:9] { // the six strategies
		f := strings.Fields(line)
		if len(f) != 8 || f[6] != "2" || f[7] != "0" {
			t.Errorf("row %q: want MOVED 2, UNSPREAD 0", line)
		}
	}
}
