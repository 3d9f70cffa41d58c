package assign

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestUniformAssignShares checks the fast path of assignment that hands a
// member's Owned list back against the general path that writes every
// list. Groups are random, then held: every member holds what Assign gave
// it, some lists reversed or shuffled, some with a partition listed twice
// or dropped or another topic's,
// and a member leaves or joins. For both Kafka versions:
//   - the two paths give equal Assignments;
//   - a list is the member's own Owned list (same first element, capped
//     so that append copies) exactly when the general path's list equals
//     that Owned list, so sharing is neither missed nor wrong.
//
// The reference is solveOwner's answer with every list written
// (assignmentWritingAll); the Kafka oracle goldens anchor that reference (TestUniformOwnerGoldens).
func TestUniformAssignShares(t *testing.T) {
	var shared, written int
	for i := range 400 {
		rng := newTestRand(uint64(i))
		g := randomKIP848Group(rng, "share")
		first, err := Uniform{}.Assign(g)
		if err != nil {
			continue
		}
		held := holdAfter(rng, g, first)
		for _, u := range []Uniform{{}, {Kafka: Kafka40}} {
			s, w, _ := checkShares(t, i, u, held)
			shared += s
			written += w
		}
	}
	g := kip848Shapes[0].group()
	fresh, err := Uniform{}.Assign(g)
	if err != nil {
		t.Fatal(err)
	}
	// After one leave, every list is shared but the newcomer's and that
	// of a member whose list has two middle entries swapped (its first
	// and last in place).
	held := churned(g, fresh, true)
	swapped := &held.Members[len(held.Members)/2]
	swapped.Owned = slices.Clone(swapped.Owned)
	swapped.Owned[1], swapped.Owned[2] = swapped.Owned[2], swapped.Owned[1]
	s, w, p := checkShares(t, -1, Uniform{}, held)
	if want := len(g.Members) - 2; s != want || w != 2 || p != 0 {
		t.Errorf("uniform-1000x100000 leave1: %d lists shared (%d prefixes) and %d written, want %d, 0 and 2", s, p, w, want)
	}
	// After one join, every member that gives up a partition gives up
	// the last of its list (its HashSet's highest bucket) and is handed
	// the rest; the newcomer's list is written.
	s, w, p = checkShares(t, -1, Uniform{}, churned(g, fresh, false))
	if s != len(g.Members) || w != 1 || p == 0 {
		t.Errorf("uniform-1000x100000 join1: %d lists shared (%d prefixes) and %d written, want %d, some and 1", s, p, w, len(g.Members))
	}
	t.Logf("uniform-1000x100000 join1: %d lists shared, %d of them prefixes", s, p)
	if shared == 0 || written == 0 {
		t.Fatalf("random groups: %d lists shared and %d written: the test no longer tries both", shared, written)
	}
}

// holdAfter returns g with every member holding its list of a, and some
// of those lists spoiled for sharing, a member left and one joined.
func holdAfter(rng *rand.Rand, g Group, a Assignment) Group {
	out := g
	out.Members = nil
	for _, m := range g.Members {
		m.Owned = a[m.ID]
		switch n := len(m.Owned); rng.IntN(8) {
		case 0:
			m.Owned = slices.Clone(m.Owned)
			slices.Reverse(m.Owned)
		case 1:
			if n > 0 {
				m.Owned = append(slices.Clone(m.Owned), m.Owned[n-1])
			}
		case 2:
			if n > 0 {
				m.Owned = m.Owned[:n-1]
			}
		case 3:
			continue // left
		case 4: // out of order between the first and the last
			if n >= 4 {
				m.Owned = slices.Clone(m.Owned)
				m.Owned[1], m.Owned[2] = m.Owned[2], m.Owned[1]
			}
		case 5: // the same partition numbers of another topic
			m.Owned = slices.Clone(m.Owned)
			for k := range m.Owned {
				m.Owned[k].Topic = "t0"
			}
		}
		out.Members = append(out.Members, m)
	}
	if rng.IntN(2) == 0 && len(g.Members) > 0 {
		out.Members = append(out.Members, Member{ID: "joined", Topics: g.Members[0].Topics})
	}
	return out
}

// checkShares compares u's answer on g with and without sharing, on runs
// (Uniform.solve) and on the owner path (solveOwner), and returns how many non-empty lists were
// shared and how many written on runs, and how many of those shared were
// a prefix of Owned.
func checkShares(t *testing.T, i int, u Uniform, g Group) (shared, written, prefixes int) {
	t.Helper()
	general, err := solveOwner(u, g)
	if err != nil {
		return 0, 0, 0 // a fault: the general path names it
	}
	want := general.assignmentWritingAll()
	for _, runs := range []bool{false, true} {
		solve := u.solve
		if !runs {
			solve = func(g Group) (*serverGroup, error) { return solveOwner(u, g) }
		}
		sg, err := solve(g)
		if err != nil {
			t.Fatalf("group %d, %v, runs %v: a second solve failed: %v", i, u.Kafka, runs, err)
		}
		got := sg.assignment()
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("group %d, %v, runs %v: sharing changes the answer (-written +shared):\n%s", i, u.Kafka, runs, diff)
		}
		for _, m := range g.Members {
			list := got[m.ID]
			if len(list) == 0 {
				continue
			}
			isOwned := len(m.Owned) > 0 && &list[0] == &m.Owned[0]
			equal := slices.Equal(want[m.ID], m.Owned)
			if isOwned && !equal && runs {
				// On runs, a member that gives up the tail of its list
				// is handed the rest (keptPrefix); the answer is equal
				// (above), so the list is that prefix.
				prefixes++
			} else if isOwned != equal {
				t.Fatalf("group %d, %v, runs %v: %s: list is its Owned list: %v; the target equals Owned: %v", i, u.Kafka, runs, m.ID, isOwned, equal)
			}
			if isOwned && cap(list) != len(list) {
				t.Fatalf("group %d, %v: %s: a shared list of %d has capacity %d: append would write into Owned", i, u.Kafka, m.ID, len(list), cap(list))
			}
			if !runs {
				continue
			}
			if isOwned {
				shared++
			} else {
				written++
			}
		}
	}
	return shared, written, prefixes
}

// TestHeldAsIsEnds checks heldAsIs's test of a run's two ends against a
// sorted Owned list, on runs made up here: the builders never give a
// member a target of its Owned list's size that differs from it, so
// TestUniformAssignShares cannot reach these cases.
func TestHeldAsIsEnds(t *testing.T) {
	a := func(ps ...int32) []TopicPartition {
		var out []TopicPartition
		for _, p := range ps {
			out = append(out, TopicPartition{"a", p})
		}
		return out
	}
	const ta, tb = 0, 1 // Go ranks of topics a and b
	tests := []struct {
		owned []TopicPartition
		runs  []ownerRun
		want  bool
	}{
		{a(0, 1, 2, 3), []ownerRun{{0, ta, 0, 4}}, true},
		{a(0, 1, 2, 3), []ownerRun{{0, ta, 0, 2}, {0, ta, 2, 4}}, true},
		{a(0, 1, 2, 3), []ownerRun{{0, ta, 1, 5}}, false},                           // the first partition differs
		{a(0, 1, 2, 5), []ownerRun{{0, ta, 2, 6}}, false},                           // the first partition only
		{a(0, 1, 2, 5), []ownerRun{{0, ta, 0, 4}}, false},                           // the last
		{a(0, 1, 2, 3), []ownerRun{{0, tb, 0, 4}}, false},                           // the topic
		{a(0, 1, 2, 3), []ownerRun{{0, ta, 0, 3}, {0, tb, 3, 4}}, false},            // the topic of the last run
		{append(a(6, 7), TopicPartition{"b", 8}), []ownerRun{{0, ta, 6, 9}}, false}, // the last entry's topic only
		{[]TopicPartition{{"a", 3}, {"b", 4}}, []ownerRun{{0, tb, 3, 5}}, false},    // the first entry's topic only
	}
	for i, tt := range tests {
		g := Group{
			Topics:   map[string]int32{"a": 8, "b": 16},
			TopicIDs: map[string]TopicID{"a": nameTopicID("a"), "b": nameTopicID("b")},
			Members:  []Member{{ID: "m", Topics: []string{"a", "b"}, Owned: tt.owned}},
		}
		sg, err := compileServer(g)
		if err != nil {
			t.Fatal(err)
		}
		if sg.heldSorted == nil || !sg.heldSorted[0] {
			t.Fatalf("case %d: readRuns did not find %v sorted", i, tt.owned)
		}
		counts := []int32{0, int32(len(tt.owned))}
		if got := sg.heldAsIs(sg.cg.goOrder(), tt.runs, counts)[0]; got != tt.want {
			t.Errorf("case %d: Owned %v, target runs %v: heldAsIs %v, want %v", i, tt.owned, tt.runs, got, tt.want)
		}
	}
}
