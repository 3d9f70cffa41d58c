package assign_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/assigntest"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

func TestCooperativeStickyPlan(t *testing.T) {
	tests := []struct {
		name string
		g    assign.Group
		want assign.CooperativePlan
	}{
		{
			// c2 joins a group of two holding three each (KIP-429's
			// example shape). The target is Sticky's: c0 gives up t0-2 and
			// c1 gives up t0-5, both for c2. Both must be revoked first, so
			// c2 gets nothing this round.
			name: "member joins: what moves is withheld for a round",
			g: assign.Group{
				Topics: map[string]int32{"t0": 6},
				Members: []assign.Member{
					stickyMember("c0", onlyT0, 1, tps("t0", 0, 1, 2)),
					stickyMember("c1", onlyT0, 1, tps("t0", 3, 4, 5)),
					stickyMember("c2", onlyT0, -1),
				},
			},
			want: assign.CooperativePlan{
				Assignment: assign.Assignment{"c0": tps("t0", 0, 1), "c1": tps("t0", 3, 4), "c2": nil},
				Target:     assign.Assignment{"c0": tps("t0", 0, 1), "c1": tps("t0", 3, 4), "c2": tps("t0", 2, 5)},
				Revoked:    assign.Assignment{"c0": tps("t0", 2), "c1": tps("t0", 5), "c2": nil},
				Pending:    assign.Assignment{"c0": nil, "c1": nil, "c2": tps("t0", 2, 5)},
			},
		},
		{
			// c2 left: nobody owns t0-4 and t0-5 any longer, so they are
			// handed out at once, as Sticky does.
			name: "member leaves: free partitions go at once",
			g: assign.Group{
				Topics: map[string]int32{"t0": 6},
				Members: []assign.Member{
					stickyMember("c0", onlyT0, 1, tps("t0", 0, 1)),
					stickyMember("c1", onlyT0, 1, tps("t0", 2, 3)),
				},
			},
			want: assign.CooperativePlan{
				Assignment: assign.Assignment{"c0": tps("t0", 0, 1, 4), "c1": tps("t0", 2, 3, 5)},
				Target:     assign.Assignment{"c0": tps("t0", 0, 1, 4), "c1": tps("t0", 2, 3, 5)},
				Revoked:    assign.Assignment{"c0": nil, "c1": nil},
				Pending:    assign.Assignment{"c0": nil, "c1": nil},
			},
		},
		{
			// The three-claimant case of TestSticky: target c0 t0-0, c1
			// t0-2, c2 t0-1. t0-0 is claimed by c0 and c1 at the newest
			// generation: withheld even from c0, which lists it (Kafka's
			// partitionsWithMultiplePreviousOwners). t0-2 passes from c2 to
			// c1: withheld. Everyone revokes what it does not keep now,
			// t9-0 (a deleted topic) included.
			name: "doubly claimed partitions are withheld",
			g: assign.Group{
				Topics: map[string]int32{"t0": 3},
				Members: []assign.Member{
					stickyMember("c2", onlyT0, 1, tps("t0", 0, 1, 2), tps("t9", 0)),
					stickyMember("c1", onlyT0, 2, tps("t0", 0)),
					stickyMember("c0", onlyT0, 2, tps("t0", 0)),
				},
			},
			want: assign.CooperativePlan{
				Assignment: assign.Assignment{"c0": nil, "c1": nil, "c2": tps("t0", 1)},
				Target:     assign.Assignment{"c0": tps("t0", 0), "c1": tps("t0", 2), "c2": tps("t0", 1)},
				Revoked:    assign.Assignment{"c0": tps("t0", 0), "c1": tps("t0", 0), "c2": join(tps("t0", 0, 2), tps("t9", 0))},
				Pending:    assign.Assignment{"c0": tps("t0", 0), "c1": tps("t0", 2), "c2": nil},
			},
		},
		{
			// t0-0 is c0's at generation 3 and (stale) c1's at generation
			// 2. The target keeps it with c0, which lists it: nothing is
			// added to anyone, so it is not withheld; c1 revokes its stale
			// copy.
			name: "a stale lower-generation copy does not hold a partition back",
			g: assign.Group{
				Topics: map[string]int32{"t0": 2},
				Members: []assign.Member{
					stickyMember("c0", onlyT0, 3, tps("t0", 0)),
					stickyMember("c1", onlyT0, 2, tps("t0", 0, 1)),
				},
			},
			want: assign.CooperativePlan{
				Assignment: assign.Assignment{"c0": tps("t0", 0), "c1": tps("t0", 1)},
				Target:     assign.Assignment{"c0": tps("t0", 0), "c1": tps("t0", 1)},
				Revoked:    assign.Assignment{"c0": nil, "c1": tps("t0", 0)},
				Pending:    assign.Assignment{"c0": nil, "c1": nil},
			},
		},
		{
			// Regression test for a partition handed straight from its
			// owner to a stale claimant. a is at generation 6 and owns
			// zz-0 to zz-3. b missed several rebalances (kicked out while
			// paused, say) and rejoins still listing zz-3 from generation
			// 0. Balance gives two each; a keeps its lowest two, and zz-3
			// goes to b, its previous owner (KIP-341). Round 1 used to hand
			// zz-3 to b at once because b lists it, which Kafka's consumer
			// check accepts; but a owns it at the newest generation and
			// keeps consuming it until it has revoked it, while b would
			// start from its own stale position and could rewind a's
			// commits. Only the newest claim counts: zz-3 is withheld with
			// zz-2, and both reach b in the follow-up round.
			name: "a stale claimant does not get a partition its owner still holds",
			g: assign.Group{
				Topics: map[string]int32{"zz": 4},
				Members: []assign.Member{
					stickyMember("a", []string{"zz"}, 6, tps("zz", 0, 1, 2, 3)),
					stickyMember("b", []string{"zz"}, 0, tps("zz", 3)),
				},
			},
			want: assign.CooperativePlan{
				Assignment: assign.Assignment{"a": tps("zz", 0, 1), "b": nil},
				Target:     assign.Assignment{"a": tps("zz", 0, 1), "b": tps("zz", 2, 3)},
				Revoked:    assign.Assignment{"a": tps("zz", 2, 3), "b": tps("zz", 3)},
				Pending:    assign.Assignment{"a": nil, "b": tps("zz", 2, 3)},
			},
		},
		{
			// A stale claim nobody newer contests is still the newest
			// claim: c1 (generation 0) is the only member listing t0-1,
			// so it owns it and keeps it this round, while t0-0, which c0
			// owns at generation 5 and c1 lists from generation 0, stays
			// with c0.
			name: "an uncontested old claim is the newest claim",
			g: assign.Group{
				Topics: map[string]int32{"t0": 2},
				Members: []assign.Member{
					stickyMember("c0", onlyT0, 5, tps("t0", 0)),
					stickyMember("c1", onlyT0, 0, tps("t0", 0, 1)),
				},
			},
			want: assign.CooperativePlan{
				Assignment: assign.Assignment{"c0": tps("t0", 0), "c1": tps("t0", 1)},
				Target:     assign.Assignment{"c0": tps("t0", 0), "c1": tps("t0", 1)},
				Revoked:    assign.Assignment{"c0": nil, "c1": tps("t0", 0)},
				Pending:    assign.Assignment{"c0": nil, "c1": nil},
			},
		},
		{
			// c0 and c1 both list t0-0 at generation 4, the newest; c2
			// lists it from generation 2. The tie cancels both newest
			// claims, and c2's older one makes no hand-over safe: t0-0
			// goes to nobody this round, even though its target is c2,
			// its previous owner.
			name: "a tie at the newest generation is withheld from an older claimant too",
			g: assign.Group{
				Topics: map[string]int32{"t0": 3},
				Members: []assign.Member{
					stickyMember("c0", onlyT0, 4, tps("t0", 0, 1)),
					stickyMember("c1", onlyT0, 4, tps("t0", 0, 2)),
					stickyMember("c2", onlyT0, 2, tps("t0", 0)),
				},
			},
			want: assign.CooperativePlan{
				Assignment: assign.Assignment{"c0": tps("t0", 1), "c1": tps("t0", 2), "c2": nil},
				Target:     assign.Assignment{"c0": tps("t0", 1), "c1": tps("t0", 2), "c2": tps("t0", 0)},
				Revoked:    assign.Assignment{"c0": tps("t0", 0), "c1": tps("t0", 0), "c2": tps("t0", 0)},
				Pending:    assign.Assignment{"c0": nil, "c1": nil, "c2": tps("t0", 0)},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := assign.CooperativeSticky{}.Plan(tc.g)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(&tc.want, got); diff != "" {
				t.Errorf("CooperativeSticky.Plan(g) mismatch (-want +got):\n%s", diff)
			}
			if err := assign.VerifyCooperative(tc.g, got.Assignment); err != nil {
				t.Error(err)
			}
			if err := assign.CheckCooperative(tc.g, got.Assignment); err != nil {
				t.Error(err)
			}
			a, err := assign.CooperativeSticky{}.Assign(tc.g)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(got.Assignment, a); diff != "" {
				t.Errorf("CooperativeSticky.Assign(g) mismatch (-plan +assign):\n%s", diff)
			}
		})
	}
}

func TestCheckCooperative(t *testing.T) {
	g := assign.Group{
		Topics: map[string]int32{"t0": 2},
		Members: []assign.Member{
			stickyMember("c0", onlyT0, 1, tps("t0", 0, 1)),
			stickyMember("c1", onlyT0, 1),
		},
	}
	tests := []struct {
		name   string
		a      assign.Assignment
		unsafe bool
	}{
		{"keep everything", assign.Assignment{"c0": tps("t0", 0, 1), "c1": nil}, false},
		{"revoke without handing over", assign.Assignment{"c0": tps("t0", 0), "c1": nil}, false},
		{"hand over while still owned", assign.Assignment{"c0": tps("t0", 0), "c1": tps("t0", 1)}, true},
		{"swap", assign.Assignment{"c0": nil, "c1": tps("t0", 0, 1)}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := assign.CheckCooperative(g, tc.a)
			if got := err != nil; got != tc.unsafe {
				t.Fatalf("CheckCooperative(g, %v) = %v, want unsafe %v", tc.a, err, tc.unsafe)
			}
			if err != nil && !errors.Is(err, assign.ErrInvalidAssignment) {
				t.Errorf("CheckCooperative error %v does not wrap ErrInvalidAssignment", err)
			}
		})
	}
}

func TestVerifyCooperative(t *testing.T) {
	// c0 owns t0-0 and t0-1 at generation 3; c1 lists t0-1 and t0-2 from
	// generation 1 (stale); c2 and c3 both list t0-3 at generation 2.
	g := assign.Group{
		Topics: map[string]int32{"t0": 5},
		Members: []assign.Member{
			stickyMember("c0", onlyT0, 3, tps("t0", 0, 1)),
			stickyMember("c1", onlyT0, 1, tps("t0", 1, 2)),
			stickyMember("c2", onlyT0, 2, tps("t0", 3)),
			stickyMember("c3", onlyT0, 2, tps("t0", 3)),
		},
	}
	tests := []struct {
		name  string
		a     assign.Assignment
		bad   string // the partition named in the error, "" when safe
		kafka bool   // whether Kafka's consumer-side check accepts it
	}{
		{"owners keep, free partition to anyone", assign.Assignment{"c0": tps("t0", 0, 1), "c1": tps("t0", 2), "c3": tps("t0", 4)}, "", true},
		{"nothing at all", assign.Assignment{}, "", true},
		{"uncontested old claim kept", assign.Assignment{"c1": tps("t0", 2)}, "", true},
		{"owner to stale claimant", assign.Assignment{"c0": tps("t0", 0), "c1": tps("t0", 1, 2)}, "t0-1", true},
		{"owner to a member listing nothing", assign.Assignment{"c0": tps("t0", 1), "c2": tps("t0", 0)}, "t0-0", false},
		{"tied claim to one of the tied", assign.Assignment{"c2": tps("t0", 3)}, "t0-3", true},
		{"tied claim to someone else", assign.Assignment{"c0": tps("t0", 3)}, "t0-3", false},
		{"a free partition to two members", assign.Assignment{"c0": tps("t0", 4), "c1": tps("t0", 4)}, "t0-4", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := assign.VerifyCooperative(g, tc.a)
			switch {
			case tc.bad == "" && err != nil:
				t.Fatalf("VerifyCooperative(g, %v) = %v, want nil", tc.a, err)
			case tc.bad != "" && err == nil:
				t.Fatalf("VerifyCooperative(g, %v) = nil, want an error naming %s", tc.a, tc.bad)
			case err != nil && !errors.Is(err, assign.ErrInvalidAssignment):
				t.Errorf("VerifyCooperative error %v does not wrap ErrInvalidAssignment", err)
			case err != nil && !strings.Contains(err.Error(), tc.bad+" is assigned"):
				t.Errorf("VerifyCooperative error %q does not name %s", err, tc.bad)
			}
			if kafka := assign.CheckCooperative(g, tc.a) == nil; kafka != tc.kafka {
				t.Errorf("CheckCooperative(g, %v) accepts: %v, want %v", tc.a, kafka, tc.kafka)
			}
		})
	}
}

// TestCooperativeTargetAsGoodAsSticky: on the same input, CooperativeSticky
// heads for an assignment as balanced as Sticky's that moves as few
// partitions, and its round is a safe part of it.
func TestCooperativeTargetAsGoodAsSticky(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := assigntest.GroupOf(assigntest.Small).Draw(t, "group")
		sticky, err := assign.Sticky{}.Assign(g)
		if err != nil {
			t.Fatal(err)
		}
		plan, err := assign.CooperativeSticky{}.Plan(g)
		if err != nil {
			t.Fatal(err)
		}
		compareTargets(t, g, sticky, plan.Target)
		checkPlan(t, g, plan)
		again, err := assign.CooperativeSticky{}.Plan(assigntest.Shuffled(g).Draw(t, "shuffled"))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(plan, again); diff != "" {
			t.Fatalf("CooperativeSticky.Plan(shuffled g) mismatch (-original +shuffled):\n%s", diff)
		}
	})
}

// checkPlan checks a plan's own invariants: the target is valid and
// balanced, the round is safe, and round plus pending is the target.
func checkPlan(t *rapid.T, g assign.Group, plan *assign.CooperativePlan) {
	t.Helper()
	if err := assign.VerifyBalanced(g, plan.Target); err != nil {
		t.Fatal(err)
	}
	if err := assign.VerifyCooperative(g, plan.Assignment); err != nil {
		t.Fatal(err)
	}
	if err := assign.CheckCooperative(g, plan.Assignment); err != nil {
		t.Fatal(err)
	}
	// Nothing is withheld that the rule lets through: a partition of the
	// target is pending exactly when some member lists it and its newest
	// claim is tied or held by another member.
	newest := newestClaims(g)
	for _, m := range g.Members {
		for _, tp := range plan.Target[m.ID] {
			owners, listed := newest[tp]
			want := listed && (len(owners) > 1 || owners[0] != m.ID)
			if got := slices.Contains(plan.Pending[m.ID], tp); got != want {
				t.Fatalf("member %q: %s pending %v, want %v (newest claimants %q)", m.ID, tp, got, want, owners)
			}
		}
	}
	for _, m := range g.Members {
		both := slices.SortedFunc(slices.Values(join(plan.Assignment[m.ID], plan.Pending[m.ID])), assign.TopicPartition.Compare)
		if diff := cmp.Diff(plan.Target[m.ID], both, cmpEmpty); diff != "" {
			t.Fatalf("member %q: target mismatch (-target +round and pending):\n%s", m.ID, diff)
		}
		for _, tp := range m.Owned {
			kept := slices.Contains(plan.Assignment[m.ID], tp)
			if revoked := slices.Contains(plan.Revoked[m.ID], tp); kept == revoked {
				t.Fatalf("member %q: %s kept %v, revoked %v", m.ID, tp, kept, revoked)
			}
		}
	}
}

// compareTargets checks CooperativeSticky's target against Sticky's
// answer for the same group: equally balanced, with as many moves, and
// the same assignment when Sticky's could be handed out in one safe
// round (CooperativeSticky then withholds nothing, and its target is the
// first solve, as Sticky's is). Otherwise the target is where the
// follow-up round lands, which no longer knows the previous owners of
// the withheld partitions.
func compareTargets(t *rapid.T, g assign.Group, sticky, target assign.Assignment) {
	t.Helper()
	before := owned(t, g)
	if s, c := sumSquares(g, sticky), sumSquares(g, target); s != c {
		t.Fatalf("sum of squared loads: sticky %d, cooperative target %d", s, c)
	}
	if s, c := assign.Moved(before, sticky), assign.Moved(before, target); s != c {
		t.Fatalf("moves: sticky %d, cooperative target %d", s, c)
	}
	if assign.VerifyCooperative(g, sticky) != nil {
		return
	}
	if diff := cmp.Diff(sticky, target); diff != "" {
		t.Fatalf("CooperativeSticky target mismatch (-sticky +cooperative):\n%s", diff)
	}
}

// newestClaims returns, for every partition some member of g lists, the
// IDs of the members listing it at the highest generation it is listed at.
func newestClaims(g assign.Group) map[assign.TopicPartition][]string {
	gen := make(map[assign.TopicPartition]int32)
	for _, m := range g.Members {
		for _, tp := range m.Owned {
			if g, ok := gen[tp]; !ok || m.Generation > g {
				gen[tp] = m.Generation
			}
		}
	}
	newest := make(map[assign.TopicPartition][]string)
	for _, m := range g.Members {
		for _, tp := range m.Owned {
			if m.Generation == gen[tp] {
				newest[tp] = append(newest[tp], m.ID)
			}
		}
	}
	return newest
}

var cmpEmpty = cmp.Comparer(func(a, b []assign.TopicPartition) bool {
	return slices.Equal(a, b)
})

// TestCooperativeFollowUpLandsOnTarget is a regression test. The target
// used to be the first solve's answer. Here that answer gives the extra
// partition (5 over 3 members) to static member s, first in member order,
// as a tie among members owning nothing, and deals x the new t0-4 for its
// rack; s's two partitions come from a and are withheld. In the follow-up
// round x owns one partition and s none, so the extra slot went to x
// instead, and the group never reached the announced target. The target
// is now the fixed point of "solve again with this round's assignment as
// the claims": s gets t0-2, x gets t0-3 and t0-4, and the follow-up round
// hands out exactly that.
func TestCooperativeFollowUpLandsOnTarget(t *testing.T) {
	g := assign.Group{
		Topics:         map[string]int32{"t0": 5},
		PartitionRacks: map[string][][]string{"t0": {{"b"}, {"b"}, {"b"}, {"b"}, {"a"}}},
		Members: []assign.Member{
			stickyMember("a", onlyT0, 1, tps("t0", 0, 1, 2, 3)),
			{ID: "s", InstanceID: "s", Topics: onlyT0, Generation: -1},
			{ID: "x", Rack: "a", Topics: onlyT0, Generation: -1},
		},
	}
	want := assign.CooperativePlan{
		Assignment: assign.Assignment{"a": tps("t0", 0, 1), "s": nil, "x": tps("t0", 4)},
		Target:     assign.Assignment{"a": tps("t0", 0, 1), "s": tps("t0", 2), "x": tps("t0", 3, 4)},
		Revoked:    assign.Assignment{"a": tps("t0", 2, 3), "s": nil, "x": nil},
		Pending:    assign.Assignment{"a": nil, "s": tps("t0", 2), "x": tps("t0", 3)},
	}
	got, err := assign.CooperativeSticky{}.Plan(g)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&want, got); diff != "" {
		t.Fatalf("CooperativeSticky.Plan(g) mismatch (-want +got):\n%s", diff)
	}

	// The follow-up round: everyone reports this round's assignment.
	for i := range g.Members {
		m := &g.Members[i]
		m.Owned, m.Generation = got.Assignment[m.ID], 2
	}
	next, err := assign.CooperativeSticky{}.Plan(g)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want.Target, next.Assignment); diff != "" {
		t.Errorf("follow-up round mismatch (-target +follow-up):\n%s", diff)
	}
}
