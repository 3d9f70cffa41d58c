package timeline_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/timeline"
)

// The share-group scenarios use kipBroker (heartbeats every 2000 ms,
// sessions of 10000 ms) and give the phases: c0's first heartbeat at
// 2000, c1's at 1000, so c0 beats at 2000, 4000, 6000, ... and c1 at
// 1000, 3000, 5000, ...
var sharePhases = map[string]timeline.Phase{"c0": {Heartbeat: 2_000}, "c1": {Heartbeat: 1_000}}

func TestShareHandWorked(t *testing.T) {
	tests := []struct {
		name string
		sc   timeline.Scenario
		want outcome
	}{
		{
			// One partition: the desired sharing is ceil(S/1) = S, so
			// every member holds t-0. c2's joining heartbeat at 3000
			// bumps the epoch to 2 and takes t-0 at once: nobody has to
			// give it up. c1's heartbeat at 3000 (after the event) and
			// c0's at 4000 take epoch 2, which changes nothing they hold:
			// the rebalance ends at 4000. t-0 is never unowned.
			name: "join: a shared partition needs nobody's revocation",
			sc: timeline.Scenario{
				Members: []timeline.Member{member("c0"), member("c1")},
				Topics:  map[string]int32{"t": 1}, Protocol: timeline.Share, Broker: &kipBroker, Phases: sharePhases,
				Events: []timeline.Event{{At: 3_000, Kind: timeline.Join, Member: "c2", Topics: []string{"t"}, Config: &handConfig}},
			},
			want: outcome{
				Rebalances: []timeline.Rebalance{{Start: 3_000, End: 4_000, Reason: "c2 joins", Generation: 2}},
				Unowned:    map[string][]timeline.Span{},
			},
		},
		{
			// c0 holds t-0 and c1 t-1. c0 crashes at 5000; its last
			// heartbeat was at 4000, so the coordinator removes it at
			// 14000: epoch 2, whose target gives c1, alone, both
			// partitions. c1 takes t-0 at its next heartbeat, 15000. t-0
			// is unowned from the crash until then: 10000 ms.
			name: "crash: the survivor takes the partition at its next heartbeat",
			sc: timeline.Scenario{
				Members: []timeline.Member{member("c0"), member("c1")},
				Topics:  map[string]int32{"t": 2}, Protocol: timeline.Share, Broker: &kipBroker, Phases: sharePhases,
				Initial: assign.Assignment{"c0": tps("t", 0), "c1": tps("t", 1)},
				Events:  []timeline.Event{{At: 5_000, Kind: timeline.Crash, Member: "c0"}},
			},
			want: outcome{
				Rebalances: []timeline.Rebalance{{Start: 14_000, End: 15_000, Reason: "c0: session timeout", Generation: 2}},
				Unowned:    map[string][]timeline.Span{"t-0": {span(5_000, 15_000)}},
				Summary:    timeline.Summary{Rebalances: 1, MaxUnownedMs: 10_000, UnownedPartitionMs: 10_000},
			},
		},
		{
			// One partition, so every member holds t-0. c0 crashes at
			// 5000 (its last heartbeat at 4000) and its new process
			// starts at 7500 under a new member.id, c0-r1, whose joining
			// heartbeat bumps the epoch to 2 and takes t-0 at once; c1
			// takes epoch 2 at 9000. The old c0 stays in the group,
			// down, at epoch 1, so the rebalance stays open until its
			// session expires at 14000 (4000 + 10000): epoch 3, which
			// changes nothing held; c1 takes it at 15000 and c0-r1 (its
			// heartbeats every 2000 from 7500) at 15500. t-0 is never
			// unowned: c1 consumes it throughout. The model used to let
			// c0-r1 take over c0's member.id: one rebalance, 7500 to 9000.
			name: "crash and restart before the session expires: a new member.id, the old one until its expiry",
			sc: timeline.Scenario{
				Members: []timeline.Member{member("c0"), member("c1")},
				Topics:  map[string]int32{"t": 1}, Protocol: timeline.Share, Broker: &kipBroker, Phases: sharePhases,
				Events: []timeline.Event{
					{At: 5_000, Kind: timeline.Crash, Member: "c0"},
					{At: 6_000, Kind: timeline.Restart, Member: "c0", For: 1_500},
				},
			},
			want: outcome{
				Rebalances: []timeline.Rebalance{
					{Start: 7_500, End: 14_000, Reason: "c0-r1 joins", Generation: 2},
					{Start: 14_000, End: 15_500, Reason: "c0: session timeout", Generation: 3},
				},
				Unowned: map[string][]timeline.Span{},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.want.Summary.Rebalances = len(tt.want.Rebalances)
			got := outcomeOf(simulate(t, tt.sc))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Simulate mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestShareNoRevocationWait: c0 holds both partitions of t alone; c1
// joins at 3000. Two members on two partitions: a desired sharing of one
// and one partition each, so c0's target drops one partition, X, and
// c1's is X. Under the consumer protocol c1 would wait for c0 to revoke
// X; in a share group c1 takes X in its joining heartbeat at 3000, and
// c0 stops X at its own next heartbeat, 4000. X has two owners for that
// second, no partition is ever unowned, and the rebalance runs 3000 to
// 4000.
func TestShareNoRevocationWait(t *testing.T) {
	tl := simulate(t, timeline.Scenario{
		Members: []timeline.Member{member("c0")},
		Topics:  map[string]int32{"t": 2}, Protocol: timeline.Share, Broker: &kipBroker,
		Phases: map[string]timeline.Phase{"c0": {Heartbeat: 2_000}}, Until: 6_000,
		Events: []timeline.Event{{At: 3_000, Kind: timeline.Join, Member: "c1", Topics: []string{"t"}, Config: &handConfig}},
	})
	want := []timeline.Rebalance{{Start: 3_000, End: 4_000, Reason: "c1 joins", Generation: 2}}
	if diff := cmp.Diff(want, tl.Rebalances); diff != "" {
		t.Errorf("rebalances mismatch (-want +got):\n%s", diff)
	}
	var shared int
	for _, p := range tl.Partitions {
		if len(p.Unowned) > 0 {
			t.Errorf("%s unowned %v; want never", p, p.Unowned)
		}
		during, after := p.OwnerAt(3_500), p.OwnerAt(4_500)
		switch {
		case slices.Equal(during, []string{"c0", "c1"}) && slices.Equal(after, []string{"c1"}):
			shared++
		case slices.Equal(during, []string{"c0"}) && slices.Equal(after, []string{"c0"}):
		default:
			t.Errorf("%s: owners %v at 3500 and %v at 4500; want c0,c1 then c1 (X), or c0 throughout", p, during, after)
		}
	}
	if shared != 1 {
		t.Errorf("%d partitions went from c0 to c1; want 1", shared)
	}
}

// TestShareRefuses: a share group has one assignor and no static members;
// its assignment interval is not negative.
func TestShareRefuses(t *testing.T) {
	negative := kipBroker
	negative.ShareAssignmentInterval = -1
	for name, sc := range map[string]timeline.Scenario{
		"negative interval": {Members: []timeline.Member{member("c0")}, Topics: map[string]int32{"t": 1}, Protocol: timeline.Share, Broker: &negative},
		"range":             {Members: []timeline.Member{member("c0")}, Topics: map[string]int32{"t": 1}, Protocol: timeline.Share, Strategy: assign.Range{}},
		"static":            {Members: []timeline.Member{static("s0", "i0")}, Topics: map[string]int32{"t": 1}, Protocol: timeline.Share},
	} {
		if _, err := timeline.Simulate(sc); !errors.Is(err, timeline.ErrInvalidScenario) {
			t.Errorf("%s: %v, want ErrInvalidScenario", name, err)
		}
	}
}

// TestShareProperties plays random share groups (the property tests'
// scenarios, made dynamic: share groups have no static members): every
// one plays to the end, every rebalance ends within the timeline, and
// listing the members in another order changes nothing.
func TestShareProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		sc := scenarioGen(setup{protocol: timeline.Share}).Draw(t, "scenario")
		for i := range sc.Members {
			sc.Members[i].InstanceID = ""
		}
		for i := range sc.Events {
			sc.Events[i].InstanceID = ""
		}
		tl, err := timeline.Simulate(sc)
		if errors.Is(err, timeline.ErrInvalidScenario) {
			t.Skipf("not playable: %v", err)
		}
		if err != nil {
			t.Fatalf("Simulate: %v", err)
		}
		for _, r := range tl.Rebalances {
			if r.End < r.Start || r.End > tl.End {
				t.Fatalf("rebalance %+v does not end within [start, %d]; steps:\n%s", r, tl.End, stepsOf(tl))
			}
		}
		shuffled := sc
		shuffled.Members = rapid.Permutation(sc.Members).Draw(t, "order")
		again, err := timeline.Simulate(shuffled)
		if err != nil {
			t.Fatalf("Simulate(shuffled): %v", err)
		}
		if diff := cmp.Diff(tl, again); diff != "" {
			t.Fatalf("Simulate depends on the order of the members (-listed +shuffled):\n%s", diff)
		}
	})
}

// TestShareAssignmentInterval works by hand KIP-1263's
// group.share.assignment.interval.ms (Kafka 4.3 and later): two changes
// within the interval of one computation. Topics t and u have one
// partition each, so the simple assignor gives every subscriber of a
// topic its partition (a desired sharing of ceil(S/1) = S). c0 ([t])
// holds t-0 and c1 ([u]) u-0; c1 heartbeats at 1000 + 2000k. c2 ([u])
// joins at 3000: a target is computed then, and c2 shares u-0 at once.
// c0 closes at 3200: t-0 has no owner. c3 ([t]) joins at 3500.
//
//   - 4.2: each change computes its target at once, and c3 takes t-0 in
//     its joining heartbeat at 3500: t-0 is unowned 3200 to 3500. The
//     last rebalance ends when c1 and c2 take epoch 4 at 5000.
//   - 4.3, an interval of 1000 ms: the target of 3000 holds until 4000.
//     c0's close and c3's join bump the epoch (3, 4) without a target;
//     c3's joining heartbeat gets nothing. The first heartbeat at or after
//     4000 is c1's (and c2's) at 5000, which computes epoch 4's target; c3
//     takes t-0 at its next heartbeat, 5500: t-0 is unowned 3200 to 5500.
func TestShareAssignmentInterval(t *testing.T) {
	on := func(id string, topics ...string) timeline.Member {
		m := member(id)
		m.Topics = topics
		return m
	}
	withInterval := kipBroker
	withInterval.ShareAssignmentInterval = 1_000
	scenario := func(v assign.KafkaVersion) timeline.Scenario {
		return timeline.Scenario{
			Members: []timeline.Member{on("c0", "t"), on("c1", "u")},
			Topics:  map[string]int32{"t": 1, "u": 1}, Protocol: timeline.Share, Broker: &withInterval, Phases: sharePhases,
			Kafka: v, Initial: assign.Assignment{"c0": tps("t", 0), "c1": tps("u", 0)},
			Events: []timeline.Event{
				{At: 3_000, Kind: timeline.Join, Member: "c2", Topics: []string{"u"}, Config: &handConfig},
				{At: 3_200, Kind: timeline.Close, Member: "c0"},
				{At: 3_500, Kind: timeline.Join, Member: "c3", Topics: []string{"t"}, Config: &handConfig},
			},
		}
	}
	first := []timeline.Rebalance{{Start: 3_000, End: 3_200, Reason: "c2 joins", Generation: 2}, {Start: 3_200, End: 3_500, Reason: "c0 leaves", Generation: 3}}
	tests := []struct {
		v    assign.KafkaVersion
		want outcome
	}{
		{assign.Kafka42, outcome{
			Rebalances: append(slices.Clone(first), timeline.Rebalance{Start: 3_500, End: 5_000, Reason: "c3 joins", Generation: 4}),
			Unowned:    map[string][]timeline.Span{"t-0": {span(3_200, 3_500)}},
			Summary:    timeline.Summary{Rebalances: 3, MaxUnownedMs: 300, UnownedPartitionMs: 300},
		}},
		{assign.Kafka43, outcome{
			Rebalances: append(slices.Clone(first), timeline.Rebalance{Start: 3_500, End: 5_500, Reason: "c3 joins", Generation: 4}),
			Unowned:    map[string][]timeline.Span{"t-0": {span(3_200, 5_500)}},
			Summary:    timeline.Summary{Rebalances: 3, MaxUnownedMs: 2_300, UnownedPartitionMs: 2_300},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.v.String(), func(t *testing.T) {
			tl := simulate(t, scenario(tt.v))
			if diff := cmp.Diff(tt.want, outcomeOf(tl)); diff != "" {
				t.Errorf("Simulate mismatch (-want +got):\n%s\nsteps:\n%s", diff, stepsOf(tl))
			}
		})
	}
	// 4.4 is 4.3; an interval of 0 is every change at once, as 4.2.
	zero := scenario(assign.Kafka44)
	zero.Broker = &kipBroker
	for _, same := range []struct{ a, b timeline.Scenario }{
		{scenario(assign.Kafka44), scenario(assign.Kafka43)},
		{zero, scenario(assign.Kafka42)},
	} {
		if diff := cmp.Diff(outcomeOf(simulate(t, same.b)), outcomeOf(simulate(t, same.a))); diff != "" {
			t.Errorf("Kafka %v differs from %v (-%v +%v):\n%s", same.a.Kafka, same.b.Kafka, same.b.Kafka, same.a.Kafka, diff)
		}
	}
}

// TestShareDeferredResubscription: within the assignment interval a
// member whose subscription changed drops at once what it no longer
// subscribes to, as Kafka's ShareGroupAssignmentBuilder filters the
// target by the subscription. t and u have one partition each (every
// subscriber holds it). c0 ([t]) starts with t-0; c1 ([t, u]) with
// t-0 and u-0. c2 ([u]) joins at 3000: a target is computed then (c2 shares
// u-0). c1 changes its subscription to [t] at 2500, sent with its
// heartbeat at 3000, after c2's join: epoch 3, whose target waits until
// 4000. c1 takes epoch 2's target less u: t-0 alone, so from 3000 u-0 is
// c2's only. c0's heartbeat at 4000 computes epoch 3's target; c1 and c2
// take it at 5000, when the rebalance ends.
func TestShareDeferredResubscription(t *testing.T) {
	withInterval := kipBroker
	withInterval.ShareAssignmentInterval = 1_000
	on := func(id string, topics ...string) timeline.Member {
		m := member(id)
		m.Topics = topics
		return m
	}
	tl := simulate(t, timeline.Scenario{
		Members: []timeline.Member{on("c0", "t"), on("c1", "t", "u")},
		Topics:  map[string]int32{"t": 1, "u": 1}, Protocol: timeline.Share, Broker: &withInterval, Phases: sharePhases,
		Kafka: assign.Kafka44,
		Events: []timeline.Event{
			{At: 2_500, Kind: timeline.Subscribe, Member: "c1", Topics: []string{"t"}},
			{At: 3_000, Kind: timeline.Join, Member: "c2", Topics: []string{"u"}, Config: &handConfig},
		},
	})
	want := []timeline.Rebalance{{Start: 3_000, End: 3_000, Reason: "c2 joins", Generation: 2}, {Start: 3_000, End: 5_000, Reason: "c1: subscription changed", Generation: 3}}
	if diff := cmp.Diff(want, tl.Rebalances); diff != "" {
		t.Errorf("rebalances mismatch (-want +got):\n%s\nsteps:\n%s", diff, stepsOf(tl))
	}
	owners := map[string][]string{}
	for _, p := range tl.Partitions {
		owners[p.String()] = p.OwnerAt(3_500)
	}
	if diff := cmp.Diff(map[string][]string{"t-0": {"c0", "c1"}, "u-0": {"c2"}}, owners); diff != "" {
		t.Errorf("owners at 3500 mismatch (-want +got):\n%s\nsteps:\n%s", diff, stepsOf(tl))
	}
}

// TestShareInitialShared: a share group's initial assignment may give a
// partition to several members (not twice to one); a classic group's may
// not. Both members holding t-0 is what Simple gives two members of one
// partition, so the timeline starting from it is the one computed from
// scratch: nothing changes and nothing is unowned.
func TestShareInitialShared(t *testing.T) {
	sc := func(p timeline.Protocol, initial assign.Assignment) timeline.Scenario {
		return timeline.Scenario{
			Members: []timeline.Member{member("c0"), member("c1")},
			Topics:  map[string]int32{"t": 1}, Protocol: p, Broker: &kipBroker, Phases: sharePhases,
			Initial: initial, Until: 10_000,
		}
	}
	both := assign.Assignment{"c0": tps("t", 0), "c1": tps("t", 0)}
	given := outcomeOf(simulate(t, sc(timeline.Share, both)))
	computed := outcomeOf(simulate(t, sc(timeline.Share, nil)))
	if diff := cmp.Diff(computed, given); diff != "" {
		t.Errorf("share group from a shared initial assignment (-computed +given):\n%s", diff)
	}
	for _, tt := range []struct {
		p       timeline.Protocol
		initial assign.Assignment
		want    string
	}{
		{timeline.Share, assign.Assignment{"c0": append(tps("t", 0), tps("t", 0)...)}, `t-0 given to "c0" twice`},
		{timeline.Classic, both, `t-0 given to "c0" and "c1"`},
	} {
		s := sc(tt.p, tt.initial)
		if tt.p == timeline.Classic {
			s.Strategy = assign.Range{}
		}
		_, err := timeline.Simulate(s)
		if !errors.Is(err, timeline.ErrInvalidScenario) || err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("protocol %v, initial %v: error %v, want ErrInvalidScenario saying %s", tt.p, tt.initial, err, tt.want)
		}
	}
}
