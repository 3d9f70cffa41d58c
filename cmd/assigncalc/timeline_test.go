package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/assigncalc/assigncalc/timeline"
)

func TestTimelineGolden(t *testing.T) {
	crash := []string{"timeline", "--members", "3", "--topics", "t:6", "--crash", "c1@10s", "--processing", "1.3ms/record"}
	giveBack := []string{"timeline", "--members", "2", "--topics", "t:4", "--join", "c2@3s", "--close", "c2@3200ms", "--protocol", "consumer", "--strategy", "range",
		"--consumer-heartbeat-interval", "2s", "--processing", "7ms/record", "--max-poll-records", "100", "--steps"}
	runGolden(t, []cliCase{
		{name: "timeline_crash", args: crash},
		{name: "timeline_crash_steps", args: append(crash, "--strategy", "range", "--steps")},
		{name: "timeline_static_restart", args: []string{"timeline", "--members", "3", "--topics", "t:6", "--static", "--restart", "c1@10s+20s", "--restart", "c2@60s+50s", "--strategy", "range,sticky"}},
		{name: "timeline_crash_restart_franz", args: []string{"timeline", "--members", "3", "--topics", "t:6", "--crash", "c1@10s", "--restart", "c1@12s+3s", "--client", "franz-go"}},
		{name: "timeline_crash_restart_consumer", args: []string{"timeline", "--members", "3", "--topics", "t:6", "--crash", "c1@10s", "--restart", "c1@12s+3s", "--protocol", "consumer", "--topic-id", "t=3lYjVk0RTq2lXNuy2BqaAA"}},
		{name: "timeline_stall_consumer", args: []string{"timeline", "--members", "3", "--topics", "t:6", "--stall", "c2@30s+6m", "--protocol", "consumer", "--strategy", "uniform,range"}},
		{name: "timeline_forming_join", args: []string{"timeline", "--members", "2", "--topics", "t:4", "--forming", "--join", "c2@4s", "--grow", "t:+2@20s", "--metadata-max-age", "30s"}},
		{name: "timeline_in_jsonl", args: []string{"timeline", "--in", "-", "--close", "s1@5s", "--close", "d2@5s", "--strategy", "range", "--format", "jsonl"},
			stdin: `{"topics": {"t": 2}, "members": [{"id": "s1", "instance": "i1", "topics": ["t"]}, {"id": "d2", "topics": ["t"]}, {"id": "d3", "topics": ["t"]}]}`},
		{name: "timeline_in_owned", args: []string{"timeline", "--in", "-", "--crash", "b@10s", "--strategy", "range,sticky"}, stdin: ownedGroup},
		{name: "timeline_owned_deleted", args: []string{"timeline", "--in", "-", "--strategy", "range"},
			stdin: `{"topics": {"t": 2}, "members": [{"id": "a", "topics": ["t"], "owned": {"t": [0, 5]}}, {"id": "b", "topics": ["t"], "owned": {"t": [1]}}]}`},
		{name: "timeline_bad_member", args: []string{"timeline", "--members", "2", "--topics", "t:2", "--crash", "c9@10s"}, status: 2},
		{name: "timeline_bad_time", args: []string{"timeline", "--members", "2", "--topics", "t:2", "--stall", "c1@10s"}, status: 2},
		{name: "timeline_bad_protocol", args: []string{"timeline", "--members", "2", "--topics", "t:2", "--protocol", "eager"}, status: 2},
		{name: "timeline_bad_processing", args: []string{"timeline", "--members", "2", "--topics", "t:2", "--processing", "fast"}, status: 2},
		{name: "timeline_uniform_classic", args: []string{"timeline", "--members", "2", "--topics", "t:2", "--strategy", "uniform"}, status: 2},
		{name: "timeline_shrink", args: []string{"timeline", "--members", "2", "--topics", "t:4", "--grow", "t:2@1s"}, status: 2},
		// One scenario under the rules of three releases (worked by hand
		// in package timeline's TestKIP848ByKafkaVersion): c2 joins at 3s,
		// c1 is told to revoke t-3 and, before it does, c2 leaves and the
		// new target gives t-3 back. 4.1 holds t-3 back for a heartbeat,
		// 4.2 gives it back at the acknowledgement, 4.4 waits for the
		// assignment interval to compute that target.
		{name: "timeline_consumer_kafka41", args: append(slices.Clone(giveBack), "--kafka", "4.1")},
		{name: "timeline_consumer_kafka42", args: append(slices.Clone(giveBack), "--kafka", "4.2")},
		{name: "timeline_consumer_kafka44", args: giveBack},
		{name: "timeline_consumer_kafka44_no_interval", args: append(slices.Clone(giveBack), "--consumer-assignment-interval", "0")},
		{name: "timeline_bad_interval_version", args: append(slices.Clone(giveBack), "--kafka", "4.2", "--consumer-assignment-interval", "2s"), status: 2},
		{name: "timeline_bad_kafka", args: append(slices.Clone(giveBack), "--kafka", "3.9"), status: 2},
		{name: "timeline_never_settles", args: []string{"timeline", "--members", "2", "--topics", "t:4", "--heartbeat-interval", "20s", "--session-timeout", "60s", "--max-poll-interval", "10s", "--processing", "1ms/record", "--max-poll-records", "1", "--join", "c2@1s"}, status: 2},
	})
}

// ownedGroup is a stable group with an assignment no strategy gives: a
// owns t-0,1,2 and b owns t-3.
const ownedGroup = `{"topics": {"t": 4}, "members": [{"id": "a", "topics": ["t"], "owned": {"t": [0, 1, 2]}}, {"id": "b", "topics": ["t"], "owned": {"t": [3]}}]}`

// soleSurvivor works out by hand, with Kafka's defaults (session 45 s,
// heartbeat 3 s, a poll every 500 × 2 ms = 1 s), no round trip and the
// phases --seed 1 draws, when the crashed member of a group of two, which
// crashes at 10 s, expires, and when the survivor rejoins, which ends the
// join phase at once (it is the only member left).
func soleSurvivor(crashed, survivor string) (expire, rejoin int64) {
	c := timeline.DrawPhase(1, crashed, 3_000, 1_000)
	last := c.Heartbeat + (10_000-c.Heartbeat)/3_000*3_000 // its last beat before the crash
	expire = last + 45_000
	s := timeline.DrawPhase(1, survivor, 3_000, 1_000)
	beat := s.Heartbeat + (expire-s.Heartbeat+2_999)/3_000*3_000 // its first beat from then
	rejoin = s.Poll + (beat-s.Poll+999)/1_000*1_000              // its first poll from then
	return expire, rejoin
}

// TestTimelineStartsFromOwned: the timeline starts from what the members
// own. b crashes at 10 s and expires a session timeout after its last
// heartbeat; a hears of it at its next heartbeat, rejoins at its next poll
// and takes t-3: t-3 alone waits, from 10 s to then, whatever the
// strategy.
func TestTimelineStartsFromOwned(t *testing.T) {
	_, rejoin := soleSurvivor("b", "a")
	stdout, stderr, status := runCase(cliCase{args: []string{"timeline", "--in", "-", "--crash", "b@10s", "--strategy", "range,sticky", "--format", "jsonl", "--rtt", "0"}, stdin: ownedGroup})
	if status != 0 {
		t.Fatalf("exit status %d, stderr %q", status, stderr)
	}
	for line := range strings.Lines(stdout) {
		var tl struct {
			Strategy   string
			Partitions map[string]struct{ Unowned [][2]int64 }
		}
		if err := json.Unmarshal([]byte(line), &tl); err != nil {
			t.Fatal(err)
		}
		want := map[string][][2]int64{"t-0": {}, "t-1": {}, "t-2": {}, "t-3": {{10_000, rejoin}}}
		got := map[string][][2]int64{}
		for tp, p := range tl.Partitions {
			got[tp] = p.Unowned
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: unowned spans mismatch (-want +got):\n%s", tl.Strategy, diff)
		}
	}
}

// TestTimelineJSON works a crash by hand (soleSurvivor) and checks the
// fields the JSON output promises: t-1 waits from the crash until c0
// rejoins; t-0, which c0 revokes as it rejoins and receives back at once,
// never waits.
func TestTimelineJSON(t *testing.T) {
	expire, rejoin := soleSurvivor("c1", "c0")
	stdout, stderr, status := runCase(cliCase{args: []string{"timeline", "--members", "2", "--topics", "t:2", "--crash", "c1@10s", "--strategy", "range", "--format", "json", "--rtt", "0"}})
	if status != 0 {
		t.Fatalf("exit status %d, stderr %q", status, stderr)
	}
	type span [2]int64
	var got []struct {
		Strategy   string `json:"strategy"`
		Rebalances []struct {
			Start, End int64
			Reason     string
			Generation int32
		} `json:"rebalances"`
		Partitions map[string]struct {
			Unowned []span `json:"unowned"`
		} `json:"partitions"`
		Summary struct {
			Rebalances         int   `json:"rebalances"`
			MaxUnownedMs       int64 `json:"maxUnownedMs"`
			UnownedPartitionMs int64 `json:"unownedPartitionMs"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("output is not a JSON array of timelines: %v\n%s", err, stdout)
	}
	if len(got) != 1 || got[0].Strategy != "range" {
		t.Fatalf("want one timeline, for range; got %+v", got)
	}
	tl := got[0]
	type rebalance = struct {
		Start, End int64
		Reason     string
		Generation int32
	}
	if diff := cmp.Diff([]rebalance{{expire, rejoin, "c1: session timeout", 2}}, []rebalance(tl.Rebalances)); diff != "" {
		t.Errorf("rebalances mismatch (-want +got):\n%s", diff)
	}
	if u := tl.Partitions["t-0"].Unowned; len(u) != 0 {
		t.Errorf("t-0 unowned %v, want never", u)
	}
	if diff := cmp.Diff([]span{{10_000, rejoin}}, tl.Partitions["t-1"].Unowned); diff != "" {
		t.Errorf("t-1 unowned mismatch (-want +got):\n%s", diff)
	}
	if s := tl.Summary; s.Rebalances != 1 || s.MaxUnownedMs != rejoin-10_000 || s.UnownedPartitionMs != rejoin-10_000 {
		t.Errorf("summary %+v, want 1 rebalance, %d ms longest and in all", s, rejoin-10_000)
	}
	// The field names are a contract: check them literally too.
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(stdout)); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{
		fmt.Sprintf(`"rebalances":[{"start":%d,"end":%d,"reason":"c1: session timeout","generation":2}]`, expire, rejoin),
		fmt.Sprintf(`"t-1":{"unowned":[[10000,%d]]`, rejoin),
		fmt.Sprintf(`"summary":{"rebalances":1,"maxUnownedMs":%d,"unownedPartitionMs":%d,"seed":1,"samples":1}`, rejoin-10_000, rejoin-10_000),
	} {
		if !strings.Contains(compact.String(), key) {
			t.Errorf("output lacks %s:\n%s", key, compact.String())
		}
	}
}

// TestTimelineSVG checks that --svg writes a well-formed picture that
// labels every partition in every strategy's panel, and leaves stdout to
// the table.
func TestTimelineSVG(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.svg")
	stdout, stderr, status := runCase(cliCase{args: []string{"timeline", "--members", "3", "--topics", "t:3,u:2", "--crash", "c1@10s", "--svg", path}})
	if status != 0 {
		t.Fatalf("exit status %d, stderr %q", status, stderr)
	}
	if !strings.Contains(stdout, "LONGEST PAUSE") {
		t.Errorf("stdout lacks the summary table:\n%s", stdout)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	labels := map[string]int{}
	dec := xml.NewDecoder(f)
	var text string
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s is not well-formed XML: %v", path, err)
		}
		switch tok := tok.(type) {
		case xml.CharData:
			text = string(tok)
		case xml.EndElement:
			if tok.Name.Local == "text" {
				labels[text]++
			}
		}
	}
	for _, tp := range []string{"t-0", "t-1", "t-2", "u-0", "u-1"} {
		if labels[tp] != 2 {
			t.Errorf("%s labelled %d times, want 2 (range and cooperative-sticky)", tp, labels[tp])
		}
	}
}

func TestTimelineHelpHasExample(t *testing.T) {
	stdout, _, status := runCase(cliCase{args: []string{"timeline", "--help"}})
	if status != 0 || !strings.Contains(stdout, "Example") || !strings.Contains(stdout, "   assigncalc timeline ") {
		t.Errorf("assigncalc timeline --help: status %d, no example:\n%s", status, stdout)
	}
}

// TestTimelineSamplesJSON: with --samples the JSON summary carries the
// number of draws and p50, p95 and max of each figure, ordered as
// percentiles must be.
func TestTimelineSamplesJSON(t *testing.T) {
	stdout, stderr, status := runCase(cliCase{args: []string{"timeline", "--members", "3", "--topics", "t:6", "--crash", "c1@10s", "--strategy", "range", "--format", "jsonl", "--samples", "9", "--seed", "4"}})
	if status != 0 {
		t.Fatalf("exit status %d, stderr %q", status, stderr)
	}
	type point struct{ MaxUnownedMs, UnownedPartitionMs, RebalanceMs int64 }
	var tl struct {
		Summary struct {
			Seed          uint64
			Samples       int
			P50, P95, Max *point
		}
	}
	if err := json.Unmarshal([]byte(stdout), &tl); err != nil {
		t.Fatal(err)
	}
	s := tl.Summary
	if s.Samples != 9 || s.Seed != 4 || s.P50 == nil || s.P95 == nil || s.Max == nil {
		t.Fatalf("summary %+v: want samples 9, seed 4 and p50, p95, max", s)
	}
	if s.P50.UnownedPartitionMs > s.P95.UnownedPartitionMs || s.P95.UnownedPartitionMs > s.Max.UnownedPartitionMs || s.P50.UnownedPartitionMs <= 0 {
		t.Errorf("unowned partition-ms p50 %d p95 %d max %d: want 0 < p50 <= p95 <= max", s.P50.UnownedPartitionMs, s.P95.UnownedPartitionMs, s.Max.UnownedPartitionMs)
	}
	if _, _, status := runCase(cliCase{args: []string{"timeline", "--members", "3", "--topics", "t:6", "--samples", "0"}}); status != 2 {
		t.Errorf("--samples 0: exit status %d, want 2", status)
	}
}

// TestTimelineREADMEPartitions shows what README's rebalance timelines
// say of single partitions, which their tables only sum: after a crash
// range stops every partition, cooperative-sticky only the crashed
// member's two; after a crash and a new process within the session,
// range stops every partition for more than half of the rebalance that
// waits for the old member.id; a join into six members stops all 24
// partitions under range and the three that move under
// cooperative-sticky, wherever it falls in the heartbeat cycle.
func TestTimelineREADMEPartitions(t *testing.T) {
	type spans struct {
		Rebalances []struct{ Start, End int64 }
		Partitions map[string]struct{ Unowned [][2]int64 }
	}
	play := func(args ...string) []spans {
		t.Helper()
		stdout, stderr, status := runCase(cliCase{args: append([]string{"timeline", "--format", "json"}, args...)})
		if status != 0 {
			t.Fatalf("%v: exit status %d, stderr %q", args, status, stderr)
		}
		var tls []spans
		if err := json.Unmarshal([]byte(stdout), &tls); err != nil {
			t.Fatal(err)
		}
		if len(tls) != 2 {
			t.Fatalf("%v: %d timelines, want range and cooperative-sticky", args, len(tls))
		}
		return tls
	}
	stopped := func(s spans, atLeast int64) int {
		n := 0
		for _, p := range s.Partitions {
			var total int64
			for _, u := range p.Unowned {
				total += u[1] - u[0]
			}
			if total > atLeast {
				n++
			}
		}
		return n
	}
	crash := play("--members", "3", "--topics", "t:6", "--crash", "c1@10s", "--processing", "1.3ms/record")
	if n := stopped(crash[0], 0); n != 6 {
		t.Errorf("crash: range stops %d partitions, want 6", n)
	}
	if n := stopped(crash[1], 0); n != 2 {
		t.Errorf("crash: cooperative-sticky stops %d partitions, want 2", n)
	}
	back := play("--members", "3", "--topics", "t:6", "--crash", "c1@10s", "--restart", "c1@12s+3s")
	if len(back[0].Rebalances) != 1 {
		t.Fatalf("crash and restart: range rebalances %d times, want 1", len(back[0].Rebalances))
	}
	r := back[0].Rebalances[0]
	if n := stopped(back[0], (r.End-r.Start)/2); n != 6 {
		t.Errorf("crash and restart: range stops %d partitions for more than half of %d ms, want 6", n, r.End-r.Start)
	}
	if n := stopped(back[1], 0); n != 2 {
		t.Errorf("crash and restart: cooperative-sticky stops %d partitions, want 2", n)
	}
	for _, at := range []string{"90s", "90.5s", "92.9s"} {
		join := play("--members", "6", "--topics", "t:24", "--join", "new@"+at, "--processing", "5ms/record")
		if n := stopped(join[0], 0); n != 24 {
			t.Errorf("join at %s: range stops %d partitions, want 24", at, n)
		}
		if n := stopped(join[1], 0); n != 3 {
			t.Errorf("join at %s: cooperative-sticky stops %d partitions, want 3", at, n)
		}
	}
}
