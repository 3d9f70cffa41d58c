package assign_test

import (
	"slices"
	"strings"
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
		if diff := cmp.Diff(newestOwned(g), owned(t, g), cmpEmpty); diff != "" {
			t.Fatalf("Owned(g) mismatch (-newest claims +Owned):\n%s", diff)
		}
	})
}

// TestOwnedAnySpelling: how the names of an Owned list are held in memory
// changes nothing. compile finds a run's topic by the address of its name
// first and compares bytes only after; here every entry's name is the
// metadata's own string, a copy of it, or the one drawn, at random, in
// lists sorted as an assignment is or in any order, so runs of one topic
// mix spellings. Owned must still name each partition's newest claimant
// (as TestOwnedIsTheNewestClaim states it), and Sticky answer, or refuse
// a repeat, as it does for the same lists with every name a copy.
func TestOwnedAnySpelling(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := assigntest.GroupOf(assigntest.Small).Draw(t, "group")
		own := make(map[string]string, len(g.Topics)) // name => the metadata's own string
		for name := range g.Topics {
			own[name] = name
		}
		spelt, copied := g, g
		spelt.Members, copied.Members = slices.Clone(g.Members), slices.Clone(g.Members)
		for i := range g.Members {
			list := slices.Clone(g.Members[i].Owned)
			if rapid.Bool().Draw(t, "sorted") {
				slices.SortFunc(list, assign.TopicPartition.Compare)
			}
			spelt.Members[i].Owned, copied.Members[i].Owned = list, slices.Clone(list)
			for k := range list {
				copied.Members[i].Owned[k].Topic = strings.Clone(list[k].Topic)
				switch rapid.IntRange(0, 2).Draw(t, "spelling") {
				case 0:
					if name, ok := own[list[k].Topic]; ok {
						list[k].Topic = name
					}
				case 1:
					list[k].Topic = strings.Clone(list[k].Topic)
				}
			}
		}
		want, wantErr := assign.Sticky{}.Assign(copied)
		got, err := assign.Sticky{}.Assign(spelt)
		if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
			t.Fatalf("Sticky error %v, want %v (every name a copy)", err, wantErr)
		}
		if err != nil {
			return
		}
		if diff := cmp.Diff(want, got, cmpEmpty); diff != "" {
			t.Fatalf("Sticky mismatch (-every name a copy +spelt at random):\n%s", diff)
		}
		if diff := cmp.Diff(newestOwned(spelt), owned(t, spelt), cmpEmpty); diff != "" {
			t.Fatalf("Owned mismatch (-newest claims +Owned):\n%s", diff)
		}
	})
}

// newestOwned is what Owned(g) must be: each existing partition of a
// topic someone subscribes to goes to its one newest-generation claimant.
func newestOwned(g assign.Group) assign.Assignment {
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
	return want
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
