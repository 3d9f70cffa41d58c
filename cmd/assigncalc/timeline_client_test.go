package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestTimelineClientCooperativeCheck: --client franz-go gives the members
// kgo's extra heartbeat 500 ms after each assignment of a cooperative
// group (timeline.Config.CooperativeCheck), so the follow-up round of a
// cooperative join ends sooner than with Java's consumer.
//
// Kafka's defaults: heartbeat 3000 ms, a batch of 500 × 2 ms = 1000 ms.
// With --seed 1 and --rtt 0 the first round ends at 13352 ms, where c3
// receives nothing and c2 revokes and rejoins at once. A Java c3 hears of
// the follow-up at its heartbeat 3000 ms later, 16352, and rejoins at its
// poll then; a kgo c3 hears at 13352 + 500 = 13852 and rejoins at its
// next poll, 13352 + 1000 = 14352, which ends the follow-up.
func TestTimelineClientCooperativeCheck(t *testing.T) {
	for _, tc := range []struct {
		client string
		end    int64
	}{{"java", 16_352}, {"franz-go", 14_352}} {
		var out, errw bytes.Buffer
		args := strings.Fields("assigncalc timeline --members 3 --topics t:6 --join c3@10s --strategy cooperative-sticky --rtt 0 --seed 1 --format json --client " + tc.client)
		if status := run(args, strings.NewReader(""), &out, &errw); status != 0 {
			t.Fatalf("--client %s: status %d, stderr %s", tc.client, status, errw.String())
		}
		var got []struct {
			Rebalances []struct {
				Start, End int64
				Reason     string
			}
		}
		if err := json.Unmarshal(out.Bytes(), &got); err != nil {
			t.Fatalf("--client %s: %v", tc.client, err)
		}
		if len(got) != 1 || len(got[0].Rebalances) != 2 {
			t.Fatalf("--client %s: want one strategy with two rebalances, got %+v", tc.client, got)
		}
		first, follow := got[0].Rebalances[0], got[0].Rebalances[1]
		if first.End != 13_352 || follow.Start != 13_352 || follow.End != tc.end {
			t.Errorf("--client %s: rebalances %+v, want the first to end at 13352 and the follow-up at %d", tc.client, got[0].Rebalances, tc.end)
		}
	}
}

// timelineRebalances runs the timeline command with args and stdin and
// returns the rebalances of its one strategy.
func timelineRebalances(t *testing.T, args, stdin string) []struct{ Start, End int64 } {
	t.Helper()
	var out, errw bytes.Buffer
	if status := run(strings.Fields(args), strings.NewReader(stdin), &out, &errw); status != 0 {
		t.Fatalf("%s: status %d, stderr %s", args, status, errw.String())
	}
	var got []struct{ Rebalances []struct{ Start, End int64 } }
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%s: %v", args, err)
	}
	if len(got) != 1 {
		t.Fatalf("%s: want one strategy, got %+v", args, got)
	}
	return got[0].Rebalances
}

// TestTimelineClientRejoinBackoff: --client sarama gives the members
// sarama's wait of Consumer.Group.Rebalance.Retry.Backoff (2 s) after a
// SyncGroup answered REBALANCE_IN_PROGRESS (timeline.Config.RejoinBackoff).
//
// c0 and c1 form a group at 0 with no initial delay and 10 ms round trips.
// c0's JoinGroup alone ends a join phase at 0; c1's, at 0 too, starts
// another during c0's SyncGroup round trip. A Java or kafka-go c0 counts
// as rejoined, and generation 2 reaches the members two round trips
// later, at 20 ms; a sarama c0 rejoins at 2000 ms, and generation 2
// arrives at 2020 ms. In a group file a member's own client decides: a
// sarama c1 is the member that interrupts and waits for nothing, 20 ms.
func TestTimelineClientRejoinBackoff(t *testing.T) {
	const flags = "assigncalc timeline --members 2 --topics t:2 --forming --initial-delay 0 --rtt 10ms --strategy range --format json"
	for _, tc := range []struct {
		client string
		end    int64
	}{{"java", 20}, {"kafka-go", 20}, {"sarama", 2_020}} {
		got := timelineRebalances(t, flags+" --client "+tc.client, "")
		if len(got) != 2 || got[1].Start != 0 || got[1].End != tc.end {
			t.Errorf("--client %s: rebalances %+v, want the second to run from 0 to %d", tc.client, got, tc.end)
		}
	}
	const in = "assigncalc timeline --in - --forming --initial-delay 0 --rtt 10ms --strategy range --format json"
	for _, tc := range []struct {
		sarama string
		end    int64
	}{{"c0", 2_020}, {"c1", 20}} {
		group := `{"topics": {"t": 2}, "members": [` +
			`{"id": "c0", "topics": ["t"]` + map[bool]string{true: `, "client": "sarama"`}[tc.sarama == "c0"] + `},` +
			`{"id": "c1", "topics": ["t"]` + map[bool]string{true: `, "client": "sarama"`}[tc.sarama == "c1"] + `}]}`
		got := timelineRebalances(t, in, group)
		if len(got) != 2 || got[1].End != tc.end {
			t.Errorf("sarama %s: rebalances %+v, want the second to end at %d", tc.sarama, got, tc.end)
		}
	}
}
