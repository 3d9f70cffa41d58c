package assign_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/assigntest"
)

// custom is a strategy AssignPacked does not know: it takes the path
// through Assign.
type custom struct{ assign.Range }

func (custom) Name() string { return "custom" }

// TestAssignPackedIsAssign: the packed answer, read back, is Assign's
// answer, for every strategy and every path of each (the kept-claims
// path of the sticky ones included, through groups owning what a
// previous round gave them), and the errors are the same.
func TestAssignPackedIsAssign(t *testing.T) {
	strategies := []assign.Strategy{assign.Range{}, assign.RoundRobin{}, assign.Sticky{}, assign.CooperativeSticky{}, &assign.Sticky{}, custom{}}
	rapid.Check(t, func(t *rapid.T) {
		g := assigntest.GroupOf(assigntest.Small).Draw(t, "group")
		if rapid.Bool().Draw(t, "fromAssignment") {
			g = keptGroup(t, g)
		}
		for _, s := range strategies {
			want, wantErr := s.Assign(g)
			p, err := assign.AssignPacked(s, g)
			if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
				t.Fatalf("%s: AssignPacked error %v, Assign error %v", s.Name(), err, wantErr)
			}
			if err != nil {
				continue
			}
			if p.Len() != len(g.Members) {
				t.Fatalf("%s: %d packed members for %d", s.Name(), p.Len(), len(g.Members))
			}
			for i := range p.Len() {
				if p.MemberID(i) != g.Members[i].ID {
					t.Fatalf("%s: packed member %d is %q, want %q", s.Name(), i, p.MemberID(i), g.Members[i].ID)
				}
			}
			if diff := cmp.Diff(want, p.Assignment()); diff != "" {
				t.Fatalf("%s: AssignPacked mismatch (-Assign +AssignPacked):\n%s", s.Name(), diff)
			}
		}
	})
}

// TestAssignPackedOnChurn: the same on churned uniform groups, large
// enough that every member keeps many claims, with Owned sorted and
// shuffled (each of keepAndDeal's shapes of Owned), and with a member
// joining (the solver's path).
func TestAssignPackedOnChurn(t *testing.T) {
	leave := ownedOrderGroup(t, 30, 7, 40)
	join := leave
	join.Members = append(leave.Members[:len(leave.Members):len(leave.Members)], assign.Member{ID: "consumer-extra", Topics: leave.Members[1].Topics, Generation: -1})
	for name, g := range map[string]assign.Group{
		"leave1":            leave,
		"leave1-topics":     shuffledOwned(leave, 3, false),
		"leave1-partitions": shuffledOwned(leave, 3, true),
		"join1":             join,
		"join1-topics":      shuffledOwned(join, 4, false),
	} {
		for _, s := range []assign.Strategy{assign.Range{}, assign.RoundRobin{}, assign.Sticky{}, assign.CooperativeSticky{}} {
			want, err := s.Assign(g)
			if err != nil {
				t.Fatal(err)
			}
			p, err := assign.AssignPacked(s, g)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, p.Assignment()); diff != "" {
				t.Errorf("%s on %s: AssignPacked mismatch (-Assign +AssignPacked):\n%s", s.Name(), name, diff)
			}
		}
	}
}

// runsOf lays g's Owned lists out as OwnedRuns, a run per stretch of one
// topic, or, with split, a run per partition (several runs of one topic
// in a row, which must claim what one run does), and returns g without
// its Owned lists.
func runsOf(g assign.Group, split bool) (assign.Group, *assign.OwnedRuns) {
	o := &assign.OwnedRuns{RunOff: make([]int32, len(g.Members)+1)}
	members := make([]assign.Member, len(g.Members))
	for i, m := range g.Members {
		for k, tp := range m.Owned {
			o.Parts = append(o.Parts, tp.Partition)
			if k > 0 && m.Owned[k-1].Topic == tp.Topic && !split {
				o.Runs[len(o.Runs)-1].End++
			} else {
				o.Runs = append(o.Runs, assign.OwnedRun{Topic: tp.Topic, End: int32(len(o.Parts))})
			}
		}
		o.RunOff[i+1] = int32(len(o.Runs))
		members[i] = m
		members[i].Owned = nil
	}
	g.Members = members
	return g, o
}

// samePacked fails t unless a and b hold the same members and runs.
func samePacked(t interface{ Fatalf(string, ...any) }, what string, a, b *assign.Packed) {
	if a.Len() != b.Len() {
		t.Fatalf("%s: %d members against %d", what, a.Len(), b.Len())
	}
	for i := range a.Len() {
		if a.MemberID(i) != b.MemberID(i) || a.Topics(i) != b.Topics(i) {
			t.Fatalf("%s: member %d: %q with %d topics against %q with %d", what, i, a.MemberID(i), a.Topics(i), b.MemberID(i), b.Topics(i))
		}
		for k := range a.Topics(i) {
			ta, pa := a.Topic(i, k)
			tb, pb := b.Topic(i, k)
			if ta != tb || !cmp.Equal(pa, pb) {
				t.Fatalf("%s: member %d topic %d: %s %v against %s %v", what, i, k, ta, pa, tb, pb)
			}
		}
	}
}

// TestAssignPackedOwnedIsAssignPacked: the claims read from a slab of
// runs are the claims read from Owned lists: AssignPackedOwned gives
// AssignPacked's answer run for run, and its errors (a partition listed
// twice by one member, a bad group), for every strategy, with runs split
// or not, on Owned lists with hostile entries (see mangledOwned), and
// with the subscriptions given as Topics or as indices (see subsOf), on
// Topics that repeat names or name unknown topics (see mangledTopics).
func TestAssignPackedOwnedIsAssignPacked(t *testing.T) {
	strategies := []assign.Strategy{assign.Range{}, assign.RoundRobin{}, assign.Sticky{}, assign.CooperativeSticky{}, custom{}}
	rapid.Check(t, func(t *rapid.T) {
		g := assigntest.GroupOf(assigntest.Small).Draw(t, "group")
		if rapid.Bool().Draw(t, "fromAssignment") {
			g = keptGroup(t, g)
		}
		g = mangledOwned(t, g)
		g = mangledTopics(t, g)
		bare, owned := runsOf(g, rapid.Bool().Draw(t, "split"))
		if rapid.Bool().Draw(t, "subs") {
			bare = subsOf(t, bare, owned)
		}
		for _, s := range strategies {
			want, wantErr := assign.AssignPacked(s, g)
			got, err := assign.AssignPackedOwned(s, bare, owned)
			if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
				t.Fatalf("%s: AssignPackedOwned error %v, AssignPacked error %v", s.Name(), err, wantErr)
			}
			if err == nil {
				samePacked(t, s.Name(), want, got)
			}
		}
	})
}

// TestAssignPackedOwnedOnChurn: the same on TestAssignPackedOnChurn's
// groups, whose members keep many claims in every shape of Owned.
func TestAssignPackedOwnedOnChurn(t *testing.T) {
	leave := ownedOrderGroup(t, 30, 7, 40)
	for name, g := range map[string]assign.Group{
		"leave1":            leave,
		"leave1-topics":     shuffledOwned(leave, 3, false),
		"leave1-partitions": shuffledOwned(leave, 3, true),
	} {
		for _, s := range []assign.Strategy{assign.Sticky{}, assign.CooperativeSticky{}} {
			want, err := assign.AssignPacked(s, g)
			if err != nil {
				t.Fatal(err)
			}
			bare, owned := runsOf(g, false)
			got, err := assign.AssignPackedOwned(s, bare, owned)
			if err != nil {
				t.Fatal(err)
			}
			samePacked(t, s.Name()+" on "+name, want, got)
		}
	}
}

// TestAssignPackedOwnedMalformed: a slab whose offsets do not describe
// its arrays, or one given beside Owned lists, is refused with
// ErrOwnedRuns, for every strategy, and does not panic.
func TestAssignPackedOwnedMalformed(t *testing.T) {
	g := assign.Group{
		Topics: map[string]int32{"a": 4},
		Members: []assign.Member{
			{ID: "m0", Topics: []string{"a"}, Generation: 1},
			{ID: "m1", Topics: []string{"a"}, Generation: 1},
		},
	}
	withOwned := g
	withOwned.Members = []assign.Member{g.Members[0], {ID: "m1", Topics: []string{"a"}, Owned: []assign.TopicPartition{{Topic: "a", Partition: 1}}, Generation: 1}}
	good := func() *assign.OwnedRuns {
		return &assign.OwnedRuns{RunOff: []int32{0, 1, 1}, Runs: []assign.OwnedRun{{Topic: "a", End: 2}}, Parts: []int32{0, 3}}
	}
	cases := map[string]struct {
		g assign.Group
		o *assign.OwnedRuns
	}{
		"offsets short":        {g, &assign.OwnedRuns{RunOff: []int32{0, 1}, Runs: good().Runs, Parts: good().Parts}},
		"offsets past runs":    {g, &assign.OwnedRuns{RunOff: []int32{0, 1, 2}, Runs: good().Runs, Parts: good().Parts}},
		"offsets decrease":     {g, &assign.OwnedRuns{RunOff: []int32{0, 2, 1}, Runs: append(good().Runs, assign.OwnedRun{Topic: "a", End: 2}), Parts: good().Parts}},
		"run ends past parts":  {g, &assign.OwnedRuns{RunOff: []int32{0, 1, 1}, Runs: []assign.OwnedRun{{Topic: "a", End: 5}}, Parts: good().Parts}},
		"run ends before last": {g, &assign.OwnedRuns{RunOff: []int32{0, 2, 2}, Runs: []assign.OwnedRun{{Topic: "a", End: 2}, {Topic: "a", End: 1}}, Parts: good().Parts}},
		"parts left over":      {g, &assign.OwnedRuns{RunOff: []int32{0, 1, 1}, Runs: []assign.OwnedRun{{Topic: "a", End: 1}}, Parts: good().Parts}},
		"owned and runs":       {withOwned, good()},
		"topics and subs":      {g, &assign.OwnedRuns{RunOff: good().RunOff, Runs: good().Runs, Parts: good().Parts, Names: []string{"a"}, Subs: [][]int32{{0}, {0}}}},
		"subs short":           {bareOf(g), &assign.OwnedRuns{RunOff: good().RunOff, Runs: good().Runs, Parts: good().Parts, Names: []string{"a"}, Subs: [][]int32{{0}}}},
		"sub past names":       {bareOf(g), &assign.OwnedRuns{RunOff: good().RunOff, Runs: good().Runs, Parts: good().Parts, Names: []string{"a"}, Subs: [][]int32{{0}, {1}}}},
		"negative sub":         {bareOf(g), &assign.OwnedRuns{RunOff: good().RunOff, Runs: good().Runs, Parts: good().Parts, Names: []string{"a"}, Subs: [][]int32{{-1}, {0}}}},
	}
	for name, c := range cases {
		for _, s := range []assign.Strategy{assign.Range{}, assign.Sticky{}, assign.CooperativeSticky{}, custom{}} {
			if _, err := assign.AssignPackedOwned(s, c.g, c.o); !errors.Is(err, assign.ErrOwnedRuns) {
				t.Errorf("%s, %s: error %v, want ErrOwnedRuns", name, s.Name(), err)
			}
		}
	}
	for _, s := range []assign.Strategy{assign.Sticky{}, custom{}} {
		got, err := assign.AssignPackedOwned(s, g, good())
		if err != nil {
			t.Fatalf("%s on a good slab: %v", s.Name(), err)
		}
		want, err := assign.AssignPacked(s, withOwnedOf(g, []assign.TopicPartition{{Topic: "a", Partition: 0}, {Topic: "a", Partition: 3}}))
		if err != nil {
			t.Fatal(err)
		}
		samePacked(t, s.Name()+" on a good slab", want, got)
	}
}

// subsOf moves g's Topics into owned as indices (OwnedRuns.Subs) and
// returns g without them. Names holds every name listed, in a drawn
// order, with a drawn name twice and one nobody lists; members that
// share a Topics slice share their Subs slice, as package wire's decoder
// gives them.
func subsOf(t *rapid.T, g assign.Group, owned *assign.OwnedRuns) assign.Group {
	var names []string
	for _, m := range g.Members {
		names = append(names, m.Topics...)
	}
	slices.Sort(names)
	names = slices.Compact(names)
	names = append(names, "nobody-lists-this")
	names = rapid.Permutation(names).Draw(t, "names")
	owned.Names = append(names, names[rapid.IntRange(0, len(names)-1).Draw(t, "twice")])
	owned.Subs = make([][]int32, len(g.Members))
	members := slices.Clone(g.Members)
	for i, m := range members {
		if i > 0 && len(m.Topics) > 0 && len(g.Members[i-1].Topics) > 0 && &m.Topics[0] == &g.Members[i-1].Topics[0] && len(m.Topics) == len(g.Members[i-1].Topics) {
			owned.Subs[i] = owned.Subs[i-1]
		} else {
			for _, name := range m.Topics {
				k := slices.Index(owned.Names, name)
				if k == slices.Index(names, owned.Names[len(owned.Names)-1]) && rapid.Bool().Draw(t, "other") {
					k = len(owned.Names) - 1 // the same name at its other index
				}
				owned.Subs[i] = append(owned.Subs[i], int32(k))
			}
		}
		members[i].Topics = nil
	}
	g.Members = members
	return g
}

// mangledTopics returns g with, drawn for some members, a name repeated
// in its Topics or a name the metadata lacks.
func mangledTopics(t *rapid.T, g assign.Group) assign.Group {
	g.Members = append([]assign.Member(nil), g.Members...)
	for i := range g.Members {
		m := &g.Members[i]
		if !rapid.Bool().Draw(t, "mangleTopics") {
			continue
		}
		topics := append([]string(nil), m.Topics...)
		extra := []string{"no-such-topic"}
		if len(topics) > 0 {
			extra = append(extra, topics[rapid.IntRange(0, len(topics)-1).Draw(t, "repeatTopic")])
		}
		at := rapid.IntRange(0, len(topics)).Draw(t, "topicAt")
		m.Topics = slices.Insert(topics, at, rapid.SampledFrom(extra).Draw(t, "extraTopic"))
	}
	return g
}

// bareOf returns g without its members' Topics.
func bareOf(g assign.Group) assign.Group {
	g.Members = slices.Clone(g.Members)
	for i := range g.Members {
		g.Members[i].Topics = nil
	}
	return g
}

// withOwnedOf returns g with its first member owning owned.
func withOwnedOf(g assign.Group, owned []assign.TopicPartition) assign.Group {
	g.Members = append([]assign.Member(nil), g.Members...)
	g.Members[0].Owned = owned
	return g
}

// mangledOwned returns g with, drawn for some members, entries that the
// readers of Owned drop or refuse added to its Owned list at drawn
// places: a repeat of one of its claims, a topic nobody knows, the empty
// topic, a negative partition, a partition past the topic's end.
func mangledOwned(t *rapid.T, g assign.Group) assign.Group {
	g.Members = append([]assign.Member(nil), g.Members...)
	for i := range g.Members {
		m := &g.Members[i]
		if !rapid.Bool().Draw(t, "mangle") {
			continue
		}
		owned := append([]assign.TopicPartition(nil), m.Owned...)
		extra := []assign.TopicPartition{{Topic: "unknown", Partition: 0}, {Topic: "", Partition: 1}}
		if len(owned) > 0 {
			tp := owned[rapid.IntRange(0, len(owned)-1).Draw(t, "repeat")]
			extra = append(extra, tp, assign.TopicPartition{Topic: tp.Topic, Partition: -1}, assign.TopicPartition{Topic: tp.Topic, Partition: 1 << 20})
		}
		for _, tp := range rapid.SliceOfN(rapid.SampledFrom(extra), 1, 3).Draw(t, "extra") {
			at := rapid.IntRange(0, len(owned)).Draw(t, "at")
			owned = slices.Insert(owned, at, tp)
		}
		m.Owned = owned
	}
	return g
}
