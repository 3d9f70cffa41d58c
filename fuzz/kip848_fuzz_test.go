package fuzz

import (
	"errors"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/assigntest"
	"github.com/assigncalc/assigncalc/assign/coordinator"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// FuzzKIP848Input drives the KIP-848 server-side assignors with the small
// groups of the other strategy targets (assigntest.Small), topic ids
// derived from the names. Those groups' claims become current targets,
// and they include what Kafka never produces (a partition in two members'
// targets, partitions that do not exist), so Uniform may refuse a group,
// but only with an *assign.InputError; ServerRange reads no targets and
// refuses nothing. Whatever is accepted must pass assign.Verify, the
// compact path (AssignRanges) must expand to exactly Assign's answer, and
// a migration to uniform must reconcile to its target within
// coordinator.MaxReconcileRounds, its handovers being exactly the partitions
// whose owner changes. (assign's own FuzzKIP848 fuzzes valid groups from
// a generator of its internal tests, shared with the Kafka oracle.)
//
// Seeds in testdata/fuzz/FuzzKIP848Input/ are FuzzStrategySticky's: the
// same bit streams draw the same groups.
func FuzzKIP848Input(f *testing.F) {
	f.Fuzz(rapid.MakeFuzz(func(t *rapid.T) {
		g := assigntest.GroupOf(assigntest.Small).Draw(t, "group")
		g, _ = g.WithDerivedTopicIDs()
		uniformOK := false
		for _, s := range []interface {
			assign.Strategy
			AssignRanges(assign.Group) (assign.RangeAssignment, error)
		}{assign.Uniform{}, assign.Uniform{Kafka: assign.Kafka40}, assign.ServerRange{}} {
			a, err := s.Assign(g)
			ra, rerr := s.AssignRanges(g)
			if (err == nil) != (rerr == nil) {
				t.Fatalf("%s: Assign error %v, AssignRanges error %v", s.Name(), err, rerr)
			}
			if err != nil {
				var ie *assign.InputError
				if s.Name() == "server-range" || !errors.As(err, &ie) {
					t.Fatalf("%s refused a valid group with %T: %v", s.Name(), err, err)
				}
				continue
			}
			if err := assign.Verify(g, a); err != nil {
				t.Fatalf("%s: %v", s.Name(), err)
			}
			if diff := cmp.Diff(a, ra.Assignment()); diff != "" {
				t.Fatalf("%s: AssignRanges differs from Assign (-Assign +ranges):\n%s", s.Name(), diff)
			}
			uniformOK = uniformOK || s.Name() == "uniform"
		}
		if !uniformOK {
			return
		}
		m, err := coordinator.PreviewMigration(g, assign.Uniform{})
		if err != nil {
			t.Fatalf("PreviewMigration: %v", err)
		}
		last := m.Rounds[len(m.Rounds)-1]
		for _, r := range last.Members {
			if r.State != coordinator.Stable || len(r.PendingRevocation) > 0 {
				t.Fatalf("member %s ends %s, revoking %v", r.ID, r.State, r.PendingRevocation)
			}
			want := m.Target[r.ID]
			if len(want) == 0 {
				want = nil
			}
			if diff := cmp.Diff(want, r.Assigned); diff != "" {
				t.Fatalf("member %s does not reach its target (-target +reached):\n%s", r.ID, diff)
			}
		}
		owner := make(map[assign.TopicPartition]string)
		for _, mem := range g.Members {
			for _, tp := range mem.Owned {
				owner[tp] = mem.ID
			}
		}
		changed := 0
		for id, tps := range m.Target {
			for _, tp := range tps {
				if owner[tp] != id {
					changed++
				}
				delete(owner, tp)
			}
		}
		if changed += len(owner); changed != len(m.Moves) {
			t.Fatalf("%d partitions change owner, %d handovers listed", changed, len(m.Moves))
		}
	}))
}
