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

// TestTimelinePatterns follows, by hand, members subscribed by pattern
// under the consumer protocol with server range, which gives a topic's
// partitions to its subscribers in Kafka's HashMap order: c0, c1, c2
// ("c0".hashCode() 3117, 3118, 3119: buckets 13, 14, 15 of 16). c0
// subscribes to /orders-.*/ and starts with orders-eu 0,1; c1 to
// payments, 0,1. At 3 s orders-us is created: its epoch's target gives
// it to c0, the one member whose pattern matches it. At 10 s audit is
// created, which nobody subscribes to: no new group epoch. At 20 s c2 joins
// with /orders-eu/ alone (not every topic, as a join without topics
// would): orders-eu is split, c0 keeping 0 and c2 taking 1. At 40 s c1
// adds /orders-us/: c0 keeps orders-us 0 and c1 takes 1.
func TestTimelinePatterns(t *testing.T) {
	cfg := handConfig
	sc := timeline.Scenario{
		Members: []timeline.Member{
			{ID: "c0", TopicRegex: "orders-.*", Config: &cfg},
			{ID: "c1", Topics: []string{"payments"}, Config: &cfg},
		},
		Topics:   map[string]int32{"orders-eu": 2, "payments": 2},
		Protocol: timeline.Consumer, Strategy: assign.ServerRange{}, Broker: &kipBroker,
		Events: []timeline.Event{
			{At: 3_000, Kind: timeline.Grow, Topic: "orders-us", Partitions: 2},
			{At: 10_000, Kind: timeline.Grow, Topic: "audit", Partitions: 1},
			{At: 20_000, Kind: timeline.Join, Member: "c2", TopicRegex: "orders-eu", Config: &cfg},
			{At: 40_000, Kind: timeline.Subscribe, Member: "c1", Topics: []string{"payments"}, TopicRegex: "orders-us"},
		},
	}
	tl, err := timeline.Simulate(sc)
	if err != nil {
		t.Fatal(err)
	}
	want := assign.Assignment{
		"c0": append(tps("orders-eu", 0), tps("orders-us", 0)...),
		"c1": append(tps("orders-us", 1), tps("payments", 0, 1)...),
		"c2": tps("orders-eu", 1),
	}
	if diff := cmp.Diff(want, tl.Final); diff != "" {
		t.Errorf("final assignment mismatch (-want +got):\n%s", diff)
	}
	var reasons []string
	for _, r := range tl.Rebalances {
		reasons = append(reasons, r.Reason)
	}
	wantReasons := []string{"orders-us grows to 2 partitions", "c2 joins", "c1: subscription changed"}
	if diff := cmp.Diff(wantReasons, reasons); diff != "" {
		t.Errorf("rebalances mismatch (-want +got):\n%s", diff)
	}
	if !slices.ContainsFunc(tl.Steps, func(st timeline.Step) bool {
		return st.At == 10_000 && st.What == "no member subscribes to audit: no new group epoch"
	}) {
		t.Errorf("steps lack audit's creation without a group epoch: %v", tl.Steps)
	}
	// Both partitions of orders-us go first to c0, after the growth and
	// before c2 joins.
	seen := 0
	for _, p := range tl.Partitions {
		if p.Topic != "orders-us" {
			continue
		}
		seen++
		if len(p.Owners) == 0 || p.Owners[0].Member != "c0" || p.Owners[0].From < 3_000 || p.Owners[0].From >= 20_000 {
			t.Errorf("%s: owners %v; want c0 first, from between 3 s and 20 s", p.TopicPartition, p.Owners)
		}
	}
	if seen != 2 {
		t.Errorf("the timeline has %d partitions of orders-us; want 2", seen)
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
