package fuzz

import (
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/assigntest"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
)

// The strategy fuzz targets let the fuzzer steer rapid's generator of
// small groups (assigntest.Small: static members, racks, previous
// ownership at several generations, unknown topics, claims of partitions
// that do not exist, names Java orders differently from Go). Rapid reads
// the fuzz input as its random bits; input too short for a whole group is
// skipped. For every group a strategy must not panic, must return an
// assignment that passes assign.Verify, and must return the same
// assignment for any permutation of the members, their topics and their
// claims. The sticky strategies must be balanced (assign.VerifyBalanced).
//
// Seeds in testdata/fuzz/FuzzStrategyX/ are bit streams for rapid: all
// zero bits (the smallest group rapid draws), three streams from a
// fixed-seed PCG generator, and three chosen for the group rapid draws
// from them: six-members-owned-conflicts (claims at several generations,
// some of one partition by two members), racks-static (replica racks,
// member racks, group.instance.ids) and hetero-subscriptions.

func FuzzStrategyRange(f *testing.F) {
	f.Fuzz(rapid.MakeFuzz(strategyProperty(assign.Range{}, false)))
}

func FuzzStrategyRoundRobin(f *testing.F) {
	f.Fuzz(rapid.MakeFuzz(strategyProperty(assign.RoundRobin{}, false)))
}

func FuzzStrategySticky(f *testing.F) {
	f.Fuzz(rapid.MakeFuzz(strategyProperty(assign.Sticky{}, true)))
}

// FuzzStrategyCooperativeSticky checks, besides the properties of the
// others, that the first round is safe (assign.VerifyCooperative, and
// Kafka's weaker assign.CheckCooperative), gives
// each member a part of the target, withholds exactly what the plan
// says is pending, and that the follow-up round, whose members own the
// first round's assignment at a newer generation, withholds nothing and
// lands on the target, where Sticky's and CooperativeSticky's Assign
// agree with the plan.
func FuzzStrategyCooperativeSticky(f *testing.F) {
	f.Fuzz(rapid.MakeFuzz(func(t *rapid.T) {
		g := assigntest.GroupOf(assigntest.Small).Draw(t, "group")
		plan, err := assign.CooperativeSticky{}.Plan(g)
		if err != nil {
			t.Fatalf("CooperativeSticky.Plan(g) of a valid group: %v", err)
		}
		if err := assign.VerifyBalanced(g, plan.Target); err != nil {
			t.Fatalf("CooperativeSticky target: %v", err)
		}
		if err := assign.VerifyCooperative(g, plan.Assignment); err != nil {
			t.Fatalf("CooperativeSticky first round: %v", err)
		}
		if err := assign.CheckCooperative(g, plan.Assignment); err != nil {
			t.Fatalf("CooperativeSticky first round, Kafka's check: %v", err)
		}
		for _, m := range g.Members {
			got := assign.Assignment{m.ID: merge(plan.Assignment[m.ID], plan.Pending[m.ID])}
			want := assign.Assignment{m.ID: plan.Target[m.ID]}
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("CooperativeSticky: Assignment + Pending of %q is not its target (-target +sum):\n%s", m.ID, diff)
			}
		}
		a, err := assign.CooperativeSticky{}.Assign(g)
		if err != nil {
			t.Fatalf("CooperativeSticky.Assign(g): %v", err)
		}
		if diff := cmp.Diff(plan.Assignment, a); diff != "" {
			t.Fatalf("CooperativeSticky.Assign(g) differs from Plan(g).Assignment (-plan +assign):\n%s", diff)
		}

		shuffled := assigntest.Shuffled(g).Draw(t, "shuffled")
		again, err := assign.CooperativeSticky{}.Plan(shuffled)
		if err != nil {
			t.Fatalf("CooperativeSticky.Plan(shuffled g): %v", err)
		}
		if diff := cmp.Diff(plan, again); diff != "" {
			t.Fatalf("CooperativeSticky.Plan depends on input order (-original +shuffled):\n%s", diff)
		}

		next := followUp(g, plan.Assignment)
		second, err := assign.CooperativeSticky{}.Plan(next)
		if err != nil {
			t.Fatalf("CooperativeSticky.Plan(follow-up round): %v", err)
		}
		if diff := cmp.Diff(plan.Target, second.Assignment); diff != "" {
			t.Fatalf("follow-up round does not land on the target (-target +second round):\n%s", diff)
		}
		// The follow-up round keeps every claim, the case Assign answers
		// without settling claims partition by partition when members
		// share one subscription: it must agree with Plan.
		for _, s := range []assign.Strategy{assign.Sticky{}, assign.CooperativeSticky{}} {
			got, err := s.Assign(next)
			if err != nil {
				t.Fatalf("%s.Assign(follow-up round): %v", s.Name(), err)
			}
			if diff := cmp.Diff(second.Target, got); diff != "" {
				t.Fatalf("%s.Assign(follow-up round) differs from Plan's target (-plan +assign):\n%s", s.Name(), diff)
			}
		}
	}))
}

// strategyProperty is the property every strategy has: valid, balanced
// when balanced is set, and independent of input order.
func strategyProperty(s assign.Strategy, balanced bool) func(*rapid.T) {
	return func(t *rapid.T) {
		g := assigntest.GroupOf(assigntest.Small).Draw(t, "group")
		a, err := s.Assign(g)
		if err != nil {
			t.Fatalf("%s.Assign(g) of a valid group: %v", s.Name(), err)
		}
		check := assign.Verify
		if balanced {
			check = assign.VerifyBalanced
		}
		if err := check(g, a); err != nil {
			t.Fatalf("%s: %v", s.Name(), err)
		}
		shuffled := assigntest.Shuffled(g).Draw(t, "shuffled")
		again, err := s.Assign(shuffled)
		if err != nil {
			t.Fatalf("%s.Assign(shuffled g): %v", s.Name(), err)
		}
		if diff := cmp.Diff(a, again); diff != "" {
			t.Fatalf("%s depends on input order (-original +shuffled):\n%s", s.Name(), diff)
		}
	}
}

// merge returns the union of two sorted, disjoint partition lists, sorted;
// nil when both are empty, as assignments list nothing.
func merge(a, b []assign.TopicPartition) []assign.TopicPartition {
	var out []assign.TopicPartition
	for len(a) > 0 || len(b) > 0 {
		if len(b) == 0 || (len(a) > 0 && a[0].Compare(b[0]) < 0) {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return out
}

// followUp is g after a cooperative round that assigned a: every member
// owns what it was given, at a generation newer than any before.
func followUp(g assign.Group, a assign.Assignment) assign.Group {
	gen := int32(0)
	for _, m := range g.Members {
		gen = max(gen, m.Generation)
	}
	next := assign.Group{Topics: g.Topics, PartitionRacks: g.PartitionRacks}
	for _, m := range g.Members {
		m.Owned = a[m.ID]
		m.Generation = gen + 1
		next.Members = append(next.Members, m)
	}
	return next
}
