package timeline_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/timeline"
)

// patternGroup is the group of the pattern tests: under the consumer
// protocol with server range, c0 subscribes to /orders-.*/ and
// heartbeats at odd seconds, c1 to payments at even ones, both with cfg;
// orders-eu and payments have two partitions each.
func patternGroup(cfg *timeline.Config, events []timeline.Event) timeline.Scenario {
	return timeline.Scenario{
		Members: []timeline.Member{
			{ID: "c0", TopicRegex: "orders-.*", Config: cfg},
			{ID: "c1", Topics: []string{"payments"}, Config: cfg},
		},
		Topics:   map[string]int32{"orders-eu": 2, "payments": 2},
		Protocol: timeline.Consumer, Strategy: assign.ServerRange{}, Broker: &kipBroker,
		Phases: map[string]timeline.Phase{"c0": {Heartbeat: 1_000}, "c1": {Heartbeat: 2_000}},
		Events: events,
	}
}

// TestTimelinePatterns follows, by hand, members subscribed by pattern
// under the consumer protocol with server range, which gives a topic's
// partitions to its subscribers in Kafka's HashMap order: c0, c1, c2
// ("c0".hashCode() 3117, 3118, 3119: buckets 13, 14, 15 of 16). The
// heartbeat interval is 2 s; c0 heartbeats at odd seconds, c1 at even
// ones, and both poll every 700 ms from 0 (handConfig's batch).
//
// c0 subscribes to /orders-.*/ and starts with orders-eu 0,1, c1 to
// payments, 0,1; the patterns of the start count as resolved long before.
//   - 2.5 s: orders-us is created. Nobody subscribes to it by name: no
//     epoch yet. The next heartbeat, c0's at 3 s, resolves the patterns
//     again: /orders-.*/ now matches orders-us, a new epoch, whose target
//     gives orders-us to c0.
//   - 7.5 s: audit is created, which nothing matches: no epoch; c1's
//     heartbeat at 14 s, the first more than 10 s after the last
//     resolution, resolves again and finds no change.
//   - 20.5 s: c2 joins with /orders-eu/ alone (not every topic, as a join
//     without topics would): a pattern new to the group, which starts no
//     epoch by itself (Kafka waits for its resolution), and which may not
//     be resolved before 24 s (10 s after 14 s). c2's own heartbeat at
//     24.5 s is the first after that: /orders-eu/ matches orders-eu, a new
//     epoch, which splits it, c0 keeping 0 and c2 taking 1.
//   - 40.5 s: c1 adds /orders-us/ to the same topic names and sends it at
//     its next poll, 40.6 s: again a pattern new to the group, no epoch
//     for the change, and at that heartbeat (more than 10 s after 24.5 s)
//     the resolution of /orders-us/, a new epoch: c0 keeps orders-us 0 and
//     c1 takes 1.
//   - 45 s: orders-ap is created. The patterns were resolved at 40.6 s, so
//     not again before 50.6 s, and the group is not settled meanwhile. A
//     heartbeat that acknowledges a revocation restarts its member's
//     heartbeats: c0 told to revoke orders-us-1 at 41.2 s (its cadence
//     since its acknowledgement at 25.2 s, a poll), revokes at its poll at
//     41.3 s, so it beats at 43.3 s, ..., 51.3 s; c1 at 40.6 s, ...,
//     50.6 s (not after 50.6 s), 52.6 s; c2 at 50.5 s, 52.5 s. The first is
//     c0's at 51.3 s: /orders-.*/ now matches orders-ap too, c0's.
func TestTimelinePatterns(t *testing.T) {
	cfg := handConfig
	sc := patternGroup(&cfg, []timeline.Event{
		{At: 2_500, Kind: timeline.Grow, Topic: "orders-us", Partitions: 2},
		{At: 7_500, Kind: timeline.Grow, Topic: "audit", Partitions: 1},
		{At: 20_500, Kind: timeline.Join, Member: "c2", TopicRegex: "orders-eu", Config: &cfg},
		{At: 40_500, Kind: timeline.Subscribe, Member: "c1", Topics: []string{"payments"}, TopicRegex: "orders-us"},
		{At: 45_000, Kind: timeline.Grow, Topic: "orders-ap", Partitions: 1},
	})
	tl, err := timeline.Simulate(sc)
	if err != nil {
		t.Fatal(err)
	}
	want := assign.Assignment{
		"c0": append(append(tps("orders-ap", 0), tps("orders-eu", 0)...), tps("orders-us", 0)...),
		"c1": append(tps("orders-us", 1), tps("payments", 0, 1)...),
		"c2": tps("orders-eu", 1),
	}
	if diff := cmp.Diff(want, tl.Final); diff != "" {
		t.Errorf("final assignment mismatch (-want +got):\n%s", diff)
	}
	type start struct {
		At     int64
		Reason string
	}
	var got []start
	for _, r := range tl.Rebalances {
		got = append(got, start{r.Start, r.Reason})
	}
	wantStarts := []start{
		{3_000, "patterns resolved again: /orders-.*/ matches orders-eu,orders-us"},
		{24_500, "patterns resolved again: /orders-eu/ matches orders-eu"},
		{40_600, "patterns resolved again: /orders-us/ matches orders-us"},
		{51_300, "patterns resolved again: /orders-.*/ matches orders-ap,orders-eu,orders-us"},
	}
	if diff := cmp.Diff(wantStarts, got); diff != "" {
		t.Errorf("rebalances mismatch (-want +got):\n%s", diff)
	}
	for _, created := range []struct {
		at    int64
		topic string
	}{{2_500, "orders-us"}, {7_500, "audit"}, {45_000, "orders-ap"}} {
		if !slices.ContainsFunc(tl.Steps, func(st timeline.Step) bool {
			return st.At == created.at && st.What == "no member subscribes to "+created.topic+", by name or by a pattern as last resolved: no new group epoch"
		}) {
			t.Errorf("steps lack %s's creation without a group epoch: %v", created.topic, tl.Steps)
		}
	}
}

// TestTimelinePatternsRefused: a pattern under the classic protocol, or
// with a classic strategy standing in for the coordinator's assignor, or
// one that does not compile, is an invalid scenario naming it.
func TestTimelinePatternsRefused(t *testing.T) {
	cfg := handConfig
	for _, tt := range []struct {
		name string
		sc   timeline.Scenario
		want string
	}{
		{"classic", timeline.Scenario{Protocol: timeline.Classic, Strategy: assign.Range{},
			Members: []timeline.Member{{ID: "c0", TopicRegex: "t", Config: &cfg}}}, `member "c0": subscription by pattern /t/: only the consumer protocol's assignors`},
		{"range standing in", timeline.Scenario{Protocol: timeline.Consumer, Strategy: assign.Range{}, Broker: &kipBroker,
			Members: []timeline.Member{member("c0")}, Events: []timeline.Event{{At: 1, Kind: timeline.Subscribe, Member: "c0", TopicRegex: "t"}}}, "subscription by pattern /t/"},
		{"does not compile", timeline.Scenario{Protocol: timeline.Consumer, Broker: &kipBroker,
			Members: []timeline.Member{member("c0")}, Events: []timeline.Event{{At: 1, Kind: timeline.Join, Member: "c1", TopicRegex: "t(", Config: &cfg}}}, `topic pattern "t(" does not compile`},
	} {
		tt.sc.Topics = map[string]int32{"t": 2}
		_, err := timeline.Simulate(tt.sc)
		if !errors.Is(err, timeline.ErrInvalidScenario) || !strings.Contains(err.Error(), tt.want) || strings.Count(err.Error(), "invalid scenario") != 1 {
			t.Errorf("%s: %v; want one invalid scenario saying %q", tt.name, err, tt.want)
		}
	}
}

// TestTimelinePatternEpochs: which changes of membership and subscription
// start a group epoch when patterns are involved, by Kafka's coordinator's
// rules (GroupMetadataManager.consumerGroupHeartbeat, 4.0 to 4.4), worked
// by hand. c0 subscribes to /orders-.*/, c1 to payments; the start's
// patterns count as resolved.
//   - 5 s: c2 joins with /orders-.*/, which c0 subscribes to and the
//     group has resolved: an epoch for the join.
//   - 10 s: c1 sends the subscription it has (payments): no epoch.
//   - 15 s: c1 adds /orders-.*/, resolved: an epoch.
//   - 20 s: c1 drops it again: an epoch.
//   - 25 s, 26 s: c0 and c2 close: an epoch each; nobody subscribes to
//     /orders-.*/ any more, so the group forgets its resolution.
//   - 30 s: c3 joins with /orders-.*/, new to the group again: no epoch
//     for the join; at that heartbeat (the last resolution was long
//     before) the pattern is resolved, and that starts one.
//   - 35 s: c3 crashes; its new process, restarted at 36 s, joins at
//     37 s as c3-r1 while the old member.id is still in the group (its
//     session runs 10 s), subscribed to the resolved /orders-.*/: an
//     epoch for the join, and one when c3's session expires.
func TestTimelinePatternEpochs(t *testing.T) {
	cfg := handConfig
	sc := patternGroup(&cfg, []timeline.Event{
		{At: 5_000, Kind: timeline.Join, Member: "c2", TopicRegex: "orders-.*", Config: &cfg},
		{At: 10_000, Kind: timeline.Subscribe, Member: "c1", Topics: []string{"payments"}},
		{At: 15_000, Kind: timeline.Subscribe, Member: "c1", Topics: []string{"payments"}, TopicRegex: "orders-.*"},
		{At: 20_000, Kind: timeline.Subscribe, Member: "c1", Topics: []string{"payments"}},
		{At: 25_000, Kind: timeline.Close, Member: "c0"},
		{At: 26_000, Kind: timeline.Close, Member: "c2"},
		{At: 30_000, Kind: timeline.Join, Member: "c3", TopicRegex: "orders-.*", Config: &cfg},
		{At: 35_000, Kind: timeline.Crash, Member: "c3"},
		{At: 36_000, Kind: timeline.Restart, Member: "c3", For: 1_000},
	})
	tl, err := timeline.Simulate(sc)
	if err != nil {
		t.Fatal(err)
	}
	var reasons []string
	for _, r := range tl.Rebalances {
		reasons = append(reasons, r.Reason)
	}
	want := []string{
		"c2 joins",
		"c1: subscription changed",
		"c1: subscription changed",
		"c0 leaves",
		"c2 leaves",
		"patterns resolved again: /orders-.*/ matches orders-eu",
		"c3-r1 joins",
		"c3: session timeout",
	}
	if !slices.Equal(reasons, want) {
		t.Errorf("rebalances %q; want %q", reasons, want)
	}
	for _, what := range []string{
		"no new group epoch for c1's subscription: subscription unchanged",
		"no new group epoch for c3's join: /orders-.*/ is new to the group, and waits for its resolution",
	} {
		if !slices.ContainsFunc(tl.Steps, func(st timeline.Step) bool { return st.What == what }) {
			t.Errorf("steps lack %q", what)
		}
	}
	if diff := cmp.Diff(assign.Assignment{"c1": tps("payments", 0, 1)}, assign.Assignment{"c1": tl.Final["c1"]}); diff != "" {
		t.Errorf("c1's final assignment mismatch (-want +got):\n%s", diff)
	}
}
