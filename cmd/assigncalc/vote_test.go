package main

import (
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestVoteGolden(t *testing.T) {
	runGolden(t, []cliCase{
		{name: "vote_table", args: []string{"vote", "c1=cooperative-sticky,range", "c2=range", "c3=sticky"}},
		{name: "vote_cooperative", args: []string{"vote", "c1=cooperative-sticky", "c2=cooperative-sticky,range"}},
		{name: "vote_json", args: []string{"vote", "--format", "json", "c1=cooperative-sticky,range", "c2=range"}},
		{name: "vote_jsonl", args: []string{"vote", "--format", "jsonl", "--coordinator", "scala", "c1=cooperative-sticky,range", "c2=range", "c3=sticky"}},
		{name: "vote_consumer_group", args: []string{"vote", "--kind", "consumer", "c1=cooperative-sticky,range", "c2=range"}},
		{name: "vote_upgrade_json", args: []string{"vote", "--upgrade", "range", "--to", "cooperative-sticky", "--members", "2", "--format", "json"}, status: exitUnsafe},
		{name: "vote_upgrade_jsonl", args: []string{"vote", "--upgrade", "range", "--to", "cooperative-sticky", "--members", "2", "--format", "jsonl"}, status: exitUnsafe},
		{name: "vote_csv", args: []string{"vote", "--format", "csv", "c1=cooperative-sticky,range", "c2=range", "c3=sticky"}},
		{name: "vote_in", args: []string{"vote", "--in", "-"},
			stdin: `{"topics": {}, "members": [{"id": "a", "topics": [], "protocols": ["sticky", "range"]}, {"id": "b", "topics": [], "protocols": ["range", "sticky"]}, {"id": "c", "topics": [], "protocols": ["sticky"]}]}`},
		{name: "vote_upgrade_two_steps", args: []string{"vote", "--upgrade", "range", "--to", "cooperative-sticky,range", "--to", "cooperative-sticky"}},
		{name: "vote_upgrade_one_step", args: []string{"vote", "--upgrade", "range", "--to", "cooperative-sticky", "--members", "2"}, status: exitUnsafe},
		{name: "vote_upgrade_moves", args: []string{"vote", "--upgrade", "range", "--to", "cooperative-sticky,range", "--to", "cooperative-sticky", "--topics", "t1:4,t2:4"}},
		{name: "vote_upgrade_csv", args: []string{"vote", "--upgrade", "range", "--to", "cooperative-sticky", "--members", "2", "--format", "csv"}, status: exitUnsafe},
		{name: "vote_no_members", args: []string{"vote"}, status: 2},
		{name: "vote_bad_member", args: []string{"vote", "c1"}, status: 2},
		{name: "vote_duplicate_member", args: []string{"vote", "c1=range", "c1=range"}, status: 2},
		{name: "vote_bad_coordinator", args: []string{"vote", "--coordinator", "go", "c1=range"}, status: 2},
		{name: "vote_in_without_protocols", args: []string{"vote", "--in", "-"}, stdin: `{"topics": {}, "members": [{"id": "a", "topics": []}]}`, status: 2},
	})
}

// TestVoteByHand checks a vote worked out from Kafka's rules: the
// candidates are what every member supports; each member votes for its
// first candidate; sticky gets a's and c's ballots, range b's.
func TestVoteByHand(t *testing.T) {
	stdout, stderr, status := runCase(cliCase{args: []string{"vote", "--format", "jsonl", "a=sticky,range", "b=range,sticky", "c=sticky,range,roundrobin"}})
	if status != 0 {
		t.Fatalf("exit status %d, stderr %q", status, stderr)
	}
	var got struct {
		Candidates  []string
		Ballots     []struct{ Member, Strategy string }
		Votes       map[string]int
		Winner      string
		Coordinator string
		Refused     map[string]string
		Rebalance   map[string]string
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatal(err)
	}
	want := got
	want.Candidates = []string{"range", "sticky"}
	want.Ballots = []struct{ Member, Strategy string }{{"a", "sticky"}, {"b", "range"}, {"c", "sticky"}}
	want.Votes = map[string]int{"sticky": 2, "range": 1}
	want.Winner = "sticky"
	want.Coordinator = "java"
	want.Refused = map[string]string{}
	want.Rebalance = map[string]string{"a": "eager", "b": "eager", "c": "eager"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("vote mismatch (-want +got):\n%s", diff)
	}
}

// TestUpgradeMovesAndStatus: three members on t1:4 and t2:4. Range gives
// c0 t1-0,1 and t2-0,1, c1 t1-2 and t2-2, c2 t1-3 and t2-3: 4, 2, 2. When
// the group switches to cooperative-sticky (step 3 of the two-step
// upgrade), balance takes one partition from c0: 1 moved, and only there.
// The two-step upgrade is safe (status 0); the one-step one refuses c0
// and exits with status 3.
func TestUpgradeMovesAndStatus(t *testing.T) {
	stdout, stderr, status := runCase(cliCase{args: []string{"vote", "--upgrade", "range", "--to", "cooperative-sticky,range", "--to", "cooperative-sticky", "--topics", "t1:4,t2:4", "--format", "csv"}})
	if status != 0 {
		t.Fatalf("exit %d, stderr %q", status, stderr)
	}
	rows, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var moved []string
	for _, r := range rows[1:] {
		moved = append(moved, r[8])
	}
	if diff := cmp.Diff([]string{"", "", "", "1", "", "", ""}, moved); diff != "" {
		t.Errorf("moved per step mismatch (-want +got):\n%s", diff)
	}
	_, stderr, status = runCase(cliCase{args: []string{"vote", "--upgrade", "range", "--to", "cooperative-sticky"}})
	if status != exitUnsafe || !strings.Contains(stderr, "unsafe upgrade") {
		t.Errorf("one-step upgrade: exit %d, stderr %q; want %d and a line saying it is unsafe", status, stderr, exitUnsafe)
	}
}
