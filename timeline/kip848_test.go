package timeline_test

import (
	"errors"
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
		{
			// A dynamic member's new process is a new member (KIP-1082:
			// the consumer generates its member.id once per process). c1
			// crashes at 5000 (last heartbeat 4000); its new process starts
			// at 7000 as c1-r1 and joins with member epoch 0: group epoch
			// 2. The old c1 is still in the group, claiming t-2,3, so
			// Range over c0, c1, c1-r1 gives t-0,1 / t-2 / t-3, and t-3
			// stays held by the old c1, which never heartbeats again:
			// c1-r1's heartbeats at 7000 to 13000 get nothing. The old
			// c1's session expires at 14000 (4000 + 10000), which frees
			// t-2,3 and bumps the epoch to 3, c1-r1's target now t-2,3;
			// its heartbeat at 15000 gets them. The model used to let
			// c1-r1 take over c1's member.id and its partitions at 7000.
			name: "dynamic crash and restart before the old session expires",
			sc: timeline.Scenario{
				Members: []timeline.Member{member("c0"), member("c1")},
				Topics:  map[string]int32{"t": 4}, Protocol: timeline.Consumer, Strategy: assign.Range{}, Broker: &kipBroker,
				Initial: two,
				Events: []timeline.Event{
					{At: 5_000, Kind: timeline.Crash, Member: "c1"},
					{At: 6_000, Kind: timeline.Restart, Member: "c1", For: 1_000},
				},
			},
			want: outcome{
				Rebalances: []timeline.Rebalance{
					{Start: 7_000, End: 14_000, Reason: "c1-r1 joins", Generation: 2},
					{Start: 14_000, End: 15_000, Reason: "c1: session timeout", Generation: 3},
				},
				Unowned: map[string][]timeline.Span{"t-2": {span(5_000, 15_000)}, "t-3": {span(5_000, 15_000)}},
				Summary: timeline.Summary{Rebalances: 2, MaxUnownedMs: 10_000, UnownedPartitionMs: 20_000},
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

// TestKIP848ByKafkaVersion works by hand the two rules of the consumer
// protocol's coordinator that changed in Kafka 4.x, on kipBroker, Range
// standing in as the assignor (over c0..c3 and four partitions each gets
// one, c0 t-0 to c3 t-3) and handConfig's poll loop (a batch of 700 ms).
func TestKIP848ByKafkaVersion(t *testing.T) {
	two := assign.Assignment{"c0": tps("t", 0, 1), "c1": tps("t", 2, 3)}
	join := func(id string, at int64) timeline.Event {
		return timeline.Event{At: at, Kind: timeline.Join, Member: id, Topics: []string{"t"}, Config: &handConfig}
	}
	withInterval := kipBroker
	withInterval.ConsumerAssignmentInterval = 1_000
	// c0 heartbeats at 1800 + 2000k and polls at 700k; c1 heartbeats at
	// 2000k and polls at 600 + 700k. Every heartbeat, an acknowledging one
	// too, puts the member's next one an interval later.
	apart := map[string]timeline.Phase{"c0": {Heartbeat: 1_800, Poll: 700}, "c1": {Heartbeat: 2_000, Poll: 600}}
	twoJoins := func(v assign.KafkaVersion) timeline.Scenario {
		return timeline.Scenario{
			Members: []timeline.Member{member("c0"), member("c1")},
			Topics:  map[string]int32{"t": 4}, Protocol: timeline.Consumer, Strategy: assign.Range{}, Broker: &withInterval,
			Kafka: v, Initial: two, Phases: apart,
			Events: []timeline.Event{join("c2", 3_000), join("c3", 3_500)},
		}
	}
	// c2 joins at 3000; c1 is told at its heartbeat at 4000 to revoke
	// t-3, its target's since c2 came, and does at its poll at 4200. c2
	// leaves at 4100, before that poll: the new target gives t-3 back to
	// c1, which revokes it all the same and acknowledges at 4200.
	giveBack := func(v assign.KafkaVersion) timeline.Scenario {
		return timeline.Scenario{
			Members: []timeline.Member{member("c0"), member("c1")},
			Topics:  map[string]int32{"t": 4}, Protocol: timeline.Consumer, Strategy: assign.Range{}, Broker: &kipBroker,
			Kafka: v, Initial: two,
			Events: []timeline.Event{join("c2", 3_000), {At: 4_100, Kind: timeline.Close, Member: "c2"}},
		}
	}
	tests := []struct {
		name string
		sc   timeline.Scenario
		want outcome
	}{
		{
			// Before 4.3 each join computes a target at once. At 3500
			// (c3 joins) every member's target is its one partition. c0's
			// heartbeat at 3800 asks it to revoke t-1 (poll 4200); c1's at
			// 4000 to revoke t-2,3 (poll 4100). At 4100 c1 acknowledges
			// but t-1 is still c0's; c0 releases it at 4200; c1 gets it at
			// its next heartbeat, 6100. c2 gets t-2 at 5000, c3 t-3 at 5500.
			name: "4.2: a target at every join",
			sc:   twoJoins(assign.Kafka42),
			want: outcome{
				Rebalances: []timeline.Rebalance{{Start: 3_000, End: 3_500, Reason: "c2 joins", Generation: 2}, {Start: 3_500, End: 6_100, Reason: "c3 joins", Generation: 3}},
				Unowned:    map[string][]timeline.Span{"t-1": {span(4_200, 6_100)}, "t-2": {span(4_100, 5_000)}, "t-3": {span(4_100, 5_500)}},
				Summary:    timeline.Summary{Rebalances: 2, MaxUnownedMs: 1_900, UnownedPartitionMs: 1_900 + 900 + 1_400},
			},
		},
		{
			// KIP-1263: c2's join computes the target at 3000 (c0 t-0,1,
			// c1 t-2, c2 t-3). c3's join at 3500 bumps the epoch, but the
			// next target waits until 4000: c3 gets nothing, and c0's
			// heartbeat at 3800 still carries its old target, so it keeps
			// t-1. c1's heartbeat at 4000 computes the target and is told
			// to revoke t-2,3 (poll 4100); c2 gets t-2 at 5000 and c3 t-3
			// at 5500. c0 hears at 5800 and revokes t-1 at 6300; c1, whose
			// heartbeats run from its acknowledgement at 4100, gets it at
			// 8100.
			name: "4.4: the second join's target waits for the interval",
			sc:   twoJoins(assign.Kafka44),
			want: outcome{
				Rebalances: []timeline.Rebalance{{Start: 3_000, End: 3_500, Reason: "c2 joins", Generation: 2}, {Start: 3_500, End: 8_100, Reason: "c3 joins", Generation: 3}},
				Unowned:    map[string][]timeline.Span{"t-1": {span(6_300, 8_100)}, "t-2": {span(4_100, 5_000)}, "t-3": {span(4_100, 5_500)}},
				Summary:    timeline.Summary{Rebalances: 2, MaxUnownedMs: 1_800, UnownedPartitionMs: 1_800 + 900 + 1_400},
			},
		},
		{
			// KAFKA-19449 not yet fixed: during the acknowledging heartbeat
			// at 4200 the coordinator still counts t-3 as c1's pending
			// revocation, so it is unreleased; c1 gets it back at its next
			// heartbeat, 6200.
			name: "4.1: an own revoked partition comes back a heartbeat later",
			sc:   giveBack(assign.Kafka41),
			want: outcome{
				Rebalances: []timeline.Rebalance{{Start: 3_000, End: 4_100, Reason: "c2 joins", Generation: 2}, {Start: 4_100, End: 6_200, Reason: "c2 leaves", Generation: 3}},
				Unowned:    map[string][]timeline.Span{"t-3": {span(4_200, 6_200)}},
				Summary:    timeline.Summary{Rebalances: 2, MaxUnownedMs: 2_000, UnownedPartitionMs: 2_000},
			},
		},
		{
			// Fixed: the acknowledging heartbeat at 4200 gives t-3 back.
			name: "4.2: an own revoked partition comes back at once",
			sc:   giveBack(assign.Kafka42),
			want: outcome{
				Rebalances: []timeline.Rebalance{{Start: 3_000, End: 4_100, Reason: "c2 joins", Generation: 2}, {Start: 4_100, End: 4_200, Reason: "c2 leaves", Generation: 3}},
				Unowned:    map[string][]timeline.Span{},
				Summary:    timeline.Summary{Rebalances: 2},
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
	// The versions that share a rule share the outcome: 4.0 as 4.1 and
	// 4.3 as 4.4 on the interval; 4.3 and 4.4 (their interval 0 here) as
	// 4.2 on the give-back.
	for _, same := range []struct{ a, b timeline.Scenario }{
		{twoJoins(assign.Kafka43), twoJoins(assign.Kafka44)},
		{giveBack(assign.Kafka40), giveBack(assign.Kafka41)},
		{giveBack(assign.Kafka43), giveBack(assign.Kafka42)},
		{giveBack(assign.Kafka44), giveBack(assign.Kafka42)},
	} {
		if diff := cmp.Diff(outcomeOf(simulate(t, same.b)), outcomeOf(simulate(t, same.a))); diff != "" {
			t.Errorf("Kafka %v differs from %v (-%v +%v):\n%s", same.a.Kafka, same.b.Kafka, same.b.Kafka, same.a.Kafka, diff)
		}
	}
}

// TestKafkaVersionRefused: an unknown release or a negative assignment
// interval is an invalid scenario, not a panic.
func TestKafkaVersionRefused(t *testing.T) {
	negative := kipBroker
	negative.ConsumerAssignmentInterval = -1
	for _, sc := range []timeline.Scenario{
		{Members: []timeline.Member{member("c0")}, Topics: map[string]int32{"t": 1}, Protocol: timeline.Consumer, Kafka: 9},
		{Members: []timeline.Member{member("c0")}, Topics: map[string]int32{"t": 1}, Protocol: timeline.Consumer, Broker: &negative},
	} {
		if _, err := timeline.Simulate(sc); !errors.Is(err, timeline.ErrInvalidScenario) {
			t.Errorf("Kafka %v, interval %d: error %v, want ErrInvalidScenario", sc.Kafka, negative.ConsumerAssignmentInterval, err)
		}
	}
}
