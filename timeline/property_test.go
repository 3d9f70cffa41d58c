package timeline_test

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/timeline"
)

// setup is a protocol and a strategy the properties are checked under.
type setup struct {
	protocol timeline.Protocol
	strategy assign.Strategy
}

var setups = []setup{
	{timeline.Classic, assign.CooperativeSticky{}},
	{timeline.Classic, assign.Range{}},
	{timeline.Classic, assign.Sticky{}},
	{timeline.Consumer, nil}, // uniform, the default
	{timeline.Consumer, assign.Range{}},
}

// configGen draws consumer configurations with short, varied timings.
func configGen() *rapid.Generator[timeline.Config] {
	return rapid.Custom(func(t *rapid.T) timeline.Config {
		// Heartbeats a third of the session or less, and a rebalance
		// timeout of at least twice the session, as Kafka's defaults
		// (3 s, 45 s, 5 min) have it: with a heartbeat interval close to
		// max.poll.interval.ms, a member can miss every join phase and the
		// group never settles.
		session := rapid.Int64Range(3_000, 20_000).Draw(t, "session")
		return timeline.Config{
			SessionTimeout:    session,
			HeartbeatInterval: session / rapid.Int64Range(3, 10).Draw(t, "beats"),
			MaxPollInterval:   session * rapid.Int64Range(2, 6).Draw(t, "maxPoll"),
			MaxPollRecords:    rapid.IntRange(1, 100).Draw(t, "records"),
			RecordMicros:      rapid.Int64Range(0, 20_000).Draw(t, "micros"),
			MetadataMaxAge:    rapid.Int64Range(1_000, 60_000).Draw(t, "metadataAge"),
			// sarama's trait; reached only with round trips (RTT below).
			RejoinBackoff: rapid.SampledFrom([]int64{0, 0, 50, 2_000}).Draw(t, "rejoinBackoff"),
		}
	})
}

// scenarioGen draws small groups with a few events each.
func scenarioGen(s setup) *rapid.Generator[timeline.Scenario] {
	return rapid.Custom(func(t *rapid.T) timeline.Scenario {
		sc := timeline.Scenario{
			Protocol: s.protocol,
			Strategy: s.strategy,
			Topics:   map[string]int32{},
			Forming:  rapid.Bool().Draw(t, "forming"),
			// Round trips open the SyncGroup window a JoinGroup can
			// interrupt (a forming group with no initial delay does at 0).
			RTT: rapid.SampledFrom([]int64{0, 0, 1, 10}).Draw(t, "rtt"),
			Broker: &timeline.Broker{
				// Half with no delay, as kfake: members forming a group
				// then join one by one, each interrupting the last one's
				// SyncGroup round trip (Config.RejoinBackoff).
				InitialRebalanceDelay:     rapid.OneOf(rapid.Just(int64(0)), rapid.Int64Range(0, 3_000)).Draw(t, "initialDelay"),
				ConsumerSessionTimeout:    rapid.Int64Range(3_000, 20_000).Draw(t, "brokerSession"),
				ConsumerHeartbeatInterval: rapid.Int64Range(500, 2_500).Draw(t, "brokerHeartbeat"),
				StaticRejoinRebalances:    rapid.Bool().Draw(t, "staticRejoinRebalances"),
			},
		}
		topics := []string{"a", "b"}[:rapid.IntRange(1, 2).Draw(t, "topics")]
		for _, name := range topics {
			sc.Topics[name] = rapid.Int32Range(1, 6).Draw(t, "partitions")
		}
		newMember := func(id string) timeline.Member {
			cfg := configGen().Draw(t, "config")
			m := timeline.Member{ID: id, Topics: topics, Config: &cfg}
			if rapid.Bool().Draw(t, "static") {
				m.InstanceID = "i-" + id
			}
			return m
		}
		for i := range rapid.IntRange(1, 4).Draw(t, "members") {
			sc.Members = append(sc.Members, newMember(fmt.Sprintf("m%d", i)))
		}
		ids := groupIDs(sc.Members)
		for i := range rapid.IntRange(0, 6).Draw(t, "events") {
			at := rapid.Int64Range(0, 120_000).Draw(t, "at")
			kind := rapid.SampledFrom([]timeline.EventKind{
				timeline.Crash, timeline.Close, timeline.Restart, timeline.Stall, timeline.Join, timeline.Grow, timeline.Subscribe,
			}).Draw(t, "kind")
			ev := timeline.Event{At: at, Kind: kind}
			switch kind {
			case timeline.Join:
				m := newMember(fmt.Sprintf("j%d", i))
				ev.Member, ev.InstanceID, ev.Topics, ev.Config = m.ID, m.InstanceID, m.Topics, m.Config
				ids = append(ids, m.ID)
			case timeline.Grow:
				ev.Topic = rapid.SampledFrom(topics).Draw(t, "topic")
				ev.Partitions = sc.Topics[ev.Topic] + rapid.Int32Range(0, 3).Draw(t, "more")
			case timeline.Subscribe:
				ev.Member = rapid.SampledFrom(ids).Draw(t, "member")
				ev.Topics = rapid.SliceOfNDistinct(rapid.SampledFrom(topics), 1, len(topics), rapid.ID).Draw(t, "subscription")
			default:
				ev.Member = rapid.SampledFrom(ids).Draw(t, "member")
				ev.For = rapid.Int64Range(0, 90_000).Draw(t, "for")
			}
			sc.Events = append(sc.Events, ev)
		}
		return sc
	})
}

func groupIDs(ms []timeline.Member) []string {
	var ids []string
	for _, m := range ms {
		ids = append(ids, m.ID)
	}
	return ids
}

// liveAtEnd returns, per topic, whether some member alive at the end of
// sc subscribes to it. It replays the events' effect on liveness alone: a
// crash or close stops a running member, a restart stops it and starts it
// again For ms later, a join starts one; a subscription change holds from
// its time on, whether the member runs or not.
func liveAtEnd(sc timeline.Scenario) map[string]bool {
	type change struct {
		at    int64
		seq   int
		apply func()
	}
	alive := map[string]bool{}
	topics := map[string][]string{}
	for _, m := range sc.Members {
		alive[m.ID], topics[m.ID] = true, m.Topics
	}
	var changes []change
	for i, ev := range sc.Events {
		var apply func()
		switch ev.Kind {
		case timeline.Join:
			apply = func() { alive[ev.Member], topics[ev.Member] = true, ev.Topics }
		case timeline.Crash, timeline.Close:
			apply = func() { alive[ev.Member] = false }
		case timeline.Restart:
			apply = func() {
				alive[ev.Member] = false
				changes = append(changes, change{ev.At + ev.For, len(sc.Events) + len(changes), func() { alive[ev.Member] = true }})
			}
		case timeline.Subscribe:
			apply = func() { topics[ev.Member] = ev.Topics }
		default:
			continue
		}
		changes = append(changes, change{ev.At, i, apply})
	}
	for len(changes) > 0 {
		next := slices.MinFunc(changes, func(a, b change) int {
			if a.at != b.at {
				return int(a.at - b.at)
			}
			return a.seq - b.seq
		})
		changes = slices.DeleteFunc(changes, func(c change) bool { return c.seq == next.seq })
		next.apply()
	}
	out := map[string]bool{}
	for id, ok := range alive {
		for _, t := range topics[id] {
			out[t] = out[t] || ok
		}
	}
	return out
}

func forEachSetup(t *testing.T, prop func(t *rapid.T, sc timeline.Scenario, tl *timeline.Timeline)) {
	for _, s := range setups {
		name := s.protocol.String() + "/uniform"
		if s.strategy != nil {
			name = s.protocol.String() + "/" + s.strategy.Name()
		}
		t.Run(name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				sc := scenarioGen(s).Draw(t, "scenario")
				tl, err := timeline.Simulate(sc)
				if errors.Is(err, timeline.ErrInvalidScenario) {
					t.Skipf("not playable: %v", err)
				}
				if err != nil {
					t.Fatalf("Simulate: %v", err)
				}
				prop(t, sc, tl)
			})
		})
	}
}

// TestNoTwoOwners: at no instant do two members consume one partition.
// Kafka promises it for cooperative rebalancing (KIP-429) and for the
// consumer protocol (KIP-848: a partition goes to its new owner only once
// the old one has acknowledged its release); eager rebalancing gets it by
// revoking everything first.
func TestNoTwoOwners(t *testing.T) {
	forEachSetup(t, func(t *rapid.T, _ timeline.Scenario, tl *timeline.Timeline) {
		for _, p := range tl.Partitions {
			for i := 1; i < len(p.Owners); i++ {
				if prev, o := p.Owners[i-1], p.Owners[i]; o.From < prev.To {
					t.Fatalf("%s: owned by %s over [%d, %d) and by %s over [%d, %d); steps:\n%s", p, prev.Member, prev.From, prev.To, o.Member, o.From, o.To, stepsOf(tl))
				}
			}
		}
	})
}

// TestOwnedOnceStable: once the last event has played out and the group
// is stable, every partition of a topic some live member subscribes to
// has an owner, and no rebalance is left open.
func TestOwnedOnceStable(t *testing.T) {
	forEachSetup(t, func(t *rapid.T, sc timeline.Scenario, tl *timeline.Timeline) {
		owned := map[assign.TopicPartition]bool{}
		for _, tps := range tl.Final {
			for _, tp := range tps {
				owned[tp] = true
			}
		}
		live := liveAtEnd(sc)
		for _, p := range tl.Partitions {
			if live[p.Topic] && !owned[p.TopicPartition] {
				t.Fatalf("%s has no owner at the end (%d ms); final: %v; steps:\n%s", p, tl.End, tl.Final, stepsOf(tl))
			}
		}
		for _, r := range tl.Rebalances {
			if r.End < r.Start || r.End > tl.End {
				t.Fatalf("rebalance %+v does not end within [start, %d]", r, tl.End)
			}
		}
	})
}

// TestMemberOrderIrrelevant: listing the members in another order changes
// nothing, nor does running twice.
func TestMemberOrderIrrelevant(t *testing.T) {
	forEachSetup(t, func(t *rapid.T, sc timeline.Scenario, tl *timeline.Timeline) {
		shuffled := sc
		shuffled.Members = rapid.Permutation(sc.Members).Draw(t, "order")
		shuffled.Topics = maps.Clone(sc.Topics)
		again, err := timeline.Simulate(shuffled)
		if err != nil {
			t.Fatalf("Simulate(shuffled): %v", err)
		}
		if diff := cmp.Diff(tl, again); diff != "" {
			t.Fatalf("Simulate depends on the order of the members (-listed +shuffled):\n%s", diff)
		}
	})
}

// stepsOf lists a timeline's steps, one a line, for failure messages.
func stepsOf(tl *timeline.Timeline) string {
	var b strings.Builder
	for _, s := range tl.Steps {
		fmt.Fprintf(&b, "%8d %-4s %s\n", s.At, s.Member, s.What)
	}
	return b.String()
}
