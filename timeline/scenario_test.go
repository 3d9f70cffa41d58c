package timeline_test

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/timeline"
)

// TestInvalidScenarios: what Simulate cannot play is refused with an
// error wrapping ErrInvalidScenario, before anything is simulated.
func TestInvalidScenarios(t *testing.T) {
	ok := func() timeline.Scenario {
		return timeline.Scenario{
			Members:  []timeline.Member{member("c0"), member("c1")},
			Topics:   map[string]int32{"t": 2},
			Strategy: assign.Range{},
		}
	}
	slowBatch := handConfig
	slowBatch.RecordMicros = 1_000_000 // 100 records of 1 s: longer than max.poll.interval.ms
	tests := []struct {
		name   string
		change func(*timeline.Scenario)
	}{
		{"no strategy under the classic protocol", func(sc *timeline.Scenario) { sc.Strategy = nil }},
		{"no topics", func(sc *timeline.Scenario) { sc.Topics = nil }},
		{"a member twice", func(sc *timeline.Scenario) { sc.Members = append(sc.Members, member("c0")) }},
		{"a batch longer than max.poll.interval.ms", func(sc *timeline.Scenario) { sc.Members[0].Config = &slowBatch }},
		{"an event for a member that never joined", func(sc *timeline.Scenario) {
			sc.Events = []timeline.Event{{At: 1, Kind: timeline.Crash, Member: "c9"}}
		}},
		{"an event before the member joins", func(sc *timeline.Scenario) {
			sc.Events = []timeline.Event{{At: 5, Kind: timeline.Join, Member: "c2"}, {At: 1, Kind: timeline.Crash, Member: "c2"}}
		}},
		{"a topic that shrinks", func(sc *timeline.Scenario) {
			sc.Events = []timeline.Event{{At: 1, Kind: timeline.Grow, Topic: "t", Partitions: 1}}
		}},
		// Counts the input merely claims: refused, not allocated for.
		{"a topic of 2147483647 partitions no member subscribes to", func(sc *timeline.Scenario) {
			sc.Topics["u"] = 2147483647
		}},
		{"topics holding more than MaxPartitions in all", func(sc *timeline.Scenario) {
			sc.Topics["u"], sc.Topics["v"] = assign.MaxPartitions, 1
		}},
		{"a topic that grows past MaxPartitions", func(sc *timeline.Scenario) {
			sc.Events = []timeline.Event{{At: 1, Kind: timeline.Grow, Topic: "t", More: 2147483647}}
		}},
		{"an initial assignment giving a partition twice", func(sc *timeline.Scenario) {
			sc.Initial = assign.Assignment{"c0": tps("t", 0), "c1": tps("t", 0, 1)}
		}},
		{"an initial assignment to a stranger", func(sc *timeline.Scenario) {
			sc.Initial = assign.Assignment{"c9": tps("t", 0)}
		}},
		{"an initial assignment of a partition that does not exist", func(sc *timeline.Scenario) {
			sc.Initial = assign.Assignment{"c0": tps("t", 2)}
		}},
		{"an initial assignment of a forming group", func(sc *timeline.Scenario) {
			sc.Forming, sc.Initial = true, assign.Assignment{"c0": tps("t", 0)}
		}},
	}
	if _, err := timeline.Simulate(ok()); err != nil {
		t.Fatalf("the base scenario: %v", err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := ok()
			tt.change(&sc)
			_, err := timeline.Simulate(sc)
			if !errors.Is(err, timeline.ErrInvalidScenario) {
				t.Errorf("Simulate: error %v, want one wrapping ErrInvalidScenario", err)
			}
		})
	}
}

// TestFarTimesAreBounded: an end time or an event a million hours away is
// a time the input merely names. The simulation of a small group gives up
// with ErrNotSettled after its share of actions, allocating megabytes, not
// the half gigabyte five million heartbeats and polls once took.
func TestFarTimesAreBounded(t *testing.T) {
	const far = 1_000_000 * 3600 * 1000 // a million hours, in ms
	for _, sc := range []timeline.Scenario{
		{Members: []timeline.Member{member("c0"), member("c1")}, Topics: map[string]int32{"t": 2}, Strategy: assign.Range{}, Until: far},
		{Members: []timeline.Member{member("c0"), member("c1")}, Topics: map[string]int32{"t": 2}, Strategy: assign.Range{},
			Events: []timeline.Event{{At: far, Kind: timeline.Crash, Member: "c0"}}},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := timeline.Simulate(sc)
		runtime.ReadMemStats(&after)
		if !errors.Is(err, timeline.ErrNotSettled) {
			t.Errorf("Simulate(until %d, events %v): error %v, want one wrapping ErrNotSettled", sc.Until, sc.Events, err)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
			t.Errorf("Simulate(until %d, events %v) allocated %d bytes, want at most 64 MiB", sc.Until, sc.Events, alloc)
		}
	}
}

// TestRestartedDynamicMemberID: a dynamic member that restarts comes back
// with a new member.id, named as simulate names it (churn.RestartedID:
// c1-r1, then c1-r2, skipping an ID a member will take); later events
// that name c1 reach it; a static member keeps its ID. Under both
// protocols.
func TestRestartedDynamicMemberID(t *testing.T) {
	for _, p := range []timeline.Protocol{timeline.Classic, timeline.Consumer} {
		strategy := assign.Strategy(assign.Range{})
		if p == timeline.Consumer {
			strategy = assign.Uniform{}
		}
		sc := timeline.Scenario{
			Topics:   map[string]int32{"t": 4},
			Protocol: p,
			Strategy: strategy,
			Members: []timeline.Member{
				{ID: "c0", Topics: []string{"t"}},
				{ID: "c1", Topics: []string{"t"}},
				{ID: "s", InstanceID: "i", Topics: []string{"t"}},
			},
			Events: []timeline.Event{
				{At: 1000, Kind: timeline.Restart, Member: "c1", For: 2000},
				{At: 1000, Kind: timeline.Restart, Member: "s", For: 2000},
				{At: 60000, Kind: timeline.Join, Member: "c1-r2", Topics: []string{"t"}},
				{At: 90000, Kind: timeline.Restart, Member: "c1", For: 2000},
				{At: 180000, Kind: timeline.Crash, Member: "c1"},
			},
		}
		tl, err := timeline.Simulate(sc)
		if err != nil {
			t.Fatalf("%v: %v", p, err)
		}
		var reasons, steps []string
		for _, r := range tl.Rebalances {
			reasons = append(reasons, r.Reason)
		}
		for _, st := range tl.Steps {
			steps = append(steps, st.Member+" "+st.What)
		}
		joined, did := strings.Join(reasons, "; "), strings.Join(steps, "; ")
		for _, want := range []string{"c1 leaves", "c1-r3: session timeout"} {
			if !strings.Contains(joined, want) {
				t.Errorf("%v: rebalances %q: no %q", p, joined, want)
			}
		}
		for _, want := range []string{"c1-r1 starts again", "c1-r3 starts again", "c1-r3 crashes"} {
			if !strings.Contains(did, want) {
				t.Errorf("%v: steps %q: no %q", p, did, want)
			}
		}
		if strings.Contains(did, "s-r1") || strings.Contains(did, "c1-r2 starts again") {
			t.Errorf("%v: steps %q: a static member renamed, or c1-r2 taken twice", p, did)
		}
		if _, ok := tl.Final["c1-r3"]; ok {
			t.Errorf("%v: c1-r3 crashed, yet consumes %v at the end", p, tl.Final["c1-r3"])
		}
	}
}
