package timeline_test

import (
	"fmt"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/timeline"
)

// Three consumers with Kafka's default timeouts share six partitions under
// Range; c1 crashes 10 s in. Requests take a 2 ms round trip, and the
// members are out of step: c0 and c1 heartbeat at 3 s, 6 s, ..., c2 at
// 1.5 s, 4.5 s, ...; c0 polls at 0.65 s, 1.3 s, ..., c2 at 0.3 s, 0.95 s,
// ... (500 records of 1.3 ms: a poll every 650 ms).
//
// c1 last heartbeated at 9 s, so the coordinator expires it at 54 s. c0
// hears of it from its heartbeat at 54 s, with the response at 54.002 s,
// and at its next poll, 54.6 s, revokes t-0,1 (eager) and rejoins. c2
// hears at 55.502 s and rejoins at its poll at 55.55 s, which ends the
// join phase; the assignment reaches both two round trips later, at
// 55.554 s. So the crash stops every partition of the group: c1's from
// the crash, c0's while c0 waits for c2, c2's for the sync.
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
		RTT:      2,
		Phases: map[string]timeline.Phase{
			"c0": {Heartbeat: 3_000, Poll: 650},
			"c1": {Heartbeat: 3_000, Poll: 650},
			"c2": {Heartbeat: 1_500, Poll: 300},
		},
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
	// rebalance 54000-55554 ms: c1: session timeout, generation 2
	// t-0 unowned 54600-55554 ms
	// t-1 unowned 54600-55554 ms
	// t-2 unowned 10000-55554 ms
	// t-3 unowned 10000-55554 ms
	// t-4 unowned 55550-55554 ms
	// t-5 unowned 55550-55554 ms
	// longest pause: 45554 ms
}
