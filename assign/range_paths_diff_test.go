package assign_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/assigntest"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
)

// commonGroup draws groups made for the paths of Range and RoundRobin that
// serve members sharing one subscription: every member subscribes to all
// the topics (through one shared slice, a reordered copy, a copy naming a
// topic twice or an unknown topic) or to nothing. Topics may have no
// partitions, names may sort differently in Java and Go, members may be
// static, and there may be more or fewer members than partitions. With
// deviate, one member subscribes to a random subset instead, which sends
// the group down the general path with subscriptions that are nearly
// common.
func commonGroup(deviate bool) *rapid.Generator[assign.Group] {
	odd := []string{"", "\uff21", "\U00010400", "\U0001f600", "\ue000", "é", "Z"}
	return rapid.Custom(func(t *rapid.T) assign.Group {
		g := assign.Group{Topics: make(map[string]int32)}
		var topics []string
		for i := range rapid.IntRange(1, 5).Draw(t, "topics") {
			name := rapid.SampledFrom(odd).Draw(t, "topicPrefix") + fmt.Sprintf("t%d", i)
			topics = append(topics, name)
			g.Topics[name] = int32(rapid.IntRange(0, 15).Draw(t, "partitions"))
		}
		nm := rapid.IntRange(1, 12).Draw(t, "members")
		for i := range nm {
			m := assign.Member{ID: rapid.SampledFrom(odd).Draw(t, "idPrefix") + fmt.Sprintf("c%d", i), Generation: -1}
			if rapid.Bool().Draw(t, "static") {
				m.InstanceID = rapid.SampledFrom(odd).Draw(t, "instancePrefix") + fmt.Sprintf("i%d", i)
			}
			switch rapid.IntRange(0, 5).Draw(t, "subscription") {
			case 0, 1:
				m.Topics = topics // shared, as in most real groups
			case 2:
				m.Topics = rapid.Permutation(topics).Draw(t, "reordered")
			case 3:
				m.Topics = append(slices.Clone(topics), topics[0])
			case 4:
				m.Topics = append(slices.Clone(topics), "unknown")
			case 5:
				// an empty subscription: takes part in nothing
			}
			g.Members = append(g.Members, m)
		}
		if deviate {
			i := rapid.IntRange(0, nm-1).Draw(t, "deviant")
			g.Members[i].Topics = rapid.SliceOfDistinct(rapid.SampledFrom(topics), rapid.ID[string]).Draw(t, "subset")
		}
		return g
	})
}

// TestRangeRoundRobinCommonSubscription checks Range and RoundRobin against
// their references on groups whose members share one subscription, and on
// groups where one member breaks the pattern, and that reordering the
// members changes nothing.
func TestRangeRoundRobinCommonSubscription(t *testing.T) {
	refs := []struct {
		s   assign.Strategy
		ref func(assign.Group) assign.Assignment
	}{{assign.Range{}, rangeReference}, {assign.RoundRobin{}, roundRobinReference}}
	for _, deviate := range []bool{false, true} {
		for _, r := range refs {
			t.Run(fmt.Sprintf("%s/deviate=%t", r.s.Name(), deviate), rapid.MakeCheck(func(t *rapid.T) {
				g := commonGroup(deviate).Draw(t, "group")
				got, err := r.s.Assign(g)
				if err != nil {
					t.Fatalf("%s.Assign: %v", r.s.Name(), err)
				}
				if diff := cmp.Diff(r.ref(g), got, cmpopts.EquateEmpty()); diff != "" {
					t.Fatalf("%s(g) mismatch (-reference +got):\n%s", r.s.Name(), diff)
				}
				if err := assign.Verify(g, got); err != nil {
					t.Fatal(err)
				}
				shuffled, err := r.s.Assign(assigntest.Shuffled(g).Draw(t, "shuffled"))
				if err != nil {
					t.Fatalf("%s.Assign(shuffled): %v", r.s.Name(), err)
				}
				if diff := cmp.Diff(got, shuffled, cmpopts.EquateEmpty()); diff != "" {
					t.Fatalf("%s(shuffled g) mismatch (-%[1]s(g) +%[1]s(shuffled)):\n%s", r.s.Name(), diff)
				}
			}))
		}
	}
}

// TestRangeRoundRobinBenchShapes checks Range and RoundRobin against their
// references on smaller versions of the benchmarks' groups (bench/workload):
// everybody on everything, with more members than partitions per topic and
// fewer, and overlapping different subscriptions.
func TestRangeRoundRobinBenchShapes(t *testing.T) {
	uniform := assign.UniformGroup
	hetero := func(c, nt int) assign.Group {
		return assign.UnevenPartitions(assign.MixSubscriptions(uniform(c, nt, 1)))
	}
	groups := map[string]assign.Group{
		"uniform-10x100":   uniform(10, 10, 10),
		"uniform-100x3000": uniform(100, 100, 30),
		"uniform-30x1000":  uniform(30, 10, 100),
		"uniform-7x30":     uniform(7, 3, 10),
		"hetero-100x200t":  hetero(100, 200),
		"hetero-40x30t":    hetero(40, 30),
	}
	for _, s := range []assign.Strategy{assign.Range{}, assign.RoundRobin{}} {
		ref := rangeReference
		if s.Name() == "roundrobin" {
			ref = roundRobinReference
		}
		for _, name := range slices.Sorted(maps.Keys(groups)) {
			t.Run(s.Name()+"/"+name, func(t *testing.T) {
				g := groups[name]
				got, err := s.Assign(g)
				if err != nil {
					t.Fatalf("%s.Assign: %v", s.Name(), err)
				}
				if diff := cmp.Diff(ref(g), got, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("%s(g) mismatch (-reference +got):\n%s", s.Name(), diff)
				}
			})
		}
	}
}

// runsGroup draws groups of 65 to 300 members, in member order as listed,
// in runs that share one subscription (one slice, which compile shares
// between neighbours): the general paths take such runs together, and
// with more than 64 members a run can span words of RoundRobin's sets.
func runsGroup() *rapid.Generator[assign.Group] {
	return rapid.Custom(func(t *rapid.T) assign.Group {
		g := assign.Group{Topics: make(map[string]int32)}
		var topics []string
		for i := range rapid.IntRange(1, 5).Draw(t, "topics") {
			name := fmt.Sprintf("t%d", i)
			topics = append(topics, name)
			g.Topics[name] = int32(rapid.IntRange(0, 40).Draw(t, "partitions"))
		}
		var sub []string
		for i := range rapid.IntRange(65, 300).Draw(t, "members") {
			if i == 0 || rapid.IntRange(0, 9).Draw(t, "newRun") == 0 {
				sub = rapid.SliceOfDistinct(rapid.SampledFrom(topics), rapid.ID[string]).Draw(t, "subscription")
			}
			g.Members = append(g.Members, assign.Member{ID: fmt.Sprintf("c%04d", i), Topics: sub, Generation: -1})
		}
		return g
	})
}

// TestGeneralPathsMatchReference runs every path of Range (without rack
// matching) and RoundRobin, whatever the group, on groups of every kind,
// common subscriptions included, and on groups of more than 64 members,
// where a set of members takes more than one word and members sharing a
// subscription can span words (runs), against the references.
func TestGeneralPathsMatchReference(t *testing.T) {
	shapes := map[string]*rapid.Generator[assign.Group]{
		"odd":            assigntest.GroupOf(assigntest.Shape{MaxMembers: 9, MaxTopics: 5, MaxPartitions: 12, Static: true, Odd: true}),
		"identical, odd": assigntest.GroupOf(assigntest.Shape{MaxMembers: 9, MaxTopics: 5, MaxPartitions: 12, Static: true, Identical: true, Odd: true}),
		"many members":   assigntest.GroupOf(assigntest.Shape{MaxMembers: 200, MaxTopics: 4, MaxPartitions: 60, Static: true, Odd: true}),
		"common":         commonGroup(false),
		"nearly common":  commonGroup(true),
		"runs":           runsGroup(),
	}
	refs := map[string]func(assign.Group) assign.Assignment{"range": rangeReference, "roundrobin": roundRobinReference}
	for _, shape := range slices.Sorted(maps.Keys(shapes)) {
		for _, strategy := range slices.Sorted(maps.Keys(refs)) {
			t.Run(strategy+"/"+shape, rapid.MakeCheck(func(t *rapid.T) {
				g := shapes[shape].Draw(t, "group")
				names, as, err := assign.AssignByPaths(strategy, g)
				if err != nil {
					t.Fatalf("AssignByPaths(%s): %v", strategy, err)
				}
				want := refs[strategy](g)
				for i, a := range as {
					if diff := cmp.Diff(want, a, cmpopts.EquateEmpty()); diff != "" {
						t.Fatalf("%s path %s mismatch (-reference +got):\n%s", strategy, names[i], diff)
					}
				}
			}))
		}
	}
}

// TestFastPathsMatchGeneralPath is the differential test of every fast
// path of Range (without racks) and RoundRobin against its strategy's
// general path: the whole assignment, owner by owner, must be the same, on
// groups of every kind the generators draw, and the strategy itself must
// give the same.
func TestFastPathsMatchGeneralPath(t *testing.T) {
	shapes := map[string]*rapid.Generator[assign.Group]{
		"small":           assigntest.GroupOf(assigntest.Small),
		"odd":             assigntest.GroupOf(assigntest.Shape{MaxMembers: 9, MaxTopics: 5, MaxPartitions: 12, Static: true, Odd: true}),
		"identical, odd":  assigntest.GroupOf(assigntest.Shape{MaxMembers: 9, MaxTopics: 5, MaxPartitions: 12, Static: true, Identical: true, Odd: true}),
		"many members":    assigntest.GroupOf(assigntest.Shape{MaxMembers: 200, MaxTopics: 4, MaxPartitions: 60, Static: true, Odd: true}),
		"many, identical": assigntest.GroupOf(assigntest.Shape{MaxMembers: 200, MaxTopics: 6, MaxPartitions: 60, Static: true, Identical: true}),
		"common":          commonGroup(false),
		"nearly common":   commonGroup(true),
		"runs":            runsGroup(),
	}
	for _, s := range []assign.Strategy{assign.Range{}, assign.RoundRobin{}} {
		for _, shape := range slices.Sorted(maps.Keys(shapes)) {
			t.Run(s.Name()+"/"+shape, rapid.MakeCheck(func(t *rapid.T) {
				g := shapes[shape].Draw(t, "group")
				if s.Name() == "range" {
					g.PartitionRacks = nil // the paths compared are those without rack matching
				}
				names, as, err := assign.AssignByPaths(s.Name(), g)
				if err != nil {
					t.Fatalf("AssignByPaths(%s): %v", s.Name(), err)
				}
				for i := 1; i < len(as); i++ {
					if diff := cmp.Diff(as[0], as[i], cmpopts.EquateEmpty()); diff != "" {
						t.Fatalf("%s path %s mismatch (-%s +%[2]s):\n%s", s.Name(), names[i], names[0], diff)
					}
				}
				got, err := s.Assign(g)
				if err != nil {
					t.Fatalf("%s.Assign: %v", s.Name(), err)
				}
				if diff := cmp.Diff(as[0], got, cmpopts.EquateEmpty()); diff != "" {
					t.Fatalf("%s.Assign mismatch (-%s +Assign):\n%s", s.Name(), names[0], diff)
				}
			}))
		}
	}
}
