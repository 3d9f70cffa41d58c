package churn_test

// Table tests of the churn model (churn.go): each expectation worked out
// by hand from Kafka's rules and the strategies' documented layouts.

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/assigntest"
	"github.com/assigncalc/assigncalc/churn"
	"github.com/google/go-cmp/cmp"
)

// churnMember is a dynamic member subscribed to topics.
func churnMember(id string, topics ...string) assign.Member {
	return assign.Member{ID: id, Topics: topics, Generation: -1}
}

func newChurnT(t *testing.T, s assign.Strategy, g assign.Group) (*churn.Churn, churn.Step) {
	t.Helper()
	c, step, err := churn.NewChurn(s, g)
	if err != nil {
		t.Fatal(err)
	}
	return c, step
}

func churnApply(t *testing.T, c *churn.Churn, ch churn.Change) churn.Step {
	t.Helper()
	step, err := c.Apply(ch)
	if err != nil {
		t.Fatalf("Apply(%v): %v", ch, err)
	}
	return step
}

// TestChurnRangeLeave: Range over 12 partitions gives c0 0-3, c1 4-7, c2
// 8-11. When c0 leaves, c1 takes 0-5 and c2 6-11: 0-3 move because their
// owner left, 6 and 7 because Range's layout shifted; eager members revoke
// the 8 partitions c1 and c2 held.
func TestChurnRangeLeave(t *testing.T) {
	g := assign.Group{Topics: map[string]int32{"t": 12}, Members: []assign.Member{churnMember("c0", "t"), churnMember("c1", "t"), churnMember("c2", "t")}}
	c, start := newChurnT(t, assign.Range{}, g)
	if start.Rounds != 1 || start.Rebalances != 1 || len(start.Moves) != 0 {
		t.Errorf("first step: %d rounds, %d rebalances, moves %v; want 1, 1, none", start.Rounds, start.Rebalances, start.Moves)
	}
	step := churnApply(t, c, churn.Change{Kind: churn.ChangeLeave, Member: "c0"})
	want := []assign.Move{
		{Partition: assign.TopicPartition{Topic: "t", Partition: 0}, From: "c0", To: "c1", Reason: assign.ReasonOwnerLeft},
		{Partition: assign.TopicPartition{Topic: "t", Partition: 1}, From: "c0", To: "c1", Reason: assign.ReasonOwnerLeft},
		{Partition: assign.TopicPartition{Topic: "t", Partition: 2}, From: "c0", To: "c1", Reason: assign.ReasonOwnerLeft},
		{Partition: assign.TopicPartition{Topic: "t", Partition: 3}, From: "c0", To: "c1", Reason: assign.ReasonOwnerLeft},
		{Partition: assign.TopicPartition{Topic: "t", Partition: 6}, From: "c1", To: "c2", Reason: assign.ReasonLayout},
		{Partition: assign.TopicPartition{Topic: "t", Partition: 7}, From: "c1", To: "c2", Reason: assign.ReasonLayout},
	}
	if diff := cmp.Diff(want, step.Moves); diff != "" {
		t.Errorf("moves mismatch (-want +got):\n%s", diff)
	}
	if step.Revoked != 8 || step.Rounds != 1 {
		t.Errorf("revoked %d, rounds %d; want 8, 1", step.Revoked, step.Rounds)
	}
	if got := assign.Moved(step.Before, step.After); got != len(step.Moves) {
		t.Errorf("Moved = %d, but %d moves listed", got, len(step.Moves))
	}
	wantAfter := assign.Assignment{"c1": assigntest.TPs("t", 0, 1, 2, 3, 4, 5), "c2": assigntest.TPs("t", 6, 7, 8, 9, 10, 11)}
	if diff := cmp.Diff(wantAfter, step.After); diff != "" {
		t.Errorf("after mismatch (-want +got):\n%s", diff)
	}
	// The group after the step carries the assignment forward as claims.
	for _, m := range c.Group().Members {
		if !cmp.Equal(m.Owned, wantAfter[m.ID]) || m.Generation != 2 {
			t.Errorf("member %s owns %v at %d; want %v at generation 2", m.ID, m.Owned, m.Generation, wantAfter[m.ID])
		}
	}
}

// TestChurnFaithfulRejoin: a static member with its own subscription and
// rack leaves and rejoins under its ID, with nothing said about it; it
// comes back static, on its rack, subscribed to what it was, and the notes
// say so. A rejoin that gives its topics changes only those.
func TestChurnFaithfulRejoin(t *testing.T) {
	s1 := assign.Member{ID: "s1", InstanceID: "i1", Rack: "a", Topics: []string{"t1"}, Generation: -1}
	g := assign.Group{Topics: map[string]int32{"t1": 2, "t2": 2}, Members: []assign.Member{churnMember("c0", "t1", "t2"), s1}}
	c, _ := newChurnT(t, assign.Range{}, g)
	leave := churnApply(t, c, churn.Change{Kind: churn.ChangeLeave, Member: "s1"})
	if len(leave.Notes) != 1 || !strings.Contains(leave.Notes[0], "session.timeout.ms") {
		t.Errorf("leave notes %q: want one about the session timeout", leave.Notes)
	}
	join := churnApply(t, c, churn.Change{Kind: churn.ChangeJoin, Member: "s1"})
	got := c.Group().Members[1]
	got.Owned, got.Generation = nil, -1
	if diff := cmp.Diff(s1, got); diff != "" {
		t.Errorf("rejoined member mismatch (-before leaving +after rejoining):\n%s", diff)
	}
	if len(join.Notes) != 1 || !strings.Contains(join.Notes[0], `s1 rejoins as it left: subscription t1, group.instance.id "i1", rack "a"`) {
		t.Errorf("join notes %q", join.Notes)
	}
	// Range on t1 (c0 and s1): s1 is static and sorts first, so it takes
	// t1-0 back from c0, who had both while s1 was away.
	if diff := cmp.Diff([]assign.Move{{Partition: assign.TopicPartition{Topic: "t1", Partition: 0}, From: "c0", To: "s1", Reason: assign.ReasonStaticReturned}}, join.Moves); diff != "" {
		t.Errorf("moves mismatch (-want +got):\n%s", diff)
	}

	churnApply(t, c, churn.Change{Kind: churn.ChangeLeave, Member: "i1"}) // by instance id
	churnApply(t, c, churn.Change{Kind: churn.ChangeJoin, Member: "s9", InstanceID: "i1", Given: churn.GivenInstance | churn.GivenTopics, Topics: []string{"t2"}})
	got = c.Group().Members[1]
	if got.ID != "s9" || got.InstanceID != "i1" || got.Rack != "a" || !cmp.Equal(got.Topics, []string{"t2"}) {
		t.Errorf("member rejoining by instance id = %+v; want s9, i1, rack a, topics [t2]", got)
	}
}

// TestChurnNewMemberDefaults: a member never seen subscribes to every
// topic unless the join says otherwise.
func TestChurnNewMemberDefaults(t *testing.T) {
	g := assign.Group{Topics: map[string]int32{"b": 1, "a": 1}, Members: []assign.Member{churnMember("c0", "a")}}
	c, _ := newChurnT(t, assign.RoundRobin{}, g)
	step := churnApply(t, c, churn.Change{Kind: churn.ChangeJoin, Member: "c1"})
	if m := c.Group().Members[1]; !cmp.Equal(m.Topics, []string{"a", "b"}) || m.InstanceID != "" || m.Rack != "" {
		t.Errorf("new member %+v: want dynamic, no rack, topics [a b]", m)
	}
	if !strings.Contains(strings.Join(step.Notes, "\n"), "c1 is new and subscribes to every topic (a, b)") {
		t.Errorf("notes %q", step.Notes)
	}
}

// TestChurnNotesCountLongSubscriptions: a note names up to five topics;
// past that, the first three and how many there are, so that a member of
// a 200-topic group does not fill the screen.
func TestChurnNotesCountLongSubscriptions(t *testing.T) {
	topics := map[string]int32{}
	for _, n := range []string{"t0", "t1", "t2", "t3", "t4", "t5"} {
		topics[n] = 1
	}
	g := assign.Group{Topics: topics, Members: []assign.Member{churnMember("c0", "t0", "t1", "t2", "t3", "t4", "t5")}}
	c, _ := newChurnT(t, assign.Range{}, g)
	join := churnApply(t, c, churn.Change{Kind: churn.ChangeJoin, Member: "c1"})
	churnApply(t, c, churn.Change{Kind: churn.ChangeLeave, Member: "c0"})
	rejoin := churnApply(t, c, churn.Change{Kind: churn.ChangeJoin, Member: "c0"})
	for _, tt := range []struct {
		step churn.Step
		want string
	}{
		{join, "c1 is new and subscribes to every topic (t0, t1, t2, … (6 topics))"},
		{rejoin, "c0 rejoins as it left: subscription t0,t1,t2,… (6 topics), no group.instance.id, no rack"},
	} {
		if !slices.Contains(tt.step.Notes, tt.want) {
			t.Errorf("notes %q, want %q", tt.step.Notes, tt.want)
		}
	}
}

// TestChurnRestart: a static member's restart starts no rebalance and
// moves nothing (KIP-345); a dynamic one's is a leave and a join, and
// with a new member.id everything it had moves. Range over t:4 gives c0
// 0,1 and c1 2,3; while c1 is away c0 has all four; when c1-r1 joins
// ("c0" < "c1-r1"), c0 has 0,1 again and c1-r1 2,3: 2 and 3 moved from
// c1, who left. Eager revokes 2 (c0, first rebalance) + 4 (c0, second).
func TestChurnRestart(t *testing.T) {
	g := assign.Group{Topics: map[string]int32{"t": 4}, Members: []assign.Member{churnMember("c0", "t"), churnMember("c1", "t")}}
	c, _ := newChurnT(t, assign.Range{}, g)
	step := churnApply(t, c, churn.Change{Kind: churn.ChangeRestart, Member: "c1", NewID: "c1-r1"})
	want := []assign.Move{
		{Partition: assign.TopicPartition{Topic: "t", Partition: 2}, From: "c1", To: "c1-r1", Reason: assign.ReasonOwnerRestarted},
		{Partition: assign.TopicPartition{Topic: "t", Partition: 3}, From: "c1", To: "c1-r1", Reason: assign.ReasonOwnerRestarted},
	}
	if diff := cmp.Diff(want, step.Moves); diff != "" {
		t.Errorf("moves mismatch (-want +got):\n%s", diff)
	}
	if step.Rebalances != 2 || step.Rounds != 2 || step.Revoked != 6 {
		t.Errorf("rebalances %d, rounds %d, revoked %d; want 2, 2, 6", step.Rebalances, step.Rounds, step.Revoked)
	}

	static := assign.Group{Topics: map[string]int32{"t": 4}, Members: []assign.Member{churnMember("c0", "t"), {ID: "s1", InstanceID: "i1", Topics: []string{"t"}, Generation: -1}}}
	c, _ = newChurnT(t, assign.Range{}, static)
	before := c.Assignment()
	step = churnApply(t, c, churn.Change{Kind: churn.ChangeRestart, Member: "i1"})
	if step.Rebalances != 0 || step.Rounds != 0 || step.Revoked != 0 || len(step.Moves) != 0 {
		t.Errorf("static restart: rebalances %d, rounds %d, revoked %d, moves %v; want nothing", step.Rebalances, step.Rounds, step.Revoked, step.Moves)
	}
	if diff := cmp.Diff(before, step.After); diff != "" {
		t.Errorf("static restart changed the assignment (-before +after):\n%s", diff)
	}
}

// TestChurnNoRebalance: growing a topic nobody subscribes to, or by no
// partition, and resubscribing to the same topics start no rebalance, so
// even eager strategies revoke nothing.
func TestChurnNoRebalance(t *testing.T) {
	g := assign.Group{Topics: map[string]int32{"t": 4, "u": 2}, Members: []assign.Member{churnMember("c0", "t"), churnMember("c1", "t")}}
	for _, ch := range []churn.Change{
		{Kind: churn.ChangeGrow, Topic: "u", Partitions: 5},
		{Kind: churn.ChangeGrow, Topic: "t", Partitions: 4},
		{Kind: churn.ChangeGrow, Topic: "new", Partitions: 3},
		{Kind: churn.ChangeSubscribe, Member: "c0", Topics: []string{"t", "t"}},
	} {
		c, _ := newChurnT(t, assign.Range{}, g)
		step := churnApply(t, c, ch)
		if step.Rebalances != 0 || step.Rounds != 0 || step.Revoked != 0 || len(step.Moves) != 0 || len(step.Notes) != 1 {
			t.Errorf("%v: rebalances %d, rounds %d, revoked %d, moves %v, notes %q; want none and one note", ch, step.Rebalances, step.Rounds, step.Revoked, step.Moves, step.Notes)
		}
	}
	// Growing t does rebalance: Range over 6 gives 0-2 and 3-5, so t-2
	// moves from c1 to c0; eager revokes all 4.
	c, _ := newChurnT(t, assign.Range{}, g)
	step := churnApply(t, c, churn.Change{Kind: churn.ChangeGrow, Topic: "t", Partitions: 6})
	if diff := cmp.Diff([]assign.Move{{Partition: assign.TopicPartition{Topic: "t", Partition: 2}, From: "c1", To: "c0", Reason: assign.ReasonLayout}}, step.Moves); diff != "" {
		t.Errorf("moves mismatch (-want +got):\n%s", diff)
	}
	if step.Revoked != 4 {
		t.Errorf("revoked %d, want 4", step.Revoked)
	}
}

// TestChurnUnsubscribed: c0 drops t; its partitions move for that reason.
func TestChurnUnsubscribed(t *testing.T) {
	g := assign.Group{Topics: map[string]int32{"t": 2, "u": 2}, Members: []assign.Member{churnMember("c0", "t", "u"), churnMember("c1", "t", "u")}}
	c, _ := newChurnT(t, assign.Range{}, g)
	step := churnApply(t, c, churn.Change{Kind: churn.ChangeSubscribe, Member: "c0", Topics: []string{"u"}})
	// Range: c0 had t-0 and u-0, c1 t-1 and u-1; now c1 alone takes t.
	if diff := cmp.Diff([]assign.Move{{Partition: assign.TopicPartition{Topic: "t", Partition: 0}, From: "c0", To: "c1", Reason: assign.ReasonUnsubscribed}}, step.Moves); diff != "" {
		t.Errorf("moves mismatch (-want +got):\n%s", diff)
	}
}

// TestChurnCooperativeJoin: c1 joins c0, who owns all six partitions.
// Any balanced answer moves three; cooperative-sticky revokes them in a
// first round and hands them over in a second (KIP-429), so each move is
// deferred and due to balance.
func TestChurnCooperativeJoin(t *testing.T) {
	g := assign.Group{Topics: map[string]int32{"t": 6}, Members: []assign.Member{churnMember("c0", "t")}}
	c, _ := newChurnT(t, assign.CooperativeSticky{}, g)
	step := churnApply(t, c, churn.Change{Kind: churn.ChangeJoin, Member: "c1"})
	if len(step.Moves) != 3 || step.Rounds != 2 || step.Revoked != 3 {
		t.Fatalf("moves %v, rounds %d, revoked %d; want 3 moves, 2 rounds, 3 revoked", step.Moves, step.Rounds, step.Revoked)
	}
	for _, mv := range step.Moves {
		if mv.From != "c0" || mv.To != "c1" || mv.Reason != assign.ReasonBalance || !mv.Deferred {
			t.Errorf("move %+v: want c0 to c1, balance, deferred", mv)
		}
	}
	if len(step.After["c1"]) != 3 {
		t.Errorf("c1 has %v after the step, want three partitions", step.After["c1"])
	}
}

// TestChurnRefused: changes Kafka's rules refuse are *InputErrors and
// leave the churn as it was.
func TestChurnRefused(t *testing.T) {
	g := assign.Group{Topics: map[string]int32{"t": 4}, Members: []assign.Member{churnMember("c0", "t"), churnMember("c1", "t")}}
	c, _ := newChurnT(t, assign.Sticky{}, g)
	before := c.Group()
	for _, tt := range []struct {
		ch   churn.Change
		want error
	}{
		{churn.Change{Kind: churn.ChangeLeave, Member: "c7"}, assign.ErrUnknownMember},
		{churn.Change{Kind: churn.ChangeRestart, Member: "c7"}, assign.ErrUnknownMember},
		{churn.Change{Kind: churn.ChangeSubscribe, Member: "c7"}, assign.ErrUnknownMember},
		{churn.Change{Kind: churn.ChangeJoin, Member: "c1"}, assign.ErrDuplicateMemberID},
		{churn.Change{Kind: churn.ChangeRestart, Member: "c0", NewID: "c1"}, assign.ErrDuplicateMemberID},
		{churn.Change{Kind: churn.ChangeGrow, Topic: "t", Partitions: 2}, churn.ErrPartitionsDecrease},
		{churn.Change{Kind: churn.ChangeGrow, Topic: "t", Partitions: -1}, churn.ErrPartitionsDecrease},
	} {
		_, err := c.Apply(tt.ch)
		var ie *assign.InputError
		if !errors.Is(err, tt.want) || !errors.As(err, &ie) {
			t.Errorf("Apply(%v) = %v, want an *InputError wrapping %v", tt.ch, err, tt.want)
		}
	}
	if diff := cmp.Diff(before, c.Group()); diff != "" {
		t.Errorf("refused changes changed the group (-before +after):\n%s", diff)
	}
}
