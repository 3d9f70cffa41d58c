package balance

import (
	"fmt"
	"testing"

	"github.com/assigncalc/assigncalc/internal/benchmem"
)

// heteroProblem builds the benchmark module's hetero(C, T) group as the
// sticky adapter hands it to Solve: topic i has 1 + (i*7919 % 64)
// partitions, member j subscribes to topic i iff (i*31 + j*17) % 5 < 3.
// Members with equal subscriptions share one slice.
func heteroProblem(c, topics int) *Problem {
	p := &Problem{Parts: make([]int32, topics), Subs: make([][]int32, c)}
	for i := range topics {
		p.Parts[i] = int32(1 + (i*7919)%64)
	}
	for j := range c {
		for i := range topics {
			if (i*31+j*17)%5 < 3 {
				p.Subs[j] = append(p.Subs[j], int32(i))
			}
		}
	}
	return p
}

// churned returns the problems of the benchmark module's churns of p
// after its members were given owner: "leave1" (member 0 leaves, a new
// member with its subscription joins last), "replace10" (every member j
// with j%10 == 0 is replaced by a new one, sorted after the others) and
// "join1" (a new member with member 0's subscription joins last).
func churned(p *Problem, owner []int32, churn string) *Problem {
	n := int32(len(p.Subs))
	q := &Problem{Parts: p.Parts}
	rank := make([]int32, n) // old member => new rank, or -1
	switch churn {
	case "leave1":
		for m := range n {
			rank[m] = m - 1
			if m > 0 {
				q.Subs = append(q.Subs, p.Subs[m])
			}
		}
		q.Subs = append(q.Subs, p.Subs[0])
	case "replace10":
		var gone [][]int32
		for m := range n {
			if m%10 == 0 {
				rank[m] = -1
				gone = append(gone, p.Subs[m])
				continue
			}
			rank[m] = int32(len(q.Subs))
			q.Subs = append(q.Subs, p.Subs[m])
		}
		q.Subs = append(q.Subs, gone...)
	case "join1":
		for m := range n {
			rank[m] = m
		}
		q.Subs = append(append(q.Subs, p.Subs...), p.Subs[0])
	default:
		panic(churn)
	}
	q.Claim = make([]int32, len(owner))
	for pid, m := range owner {
		q.Claim[pid] = rank[m]
	}
	return q
}

type benchShape struct {
	name string
	p    *Problem
}

func heteroShapes(tb testing.TB) []benchShape {
	var out []benchShape
	for _, size := range [][2]int{{100, 200}, {1000, 2000}} {
		p := heteroProblem(size[0], size[1])
		name := fmt.Sprintf("hetero-%dx%dt", size[0], size[1])
		out = append(out, benchShape{name, p})
		owner, err := Solve(p)
		if err != nil {
			tb.Fatal(err)
		}
		for _, churn := range []string{"leave1", "replace10", "join1"} {
			out = append(out, benchShape{name + "-" + churn, churned(p, owner, churn)})
		}
	}
	return out
}

func BenchmarkGeneral(b *testing.B) {
	for _, sh := range heteroShapes(b) {
		b.Run("shape="+sh.name, func(b *testing.B) {
			start := Start(sh.p.Parts)
			total := int(start[len(sh.p.Parts)])
			b.ReportAllocs()
			bytes := benchmem.Start(b, total)
			for b.Loop() {
				if _, err := general(sh.p, start, total); err != nil {
					b.Fatal(err)
				}
			}
			bytes.Report()
		})
	}
}

// BenchmarkPlace: the general path's start, place and then refill, with
// the plain topics' picks made by levelled (levels=on) or by the heaps
// (levels=off), on BenchmarkGeneral's shapes and the adversary's random
// windows.
func BenchmarkPlace(b *testing.B) {
	shapes := append(heteroShapes(b), benchShape{"windows-125x6250", windowsProblem(125, 6250, 12)})
	for _, sh := range shapes {
		start, total := pids(sh.p)
		for _, levels := range []string{"on", "off"} {
			b.Run(fmt.Sprintf("shape=%s/levels=%s", sh.name, levels), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					s := newSolver(sh.p, start, total, options{heapAbove: heapAbove, noLevels: levels == "off"})
					s.place()
					s.refillStart()
				}
			})
		}
	}
}
