package main

import (
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// tid gives topic t a fixed topic id, so that simple runs without the
// derived-id warning.
var tid = []string{"--topic-id", "t=Yp0cT2sWQ7ChA0qyU5Ckdg"}

func TestShareGolden(t *testing.T) {
	group := `{"name": "orders", "topics": {"t": 2}, "topicIds": {"t": "Yp0cT2sWQ7ChA0qyU5Ckdg"}, "members": [{"id": "c0", "topics": ["t"]}, {"id": "c1", "topics": ["t"]}, {"id": "c2", "topics": ["t"]}]}`
	runGolden(t, []cliCase{
		{name: "share_preview", args: append([]string{"--members", "5", "--topics", "t:2", "--protocol", "share"}, tid...)},
		{name: "share_preview_json", args: append([]string{"--members", "3", "--topics", "t:2", "--protocol", "share", "--format", "json"}, tid...)},
		{name: "share_preview_csv", args: append([]string{"--members", "3", "--topics", "t:2", "--protocol", "share", "--format", "csv"}, tid...)},
		{name: "share_plan_jsonl", args: []string{"plan", "--in", "-", "--protocol", "share", "--format", "jsonl"}, stdin: group},
		{name: "share_plan_table", args: []string{"plan", "--in", "-", "--protocol", "share", "--format", "table", "--kafka", "4.2"}, stdin: group},
		{name: "share_plan_csv", args: []string{"plan", "--in", "-", "--protocol", "share", "--format", "csv"}, stdin: group},
		{name: "share_simulate", args: append([]string{"simulate", "--members", "3", "--topics", "t:2", "--join", "c3", "--leave", "c0", "--protocol", "share"}, tid...)},
		{name: "share_simulate_jsonl", args: append([]string{"simulate", "--members", "2", "--topics", "t:2", "--join", "c2", "--protocol", "share", "--format", "jsonl"}, tid...)},
		{name: "share_timeline", args: append([]string{"timeline", "--members", "3", "--topics", "t:2", "--protocol", "share", "--crash", "c1@10s"}, tid...)},
		{name: "share_timeline_interval", args: append([]string{"timeline", "--members", "2", "--topics", "t:1", "--protocol", "share", "--join", "c2@10s", "--close", "c0@10.2s", "--join", "c3@10.5s", "--kafka", "4.3", "--steps"}, tid...)},
		{name: "share_timeline_interval_42", args: append([]string{"timeline", "--members", "2", "--topics", "t:1", "--protocol", "share", "--join", "c2@10s", "--close", "c0@10.2s", "--join", "c3@10.5s", "--kafka", "4.2", "--steps"}, tid...)},
		{name: "share_timeline_interval_0", args: append([]string{"timeline", "--members", "2", "--topics", "t:1", "--protocol", "share", "--join", "c2@10s", "--close", "c0@10.2s", "--join", "c3@10.5s", "--share-assignment-interval", "0"}, tid...)},
		{name: "bad_share_interval_kafka42", args: []string{"timeline", "--members", "2", "--topics", "t:2", "--protocol", "share", "--kafka", "4.2", "--share-assignment-interval", "2s"}, status: 2},
		{name: "bad_share_interval_consumer", args: []string{"timeline", "--members", "2", "--topics", "t:2", "--protocol", "consumer", "--share-assignment-interval", "2s"}, status: 2},
		{name: "bad_share_interval_negative", args: []string{"timeline", "--members", "2", "--topics", "t:2", "--protocol", "share", "--share-assignment-interval", "-1s"}, status: 2},
		{name: "bad_share_strategy", args: []string{"--members", "2", "--topics", "t:2", "--protocol", "share", "--strategy", "range"}, status: 2},
		{name: "bad_share_compare", args: []string{"--members", "2", "--topics", "t:2", "--protocol", "share", "--compare", "simple,uniform"}, status: 2},
		{name: "bad_share_kafka41", args: []string{"--members", "2", "--topics", "t:2", "--protocol", "share", "--kafka", "4.1"}, status: 2},
		{name: "bad_share_kafka40_plan", args: []string{"plan", "--in", "-", "--protocol", "share", "--kafka", "4.0.1"}, stdin: group, status: 2},
		{name: "bad_simple_classic", args: []string{"--members", "2", "--topics", "t:2", "--strategy", "simple"}, status: 2},
		{name: "bad_simple_consumer_plan", args: []string{"plan", "--in", "-", "--strategy", "uniform,simple"}, stdin: group, status: 2},
		{name: "bad_share_simulate_moves", args: []string{"simulate", "--members", "2", "--topics", "t:2", "--join", "c2", "--protocol", "share", "--moves"}, status: 2},
		{name: "bad_share_simulate_strategy", args: []string{"simulate", "--members", "2", "--topics", "t:2", "--protocol", "share", "--compare", "cooperative-sticky"}, status: 2},
		{name: "bad_share_timeline_static", args: []string{"timeline", "--members", "2", "--topics", "t:2", "--protocol", "share", "--static"}, status: 2},
		{name: "bad_share_timeline_kafka", args: []string{"timeline", "--members", "2", "--topics", "t:2", "--protocol", "share", "--kafka", "4.1"}, status: 2},
	})
}

// TestSharePreviewOnePartition works a share group by hand: three members
// on one partition, whose desired sharing is ceil(3/1) = 3, so every
// member holds t-0 and it is shared by all three.
func TestSharePreviewOnePartition(t *testing.T) {
	args := append([]string{"--members", "3", "--topics", "t:1", "--protocol", "share", "--format", "jsonl"}, tid...)
	stdout, stderr, status := runCase(cliCase{args: args})
	if status != 0 || stderr != "" {
		t.Fatalf("exit status %d, stderr %q", status, stderr)
	}
	var got struct {
		Strategy   string                      `json:"strategy"`
		Assignment map[string]map[string][]int `json:"assignment"`
		Protocol   string                      `json:"protocol"`
		Kafka      string                      `json:"kafka"`
		MaxSharing int                         `json:"maxSharing"`
		Sharing    []struct {
			Topic     string   `json:"topic"`
			Partition int      `json:"partition"`
			Count     int      `json:"count"`
			Members   []string `json:"members"`
		} `json:"sharing"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	t0 := map[string][]int{"t": {0}}
	if got.Strategy != "simple" || got.Protocol != "share" || got.Kafka != "4.4" || got.MaxSharing != 3 {
		t.Errorf("strategy %q, protocol %q, kafka %q, maxSharing %d; want simple, share, 4.4, 3", got.Strategy, got.Protocol, got.Kafka, got.MaxSharing)
	}
	if diff := cmp.Diff(map[string]map[string][]int{"c0": t0, "c1": t0, "c2": t0}, got.Assignment); diff != "" {
		t.Errorf("assignment mismatch (-want +got):\n%s", diff)
	}
	if len(got.Sharing) != 1 || got.Sharing[0].Topic != "t" || got.Sharing[0].Partition != 0 || got.Sharing[0].Count != 3 || !cmp.Equal(got.Sharing[0].Members, []string{"c0", "c1", "c2"}) {
		t.Errorf("sharing %+v; want t-0 shared by c0, c1, c2", got.Sharing)
	}
}

// TestShareSimulateOnePartition: on one partition every member holds it
// (sharing ceil(S/1) = S). Start: two members each receive t-0. c2
// joins: it receives t-0, nobody revokes, one member affected, shared by
// three. c0 leaves: nobody who stays receives or revokes anything, shared
// by two. One heartbeat round each.
func TestShareSimulateOnePartition(t *testing.T) {
	args := append([]string{"simulate", "--members", "2", "--topics", "t:1", "--join", "c2", "--leave", "c0", "--protocol", "share", "--format", "csv"}, tid...)
	stdout, stderr, status := runCase(cliCase{args: args})
	if status != 0 || stderr != "" {
		t.Fatalf("exit status %d, stderr %q", status, stderr)
	}
	rows, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var got [][]string
	for _, r := range rows {
		got = append(got, r[:9])
	}
	want := [][]string{
		{"step", "change", "strategy", "received", "revoked", "affected", "rounds", "spread", "maxSharing"},
		{"0", "start", "simple", "2", "0", "2", "1", "0", "2"},
		{"1", "join c2", "simple", "1", "0", "1", "1", "0", "3"},
		{"2", "leave c0", "simple", "0", "0", "0", "1", "0", "2"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("simulate --protocol share mismatch (-want +got):\n%s", diff)
	}
}

// TestSharePreviewOwned works a preview from current targets by hand:
// c0 holds both partitions of t, c1 nothing. Two members on two
// partitions: a desired sharing of one, one partition each, so c0 keeps
// one and c1 receives the other: one received, one revoked.
func TestSharePreviewOwned(t *testing.T) {
	in := `{"topics": {"t": 2}, "topicIds": {"t": "Yp0cT2sWQ7ChA0qyU5Ckdg"}, "members": [{"id": "c0", "topics": ["t"], "owned": {"t": [0, 1]}}, {"id": "c1", "topics": ["t"]}]}`
	stdout, stderr, status := runCase(cliCase{args: []string{"--in", "-", "--protocol", "share"}, stdin: in})
	if status != 0 || stderr != "" {
		t.Fatalf("exit status %d, stderr %q", status, stderr)
	}
	lines := strings.Split(stdout, "\n")
	if len(lines) < 4 || strings.Join(strings.Fields(lines[2]), " ") != "STRATEGY MIN MAX SPREAD STDDEV IDLE MAX SHARING RECEIVED REVOKED" ||
		strings.Join(strings.Fields(lines[3]), " ") != "simple 1 1 0 0.00 0 1 1 1" {
		t.Errorf("preview from current targets:\n%s\nwant simple 1 1 0 0.00 0, max sharing 1, received 1, revoked 1", stdout)
	}
}

// TestShareCSVSharingRows: the preview's CSV of three members on one
// partition has one sharing row, t-0 held by all three, and maxSharing 3.
func TestShareCSVSharingRows(t *testing.T) {
	args := append([]string{"--members", "3", "--topics", "t:1", "--protocol", "share", "--format", "csv"}, tid...)
	stdout, _, status := runCase(cliCase{args: args})
	if status != 0 {
		t.Fatalf("exit status %d", status)
	}
	rows, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var sharing [][]string
	for _, r := range rows {
		if r[0] == "sharing" || (r[0] == "stats" && r[8] == "maxSharing") {
			sharing = append(sharing, r)
		}
	}
	want := [][]string{
		{"sharing", "", "simple", "", "", "t", "3", "0", "", "c0 c1 c2"},
		{"stats", "", "simple", "", "", "", "", "", "maxSharing", "3"},
	}
	if diff := cmp.Diff(want, sharing); diff != "" {
		t.Errorf("sharing rows mismatch (-want +got):\n%s", diff)
	}
}

// TestTimelineTopicIDsFromFile: timeline --in takes the topic ids of the
// group file, under the consumer protocol and in a share group (it once
// dropped them and derived ids from the names, with a warning), and a
// share group's file may give one partition to several members.
func TestTimelineTopicIDsFromFile(t *testing.T) {
	in := `{"topics":{"t":1},"topicIds":{"t":"Yp0cT2sWQ7ChA0qyU5Ckdg"},"members":[` +
		`{"id":"c0","topics":["t"],"owned":{"t":[0]}},{"id":"c1","topics":["t"],"owned":{"t":[0]}}]}`
	for _, protocol := range []string{"consumer", "share"} {
		in := in
		if protocol == "consumer" { // one owner a partition
			in = strings.Replace(in, `"owned":{"t":[0]}}]`, `"owned":{}}]`, 1)
		}
		_, stderr, status := runCase(cliCase{args: []string{"timeline", "--in", "-", "--protocol", protocol, "--crash", "c0@10s"}, stdin: in})
		if status != 0 || stderr != "" {
			t.Errorf("timeline --protocol %s: status %d, stderr %q; want 0 and nothing (no derived ids)", protocol, status, stderr)
		}
	}
}

// TestShareSimulateKafka43AsKafka42: simulate plays rounds, not time, so
// the share assignment interval of 4.3 changes nothing (churn/share.go):
// the same table under --kafka 4.2 and 4.3, but for the version named.
func TestShareSimulateKafka43AsKafka42(t *testing.T) {
	out := map[string]string{}
	for _, v := range []string{"4.2", "4.3"} {
		args := []string{"simulate", "--members", "3", "--topics", "t:2", "--topic-id", "t=Yp0cT2sWQ7ChA0qyU5Ckdg", "--join", "c3", "--leave", "c0",
			"--protocol", "share", "--kafka", v}
		stdout, stderr, status := runCase(cliCase{args: args})
		if status != 0 || stderr != "" {
			t.Fatalf("assigncalc %s: status %d, stderr %q", strings.Join(args, " "), status, stderr)
		}
		if !strings.Contains(stdout, "Kafka "+v) {
			t.Fatalf("simulate --kafka %s does not name its version:\n%s", v, stdout)
		}
		out[v] = strings.ReplaceAll(stdout, "Kafka "+v, "Kafka V")
	}
	if out["4.2"] != out["4.3"] {
		t.Errorf("simulate --protocol share --kafka 4.3 differs from 4.2:\n4.2:\n%s\n4.3:\n%s", out["4.2"], out["4.3"])
	}
}
