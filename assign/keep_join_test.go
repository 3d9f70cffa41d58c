package assign_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// TestKeepAndDealOverTarget: when members list more than their target
// (one joins a balanced group, or claims are lopsided), the sticky
// strategies answer from the members' lists (keep_join.go) whenever no
// claim needs settling partition by partition; their answer must be the
// one settling every claim gives, for Sticky and for CooperativeSticky
// (whose follow-up round's claims may get other targets than this
// round's: keepAndDeal's answer is still the round settledTarget gives). Claims are drawn anyhow: any member may
// own any partitions, in runs of any length, or one partition of each
// of many topics as a fresh round deals them; members join owning
// nothing; some members are static, and joiners come before or after
// the others in Kafka's member order. Lists are in order, as clients
// send them, in runs of one topic in another order (as from a map), or
// reversed (a member over target then takes the general path), and some
// topic names order differently in Go and Java (which also takes the
// general path).
func TestKeepAndDealOverTarget(t *testing.T) {
	// Targets are 1, 2, 2, 1 for c0..c3 (the two with the most claims
	// get the extra one): c1 keeps the lowest two of its run and gives up
	// t0-2 and t0-3; t0-5, listed by nobody, goes first, to c0; then c2
	// and c3 get t0-2 and t0-3. CooperativeSticky withholds those two;
	// its follow-up round's claims (c0 1, c1 2, c2 1, c3 0) give the extra
	// one to c0 instead of c2 (the target settling every claim gives t0-2
	// to c0), and this round is the same.
	unsettledGroup := assign.Group{
		Topics: map[string]int32{"t0": 6},
		Members: []assign.Member{
			{ID: "c0", Topics: []string{"t0"}, Generation: -1},
			{ID: "c1", Topics: []string{"t0"}, Owned: tps("t0", 0, 1, 2, 3), Generation: 1},
			{ID: "c2", Topics: []string{"t0"}, Owned: tps("t0", 4), Generation: 1},
			{ID: "c3", Topics: []string{"t0"}, Generation: -1},
		},
	}
	if !assign.GivesUpByPosition(unsettledGroup) || !assign.FollowUpTargetsMove(unsettledGroup) {
		t.Fatalf("the example does not take keepAndDeal with a member over target whose follow-up round's targets move: %v, %v",
			assign.GivesUpByPosition(unsettledGroup), assign.FollowUpTargetsMove(unsettledGroup))
	}
	checkOverTarget(t, unsettledGroup)

	// Members own one partition of each topic, as a fresh round deals
	// them, and joiners take a share of every member's: the members over
	// target give up stretches of their lists that wrap around its end
	// (giveUp), and the bench's shape uniform-10x100-join1.
	for _, sh := range []struct{ members, topics, partitions, joiners int }{
		{4, 6, 4, 3}, {5, 10, 5, 1}, {3, 7, 3, 2}, {10, 10, 10, 1}, {6, 9, 6, 4},
	} {
		fresh := assign.Group{Topics: map[string]int32{}}
		var topics []string
		for i := range sh.topics {
			topics = append(topics, fmt.Sprintf("t%02d", i))
			fresh.Topics[topics[i]] = int32(sh.partitions)
		}
		for i := range sh.members {
			fresh.Members = append(fresh.Members, assign.Member{ID: fmt.Sprintf("c%d", i), Topics: topics, Generation: -1})
		}
		prev, err := assign.Sticky{}.Assign(fresh)
		if err != nil {
			t.Fatal(err)
		}
		g := assign.Carry(fresh, prev, 1)
		for i := range sh.joiners {
			g.Members = append(g.Members, assign.Member{ID: fmt.Sprintf("new-%d", i), Topics: topics, Generation: -1})
		}
		if !assign.GivesUpByPosition(g) {
			t.Fatalf("%+v: no member gives up claims by position", sh)
		}
		checkOverTarget(t, g)
		for i := range g.Members { // runs of one topic in reverse topic order, as from a map
			g.Members[i].Owned = assign.RunsReversed(g.Members[i].Owned)
		}
		if assign.GivesUpByPosition(g) {
			t.Fatalf("%+v, runs reversed: members give up claims by position in lists not in order", sh)
		}
		checkOverTarget(t, g)
	}

	over, unsettled := 0, 0
	rapid.Check(t, func(t *rapid.T) {
		g := assign.Group{Topics: map[string]int32{}}
		n := rapid.IntRange(1, 7).Draw(t, "members")
		// dealt: round-robin over every partition, as a fresh round
		// deals, over topics of at most n partitions, so that members
		// own one partition of each of many topics.
		dealt := rapid.Bool().Draw(t, "dealt")
		var topics []string
		odd := rapid.IntRange(0, 4).Draw(t, "odd") == 0
		nt, most := rapid.IntRange(1, 5).Draw(t, "topics"), int32(12)
		if dealt {
			nt, most = rapid.IntRange(1, 12).Draw(t, "topics"), int32(n)
		}
		for i := range nt {
			name := fmt.Sprintf("t%02d", i)
			if odd && i < 2 {
				name = []string{"\uff21", "\U00010400"}[i]
			}
			topics = append(topics, name)
			g.Topics[name] = rapid.Int32Range(0, most).Draw(t, "partitions")
		}
		slices.Sort(topics)
		owned := make([][]assign.TopicPartition, n)
		unowned := rapid.IntRange(0, 3).Draw(t, "unowned") // in four partitions owned by nobody
		pid := 0
		for _, topic := range topics {
			for p := range g.Topics[topic] {
				pid++
				if rapid.IntRange(0, 3).Draw(t, "owned") < unowned {
					continue
				}
				m := pid % n
				if !dealt {
					m = rapid.IntRange(0, n-1).Draw(t, "owner")
				}
				owned[m] = append(owned[m], assign.TopicPartition{Topic: topic, Partition: p})
			}
		}
		gen := rapid.Int32Range(1, 3).Draw(t, "generation")
		for i := range n {
			m := assign.Member{ID: fmt.Sprintf("c%d", i), Topics: topics, Owned: owned[i], Generation: gen}
			if rapid.IntRange(0, 3).Draw(t, "static") == 0 {
				m.InstanceID = fmt.Sprintf("i%d", n-i) // static members come first in Kafka's order, in reverse here
			}
			if len(m.Owned) == 0 {
				m.Generation = -1
			}
			switch rapid.IntRange(0, 7).Draw(t, "shuffled") {
			case 0:
				m.Owned = slices.Clone(m.Owned)
				slices.Reverse(m.Owned)
			case 1:
				m.Owned = assign.RunsReversed(m.Owned)
			}
			g.Members = append(g.Members, m)
		}
		for i := range rapid.IntRange(0, 3).Draw(t, "joiners") {
			prefix := rapid.SampledFrom([]string{"a", "new"}).Draw(t, "joinerID") // before or after the others in Kafka's order
			g.Members = append(g.Members, assign.Member{ID: fmt.Sprintf("%s-%d", prefix, i), Topics: topics, Generation: -1})
		}
		if assign.GivesUpByPosition(g) {
			over++
			if assign.FollowUpTargetsMove(g) {
				unsettled++
			}
		}
		checkOverTarget(t, g)
	})
	if over == 0 {
		t.Errorf("no group gave up claims by position")
	}
	t.Logf("%d groups gave up claims by position, %d of them where the follow-up round's targets move", over, unsettled)
}

// checkOverTarget fails t unless the sticky strategies give g the answer
// settling every claim gives, through Assign, AssignPacked, and
// AssignPackedOwned with g's Owned lists as runs.
func checkOverTarget(t interface {
	Helper()
	Fatal(...any)
	Fatalf(string, ...any)
}, g assign.Group) {
	t.Helper()
	for _, s := range []struct {
		name      string
		strategy  assign.Strategy
		got, want func(assign.Group) (assign.Assignment, error)
	}{
		{"sticky", assign.Sticky{}, assign.Sticky{}.Assign, assign.StickyByClaims},
		{"cooperative-sticky", assign.CooperativeSticky{}, assign.CooperativeSticky{}.Assign, assign.CooperativeByClaims},
	} {
		want, err := s.want(g)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.got(g)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%s mismatch (-by claims +kept):\n%s", s.name, diff)
		}
		p, err := assign.AssignPacked(s.strategy, g)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, p.Assignment()); diff != "" {
			t.Fatalf("%s: AssignPacked mismatch (-by claims +packed):\n%s", s.name, diff)
		}
		bare, owned := runsOf(g, false)
		if p, err = assign.AssignPackedOwned(s.strategy, bare, owned); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, p.Assignment()); diff != "" {
			t.Fatalf("%s: AssignPackedOwned mismatch (-by claims +packed):\n%s", s.name, diff)
		}
	}
}

// TestKeepAndDealTargetsMove: CooperativeSticky answers a group with a
// member over its target from keepAndDeal even where the claims of its
// follow-up round (this round's answer) get other targets than this
// round's; settledTarget, settling every claim, solves again there and
// must land on the same round (the reasoning is keepAndDeal's). Groups
// of 17 to 40 members (beyond the small path) and two topics, whose
// claims are lopsided: most partitions listed by a few members, some by
// nobody, joiners owning nothing. Some such groups must be drawn.
func TestKeepAndDealTargetsMove(t *testing.T) {
	moved := 0
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(17, 40).Draw(t, "members")
		g := assign.Group{Topics: map[string]int32{
			"a": rapid.Int32Range(1, int32(3*n)).Draw(t, "partitions of a"),
			"b": rapid.Int32Range(0, int32(n)).Draw(t, "partitions of b"),
		}}
		topics := []string{"a", "b"}
		heavy := rapid.IntRange(1, 4).Draw(t, "heavy") // members that list most partitions
		owned := make([][]assign.TopicPartition, n)
		for _, topic := range topics {
			for p := range g.Topics[topic] {
				switch k := rapid.IntRange(0, 9).Draw(t, "listed by"); {
				case k < 2: // nobody
				case k < 7:
					m := rapid.IntRange(0, heavy-1).Draw(t, "heavy owner")
					owned[m] = append(owned[m], assign.TopicPartition{Topic: topic, Partition: p})
				default:
					m := rapid.IntRange(0, n-1).Draw(t, "owner")
					owned[m] = append(owned[m], assign.TopicPartition{Topic: topic, Partition: p})
				}
			}
		}
		for i := range n {
			m := assign.Member{ID: fmt.Sprintf("c%02d", n-1-i), Topics: topics, Owned: owned[i], Generation: 4}
			if rapid.IntRange(0, 3).Draw(t, "static") == 0 {
				m.InstanceID = fmt.Sprintf("i%02d", n-i)
			}
			g.Members = append(g.Members, m)
		}
		if assign.FollowUpTargetsMove(g) {
			moved++
		}
		checkOverTarget(t, g)
	})
	if moved == 0 {
		t.Fatal("no group drawn had a follow-up round whose targets move")
	}
	t.Logf("%d groups had a follow-up round whose targets move", moved)
}
