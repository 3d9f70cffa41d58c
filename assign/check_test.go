package assign_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
)

// TestCheck: which checkers apply to which strategy, on hand-made
// assignments of two members a and b subscribed to t with four partitions.
// Each case names the faults it must report, all of them.
func TestCheck(t *testing.T) {
	g := assign.Group{Topics: map[string]int32{"t": 4}, Members: []assign.Member{
		{ID: "a", Topics: []string{"t"}, Owned: tps("t", 0, 1, 2), Generation: 3},
		{ID: "b", Topics: []string{"t"}, Owned: tps("t", 3), Generation: 3},
	}}
	lopsided := assign.Assignment{"a": tps("t", 0, 1, 2), "b": tps("t", 3)}
	even := assign.Assignment{"a": tps("t", 0, 1), "b": tps("t", 2, 3)}
	tests := []struct {
		name          string
		s             assign.Strategy
		round, target assign.Assignment
		want          []string // substrings, one per fault; none for valid
	}{
		{"range accepts a valid layout", assign.Range{}, even, nil, nil},
		{"range does not ask for balance", assign.Range{}, lopsided, nil, nil},
		{"sticky asks for balance", assign.Sticky{}, lopsided, nil, []string{"unbalanced"}},
		{"a member that got nothing may be left out", assign.Range{}, assign.Assignment{"a": tps("t", 0, 1, 2, 3)}, nil, nil},
		{"a partition twice", assign.RoundRobin{}, assign.Assignment{"a": tps("t", 0, 1, 2), "b": tps("t", 2, 3)}, nil, []string{`t-2 assigned to both "a" and "b"`}},
		{"an unknown strategy is only verified", nil, lopsided, nil, nil},
		// Every fault, in Verify's order: members in group order, their
		// lists in order, then the partitions nobody got.
		{"every validity fault", assign.Range{}, assign.Assignment{"a": tps("t", 0, 0, 1), "b": append(tps("t", 1), tps("z", 0)...)}, nil,
			[]string{`member "a": t-0 listed after t-0`, `t-1 assigned to both "a" and "b"`, `member "b": z-0 does not exist`, "t-2 is not assigned", "t-3 is not assigned"}},
		// a owns t-2 at generation 3, its newest: b may not get it this
		// round; the target is lopsided too: two faults.
		{"cooperative: unsafe round and unbalanced target", assign.CooperativeSticky{}, even,
			assign.Assignment{"a": tps("t", 0), "b": tps("t", 1, 2, 3)}, []string{"not cooperative: t-2", "unbalanced"}},
		{"cooperative round withholding t-2, without target", assign.CooperativeSticky{}, assign.Assignment{"a": tps("t", 0, 1), "b": tps("t", 3)}, nil, nil},
		{"cooperative round naming a stranger", assign.CooperativeSticky{}, assign.Assignment{"a": tps("t", 0, 1), "z": nil}, nil, []string{`member "z" is not in the group`}},
		{"cooperative round within its target", assign.CooperativeSticky{}, assign.Assignment{"a": tps("t", 0, 1), "b": tps("t", 3)}, even, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := assign.Check(tt.s, g, tt.round, tt.target)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("Check = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, assign.ErrInvalidAssignment) {
				t.Fatalf("Check = %v, want an error wrapping ErrInvalidAssignment", err)
			}
			var faults []error
			if j, ok := err.(interface{ Unwrap() []error }); ok {
				faults = j.Unwrap()
			}
			if len(faults) != len(tt.want) {
				t.Fatalf("Check found %d faults (%v), want %d", len(faults), err, len(tt.want))
			}
			for i, w := range tt.want {
				if !strings.Contains(faults[i].Error(), w) {
					t.Errorf("fault %d = %q, want it to contain %q", i+1, faults[i], w)
				}
			}
		})
	}
	bad := g
	bad.Members = append(bad.Members, bad.Members[0])
	var ie *assign.InputError
	if err := assign.Check(assign.Range{}, bad, even, nil); !errors.As(err, &ie) {
		t.Errorf("Check of an invalid group = %v, want an *InputError", err)
	}
}

// TestCheckCountsFaults: past MaxFaults, Check counts the rest. Nobody
// gets any of 25 partitions: 25 faults, the first ten listed.
func TestCheckCountsFaults(t *testing.T) {
	g := assign.Group{Topics: map[string]int32{"t": 25}, Members: []assign.Member{{ID: "a", Topics: []string{"t"}}}}
	err := assign.Check(assign.Range{}, g, assign.Assignment{}, nil)
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		t.Fatalf("Check = %v, want joined faults", err)
	}
	faults := j.Unwrap()
	if len(faults) != assign.MaxFaults+1 {
		t.Fatalf("%d faults listed, want %d: %v", len(faults), assign.MaxFaults+1, err)
	}
	if !strings.Contains(faults[0].Error(), "t-0 is not assigned") || !strings.Contains(faults[9].Error(), "t-9 is not assigned") {
		t.Errorf("first faults %v, want t-0 .. t-9", faults[:10])
	}
	if got := faults[10].Error(); !strings.Contains(got, "and 15 more faults") || !errors.Is(faults[10], assign.ErrInvalidAssignment) {
		t.Errorf("last = %q, want \"and 15 more faults\" wrapping ErrInvalidAssignment", got)
	}
	if err := assign.Verify(g, assign.Assignment{"a": nil}); err == nil || !strings.Contains(err.Error(), "t-0 is not assigned") {
		t.Errorf("Verify = %v, want the first fault only", err)
	}
}
