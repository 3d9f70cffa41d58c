package franz_test

// The chaos test's checks must fail when the group misbehaves: each case
// here runs a short schedule with a fault planted and requires the checks
// to report it.

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
)

// unsafeCooperative declares itself cooperative but hands every partition
// to its target owner at once, with no round in which the previous owner
// revokes it first.
type unsafeCooperative struct{ assign.CooperativeSticky }

func (u unsafeCooperative) Assign(g assign.Group) (assign.Assignment, error) {
	p, err := u.Plan(g)
	if err != nil {
		return nil, err
	}
	return p.Target, nil
}

// TestChaosChecksCatchFaults plants two faults. A cooperative balancer
// that moves partitions in one round must be caught by the round checks
// (VerifyCooperative) and by the observer, which sees the new owner get a
// partition before the old one revokes it (a race kgo loses several times
// in every run of this schedule). Consumers that never commit must be
// caught processing records again with no crash to excuse it. A planted
// fault may also keep the group from settling (kgo, handed a partition
// another member still holds, may never take it up): that is reported as
// one more violation, and the schedule ends there.
func TestChaosChecksCatchFaults(t *testing.T) {
	t.Parallel()
	const seed, events = 7, 6
	cases := []struct {
		name  string
		s     assign.Strategy
		tweak func(*chaosRun)
		want  []string // each in some violation reported
	}{
		{"cooperative round handing over a held partition", unsafeCooperative{}, nil, []string{"not cooperative", "still holds it"}},
		{"consumers that never commit", assign.Sticky{}, func(r *chaosRun) { r.noCommit = true }, []string{"did not crash"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var got []string
			runChaos(t, c.s, seed, events, func(r *chaosRun) {
				if c.tweak != nil {
					c.tweak(r)
				}
				r.unsettledIsViolation = true // the planted fault may keep the group from it
				r.violation = func(format string, args ...any) {
					mu.Lock()
					defer mu.Unlock()
					got = append(got, fmt.Sprintf(format, args...))
				}
			})
			mu.Lock()
			defer mu.Unlock()
			t.Logf("%d violations reported", len(got))
		want:
			for _, w := range c.want {
				for _, v := range got {
					if strings.Contains(v, w) {
						t.Logf("e.g. %s", v)
						continue want
					}
				}
				t.Errorf("no violation mentions %q; got %q", w, got)
			}
		})
	}
}
