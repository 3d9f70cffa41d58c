package bench

import (
	"slices"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/bench/workload"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestQualityAgainstPeers runs the compare command's measurements on the
// small workloads and holds our implementations to the bar:
//
//   - every result of ours is valid (cooperative: its first round is
//     safe, and the second round withholds nothing) and the same in two
//     runs;
//   - our sticky and cooperative-sticky results are balanced (no
//     improving chain, assign.VerifyBalanced), so no peer has a smaller
//     spread or a smaller maximum;
//   - after churn they move no more partitions than any peer whose
//     result is as balanced, and no fewer than the independent lower
//     bound (fewer would mean the bound, or the move count, is wrong).
//
// Range and roundrobin are held to validity only: their answer is the
// Java client's, whatever a peer does (kafka-go's differ from Java's).
// It runs on uniform-10x100 and hetero-100x200t; with -big also on
// uniform-100x10000, where sarama's sticky assignors take seconds a run.
func TestQualityAgainstPeers(t *testing.T) {
	for _, spec := range workload.Specs() {
		if spec.Partitions() > 10000 || (spec.Partitions() == 10000 && !*big) {
			continue
		}
		t.Run(spec.Name(), func(t *testing.T) {
			rows, err := workload.Compare(spec, workload.Filter{})
			if err != nil {
				t.Fatal(err)
			}
			type key struct{ strategy, shape string }
			ours := make(map[key]*workload.Row)
			for _, r := range rows {
				if r.Impl == workload.Ours {
					ours[key{r.Strategy, r.Shape}] = r
				}
			}
			for _, r := range rows {
				if !r.OK() {
					if r.Impl == workload.Ours {
						t.Errorf("%s on %s: ours is wrong: %v %v %v", r.Strategy, r.Shape, r.Err, r.Invalid, r.Unsafe)
					} else {
						t.Logf("%s on %s: %s is wrong: %v %v %v", r.Strategy, r.Shape, r.Impl, r.Err, r.Invalid, r.Unsafe)
					}
					continue
				}
				if r.Impl == workload.Ours && r.RepeatChecked && !r.Repeatable {
					t.Errorf("%s on %s: ours gave different results in two runs", r.Strategy, r.Shape)
				}
				if r.Strategy != workload.Sticky && r.Strategy != workload.CooperativeSticky {
					continue
				}
				o := ours[key{r.Strategy, r.Shape}]
				if r.Impl == workload.Ours {
					if !r.BalanceChecked || r.Unbalanced != nil {
						t.Errorf("%s on %s: ours is not balanced (checked: %v): %v", r.Strategy, r.Shape, r.BalanceChecked, r.Unbalanced)
					}
					if r.Rounds > 2 {
						t.Errorf("%s on %s: ours took %d rounds, want at most 2", r.Strategy, r.Shape, r.Rounds)
					}
					if r.Moved >= 0 && r.Moved < r.Bound {
						t.Errorf("%s on %s: ours moved %d partitions, below the lower bound %d", r.Strategy, r.Shape, r.Moved, r.Bound)
					}
					continue
				}
				if o == nil || !o.OK() {
					continue // reported above
				}
				if o.Spread > r.Spread || o.Max > r.Max {
					t.Errorf("%s on %s: ours is less balanced than %s: min/max %d/%d, theirs %d/%d",
						r.Strategy, r.Shape, r.Impl, o.Min, o.Max, r.Min, r.Max)
				}
				if r.Spread <= o.Spread && r.Max <= o.Max && o.Moved > r.Moved {
					t.Errorf("%s on %s: ours moved %d partitions, %s only %d", r.Strategy, r.Shape, o.Moved, r.Impl, r.Moved)
				}
			}
		})
	}
}

// TestEagerAgreesWithFranzGo holds our range and roundrobin results to
// franz-go's on every small workload: franz-go implements the Java
// client's two assignors independently of us, so agreeing with it on
// groups this size is evidence beyond our own tests against Kafka's
// examples. (sarama's roundrobin and kafka-go's assignors order members
// or partitions otherwise and differ from Java's; see RESULTS.md.)
func TestEagerAgreesWithFranzGo(t *testing.T) {
	for _, strategy := range []string{workload.Range, workload.RoundRobin} {
		for _, spec := range workload.Specs() {
			if spec.Big() {
				continue
			}
			shapes, err := workload.Shapes(spec)
			if err != nil {
				t.Fatal(err)
			}
			g := shapes[workload.Fresh].Group
			results := make(map[string]assign.Assignment)
			for _, im := range workload.Impls(strategy, false) {
				if im.Name != workload.Ours && im.Name != workload.FranzGo {
					continue
				}
				p, err := im.Prepare(g)
				if err != nil {
					t.Fatal(err)
				}
				if err := p.Run(); err != nil {
					t.Fatalf("%s %s on %s: %v", im.Name, strategy, spec.Name(), err)
				}
				if results[im.Name], err = p.Result(); err != nil {
					t.Fatal(err)
				}
			}
			ours, franz := results[workload.Ours], results[workload.FranzGo]
			if ours == nil || franz == nil {
				t.Fatalf("%s on %s: missing a result", strategy, spec.Name())
			}
			for _, m := range g.Members {
				got, want := ours[m.ID], franz[m.ID]
				slices.SortFunc(want, assign.TopicPartition.Compare)
				if !slices.Equal(got, want) {
					t.Errorf("%s on %s: member %s gets %d partitions from us, %d from franz-go, not the same ones", strategy, spec.Name(), m.ID, len(got), len(want))
					break
				}
			}
		}
	}
}

// TestKafkaGoAdapterIsOurs holds the kafka-go+ours row to ours on every
// small workload and shape: a kafka-go leader using adapters/kafkago,
// given the user data each member's own balancer sends, must hand out
// exactly what assign.Sticky computes from the group directly, so that
// no history is lost between the members' balancers and the leader's.
// It runs on the workloads TestQualityAgainstPeers runs on.
func TestKafkaGoAdapterIsOurs(t *testing.T) {
	for _, spec := range workload.Specs() {
		if spec.Partitions() > 10000 || (spec.Partitions() == 10000 && !*big) {
			continue
		}
		shapes, err := workload.Shapes(spec)
		if err != nil {
			t.Fatal(err)
		}
		for _, shape := range shapes {
			results := make(map[string]assign.Assignment)
			for _, im := range workload.Impls(workload.Sticky, false) {
				if im.Name != workload.Ours && im.Name != workload.KafkaGoOurs {
					continue
				}
				p, err := im.Prepare(shape.Group)
				if err != nil {
					t.Fatal(err)
				}
				if err := p.Run(); err != nil {
					t.Fatalf("%s on %s: %v", im.Name, shape.Name(), err)
				}
				if results[im.Name], err = p.Result(); err != nil {
					t.Fatal(err)
				}
			}
			if d := cmp.Diff(results[workload.Ours], results[workload.KafkaGoOurs], cmpopts.EquateEmpty()); d != "" {
				t.Errorf("sticky on %s: kafka-go+ours differs from ours (-ours +kafka-go+ours):\n%s", shape.Name(), d)
			}
		}
	}
}
