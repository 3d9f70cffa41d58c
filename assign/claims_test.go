package assign_test

import (
	"slices"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/assigntest"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// Tests of the claims rules (claims.go): which member owns a partition
// when members claim it at different or equal generations.

// TestClaimsResolvedInCompile: when every claimant has one generation,
// compile settles the claims as it reads them, without listing them per
// member; the plan must be the one the per-member lists give.
func TestClaimsResolvedInCompile(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := assigntest.GroupOf(assigntest.Small).Draw(t, "group")
		if rapid.IntRange(0, 3).Draw(t, "mixed") > 0 {
			gen := rapid.Int32Range(-1, 3).Draw(t, "generation")
			for i := range g.Members {
				g.Members[i].Generation = gen
			}
		}
		want, err := assign.PlanFromLists(g)
		if err != nil {
			t.Fatal(err)
		}
		got, err := assign.CooperativeSticky{}.Plan(g)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("plan mismatch (-lists +resolved in compile):\n%s", diff)
		}
	})
}

// TestOwnedIsTheNewestClaim: assign.Owned, which the command line's move
// counts use, names the owners the strategies withhold for, as the test's
// own newestClaims finds them: each existing partition of a topic someone
// subscribes to goes to its one newest-generation claimant.
func TestOwnedIsTheNewestClaim(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := assigntest.GroupOf(assigntest.Small).Draw(t, "group")
		wanted := make(map[string]bool)
		for _, m := range g.Members {
			for _, topic := range m.Topics {
				wanted[topic] = true
			}
		}
		want := make(assign.Assignment, len(g.Members))
		for _, m := range g.Members {
			want[m.ID] = nil
		}
		for tp, ids := range newestClaims(g) {
			if n, ok := g.Topics[tp.Topic]; ok && wanted[tp.Topic] && tp.Partition < n && len(ids) == 1 {
				want[ids[0]] = append(want[ids[0]], tp)
			}
		}
		for id := range want {
			slices.SortFunc(want[id], assign.TopicPartition.Compare)
		}
		if diff := cmp.Diff(want, owned(t, g), cmpEmpty); diff != "" {
			t.Fatalf("Owned(g) mismatch (-newest claims +Owned):\n%s", diff)
		}
	})
}

// TestStickyThreeClaimantsAnyOrder runs the three-claimant case under
// every order of its members and of their claims.
func TestStickyThreeClaimantsAnyOrder(t *testing.T) {
	base := assign.Group{
		Topics: map[string]int32{"t0": 3},
		Members: []assign.Member{
			stickyMember("c2", onlyT0, 1, tps("t0", 2, 0, 1)),
			stickyMember("c1", onlyT0, 2, tps("t0", 0)),
			stickyMember("c0", onlyT0, 2, tps("t0", 0)),
		},
	}
	want := assign.Assignment{"c0": tps("t0", 0), "c1": tps("t0", 2), "c2": tps("t0", 1)}
	perms := [][]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}
	for _, perm := range perms {
		g := base
		g.Members = nil
		for _, i := range perm {
			g.Members = append(g.Members, base.Members[i])
		}
		got, err := assign.Sticky{}.Assign(g)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Sticky(members in order %v) mismatch (-want +got):\n%s", perm, diff)
		}
	}
}
