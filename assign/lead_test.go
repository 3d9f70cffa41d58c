package assign_test

import (
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
