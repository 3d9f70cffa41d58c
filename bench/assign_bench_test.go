package bench

import (
	"flag"
	"runtime"
	"sync"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/bench/workload"
	"github.com/assigncalc/assigncalc/internal/benchmem"
)

var (
	big = flag.Bool("big", false,
		"benchmark also the two biggest shapes, uniform-1000x100000 and uniform-2000x1000000 (minutes on 2 cores); "+
			"TestQualityAgainstPeers also runs uniform-100x10000")
	skip = flag.String("skip", workload.SlowPeers,
		"skip `IMPL/STRATEGY@SPEC,...`: peers too slow to wait for; empty runs all")
)

// shapes caches the groups of each spec: building the biggest ones and
// their previous sticky assignment takes seconds.
var shapes sync.Map // spec name => []workload.Shape

func shapesOf(b *testing.B, spec workload.Spec) []workload.Shape {
	if s, ok := shapes.Load(spec.Name()); ok {
		return s.([]workload.Shape)
	}
	s, err := workload.Shapes(spec)
	if err != nil {
		b.Fatal(err)
	}
	shapes.Store(spec.Name(), s)
	return s
}

// BenchmarkAssign runs every implementation of every strategy on the same
// groups (see package bench/workload for the formulas), named so that
// benchstat can pivot on the implementation:
//
//	go test -run '^$' -bench Assign -count 3 | tee new.txt
//	benchstat -col /impl new.txt
//
// Range and roundrobin ignore previous ownership, so they run on the
// fresh groups only, beside the write-output floor: the time to write
// ours' result into a fresh map and backing array. The sticky strategies
// also run on the churned groups, join1 included: after leave1 and
// replace10 every claim can be kept, join1 makes them move partitions. Peers' inputs (encoded member metadata
// for franz-go, metadata structs for sarama and kafka-go) are built
// before the timer starts, and franz-go's MemberBalancer decodes that
// metadata before it too: our strategies get the group decoded. What is
// timed is the balancing call (Assign, Balance, Plan, AssignGroups).
//
// Metrics beside time: cpu-ns/op, the process's CPU time per call (see
// cpuTime), for machines shared with other work; spread (most minus fewest partitions of a member;
// not for cooperative-sticky, whose first round withholds partitions),
// moves/op (partitions taken from a member that claimed them and is
// still in the group; not for cooperative-sticky) and, for
// cooperative-sticky, withheld/op: the partitions its first round
// withholds because they move.
func BenchmarkAssign(b *testing.B) {
	skips := workload.ParseSkips(*skip)
	// Build every group first, so that every benchmark runs with the same
	// live heap. Otherwise the first ones run while the heap is small,
	// collect garbage several times as often as the later ones, and look
	// up to twice as slow beside the write-output floor measured later.
	for _, spec := range workload.Specs() {
		if !spec.Big() || *big {
			shapesOf(b, spec)
		}
	}
	for _, strategy := range workload.StrategyNames {
		b.Run("strategy="+strategy, func(b *testing.B) {
			for _, im := range workload.Impls(strategy, true) {
				b.Run("impl="+im.Name, func(b *testing.B) {
					for _, spec := range workload.Specs() {
						if spec.Big() && !*big {
							continue
						}
						churns := []workload.Churn{workload.Fresh, workload.Leave1, workload.Replace10, workload.Join1}
						if strategy == workload.Range || strategy == workload.RoundRobin {
							churns = churns[:1]
						}
						for _, churn := range churns {
							name := workload.Shape{Spec: spec, Churn: churn}.Name()
							b.Run("shape="+name, func(b *testing.B) {
								if skips.Skip(im.Name, strategy, spec) {
									b.Skipf("%s %s is too slow at this size; run with -skip= to wait for it", im.Name, strategy)
								}
								benchmarkOne(b, im, shapesOf(b, spec)[churn])
							})
						}
					}
				})
			}
		})
	}
}

func benchmarkOne(b *testing.B, im workload.Impl, sh workload.Shape) {
	p, err := im.Prepare(sh.Group)
	if err != nil {
		b.Fatal(err)
	}
	if sh.Spec.Big() {
		// One untimed run first: a slow implementation gets only one or
		// two timed runs, which would otherwise pay for growing the heap.
		if err := p.Run(); err != nil {
			b.Fatal(err)
		}
	}
	// Collect the garbage of building the groups and preparing the
	// inputs now, so that it is not charged to whichever implementation
	// happens to run first after it.
	runtime.GC()
	b.ReportAllocs()
	bytes := benchmem.Start(b, sh.Spec.Partitions())
	cpu := cpuTime()
	for b.Loop() {
		if err := p.Run(); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
	bytes.Report()
	a, err := p.Result()
	if err != nil {
		b.Fatal(err)
	}
	if im.Cooperative {
		if err := assign.VerifyCooperative(sh.Group, a); err != nil {
			report(b, im, err)
		}
		n := 0
		for _, ps := range a {
			n += len(ps)
		}
		b.ReportMetric(float64(sh.Spec.Partitions()-n), "withheld/op")
	} else {
		if err := assign.Verify(sh.Group, a); err != nil {
			report(b, im, err)
		}
		lo, hi := workload.Loads(sh.Group, a)
		b.ReportMetric(float64(hi-lo), "spread")
	}
	if sh.Churn != workload.Fresh && !im.Cooperative {
		// A cooperative first round moves nothing by design: it withholds
		// what would move, which withheld/op counts.
		owned, err := assign.Owned(sh.Group)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(assign.Moved(owned, a)), "moves/op")
	}
}

// report fails the benchmark when our result is wrong and logs a peer's.
func report(b *testing.B, im workload.Impl, err error) {
	if im.Name == workload.Ours {
		b.Error(err)
		return
	}
	b.Logf("%s's result: %v", im.Name, err)
}
