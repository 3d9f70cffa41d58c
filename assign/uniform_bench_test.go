package assign

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/assigncalc/assigncalc/internal/benchmem"
)

// kip848Shape is one of bench/README's shapes, built here by the same
// formulas (bench/ is a module of its own), with topic ids derived from
// the names.
type kip848Shape struct {
	name    string
	hetero  bool
	c, t, p int
	own     bool // each member lists its own copy of the names, as a decoder gives them
}

var kip848Shapes = []kip848Shape{
	{name: "uniform-1000x100000", c: 1000, t: 1000, p: 100},
	{name: "uniform-2000x1000000", c: 2000, t: 100, p: 10000},
	{name: "hetero-1000x2000t", hetero: true, c: 1000, t: 2000},
	{name: "uniform-1000x100000-own", c: 1000, t: 1000, p: 100, own: true},
}

func (s kip848Shape) group() Group {
	g := Group{Topics: map[string]int32{}, TopicIDs: map[string]TopicID{}}
	names := make([]string, s.t)
	for i := range names {
		names[i] = fmt.Sprintf("topic-%05d", i)
		n := int32(s.p)
		if s.hetero {
			n = int32(1 + (i*7919)%64)
		}
		g.Topics[names[i]] = n
		g.TopicIDs[names[i]] = nameTopicID(names[i])
	}
	for j := range s.c {
		m := Member{ID: fmt.Sprintf("consumer-%05d", j), Topics: names}
		if s.own {
			m.Topics = make([]string, len(names))
			for i, n := range names {
				m.Topics[i] = strings.Clone(n)
			}
		}
		if s.hetero {
			m.Topics = nil
			for i, n := range names {
				if (i*31+j*17)%5 < 3 {
					m.Topics = append(m.Topics, n)
				}
			}
		}
		g.Members = append(g.Members, m)
	}
	return g
}

// nameTopicID derives a fixed id from a topic name.
func nameTopicID(name string) TopicID {
	var id TopicID
	h := fnv.New128a()
	h.Write([]byte(name))
	copy(id[:], h.Sum(nil))
	binary.BigEndian.PutUint16(id[:], binary.BigEndian.Uint16(id[:])|1)
	return id
}

// churned returns g after fresh (its assignment by s): everyone holds its
// target, then consumer-00000 leaves (leave1: consumer-new takes its
// place) or consumer-new joins (join1).
func churned(g Group, fresh Assignment, leave bool) Group {
	out := g
	out.Members = make([]Member, 0, len(g.Members)+1)
	for _, m := range g.Members {
		m.Owned = fresh[m.ID]
		if leave && m.ID == "consumer-00000" {
			m = Member{ID: "consumer-new", Topics: m.Topics}
		}
		out.Members = append(out.Members, m)
	}
	if !leave {
		out.Members = append(out.Members, Member{ID: "consumer-new", Topics: g.Members[0].Topics})
	}
	return out
}

// timeCalls runs call in b's loop, timing each call, and reports beside
// ns/op, the mean, the median call as median-ns/op: what Bench.java
// reports of Kafka's assignors (assign/testdata/kip848/oracle), so that
// the two compare alike. A call the garbage collector slows counts in
// the mean, and in the median only when most calls are slowed.
//
// Where the process's CPU time is known it also reports the median
// call's (median-cpu-ns/op) and the mean over the loop (cpu-ns/op): the
// collector's work is counted in both, and the time other processes
// hold the cores in neither, so they hold still on a loaded machine
// where wall time does not.
//
// Where the thread's CPU time is known it reports the median call's on
// the calling thread too (median-thread-cpu-ns/op): the loop runs locked
// to its OS thread, so this counts the call with the collector's assists
// it paid and leaves out the collector's background workers, as
// Bench.java's figure for Kafka leaves out the JVM's collector threads.
func timeCalls(b *testing.B, call func() error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var took, cpu, thread []time.Duration
	loopCPU := benchmem.ProcessCPU()
	for b.Loop() {
		before, threadBefore := benchmem.ProcessCPU(), benchmem.ThreadCPU()
		start := time.Now()
		err := call()
		took = append(took, time.Since(start))
		thread = append(thread, benchmem.ThreadCPU()-threadBefore)
		cpu = append(cpu, benchmem.ProcessCPU()-before)
		if err != nil {
			b.Fatal(err)
		}
	}
	loopCPU = benchmem.ProcessCPU() - loopCPU
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Nanoseconds()), "median-ns/op")
	if loopCPU >= 0 {
		slices.Sort(cpu)
		b.ReportMetric(float64(cpu[len(cpu)/2].Nanoseconds()), "median-cpu-ns/op")
		b.ReportMetric(float64(loopCPU.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
	if benchmem.ThreadCPU() >= 0 {
		slices.Sort(thread)
		b.ReportMetric(float64(thread[len(thread)/2].Nanoseconds()), "median-thread-cpu-ns/op")
	}
}

// BenchmarkKIP848 times Assign (and AssignRanges, the compact path) on the
// bench/README shapes. Each shape's groups are built in its own
// sub-benchmark, so that the heap holds one shape at a time.
func BenchmarkKIP848(b *testing.B) {
	for _, sh := range kip848Shapes {
		b.Run("shape="+sh.name, func(b *testing.B) {
			g := sh.group()
			for _, s := range []Strategy{Uniform{}, ServerRange{}} {
				fresh, err := s.Assign(g)
				if err != nil {
					b.Fatal(err)
				}
				for _, churn := range []string{"fresh", "leave1", "join1"} {
					in := g
					switch churn {
					case "leave1":
						in = churned(g, fresh, true)
					case "join1":
						in = churned(g, fresh, false)
					}
					b.Run(fmt.Sprintf("strategy=%s/churn=%s", s.Name(), churn), func(b *testing.B) {
						bytes := CountPartitionBytes(b, in)
						timeCalls(b, func() error { _, err := s.Assign(in); return err })
						bytes.Report()
					})
					ranges, ok := s.(interface {
						AssignRanges(Group) (RangeAssignment, error)
					})
					if ok {
						b.Run(fmt.Sprintf("strategy=%s-ranges/churn=%s", s.Name(), churn), func(b *testing.B) {
							bytes := CountPartitionBytes(b, in)
							timeCalls(b, func() error { _, err := ranges.AssignRanges(in); return err })
							bytes.Report()
						})
					}
				}
			}
		})
	}
}
