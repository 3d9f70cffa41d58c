package assign

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// The tests in this file pin guards of the small path (compile_small.go,
// sticky_fresh.go) that no other test caught: each fails when its guard
// is removed, because the group it draws is one the guard is there for.

// TestSmallGroupManyTopics: members listing more names than a smallGroup
// holds (smallTopics) are answered by the compiled path, for every
// strategy the small path serves. Without read's bound on the names
// listed, 33 topics with partitions overran smallGroup.topics (a panic).
func TestSmallGroupManyTopics(t *testing.T) {
	g := Group{Topics: map[string]int32{}}
	var topics []string
	for i := range smallTopics + 1 {
		name := fmt.Sprintf("t%02d", i)
		g.Topics[name] = 2
		topics = append(topics, name)
	}
	g.Members = []Member{{ID: "m0", Topics: topics}, {ID: "m1", Topics: topics}}
	var sg smallGroup
	if sg.read(&g, true) {
		t.Fatalf("read took a group listing %d names", len(topics))
	}
	for _, st := range smallStrategies {
		matchCompiled(t, st.s, st.compiled, g)
	}
	// Range gives each member partition p of every topic; RoundRobin and
	// Sticky deal them in turn, each topic's two partitions to the two
	// members (an even number of partitions a topic): the same answer.
	want := Assignment{}
	for _, name := range topics {
		want["m0"] = append(want["m0"], TopicPartition{name, 0})
		want["m1"] = append(want["m1"], TopicPartition{name, 1})
	}
	for _, st := range smallStrategies {
		if got, err := st.s.Assign(g); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s.Assign = %v, %v; want %v", st.s.Name(), got, err, want)
		}
	}
}

// smallStrategies are the strategies whose Assign takes the small path,
// each with its answer on a compiled group.
var smallStrategies = []struct {
	s        Strategy
	compiled func(*compiledGroup) (Assignment, error)
}{
	{Range{}, func(cg *compiledGroup) (Assignment, error) { return rangeOf(cg), nil }},
	{RoundRobin{}, func(cg *compiledGroup) (Assignment, error) { return roundRobinOf(cg), nil }},
	{Sticky{}, stickyOf},
	{CooperativeSticky{}, cooperativeOf},
}

// TestSmallRangeOwnedTwice: Range and RoundRobin ignore what members own,
// but not a member listing a partition twice, which compile refuses
// (ErrDuplicateOwned) for every strategy. read therefore declines a
// member that owns anything unless its caller reads the claims (Sticky's
// keptDealt, compile): without that, Range and RoundRobin answered the
// group.
func TestSmallRangeOwnedTwice(t *testing.T) {
	g := Group{
		Topics: map[string]int32{"a": 2},
		Members: []Member{
			{ID: "m0", Topics: []string{"a"}, Generation: 1, Owned: []TopicPartition{{"a", 0}, {"a", 0}}},
			{ID: "m1", Topics: []string{"a"}},
		},
	}
	for _, st := range smallStrategies {
		if _, err := st.s.Assign(g); !errors.Is(err, ErrDuplicateOwned) {
			t.Errorf("%s.Assign = %v, want %v", st.s.Name(), err, ErrDuplicateOwned)
		}
		matchCompiled(t, st.s, st.compiled, g)
	}
}

// TestSmallKeptManyPartitions: a small shared group of more partitions
// than keptDealt's owner array holds (smallParts), whose members claim
// partitions beyond it, is answered by the compiled path. Without
// keptDealt's bound, a claim of partition 1,024 or more indexed past the
// array (a panic). m0 keeps the half it claims, a-1000 to a-1749, and
// m1 gets the rest, a-0 to a-999 and a-1750 to a-1999.
func TestSmallKeptManyPartitions(t *testing.T) {
	var owned []TopicPartition
	for p := int32(1000); p < 1750; p++ {
		owned = append(owned, TopicPartition{"a", p})
	}
	g := Group{
		Topics: map[string]int32{"a": 2000},
		Members: []Member{
			{ID: "m0", Topics: []string{"a"}, Generation: 1, Owned: owned},
			{ID: "m1", Topics: []string{"a"}, Generation: -1},
		},
	}
	// m0 claims 750, under its target of 1,000: it keeps them all, and
	// the partitions nobody lists are dealt in turn from m0 on (m0 a-0,
	// m1 a-1, ...) until m0 has its 250 more.
	want := Assignment{}
	for p := range int32(2000) {
		tp := TopicPartition{"a", p}
		switch {
		case p >= 1000 && p < 1750, p < 500 && p%2 == 0:
			want["m0"] = append(want["m0"], tp)
		default:
			want["m1"] = append(want["m1"], tp)
		}
	}
	for _, st := range smallStrategies[2:] {
		matchCompiled(t, st.s, st.compiled, g)
		got, err := st.s.Assign(g)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s.Assign: m0 %d partitions, m1 %d; want %d and %d", st.s.Name(), len(got["m0"]), len(got["m1"]), len(want["m0"]), len(want["m1"]))
		}
	}
}

// TestSmallKeptClaimsByName: keptDealt's claims whose topics are other
// strings than the subscription's, as a decoder makes them, are read by
// claim's loop that compares names (topicFrom, take), not by claimFast;
// that loop must decline or drop what claimFast does: a partition listed
// by two members or twice by one (both settled by the compiled path,
// which refuses the second; where nobody is over its target, dealing
// would also run out of members below target, but a member over it
// gives up claims before), and a claim of a partition beyond its
// topic's end or negative (dropped, as Kafka drops a partition that no
// longer exists: not read as a partition of the topic beside it). Each
// group is answered as the compiled path answers it, by Sticky and
// CooperativeSticky.
func TestSmallKeptClaimsByName(t *testing.T) {
	sub := []string{"topic-a", "topic-b"}
	named := func(topic string, p int32) TopicPartition {
		return TopicPartition{strings.Clone(topic), p} // not the subscription's string
	}
	a, b := sub[0], sub[1]
	for _, c := range []struct {
		name   string
		m0, m1 []TopicPartition
	}{
		{"listed by two members", []TopicPartition{named(a, 0)}, []TopicPartition{named(a, 0), named(b, 1)}},
		{"listed by two members, one over its target", []TopicPartition{named(a, 0), named(a, 1), named(b, 0), named(b, 1)}, []TopicPartition{named(a, 0)}},
		{"listed twice by one member", []TopicPartition{named(a, 0), named(a, 0)}, nil},
		{"listed twice, a topic apart", []TopicPartition{named(a, 1), named(b, 0), named(a, 1)}, nil},
		{"beyond its topic", []TopicPartition{named(a, 2)}, []TopicPartition{named(b, 1)}},
		{"negative", []TopicPartition{named(a, 0)}, []TopicPartition{named(b, -1)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := Group{
				Topics: map[string]int32{a: 2, b: 2},
				Members: []Member{
					{ID: "m0", Topics: sub, Generation: 1, Owned: c.m0},
					{ID: "m1", Topics: sub, Generation: 1, Owned: c.m1},
				},
			}
			if sameString(g.Members[0].Owned[0].Topic, a) {
				t.Fatal("the claims name their topics by the subscription's strings")
			}
			for _, st := range smallStrategies[2:] {
				matchCompiled(t, st.s, st.compiled, g)
			}
		})
	}
}

// TestSmallKeptOneGeneration: keptDealt answers only claims listed at one
// generation, the groups compile sends to keepAndDeal (compileOwned's
// mixed). Where claims at two generations do not conflict, the compiled
// path, settling them partition by partition, gives the answer keptDealt
// would (TestSmallKeptMatchesCompiled draws such groups), so only this
// test sees the decline: the same group at one generation takes the
// small path, at two it does not, and both answer as the compiled path.
func TestSmallKeptOneGeneration(t *testing.T) {
	a := func(p int32) []TopicPartition { return []TopicPartition{{"a", p}} }
	for _, gen := range []int32{3, 2} {
		g := Group{
			Topics: map[string]int32{"a": 4},
			Members: []Member{
				{ID: "m0", Topics: []string{"a"}, Generation: gen, Owned: a(0)},
				{ID: "m1", Topics: []string{"a"}, Generation: 3, Owned: a(1)},
				{ID: "m2", Topics: []string{"a"}, Generation: -1},
			},
		}
		for _, withhold := range []bool{false, true} {
			var sg smallGroup
			if _, ok := sg.sticky(&g, withhold); ok != (gen == 3) {
				t.Errorf("m0's claims at generation %d, m1's at 3, withhold %v: keptDealt answered: %v", gen, withhold, ok)
			}
		}
		for _, st := range smallStrategies[2:] {
			matchCompiled(t, st.s, st.compiled, g)
		}
	}
}

// TestKeepsEveryClaimDeclinesEmpty: keepsEveryClaim declines a group of
// no partitions, where no claim can be kept, as is every group of no
// members (nobody subscribes to a topic: it then has no subscriptions to
// compare nor members to divide partitions among). compileOwned calls it
// only when someone lists a partition, so neither group reaches it
// through compile: it is called directly.
func TestKeepsEveryClaimDeclinesEmpty(t *testing.T) {
	for _, g := range []Group{
		{Topics: map[string]int32{"a": 2}},
		{Topics: map[string]int32{"a": 0}, Members: []Member{{ID: "m0", Topics: []string{"a"}}}},
	} {
		cg, err := compile(g, ownedIgnored)
		if err != nil {
			t.Fatal(err)
		}
		for _, over := range []bool{false, true} {
			if ok, mayGiveUp := cg.keepsEveryClaim(over); ok || mayGiveUp {
				t.Errorf("%d members, %d partitions, over %v: keepsEveryClaim = %v, %v; want false, false", len(g.Members), cg.start[len(cg.topics)], over, ok, mayGiveUp)
			}
		}
	}
}
