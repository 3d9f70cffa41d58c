package churn

import (
	"errors"
	"fmt"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// shareGroup is a share group of members subscribed to topic t of n
// partitions, holding nothing, with t's topic id given.
func shareGroup(n int32, members ...string) assign.Group {
	g := assign.Group{Topics: map[string]int32{"t": n}}
	g, _ = g.WithDerivedTopicIDs()
	for _, id := range members {
		g.Members = append(g.Members, assign.Member{ID: id, Topics: []string{"t"}, Generation: -1})
	}
	return g
}

// TestChurnShareOnePartition follows a share group of one partition,
// worked by hand from simple's rules: with one partition, the desired
// sharing is ceil(S/1) = S, every member holds t-0. A join gives t-0 to
// the newcomer too, in one heartbeat round, taking it from nobody; a
// leave takes nothing from anyone who stays.
func TestChurnShareOnePartition(t *testing.T) {
	c, first, err := NewChurn(assign.Simple{}, shareGroup(1, "c0", "c1"))
	if err != nil {
		t.Fatal(err)
	}
	t0 := []assign.TopicPartition{{Topic: "t", Partition: 0}}
	if diff := cmp.Diff(assign.Assignment{"c0": t0, "c1": t0}, first.After); diff != "" {
		t.Fatalf("start mismatch (-want +got):\n%s", diff)
	}
	if first.Rounds != 1 || first.Received != 2 || first.Revoked != 0 || first.Moves != nil {
		t.Errorf("start: %d rounds, %d received, %d revoked, moves %v; want 1, 2, 0, none", first.Rounds, first.Received, first.Revoked, first.Moves)
	}
	join, err := c.Apply(Change{Kind: ChangeJoin, Member: "c2"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(assign.Assignment{"c0": t0, "c1": t0, "c2": t0}, join.After); diff != "" {
		t.Errorf("join c2 mismatch (-want +got):\n%s", diff)
	}
	if join.Rounds != 1 || join.Received != 1 || join.Revoked != 0 || join.Affected() != 1 {
		t.Errorf("join c2: %d rounds, %d received, %d revoked, %d affected; want 1, 1, 0, 1", join.Rounds, join.Received, join.Revoked, join.Affected())
	}
	if st := assign.Summarize(join.Group, join.After); st.MaxSharing != 3 {
		t.Errorf("join c2: max sharing %d, want 3", st.MaxSharing)
	}
	leave, err := c.Apply(Change{Kind: ChangeLeave, Member: "c0"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(assign.Assignment{"c1": t0, "c2": t0}, leave.After); diff != "" {
		t.Errorf("leave c0 mismatch (-want +got):\n%s", diff)
	}
	if leave.Rounds != 1 || leave.Received != 0 || leave.Revoked != 0 || leave.Affected() != 0 {
		t.Errorf("leave c0: %d rounds, %d received, %d revoked, %d affected; want 1, 0, 0, 0", leave.Rounds, leave.Received, leave.Revoked, leave.Affected())
	}
}

// TestChurnShareLeaveLeavesUndershared works a leave by hand where
// Kafka's simple assignor leaves a partition below the desired sharing.
// Members c0..c3 hash ("c0".hashCode() = 3117, ..., "c3" 3120) to
// buckets 13, 14, 15 and 0 of a 16-bucket HashMap: member indices c3 0,
// c0 1, c1 2, c2 3. Four members on two partitions: sharing ceil(4/2) = 2,
// x = 2·2/4 = 1, every member desires one. The first partition in the
// partition map's order takes the first two members below their count,
// c3 and c0; the second takes c1 and c2. Then c3 leaves: indices c0 0,
// c1 1, c2 2; sharing still 2, x = 4/3, desired counts ceil(4/3) = 2,
// ceil(8/3) - 2 = 1 and 4 - 3 = 1. Nobody holds more than its count and
// no partition more than two members, so nothing is revoked. c3's
// partition, held by c0 alone, wants another member; the only member
// below its count is c0, which already holds it: Kafka leaves it shared
// by one. Nothing is received either.
func TestChurnShareLeaveLeavesUndershared(t *testing.T) {
	c, first, err := NewChurn(assign.Simple{}, shareGroup(2, "c0", "c1", "c2", "c3"))
	if err != nil {
		t.Fatal(err)
	}
	a := first.After
	if len(a["c3"]) != 1 || !cmp.Equal(a["c3"], a["c0"]) || len(a["c1"]) != 1 || !cmp.Equal(a["c1"], a["c2"]) || cmp.Equal(a["c0"], a["c1"]) {
		t.Fatalf("start: %v; want c3 and c0 on one partition, c1 and c2 on the other", a)
	}
	step, err := c.Apply(Change{Kind: ChangeLeave, Member: "c3"})
	if err != nil {
		t.Fatal(err)
	}
	want := assign.Assignment{"c0": a["c0"], "c1": a["c1"], "c2": a["c2"]}
	if diff := cmp.Diff(want, step.After); diff != "" {
		t.Errorf("leave c3 mismatch (-want +got):\n%s", diff)
	}
	if step.Rounds != 1 || step.Received != 0 || step.Revoked != 0 {
		t.Errorf("leave c3: %d rounds, %d received, %d revoked; want 1, 0, 0", step.Rounds, step.Received, step.Revoked)
	}
	if st := assign.Summarize(step.Group, step.After); st.MaxSharing != 2 || st.Min != 1 || st.Max != 1 {
		t.Errorf("leave c3: max sharing %d, min %d, max %d; want 2, 1, 1", st.MaxSharing, st.Min, st.Max)
	}
}

// TestChurnShareNoSwitch: a share group does not switch to a consumer
// group's strategy, nor the other way; the churn stays as it was.
func TestChurnShareNoSwitch(t *testing.T) {
	c, _, err := NewChurn(assign.Simple{}, shareGroup(2, "c0"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Apply(Change{Kind: ChangeStrategy, Strategy: assign.Range{}})
	var ie *assign.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("switch simple to range: %v, want an *assign.InputError", err)
	}
	// Still simple: c1 joins, c0 keeps one of its two partitions and c1
	// receives the other (two partitions, two members, one each).
	join, err := c.Apply(Change{Kind: ChangeJoin, Member: "c1"})
	if err != nil {
		t.Fatal(err)
	}
	if join.Revoked != 1 || join.Received != 1 || len(join.After["c0"]) != 1 || len(join.After["c1"]) != 1 {
		t.Errorf("join c1 after the refused switch: %d revoked, %d received, %v; want 1, 1, one partition each", join.Revoked, join.Received, join.After)
	}
	c2, _, err := NewChurn(assign.Range{}, shareGroup(2, "c0"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c2.Apply(Change{Kind: ChangeStrategy, Strategy: assign.Simple{}}); !errors.As(err, &ie) {
		t.Fatalf("switch range to simple: %v, want an *assign.InputError", err)
	}
}

// TestChurnShareProperties drives a share group through random joins,
// leaves, growths and subscription changes: every step's answer is a
// valid share assignment ([assign.VerifyShare]), a rebalance takes one
// heartbeat round, and Received and Revoked are what a set difference of
// each remaining member's partitions before and after counts.
func TestChurnShareProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		topics := []string{"a", "b"}
		g := assign.Group{Topics: map[string]int32{"a": rapid.Int32Range(1, 5).Draw(t, "a"), "b": rapid.Int32Range(1, 5).Draw(t, "b")}}
		g, _ = g.WithDerivedTopicIDs()
		for i := range rapid.IntRange(1, 5).Draw(t, "members") {
			sub := rapid.SliceOfNDistinct(rapid.SampledFrom(topics), 1, 2, rapid.ID).Draw(t, "topics")
			g.Members = append(g.Members, assign.Member{ID: fmt.Sprintf("m%d", i), Topics: sub, Generation: -1})
		}
		c, _, err := NewChurn(assign.Simple{}, g)
		if err != nil {
			t.Fatalf("NewChurn: %v", err)
		}
		for i := range rapid.IntRange(1, 8).Draw(t, "changes") {
			ids := groupIDs(c.Group())
			var ch Change
			switch rapid.IntRange(0, 3).Draw(t, "kind") {
			case 0:
				ch = Change{Kind: ChangeJoin, Member: fmt.Sprintf("j%d", i)}
			case 1:
				if len(ids) < 2 {
					continue
				}
				ch = Change{Kind: ChangeLeave, Member: rapid.SampledFrom(ids).Draw(t, "leaver")}
			case 2:
				tp := rapid.SampledFrom(topics).Draw(t, "topic")
				ch = Change{Kind: ChangeGrow, Topic: tp, Partitions: c.Group().Topics[tp] + rapid.Int32Range(1, 3).Draw(t, "more")}
			case 3:
				ch = Change{Kind: ChangeSubscribe, Member: rapid.SampledFrom(ids).Draw(t, "member"), Topics: rapid.SliceOfNDistinct(rapid.SampledFrom(topics), 1, 2, rapid.ID).Draw(t, "sub")}
			}
			step, err := c.Apply(ch)
			if err != nil {
				t.Fatalf("%s: %v", ch, err)
			}
			if err := assign.VerifyShare(step.Group, step.After); err != nil {
				t.Fatalf("%s: %v", ch, err)
			}
			if step.Rounds != step.Rebalances {
				t.Fatalf("%s: %d rounds over %d rebalances; want one each", ch, step.Rounds, step.Rebalances)
			}
			if step.Rebalances > 1 {
				continue // a restart's two rebalances count what the first gave too
			}
			received, revoked := 0, 0
			for _, m := range step.Group.Members {
				before := map[assign.TopicPartition]bool{}
				for _, tp := range step.Before[m.ID] {
					before[tp] = true
				}
				for _, tp := range step.After[m.ID] {
					if !before[tp] {
						received++
					}
					delete(before, tp)
				}
				revoked += len(before)
			}
			if step.Received != received || step.Revoked != revoked {
				t.Fatalf("%s: received %d, revoked %d; the sets say %d and %d", ch, step.Received, step.Revoked, received, revoked)
			}
		}
	})
}

func groupIDs(g assign.Group) []string {
	var ids []string
	for _, m := range g.Members {
		ids = append(ids, m.ID)
	}
	return ids
}
