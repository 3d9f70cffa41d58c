package main

import (
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/assigntest"
	"pgregory.net/rapid"
)

// TestMovedAgreesWithLibrary checks the fast count against assign.Moved,
// the reference, on assignments of random groups by two strategies, and
// on an assignment against itself (nothing moved).
func TestMovedAgreesWithLibrary(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := assigntest.GroupOf(assigntest.Small).Draw(t, "group")
		strategies := assign.Strategies()
		a := rapid.SampledFrom(strategies).Draw(t, "before")
		b := rapid.SampledFrom(strategies).Draw(t, "after")
		prev, err := a.Assign(g)
		if err != nil {
			t.Fatal(err)
		}
		next, err := b.Assign(g)
		if err != nil {
			t.Fatal(err)
		}
		for _, pair := range [][2]assign.Assignment{{prev, next}, {assign.Owned(g), next}, {prev, prev}, {nil, next}} {
			if got, want := moved(pair[0], pair[1]), assign.Moved(pair[0], pair[1]); got != want {
				t.Fatalf("moved = %d, assign.Moved = %d", got, want)
			}
		}
		if n := moved(prev, prev); n != 0 {
			t.Fatalf("moved(a, a) = %d, want 0", n)
		}
	})
}
