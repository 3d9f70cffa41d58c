package timeline_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/timeline"
)

// The hand-worked scenarios below share one configuration chosen so that
// heartbeats and polls fall at different instants and every figure can be
// worked out on paper:
//
//	session.timeout.ms 10000, heartbeat.interval.ms 2500,
//	max.poll.interval.ms 60000, 100 records of 7 ms per poll.
//
// A member that received its assignment at s heartbeats at s + 2500k and
// polls at s + 700k (k ≥ 1). In a stable start every member received its
// assignment at 0. Within one millisecond, events come first, then the
// coordinator's timers, then polls, then heartbeats.
var handConfig = timeline.Config{
	SessionTimeout:    10_000,
	HeartbeatInterval: 2_500,
	MaxPollInterval:   60_000,
	MaxPollRecords:    100,
	RecordMicros:      7_000,
	MetadataMaxAge:    300_000,
}

// slowPoller is handConfig with 100 records of 13 ms: polls every 1300 ms.
var slowPoller = func() timeline.Config {
	c := handConfig
	c.RecordMicros = 13_000
	return c
}()

func tps(topic string, ps ...int32) []assign.TopicPartition {
	var out []assign.TopicPartition
	for _, p := range ps {
		out = append(out, assign.TopicPartition{Topic: topic, Partition: p})
	}
	return out
}

func member(id string) timeline.Member {
	cfg := handConfig
	return timeline.Member{ID: id, Topics: []string{"t"}, Config: &cfg}
}

func static(id, instance string) timeline.Member {
	m := member(id)
	m.InstanceID = instance
	return m
}

// outcome is what the hand-worked tests check: the rebalances, and per
// partition its unowned spans.
type outcome struct {
	Rebalances []timeline.Rebalance
	Unowned    map[string][]timeline.Span
	Summary    timeline.Summary
}

func outcomeOf(tl *timeline.Timeline) outcome {
	o := outcome{Rebalances: tl.Rebalances, Unowned: map[string][]timeline.Span{}, Summary: tl.Summary}
	for _, p := range tl.Partitions {
		if len(p.Unowned) > 0 {
			o.Unowned[p.String()] = p.Unowned
		}
	}
	return o
}

// simulate plays sc in lockstep unless it gives phases: in a stable start
// every member received its assignment at 0, so it heartbeats one interval
// and polls one batch later, which keeps the hand-worked figures on paper.
func simulate(t *testing.T, sc timeline.Scenario) *timeline.Timeline {
	t.Helper()
	if sc.Phases == nil && !sc.Forming {
		sc.Phases = lockstep(sc)
	}
	tl, err := timeline.Simulate(sc)
	if err != nil {
		t.Fatalf("Simulate: %v", err)
	}
	return tl
}

func span(from, to int64) timeline.Span { return timeline.Span{From: from, To: to} }

func TestClassicHandWorked(t *testing.T) {
	// c0 owns t-0,1, c1 owns t-2,3 (c2, when there, t-4,5).
	two := assign.Assignment{"c0": tps("t", 0, 1), "c1": tps("t", 2, 3)}
	twoStatic := assign.Assignment{"s0": tps("t", 0, 1), "c1": tps("t", 2, 3)}
	tests := []struct {
		name string
		sc   timeline.Scenario
		want outcome
	}{
		{
			// c1 crashes at 11000; its last heartbeat was at 10000, so the
			// coordinator expires it at 10000 + 10000 = 20000. c0 and c2
			// hear of the rebalance from their heartbeats at 20000 and
			// rejoin at their next poll, 20300 (= 29 × 700): the join phase
			// ends when the last of them has rejoined. Range over c0, c2
			// gives c0 t-0,1,2 and c2 t-3,4,5. t-2 and t-3 are unowned from
			// the crash, not from its detection; c0 and c2 revoke and get
			// theirs back at the same instant.
			name: "dynamic crash is detected after the session timeout",
			sc: timeline.Scenario{
				Members:  []timeline.Member{member("c0"), member("c1"), member("c2")},
				Topics:   map[string]int32{"t": 6},
				Strategy: assign.Range{},
				Initial:  assign.Assignment{"c0": tps("t", 0, 1), "c1": tps("t", 2, 3), "c2": tps("t", 4, 5)},
				Events:   []timeline.Event{{At: 11_000, Kind: timeline.Crash, Member: "c1"}},
			},
			want: outcome{
				Rebalances: []timeline.Rebalance{{Start: 20_000, End: 20_300, Reason: "c1: session timeout", Generation: 2}},
				Unowned:    map[string][]timeline.Span{"t-2": {span(11_000, 20_300)}, "t-3": {span(11_000, 20_300)}},
				Summary:    timeline.Summary{Rebalances: 1, MaxUnownedMs: 9_300, UnownedPartitionMs: 18_600},
			},
		},
		{
			// The static member s0 closes at 5000 without LeaveGroup; its
			// last heartbeat was at 2500, so its session would expire at
			// 12500. It is back at 9000, before that: the coordinator
			// hands it its cached assignment and nobody rebalances
			// (KIP-345). Only s0's own partitions wait, 5000 to 9000.
			name: "static restart shorter than the session timeout",
			sc: timeline.Scenario{
				Members:  []timeline.Member{static("s0", "i0"), member("c1")},
				Topics:   map[string]int32{"t": 4},
				Strategy: assign.Range{},
				Initial:  twoStatic,
				Events:   []timeline.Event{{At: 5_000, Kind: timeline.Restart, Member: "s0", For: 4_000}},
			},
			want: outcome{
				Unowned: map[string][]timeline.Span{"t-0": {span(5_000, 9_000)}, "t-1": {span(5_000, 9_000)}},
				Summary: timeline.Summary{MaxUnownedMs: 4_000, UnownedPartitionMs: 8_000},
			},
		},
		{
			// The same restart on a coordinator that rebalances when a
			// static member rejoins (Broker.StaticRejoinRebalances: kfake,
			// whose sameJoin finds the JoinGroup metadata changed). s0's
			// JoinGroup at 9000 starts a join phase; c1 learns at its
			// heartbeat at 10000, rejoins at its poll at 10500 (= 15 ×
			// 700), revoking t-2,3 (eager), which completes the join at
			// once (no round trip). Range gives s0 t-0,1 and c1 t-2,3
			// again, so c1's partitions are unowned for no time and s0's
			// from 5000 to 10500 rather than to 9000.
			name: "static restart on a coordinator that rebalances",
			sc: timeline.Scenario{
				Members:  []timeline.Member{static("s0", "i0"), member("c1")},
				Topics:   map[string]int32{"t": 4},
				Strategy: assign.Range{},
				Broker: func() *timeline.Broker {
					b := timeline.DefaultBroker()
					b.StaticRejoinRebalances = true
					return &b
				}(),
				Initial: twoStatic,
				Events:  []timeline.Event{{At: 5_000, Kind: timeline.Restart, Member: "s0", For: 4_000}},
			},
			want: outcome{
				Rebalances: []timeline.Rebalance{{Start: 9_000, End: 10_500, Reason: "s0 rejoins (static): the coordinator rebalances", Generation: 2}},
				Unowned:    map[string][]timeline.Span{"t-0": {span(5_000, 10_500)}, "t-1": {span(5_000, 10_500)}},
				Summary:    timeline.Summary{Rebalances: 1, MaxUnownedMs: 5_500, UnownedPartitionMs: 11_000},
			},
		},
		{
			// Same restart, but s0 is away 15000 ms. Its session expires at
			// 12500; c1 learns at its heartbeat at 12500, rejoins at its
			// poll at 12600 (= 18 × 700), revokes, and takes all four
			// partitions. s0 is back at 20000 as a member the coordinator
			// no longer knows: a second rebalance. c1, synced at 12600,
			// learns at its heartbeat at 20100 and rejoins at its poll at
			// 20300 (= 12600 + 11 × 700). Range puts static members first:
			// s0 gets t-0,1 again, c1 t-2,3.
			name: "static restart longer than the session timeout",
			sc: timeline.Scenario{
				Members:  []timeline.Member{static("s0", "i0"), member("c1")},
				Topics:   map[string]int32{"t": 4},
				Strategy: assign.Range{},
				Initial:  twoStatic,
				Events:   []timeline.Event{{At: 5_000, Kind: timeline.Restart, Member: "s0", For: 15_000}},
			},
			want: outcome{
				Rebalances: []timeline.Rebalance{
					{Start: 12_500, End: 12_600, Reason: "s0: session timeout", Generation: 2},
					{Start: 20_000, End: 20_300, Reason: "s0 joins", Generation: 3},
				},
				Unowned: map[string][]timeline.Span{"t-0": {span(5_000, 12_600)}, "t-1": {span(5_000, 12_600)}},
				Summary: timeline.Summary{Rebalances: 2, MaxUnownedMs: 7_600, UnownedPartitionMs: 15_200},
			},
		},
		{
			// c1's batch at 5000 takes 70000 ms longer. It last polled at
			// 4900 (= 7 × 700), so its poll timer expires at 64900, more
			// than 60000 ms before its next poll at 75600: a dynamic member
			// sends LeaveGroup then and loses t-2,3. c0 learns at its
			// heartbeat at 65000 and rejoins at its poll at 65100. At
			// 75600 c1 polls and joins as a new member; c0, synced at
			// 65100, learns at its heartbeat at 77600 and rejoins at its
			// poll at 77700 (= 65100 + 18 × 700).
			name: "dynamic stall past max.poll.interval.ms",
			sc: timeline.Scenario{
				Members:  []timeline.Member{member("c0"), member("c1")},
				Topics:   map[string]int32{"t": 4},
				Strategy: assign.Range{},
				Initial:  two,
				Events:   []timeline.Event{{At: 5_000, Kind: timeline.Stall, Member: "c1", For: 70_000}},
			},
			want: outcome{
				Rebalances: []timeline.Rebalance{
					{Start: 64_900, End: 65_100, Reason: "c1: max.poll.interval.ms exceeded", Generation: 2},
					{Start: 75_600, End: 77_700, Reason: "c1 joins", Generation: 3},
				},
				Unowned: map[string][]timeline.Span{"t-2": {span(64_900, 65_100)}, "t-3": {span(64_900, 65_100)}},
				Summary: timeline.Summary{Rebalances: 2, MaxUnownedMs: 200, UnownedPartitionMs: 400},
			},
		},
		{
			// The same stall of a static member s1: at 64900 it stops
			// heartbeating instead of leaving. Its last heartbeat was at
			// 62500, so it expires at 72500; c0 learns at its heartbeat at
			// 72500 and rejoins at its poll at 72800 (= 104 × 700). s1
			// polls at 75600 and joins anew; c0, synced at 72800, learns at
			// 77800 and rejoins at its poll at 78400. Range puts the static
			// s1 first: s1 t-0,1, c0 t-2,3.
			name: "static stall past max.poll.interval.ms and the session timeout",
			sc: timeline.Scenario{
				Members:  []timeline.Member{member("c0"), static("s1", "i1")},
				Topics:   map[string]int32{"t": 4},
				Strategy: assign.Range{},
				Initial:  assign.Assignment{"c0": tps("t", 0, 1), "s1": tps("t", 2, 3)},
				Events:   []timeline.Event{{At: 5_000, Kind: timeline.Stall, Member: "s1", For: 70_000}},
			},
			want: outcome{
				Rebalances: []timeline.Rebalance{
					{Start: 72_500, End: 72_800, Reason: "s1: session timeout", Generation: 2},
					{Start: 75_600, End: 78_400, Reason: "s1 joins", Generation: 3},
				},
				Unowned: map[string][]timeline.Span{"t-2": {span(64_900, 72_800)}, "t-3": {span(64_900, 72_800)}},
				Summary: timeline.Summary{Rebalances: 2, MaxUnownedMs: 7_900, UnownedPartitionMs: 15_800},
			},
		},
		{
			// A shorter static stall, 62000 ms: the poll timer still
			// expires at 64900 (next poll at 5600 + 62000 = 67600), but
			// s1 polls again at 67600, before its session would expire at
			// 72500, and gets its cached assignment back: no rebalance.
			name: "static stall past max.poll.interval.ms within the session timeout",
			sc: timeline.Scenario{
				Members:  []timeline.Member{member("c0"), static("s1", "i1")},
				Topics:   map[string]int32{"t": 4},
				Strategy: assign.Range{},
				Initial:  assign.Assignment{"c0": tps("t", 0, 1), "s1": tps("t", 2, 3)},
				Events:   []timeline.Event{{At: 5_000, Kind: timeline.Stall, Member: "s1", For: 62_000}},
			},
			want: outcome{
				Unowned: map[string][]timeline.Span{"t-2": {span(64_900, 67_600)}, "t-3": {span(64_900, 67_600)}},
				Summary: timeline.Summary{MaxUnownedMs: 2_700, UnownedPartitionMs: 5_400},
			},
		},
		{
			// c1 crashes at 11000 and expires at 20000; c2 starts at 20100,
			// while the group is in PreparingRebalance, and its JoinGroup
			// is part of this join phase. c0 rejoins at 20300 and the one
			// rebalance ends then with c0 and c2: Range gives c0 t-0,1 and
			// c2 t-2,3.
			name: "join during a rebalance",
			sc: timeline.Scenario{
				Members:  []timeline.Member{member("c0"), member("c1")},
				Topics:   map[string]int32{"t": 4},
				Strategy: assign.Range{},
				Initial:  two,
				Events: []timeline.Event{
					{At: 11_000, Kind: timeline.Crash, Member: "c1"},
					{At: 20_100, Kind: timeline.Join, Member: "c2", Topics: []string{"t"}, Config: &handConfig},
				},
			},
			want: outcome{
				Rebalances: []timeline.Rebalance{{Start: 20_000, End: 20_300, Reason: "c1: session timeout", Generation: 2}},
				Unowned:    map[string][]timeline.Span{"t-2": {span(11_000, 20_300)}, "t-3": {span(11_000, 20_300)}},
				Summary:    timeline.Summary{Rebalances: 1, MaxUnownedMs: 9_300, UnownedPartitionMs: 18_600},
			},
		},
		{
			// Regression: c1 crashed at 11000 (last heartbeat 10000) and a
			// new process of it starts at 13000, before the coordinator has
			// expired the old one. A dynamic member's new process is a new
			// member: it JoinGroups without a member.id and gets c1-r1,
			// while the old member.id stays in the group until its session
			// expires at 20000. The model used to carry the old session's
			// expiry over to the new process, which then was removed at
			// 20000 while its JoinGroup waited, a second rebalance; and it
			// ended the join phase at 15400 without waiting for the old
			// member. Kafka's classic coordinator (and kfake's
			// group.updateHeartbeat) expire the old member.id on its own:
			// the join phase started by c1-r1's JoinGroup at 13000 waits for
			// every known member, the old c1 included, until its expiry at
			// 20000 removes it and completes the join. c0 and c2 heard at
			// 15000 and rejoined (revoking, eager) at 15400. Range over
			// c0, c1-r1, c2 gives t-0,1 / t-2,3 / t-4,5.
			name: "dynamic crash and restart before the old session expires",
			sc: timeline.Scenario{
				Members:  []timeline.Member{member("c0"), member("c1"), member("c2")},
				Topics:   map[string]int32{"t": 6},
				Strategy: assign.Range{},
				Initial:  assign.Assignment{"c0": tps("t", 0, 1), "c1": tps("t", 2, 3), "c2": tps("t", 4, 5)},
				Events: []timeline.Event{
					{At: 11_000, Kind: timeline.Crash, Member: "c1"},
					{At: 12_000, Kind: timeline.Restart, Member: "c1", For: 1_000},
				},
			},
			want: outcome{
				Rebalances: []timeline.Rebalance{{Start: 13_000, End: 20_000, Reason: "c1-r1 joins", Generation: 2}},
				Unowned: map[string][]timeline.Span{
					"t-0": {span(15_400, 20_000)}, "t-1": {span(15_400, 20_000)},
					"t-2": {span(11_000, 20_000)}, "t-3": {span(11_000, 20_000)},
					"t-4": {span(15_400, 20_000)}, "t-5": {span(15_400, 20_000)},
				},
				Summary: timeline.Summary{Rebalances: 1, MaxUnownedMs: 9_000, UnownedPartitionMs: 36_400},
			},
		},
		{
			// An empty group: c0 and c1 both join at 0. The first JoinGroup
			// starts the initial delay of 3000 ms; c1 joined during it, so
			// at 3000 the coordinator waits 3000 ms more (KIP-134); nobody
			// joined during the second wait, so the first rebalance ends
			// at 6000. Every partition waits from 0 to 6000.
			name: "initial delay of an empty group, extended once",
			sc: timeline.Scenario{
				Members:  []timeline.Member{member("c0"), member("c1")},
				Topics:   map[string]int32{"t": 2},
				Strategy: assign.Range{},
				Forming:  true,
			},
			want: outcome{
				Rebalances: []timeline.Rebalance{{Start: 0, End: 6_000, Reason: "group forms", Generation: 1}},
				Unowned:    map[string][]timeline.Span{"t-0": {span(0, 6_000)}, "t-1": {span(0, 6_000)}},
				Summary:    timeline.Summary{Rebalances: 1, MaxUnownedMs: 6_000, UnownedPartitionMs: 12_000},
			},
		},
		{
			// A single member waits out one initial delay; c1 joining at
			// 4000, after it, finds a Stable group and starts a second
			// rebalance. c0, synced at 3000, learns at its heartbeat at
			// 5500 and rejoins at its poll at 5800 (= 3000 + 4 × 700).
			name: "initial delay of a single member, then a join",
			sc: timeline.Scenario{
				Members:  []timeline.Member{member("c0")},
				Topics:   map[string]int32{"t": 2},
				Strategy: assign.Range{},
				Forming:  true,
				Events:   []timeline.Event{{At: 4_000, Kind: timeline.Join, Member: "c1", Topics: []string{"t"}, Config: &handConfig}},
			},
			want: outcome{
				Rebalances: []timeline.Rebalance{
					{Start: 0, End: 3_000, Reason: "group forms", Generation: 1},
					{Start: 4_000, End: 5_800, Reason: "c1 joins", Generation: 2},
				},
				Unowned: map[string][]timeline.Span{"t-0": {span(0, 3_000)}, "t-1": {span(0, 3_000)}},
				Summary: timeline.Summary{Rebalances: 2, MaxUnownedMs: 3_000, UnownedPartitionMs: 6_000},
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

// TestEagerAndCooperativePauses plays one crash under eager Range and
// under cooperative-sticky. c0 polls every 700 ms, c2 every 1300 ms; c1
// crashes at 11000 and expires at 20000. Both survivors learn at their
// heartbeats at 20000; c0 rejoins at its poll at 20300, c2 at 20800
// (= 16 × 1300), which ends the join phase.
//
// Eager: c0 revokes t-0,1 at 20300 and c2 revokes t-4,5 at 20800, so t-0,1
// wait 500 ms on top of c1's t-2,3 waiting from 11000 to 20800.
//
// Cooperative: nobody revokes anything; the free t-2,3 go one to c0 and one
// to c2 (balance: three each) at 20800, and no follow-up rebalance is
// needed because nobody gave anything up.
func TestEagerAndCooperativePauses(t *testing.T) {
	c2 := member("c2")
	c2.Config = &slowPoller
	initial := assign.Assignment{"c0": tps("t", 0, 1), "c1": tps("t", 2, 3), "c2": tps("t", 4, 5)}
	sc := func(s assign.Strategy) timeline.Scenario {
		return timeline.Scenario{
			Members:  []timeline.Member{member("c0"), member("c1"), c2},
			Topics:   map[string]int32{"t": 6},
			Strategy: s,
			Initial:  initial,
			Events:   []timeline.Event{{At: 11_000, Kind: timeline.Crash, Member: "c1"}},
		}
	}
	eager := outcomeOf(simulate(t, sc(assign.Range{})))
	wantEager := outcome{
		Rebalances: []timeline.Rebalance{{Start: 20_000, End: 20_800, Reason: "c1: session timeout", Generation: 2}},
		Unowned: map[string][]timeline.Span{
			"t-0": {span(20_300, 20_800)}, "t-1": {span(20_300, 20_800)},
			"t-2": {span(11_000, 20_800)}, "t-3": {span(11_000, 20_800)},
		},
		Summary: timeline.Summary{Rebalances: 1, MaxUnownedMs: 9_800, UnownedPartitionMs: 20_600},
	}
	if diff := cmp.Diff(wantEager, eager); diff != "" {
		t.Errorf("eager range mismatch (-want +got):\n%s", diff)
	}
	coop := outcomeOf(simulate(t, sc(assign.CooperativeSticky{})))
	wantCoop := outcome{
		Rebalances: []timeline.Rebalance{{Start: 20_000, End: 20_800, Reason: "c1: session timeout", Generation: 2}},
		Unowned:    map[string][]timeline.Span{"t-2": {span(11_000, 20_800)}, "t-3": {span(11_000, 20_800)}},
		Summary:    timeline.Summary{Rebalances: 1, MaxUnownedMs: 9_800, UnownedPartitionMs: 19_600},
	}
	if diff := cmp.Diff(wantCoop, coop); diff != "" {
		t.Errorf("cooperative-sticky mismatch (-want +got):\n%s", diff)
	}
}

// lockstep gives every member of sc the phase of a member that received
// its assignment at 0.
func lockstep(sc timeline.Scenario) map[string]timeline.Phase {
	out := map[string]timeline.Phase{}
	for _, m := range sc.Members {
		cfg := timeline.DefaultConfig()
		if m.Config != nil {
			cfg = *m.Config
		}
		hb := cfg.HeartbeatInterval
		if sc.Protocol == timeline.Consumer {
			hb = timeline.DefaultBroker().ConsumerHeartbeatInterval
			if sc.Broker != nil {
				hb = sc.Broker.ConsumerHeartbeatInterval
			}
		}
		out[m.ID] = timeline.Phase{Heartbeat: hb, Poll: cfg.BatchMs()}
	}
	return out
}

// TestCooperativeCheck shows franz-go's trait (Config.CooperativeCheck):
// kgo's cooperative members heartbeat also 500 ms after each assignment,
// so the member that received nothing in the first round of a
// cooperative rebalance hears of the follow-up sooner than a Java
// consumer, which waits a whole heartbeat interval.
//
// c0 owns t-0,1,2 and c1 t-3,4,5 (cooperative-sticky, handConfig, in
// step). c2 starts at 5000; c0 and c1 hear at their heartbeats at 5000
// and rejoin at their polls at 5600 (8 × 700), which ends the join phase.
// c0 gives up t-2 and c1 t-5, and both rejoin at once for the follow-up;
// c2, which received nothing at 5600, hears of it at its first heartbeat:
// 5600 + 2500 = 8100 for a Java member, 5600 + 500 = 6100 with the check.
// It rejoins at its next poll, 8400 or 6300 (5600 + k × 700), and gets
// t-2 and t-5 then.
func TestCooperativeCheck(t *testing.T) {
	for _, tc := range []struct {
		check, end int64
	}{{check: 0, end: 8_400}, {check: 500, end: 6_300}} {
		cfg := handConfig
		cfg.CooperativeCheck = tc.check
		var ms []timeline.Member
		for _, id := range []string{"c0", "c1"} {
			ms = append(ms, timeline.Member{ID: id, Topics: []string{"t"}, Config: &cfg})
		}
		tl := simulate(t, timeline.Scenario{
			Members:  ms,
			Topics:   map[string]int32{"t": 6},
			Strategy: assign.CooperativeSticky{},
			Initial:  assign.Assignment{"c0": tps("t", 0, 1, 2), "c1": tps("t", 3, 4, 5)},
			Events:   []timeline.Event{{At: 5_000, Kind: timeline.Join, Member: "c2", Topics: []string{"t"}, Config: &cfg}},
		})
		want := outcome{
			Rebalances: []timeline.Rebalance{
				{Start: 5_000, End: 5_600, Reason: "c2 joins", Generation: 2},
				{Start: 5_600, End: tc.end, Reason: "c0 rejoins: cooperative follow-up", Generation: 3},
			},
			Unowned: map[string][]timeline.Span{"t-2": {span(5_600, tc.end)}, "t-5": {span(5_600, tc.end)}},
			Summary: timeline.Summary{Rebalances: 2, MaxUnownedMs: tc.end - 5_600, UnownedPartitionMs: 2 * (tc.end - 5_600)},
		}
		if diff := cmp.Diff(want, outcomeOf(tl)); diff != "" {
			t.Errorf("check %d ms: Simulate mismatch (-want +got):\n%s", tc.check, diff)
		}
	}
}

// TestCooperativeCheckAtStableStart is a regression test. A stable start
// hands every member its assignment at t = 0 and then sets its heartbeat
// phase, but the kgo check beat (Config.CooperativeCheck, 500 ms after an
// assignment) stayed due at 500, and beating then moved every cooperative
// member's heartbeats to 500 + 1000k whatever its phase. kfake saw the
// members of adapters/franz's band test beat at 257 + 1000k, hear of a
// static member's rejoin at 11257 and finish at 1.26 s where the model
// said 1.5 s.
//
// Here the static c1 (session 3500 ms, heartbeats every 1000 ms from
// phase 257, no batch) restarts at 10000 for 1000 ms on a coordinator
// that rebalances at its rejoin (Broker.StaticRejoinRebalances). Its
// JoinGroup at 11000 starts a join phase; c0 and c2 hear at their beats
// at 11257, rejoin when the news comes a round trip later, at 11258,
// which completes the join; SyncGroup ends the rebalance two round
// trips later, at 11260. Sticky keeps t-0,1 on c0 and t-3,5 on c2 and
// gives c1, which claims nothing after its restart, t-2,4 again.
func TestCooperativeCheckAtStableStart(t *testing.T) {
	cfg := timeline.Config{SessionTimeout: 3_500, HeartbeatInterval: 1_000, MaxPollInterval: 10_000, MaxPollRecords: 1, MetadataMaxAge: 300_000, CooperativeCheck: 500}
	broker := timeline.Broker{ConsumerSessionTimeout: 3_500, ConsumerHeartbeatInterval: 1_000, StaticRejoinRebalances: true}
	ms := []timeline.Member{
		{ID: "c0", Topics: []string{"t"}, Config: &cfg},
		{ID: "c1", InstanceID: "i-c1", Topics: []string{"t"}, Config: &cfg},
		{ID: "c2", Topics: []string{"t"}, Config: &cfg},
	}
	tl := simulate(t, timeline.Scenario{
		Members: ms, Topics: map[string]int32{"t": 6}, Strategy: assign.CooperativeSticky{}, Broker: &broker, RTT: 1,
		Initial: assign.Assignment{"c0": tps("t", 0, 1), "c1": tps("t", 2, 4), "c2": tps("t", 3, 5)},
		Phases:  map[string]timeline.Phase{"c0": {Heartbeat: 257}, "c1": {Heartbeat: 257}, "c2": {Heartbeat: 257}},
		Events:  []timeline.Event{{At: 10_000, Kind: timeline.Restart, Member: "c1", For: 1_000}},
	})
	want := outcome{
		Rebalances: []timeline.Rebalance{{Start: 11_000, End: 11_260, Reason: "c1 rejoins (static): the coordinator rebalances", Generation: 2}},
		Unowned:    map[string][]timeline.Span{"t-2": {span(10_000, 11_260)}, "t-4": {span(10_000, 11_260)}},
		Summary:    timeline.Summary{Rebalances: 1, MaxUnownedMs: 1_260, UnownedPartitionMs: 2_520},
	}
	if diff := cmp.Diff(want, outcomeOf(tl)); diff != "" {
		t.Errorf("Simulate mismatch (-want +got):\n%s", diff)
	}
}
