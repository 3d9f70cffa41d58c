package timeline_test

import (
	"fmt"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/timeline"
)

// Three consumers with Kafka's default timeouts share six partitions under
// Range; c1 crashes 10 s in. Its last heartbeat was at 9 s, so the
// coordinator expires it at 9 + 45 = 54 s. c0 and c2 hear of the rebalance
// from their heartbeats at 54 s and rejoin at their next poll, at 54.6 s
// (they poll every 650 ms: 500 records of 1.3 ms). c1's partitions wait
// from the crash to the end of the rebalance.
func Example() {
	cfg := timeline.DefaultConfig()
	cfg.RecordMicros = 1_300
	var members []timeline.Member
	for _, id := range []string{"c0", "c1", "c2"} {
		members = append(members, timeline.Member{ID: id, Topics: []string{"t"}, Config: &cfg})
	}
	tl, err := timeline.Simulate(timeline.Scenario{
		Members:  members,
		Topics:   map[string]int32{"t": 6},
		Strategy: assign.Range{},
		Events:   []timeline.Event{{At: 10_000, Kind: timeline.Crash, Member: "c1"}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range tl.Rebalances {
		fmt.Printf("rebalance %d-%d ms: %s, generation %d\n", r.Start, r.End, r.Reason, r.Generation)
	}
	for _, p := range tl.Partitions {
		for _, u := range p.Unowned {
			fmt.Printf("%s unowned %d-%d ms\n", p, u.From, u.To)
		}
	}
	fmt.Println("longest pause:", tl.Summary.MaxUnownedMs, "ms")
	// Output:
	// rebalance 54000-54600 ms: c1: session timeout, generation 2
	// t-2 unowned 10000-54600 ms
	// t-3 unowned 10000-54600 ms
	// longest pause: 44600 ms
}
