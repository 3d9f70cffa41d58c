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
