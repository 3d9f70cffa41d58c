package bench

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/bench/workload"
	"github.com/assigncalc/assigncalc/internal/benchmem"
)

// scaleSpec is the memory benchmark's group: 10,000 members, everyone
// subscribed to 1,000 topics of 10,000 partitions (10,000,000 in all).
var scaleSpec = workload.Spec{Kind: workload.Uniform, C: 10000, T: 1000, P: 10000}

// scaleBytesLimit is what one assignment of scaleSpec may allocate.
const scaleBytesLimit = 1 << 30

// BenchmarkScale assigns 10,000,000 partitions over 10,000 members with
// Sticky and CooperativeSticky, fresh and after one member leaves and
// another joins (workload.Leave1: every other member owns what Sticky
// gave it on the fresh group). Beside time it reports the bytes one
// assignment allocates (B/op, which bounds how far the heap can grow
// during it) and peak-heap-B/op, the most the live heap grew above its
// level before the call, sampled every millisecond; it fails when B/op
// passes 1 GiB. The groups take about 1.5 GB to build, so the benchmark
// runs only when asked for:
//
//	go test -run '^$' -bench Scale -benchtime 3x
//	go test -run '^$' -bench 'Scale/strategy=sticky/churn=fresh' -benchtime 1x -memprofile mem.out
//	go tool pprof -sample_index=alloc_space -top mem.out
func BenchmarkScale(b *testing.B) {
	fresh, leave1 := scaleGroups(b)
	for _, s := range []assign.Strategy{assign.Sticky{}, assign.CooperativeSticky{}} {
		for _, c := range []struct {
			name string
			g    assign.Group
		}{{"fresh", fresh}, {"leave1", leave1}} {
			b.Run("strategy="+s.Name()+"/churn="+c.name, func(b *testing.B) {
				benchmarkScale(b, s, c.g)
			})
		}
	}
}

var scaleOnce struct {
	sync.Once
	fresh, leave1 assign.Group
	err           error
}

func scaleGroups(b *testing.B) (fresh, leave1 assign.Group) {
	scaleOnce.Do(func() {
		scaleOnce.fresh = scaleSpec.Group()
		prev, err := assign.Sticky{}.Assign(scaleOnce.fresh)
		if err != nil {
			scaleOnce.err = err
			return
		}
		scaleOnce.leave1 = workload.Churned(scaleOnce.fresh, prev, workload.Leave1)
	})
	if scaleOnce.err != nil {
		b.Fatal(scaleOnce.err)
	}
	return scaleOnce.fresh, scaleOnce.leave1
}

func benchmarkScale(b *testing.B, s assign.Strategy, g assign.Group) {
	runtime.GC()
	b.ReportAllocs()
	var peak, most int64
	var cpu int64 // nanoseconds, from round_test.go's cpuTime
	var before, after runtime.MemStats
	bytes := benchmem.Start(b, benchmem.Partitions(g.Topics))
	for b.Loop() {
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&before)
		stop := sampleHeap()
		c0 := cpuTime()
		b.StartTimer()
		a, err := s.Assign(g)
		b.StopTimer()
		cpu += cpuTime() - c0
		peak = max(peak, stop())
		runtime.ReadMemStats(&after)
		most = max(most, int64(after.TotalAlloc-before.TotalAlloc))
		if err != nil {
			b.Fatal(err)
		}
		if len(a) != len(g.Members) {
			b.Fatalf("%d members in the assignment, want %d", len(a), len(g.Members))
		}
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(float64(peak), "peak-heap-B/op")
	b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
	bytes.Report()
	if most > scaleBytesLimit {
		b.Errorf("one assignment allocated %d bytes, over the limit of %d", most, scaleBytesLimit)
	}
}

// sampleHeap starts sampling the live heap every millisecond and returns
// a function that stops and returns the largest growth seen over the
// level at the start.
func sampleHeap() func() int64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() int64 {
		metrics.Read(sample)
		return int64(sample[0].Value.Uint64())
	}
	base := read()
	done := make(chan struct{})
	peak := make(chan int64)
	go func() {
		top := base
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				peak <- max(top, read()) - base
				return
			case <-t.C:
				top = max(top, read())
			}
		}
	}()
	return func() int64 {
		close(done)
		return <-peak
	}
}
