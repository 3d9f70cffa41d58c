package timeline_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/timeline"
)

// backoffConfig: heartbeats every 1000 ms, a session of 10 s, a batch of
// 1 ms (a member polls every millisecond, so it rejoins as soon as it
// hears), and the rejoin backoff under test.
func backoffConfig(backoff int64) *timeline.Config {
	return &timeline.Config{SessionTimeout: 10_000, HeartbeatInterval: 1_000, MaxPollInterval: 60_000,
		MaxPollRecords: 1, RecordMicros: 1_000, MetadataMaxAge: 300_000, RejoinBackoff: backoff}
}

// joinsDuringRun is a stable group of c0 and c1, each owning two of t's
// four partitions, that c2 joins at 5000 and c3 at 5020 (during the
// rebalance c2 starts), every member with a rejoin backoff of b.
func joinsDuringRun(s assign.Strategy, b int64) timeline.Scenario {
	return timeline.Scenario{
		Members: []timeline.Member{
			{ID: "c0", Topics: []string{"t"}, Config: backoffConfig(b)},
			{ID: "c1", Topics: []string{"t"}, Config: backoffConfig(b)},
		},
		Topics: map[string]int32{"t": 4}, Strategy: s, RTT: 10,
		Initial: assign.Assignment{"c0": tps("t", 0, 1), "c1": tps("t", 2, 3)},
		Phases:  map[string]timeline.Phase{"c0": {Heartbeat: 1_000, Poll: 1}, "c1": {Heartbeat: 1_000, Poll: 1}},
		Events: []timeline.Event{
			{At: 5_000, Kind: timeline.Join, Member: "c2", Topics: []string{"t"}, Config: backoffConfig(b)},
			{At: 5_020, Kind: timeline.Join, Member: "c3", Topics: []string{"t"}, Config: backoffConfig(b)},
		},
	}
}

// TestRejoinBackoff shows sarama's trait (Config.RejoinBackoff): a member
// whose SyncGroup is answered REBALANCE_IN_PROGRESS, because a JoinGroup
// started a join phase while the group completed the previous one, waits
// the backoff before it rejoins, and the rebalance ends that much later.
// With a backoff of 0 (Java, franz-go, kafka-go) the member takes part in
// the new join phase at once: the timelines are those the model gave
// before the trait. Round trips of 10 ms; eager range.
//
// "forming": c0 and c1 start at 0 on a broker with no initial delay (as
// kfake). c0's JoinGroup alone completes a join phase at 0 (generation
// 1); its SyncGroup round trip would end at 20, but c1's JoinGroup at 0
// starts another. With no backoff c0 counts as rejoined, the join phase
// ends at 0 and SyncGroup hands out generation 2 at 20: t-0 and t-1 are
// unowned over [0, 20). With 1000 ms, c0 rejoins at 1000, the join phase
// ends then, and generation 2 arrives at 1020: [0, 1020).
//
// "join during sync": c0 owns t-0,1 and c1 t-2,3, heartbeating at 1000k.
// c2 starts at 5000; c0 and c1 hear at their beats at 5000, the news
// arrives at 5010 and they revoke everything and rejoin then, which ends
// the join phase (generation 2); its SyncGroup round trip would end at
// 5030, but c3 starts at 5020. With no backoff generation 3 is formed at
// 5020 and handed out at 5040: each partition unowned [5010, 5040), 30 ms.
// With 1000 ms, c0, c1 and c2 rejoin at 6020, generation 3 is handed
// out at 6040: [5010, 6040), the backoff longer for each partition.
func TestRejoinBackoff(t *testing.T) {
	noDelay := timeline.Broker{InitialRebalanceDelay: 0, ConsumerSessionTimeout: 45_000, ConsumerHeartbeatInterval: 5_000}
	forming := func(b int64) timeline.Scenario {
		return timeline.Scenario{
			Members: []timeline.Member{
				{ID: "c0", Topics: []string{"t"}, Config: backoffConfig(b)},
				{ID: "c1", Topics: []string{"t"}, Config: backoffConfig(b)},
			},
			Topics: map[string]int32{"t": 2}, Strategy: assign.Range{}, Forming: true, Broker: &noDelay, RTT: 10,
		}
	}
	joinDuringSync := func(b int64) timeline.Scenario { return joinsDuringRun(assign.Range{}, b) }
	each := func(n int, s timeline.Span) map[string][]timeline.Span {
		out := make(map[string][]timeline.Span)
		for _, tp := range tps("t", 0, 1, 2, 3)[:n] {
			out[tp.String()] = []timeline.Span{s}
		}
		return out
	}
	// A rebalance cut short by the next one's JoinGroup is recorded as
	// leading to no generation (0); the next one starts there.
	formed := timeline.Rebalance{Start: 0, End: 0, Reason: "group forms"}
	c2joins := timeline.Rebalance{Start: 5_000, End: 5_020, Reason: "c2 joins"}
	tests := []struct {
		name string
		sc   timeline.Scenario
		want outcome
	}{
		{"forming/no backoff", forming(0), outcome{
			Rebalances: []timeline.Rebalance{formed, {Start: 0, End: 20, Reason: "c1 joins", Generation: 2}},
			Unowned:    each(2, span(0, 20)),
			Summary:    timeline.Summary{Rebalances: 2, MaxUnownedMs: 20, UnownedPartitionMs: 40},
		}},
		{"forming/backoff 1000", forming(1_000), outcome{
			Rebalances: []timeline.Rebalance{formed, {Start: 0, End: 1_020, Reason: "c1 joins", Generation: 2}},
			Unowned:    each(2, span(0, 1_020)),
			Summary:    timeline.Summary{Rebalances: 2, MaxUnownedMs: 1_020, UnownedPartitionMs: 2_040},
		}},
		{"join during sync/no backoff", joinDuringSync(0), outcome{
			Rebalances: []timeline.Rebalance{c2joins, {Start: 5_020, End: 5_040, Reason: "c3 joins", Generation: 3}},
			Unowned:    each(4, span(5_010, 5_040)),
			Summary:    timeline.Summary{Rebalances: 2, MaxUnownedMs: 30, UnownedPartitionMs: 120},
		}},
		{"join during sync/backoff 1000", joinDuringSync(1_000), outcome{
			Rebalances: []timeline.Rebalance{c2joins, {Start: 5_020, End: 6_040, Reason: "c3 joins", Generation: 3}},
			Unowned:    each(4, span(5_010, 6_040)),
			Summary:    timeline.Summary{Rebalances: 2, MaxUnownedMs: 1_030, UnownedPartitionMs: 4_120},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := simulate(t, tt.sc)
			if diff := cmp.Diff(tt.want, outcomeOf(tl)); diff != "" {
				t.Errorf("Simulate mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRejoinBackoffMembers shows what a member does while it backs off.
//
// "cooperative keeps consuming": the join during sync of TestRejoinBackoff
// under cooperative-sticky. c0 and c1 keep t-0,1 and t-2,3 through the
// backoff. With no backoff generation 3 reaches the members at 5040: c0
// gives up t-1 and c1 t-3 and both rejoin at once; c2 and c3, which
// received nothing, hear of the follow-up at their first heartbeat, 6040,
// the news arriving at 6050, when they rejoin; the follow-up ends two
// round trips later, 6070: t-1 and t-3 unowned [5040, 6070). With 1000 ms
// all of it comes 1000 ms later and nothing is unowned before 6040.
//
// "eager expires": the forming group of TestRejoinBackoff with a backoff
// of 15 s, longer than the 10 s session. c0, bounced at 0 with no
// heartbeat, is expired at 10000; the join phase, c1 alone, then ends and
// c1 receives both partitions at 10020. c0 sends JoinGroup at 15000, is
// told its member.id is unknown and joins at once as a new member (as
// sarama does), which starts a rebalance; c1, heartbeating from 10020,
// hears at 15020, rejoins when the news arrives at 15030 (revoking both),
// and generation 3 arrives at 15050.
func TestRejoinBackoffMembers(t *testing.T) {
	coop := func(b int64) timeline.Scenario { return joinsDuringRun(assign.CooperativeSticky{}, b) }
	noDelay := timeline.Broker{InitialRebalanceDelay: 0, ConsumerSessionTimeout: 45_000, ConsumerHeartbeatInterval: 5_000}
	expires := timeline.Scenario{
		Members: []timeline.Member{
			{ID: "c0", Topics: []string{"t"}, Config: backoffConfig(15_000)},
			{ID: "c1", Topics: []string{"t"}, Config: backoffConfig(15_000)},
		},
		Topics: map[string]int32{"t": 2}, Strategy: assign.Range{}, Forming: true, Broker: &noDelay, RTT: 10,
	}
	c2joins := timeline.Rebalance{Start: 5_000, End: 5_020, Reason: "c2 joins"}
	tests := []struct {
		name string
		sc   timeline.Scenario
		want outcome
	}{
		{"cooperative keeps consuming/no backoff", coop(0), outcome{
			Rebalances: []timeline.Rebalance{c2joins,
				{Start: 5_020, End: 5_040, Reason: "c3 joins", Generation: 3},
				{Start: 5_040, End: 6_070, Reason: "c0 rejoins: cooperative follow-up", Generation: 4}},
			Unowned: map[string][]timeline.Span{"t-1": {span(5_040, 6_070)}, "t-3": {span(5_040, 6_070)}},
			Summary: timeline.Summary{Rebalances: 3, MaxUnownedMs: 1_030, UnownedPartitionMs: 2_060},
		}},
		{"cooperative keeps consuming/backoff 1000", coop(1_000), outcome{
			Rebalances: []timeline.Rebalance{c2joins,
				{Start: 5_020, End: 6_040, Reason: "c3 joins", Generation: 3},
				{Start: 6_040, End: 7_070, Reason: "c0 rejoins: cooperative follow-up", Generation: 4}},
			Unowned: map[string][]timeline.Span{"t-1": {span(6_040, 7_070)}, "t-3": {span(6_040, 7_070)}},
			Summary: timeline.Summary{Rebalances: 3, MaxUnownedMs: 1_030, UnownedPartitionMs: 2_060},
		}},
		{"eager expires", expires, outcome{
			Rebalances: []timeline.Rebalance{{Reason: "group forms"},
				{Start: 0, End: 10_020, Reason: "c1 joins", Generation: 2},
				{Start: 15_000, End: 15_050, Reason: "c0 joins", Generation: 3}},
			Unowned: map[string][]timeline.Span{"t-0": {span(0, 10_020), span(15_030, 15_050)}, "t-1": {span(0, 10_020), span(15_030, 15_050)}},
			Summary: timeline.Summary{Rebalances: 3, MaxUnownedMs: 10_020, UnownedPartitionMs: 20_080},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := simulate(t, tt.sc)
			if diff := cmp.Diff(tt.want, outcomeOf(tl)); diff != "" {
				t.Errorf("Simulate mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
