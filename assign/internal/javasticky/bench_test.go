package javasticky

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/internal/oracle"
	"github.com/assigncalc/assigncalc/internal/benchmem"
)

// benchShape is one group size of BenchmarkJavaSticky, built by formula so
// that testdata/oracle/Bench.java can time Kafka's own assignors on exactly
// the same groups (TestBenchShapes writes them out).
type benchShape struct {
	name       string
	members    int
	topics     int
	partitions int32 // per topic; 0 is bench/workload's hetero formula
	// homogeneous members subscribe to every topic (the constrained
	// path); otherwise to a random half (partitions > 0, fixed seed) or
	// by bench/workload's hetero formula (partitions == 0).
	homogeneous bool
}

var benchShapes = []benchShape{
	{"homogeneous-100x10x100", 100, 10, 100, true},
	{"homogeneous-1000x100x100", 1000, 100, 100, true},
	{"heterogeneous-100x20x10", 100, 20, 10, false},
	// The shape: hetero(1000, 2000) of bench/workload, 1 + (i*7919
	// % 64) partitions on topic i, member j on topic i iff (i*31 + j*17)
	// % 5 < 3.
	{"hetero-1000x2000", 1000, 2000, 0, false},
}

// fresh builds the shape's group, owning nothing.
func (sh benchShape) fresh() assign.Group {
	rng := rand.New(rand.NewPCG(1, 2))
	g := assign.Group{Topics: map[string]int32{}}
	var names []string
	for i := range sh.topics {
		n := fmt.Sprintf("topic-%04d", i)
		if sh.partitions == 0 {
			n = fmt.Sprintf("topic-%05d", i)
			g.Topics[n] = int32(1 + (i*7919)%64)
		} else {
			g.Topics[n] = sh.partitions
		}
		names = append(names, n)
	}
	for j := range sh.members {
		m := assign.Member{ID: fmt.Sprintf("consumer-%05d", j), Generation: -1}
		for i, n := range names {
			switch {
			case sh.homogeneous,
				sh.partitions == 0 && (i*31+j*17)%5 < 3,
				sh.partitions > 0 && rng.IntN(2) == 0:
				m.Topics = append(m.Topics, n)
			}
		}
		g.Members = append(g.Members, m)
	}
	return g
}

// churned returns the group after prev, fresh's answer, was carried at
// generation 1 and then, as bench/workload defines them, leave1:
// consumer-00000 is replaced by consumer-new, owning nothing, with its
// subscription; join1: consumer-new joins last with consumer-00000's
// subscription.
func churned(fresh assign.Group, prev assign.Assignment, churn string) assign.Group {
	g := assign.Carry(fresh, prev, 1)
	newcomer := assign.Member{ID: "consumer-new", Topics: slices.Clone(fresh.Members[0].Topics), Generation: -1}
	switch churn {
	case "leave1":
		g.Members[0] = newcomer
	case "join1":
		g.Members = append(g.Members, newcomer)
	}
	return g
}

// benchGroups returns the shape's groups by churn: fresh, leave1, join1.
func benchGroups(sh benchShape, cooperative bool) ([]string, []assign.Group, error) {
	fresh := sh.fresh()
	a, err := Assign(fresh, cooperative, Kafka38)
	if err != nil {
		return nil, nil, err
	}
	return []string{"fresh", "leave1", "join1"}, []assign.Group{fresh, churned(fresh, a, "leave1"), churned(fresh, a, "join1")}, nil
}

// BenchmarkJavaSticky times Assign on the shapes of benchShapes, fresh
// and churned, on the constrained path (homogeneous) and the general one,
// and reports the process's CPU time per call (cpu-ms/op).
// testdata/oracle/Bench.java times Kafka's classes on the same groups;
// bench/RESULTS.md sets the two side by side.
func BenchmarkJavaSticky(b *testing.B) {
	for _, sh := range benchShapes {
		for _, st := range strategies {
			b.Run(fmt.Sprintf("shape=%s/strategy=%s", sh.name, st.name), func(b *testing.B) {
				churns, groups, err := benchGroups(sh, st.cooperative)
				if err != nil {
					b.Fatal(err)
				}
				for k, g := range groups {
					b.Run("churn="+churns[k], func(b *testing.B) {
						b.ReportAllocs()
						bytes := benchmem.Start(b, benchmem.Partitions(g.Topics))
						cpu := benchmem.ProcessCPU()
						for b.Loop() {
							if _, err := Assign(g, st.cooperative, Kafka38); err != nil {
								b.Fatal(err)
							}
						}
						bytes.Report()
						// On a loaded machine wall time mostly measures the
						// wait for a core; CPU time per call, the collector's
						// included, is what testdata/oracle/Bench.java's cpu
						// figure is set beside.
						if cpu >= 0 {
							b.ReportMetric(float64(benchmem.ProcessCPU()-cpu)/1e6/float64(b.N), "cpu-ms/op")
						}
					})
				}
			})
		}
	}
}

// javaUnfinished names the bench groups on which, as issue 26 reports,
// Kafka's assignor gives no answer within 240 s (a member joining the
// hetero(1000, 2000) group): TestBenchShapes does not ask the oracle
// about them, so ours are unchecked there.
var javaUnfinished = map[string]bool{
	"shape=hetero-1000x2000/strategy=sticky/churn=join1":             true,
	"shape=hetero-1000x2000/strategy=cooperative-sticky/churn=join1": true,
}

// TestBenchShapes checks Assign against Kafka's assignors (the oracle in
// JAVASTICKY_ORACLE) on BenchmarkJavaSticky's groups, far larger than
// TestOracle's, where a fast path would first show a wrong turn. With
// JAVASTICKY_BENCH_GROUPS naming a directory it writes the groups there,
// STRATEGY.jsonl, for testdata/oracle/Bench.java, and those Java finishes,
// STRATEGY.checked.jsonl. Kafka takes minutes on some of them: with
// JAVASTICKY_BENCH_ANSWERS naming a directory the oracle's answers are
// read from STRATEGY.answers.jsonl there, the oracle's output for
// STRATEGY.checked.jsonl, instead of running it.
func TestBenchShapes(t *testing.T) {
	dir, out := os.Getenv("JAVASTICKY_ORACLE"), os.Getenv("JAVASTICKY_BENCH_GROUPS")
	saved := os.Getenv("JAVASTICKY_BENCH_ANSWERS")
	if dir == "" && out == "" && saved == "" {
		t.Skip("none of JAVASTICKY_ORACLE, JAVASTICKY_BENCH_GROUPS, JAVASTICKY_BENCH_ANSWERS set (see testdata/README.md)")
	}
	for _, st := range strategies {
		var all, checked bytes.Buffer
		var groups []assign.Group
		var names []string
		for _, sh := range benchShapes {
			churns, gs, err := benchGroups(sh, st.cooperative)
			if err != nil {
				t.Fatal(err)
			}
			for k, g := range gs {
				name := fmt.Sprintf("shape=%s/strategy=%s/churn=%s", sh.name, st.name, churns[k])
				line := groupJSON(name, g) + "\n"
				all.WriteString(line)
				if !javaUnfinished[name] {
					checked.WriteString(line)
					groups = append(groups, g)
					names = append(names, name)
				}
			}
		}
		if out != "" {
			if err := os.WriteFile(filepath.Join(out, st.name+".jsonl"), all.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(out, st.name+".checked.jsonl"), checked.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		var answers []answer
		switch {
		case saved != "":
			answers = oracle.Read[answer](t, filepath.Join(saved, st.name+".answers.jsonl"))
			if len(answers) != len(groups) {
				t.Fatalf("%d saved answers for %d groups", len(answers), len(groups))
			}
		case dir != "":
			answers = runOracle(t, dir, st.name, checked.Bytes())
		default:
			continue
		}
		for i, g := range groups {
			if check(t, st.name, g, st.cooperative, answers[i]) {
				t.Logf("%s agrees with Kafka", names[i])
			}
		}
	}
}
