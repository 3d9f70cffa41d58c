package timeline_test

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/timeline"
)

// The consumer-protocol scenarios use a broker with a 10000 ms session
// and a 2000 ms heartbeat interval, and handConfig's poll loop (a poll
// every 700 ms). Range stands in as the server-side assignor so that the
// targets are Kafka's documented Range answers: over c0, c1, c2 and four
// partitions, c0 gets t-0,1, c1 t-2 and c2 t-3.
var kipBroker = timeline.Broker{ConsumerSessionTimeout: 10_000, ConsumerHeartbeatInterval: 2_000}

func TestKIP848HandWorked(t *testing.T) {
	two := assign.Assignment{"c0": tps("t", 0, 1), "c1": tps("t", 2, 3)}
	tests := []struct {
		name string
		sc   timeline.Scenario
		want outcome
	}{
		{
			// c2's first heartbeat at 3000 bumps the epoch to 2; its
			// target t-3 is still c1's, so it gets nothing yet. c1's
			// heartbeat at 4000 tells it to revoke t-3; it does at its
			// next poll, 4200 (= 6 × 700), and acknowledges at once,
			// which frees t-3. c2's next heartbeat, at 5000, gets it.
			name: "join: revoke first, assign after the release",
			sc: timeline.Scenario{
				Members: []timeline.Member{member("c0"), member("c1")},
				Topics:  map[string]int32{"t": 4}, Protocol: timeline.Consumer, Strategy: assign.Range{}, Broker: &kipBroker,
				Initial: two,
				Events:  []timeline.Event{{At: 3_000, Kind: timeline.Join, Member: "c2", Topics: []string{"t"}, Config: &handConfig}},
			},
			want: outcome{
				Rebalances: []timeline.Rebalance{{Start: 3_000, End: 5_000, Reason: "c2 joins", Generation: 2}},
				Unowned:    map[string][]timeline.Span{"t-3": {span(4_200, 5_000)}},
				Summary:    timeline.Summary{Rebalances: 1, MaxUnownedMs: 800, UnownedPartitionMs: 800},
			},
		},
		{
			// c1 crashes at 5000; its last heartbeat was at 4000, so the
			// coordinator removes it at 14000 and bumps the epoch. The
			// crashed member's partitions are free at once: c0's heartbeat
			// at 14000 gets them.
			name: "crash: partitions free at the session timeout",
			sc: timeline.Scenario{
				Members: []timeline.Member{member("c0"), member("c1")},
				Topics:  map[string]int32{"t": 4}, Protocol: timeline.Consumer, Strategy: assign.Range{}, Broker: &kipBroker,
				Initial: two,
				Events:  []timeline.Event{{At: 5_000, Kind: timeline.Crash, Member: "c1"}},
			},
			want: outcome{
				Rebalances: []timeline.Rebalance{{Start: 14_000, End: 14_000, Reason: "c1: session timeout", Generation: 2}},
				Unowned:    map[string][]timeline.Span{"t-2": {span(5_000, 14_000)}, "t-3": {span(5_000, 14_000)}},
				Summary:    timeline.Summary{Rebalances: 1, MaxUnownedMs: 9_000, UnownedPartitionMs: 18_000},
			},
		},
		{
			// The static s1 leaves with member epoch -2 at 5000: the
			// coordinator keeps its assignment until 15000. It is back at
			// 9000 and gets t-2,3 in its first heartbeat; no new epoch.
			name: "static restart within the session timeout",
			sc: timeline.Scenario{
				Members: []timeline.Member{member("c0"), static("s1", "i1")},
				Topics:  map[string]int32{"t": 4}, Protocol: timeline.Consumer, Strategy: assign.Range{}, Broker: &kipBroker,
				Initial: assign.Assignment{"c0": tps("t", 0, 1), "s1": tps("t", 2, 3)},
				Events:  []timeline.Event{{At: 5_000, Kind: timeline.Restart, Member: "s1", For: 4_000}},
			},
			want: outcome{
				Unowned: map[string][]timeline.Span{"t-2": {span(5_000, 9_000)}, "t-3": {span(5_000, 9_000)}},
				Summary: timeline.Summary{MaxUnownedMs: 4_000, UnownedPartitionMs: 8_000},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := outcomeOf(simulate(t, tt.sc))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Simulate mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestKIP848UniformIsTheDefault: under the consumer protocol with no
// strategy, the target (here the stable start's) is assign.Uniform's (Kafka 4.1) for the group
// with its topics' ids (given, or derived from the names), not a stand-in's:
// on this group Uniform and Sticky answer differently.
func TestKIP848UniformIsTheDefault(t *testing.T) {
	both := func(id string) timeline.Member {
		m := member(id)
		m.Topics = []string{"t", "u"}
		return m
	}
	topics := map[string]int32{"t": 4, "u": 2}
	given := map[string]assign.TopicID{"t": {1}, "u": {2}}
	for _, ids := range []map[string]assign.TopicID{nil, given} {
		sc := timeline.Scenario{
			Members: []timeline.Member{both("c0"), both("c1"), both("c2")},
			Topics:  topics, TopicIDs: ids, Protocol: timeline.Consumer, Broker: &kipBroker,
		}
		tl, err := timeline.Simulate(sc)
		if err != nil {
			t.Fatal(err)
		}
		g := assign.Group{Topics: topics, TopicIDs: ids}
		for _, m := range sc.Members {
			g.Members = append(g.Members, assign.Member{ID: m.ID, Topics: m.Topics})
		}
		g, _ = g.WithDerivedTopicIDs()
		want, err := assign.Uniform{}.Assign(g)
		if err != nil {
			t.Fatal(err)
		}
		sticky, err := assign.Sticky{}.Assign(g)
		if err != nil {
			t.Fatal(err)
		}
		if tl.Strategy != "uniform" {
			t.Errorf("ids %v: strategy %q, want uniform", ids, tl.Strategy)
		}
		for _, a := range []assign.Assignment{want, sticky} {
			for _, ps := range a {
				slices.SortFunc(ps, assign.TopicPartition.Compare)
			}
		}
		if diff := cmp.Diff(want, tl.Final); diff != "" {
			t.Errorf("ids %v: final assignment is not Uniform's (-want +got):\n%s", ids, diff)
		}
		if cmp.Equal(sticky, tl.Final) {
			t.Errorf("ids %v: Sticky answers as Uniform does; the test cannot tell them apart", ids)
		}
	}
}
