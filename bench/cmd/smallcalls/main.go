// Command smallcalls calls one strategy's Assign on one of BenchmarkAssign's
// uniform-10x100 groups (package workload: fresh, leave1, replace10,
// join1) a given number of times, or writes an answer of as many lists
// and partitions (the floor), and nothing else: its process's CPU time
// over the calls, in this small heap where the collector costs little, is
// the call's own compute plus allocating the answer, with less of the
// noise the benchmark's large live heap adds. Under callgrind its
// instructions, counted in run alone (--toggle-collect=main.run), with the
// collector off, explain where that compute goes.
//
//	go build -o smallcalls ./cmd/smallcalls
//	GOMAXPROCS=1 /usr/bin/time -f '%U %S' ./smallcalls leave1 sticky 300000
//	GODEBUG=asyncpreemptoff=1 GOGC=off GOMAXPROCS=1 valgrind --tool=callgrind \
//	    --toggle-collect=main.run ./smallcalls leave1 sticky 3000
package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/bench/workload"
)

var sink assign.Assignment // the last answer, kept as a caller keeps it

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: smallcalls fresh|leave1|replace10|join1 sticky|cooperative-sticky|range|floor CALLS")
		os.Exit(2)
	}
	churns := map[string]workload.Churn{"fresh": workload.Fresh, "leave1": workload.Leave1, "replace10": workload.Replace10, "join1": workload.Join1}
	churn, ok := churns[os.Args[1]]
	calls, err := strconv.Atoi(os.Args[3])
	if !ok || err != nil || calls < 0 {
		fmt.Fprintf(os.Stderr, "smallcalls: bad shape %q or number of calls %q\n", os.Args[1], os.Args[3])
		os.Exit(2)
	}
	shapes, err := workload.Shapes(workload.Spec{Kind: workload.Uniform, C: 10, T: 10, P: 10})
	if err != nil {
		fmt.Fprintln(os.Stderr, "smallcalls:", err)
		os.Exit(1)
	}
	g := shapes[churn].Group
	if os.Args[2] == "floor" {
		ids := make([]string, len(g.Members))
		for i := range ids {
			ids[i] = g.Members[i].ID
		}
		names := g.Members[0].Topics
		for range calls {
			floor(ids, names)
		}
		return
	}
	strategies := map[string]assign.Strategy{"sticky": assign.Sticky{}, "cooperative-sticky": assign.CooperativeSticky{}, "range": assign.Range{}}
	s, ok := strategies[os.Args[2]]
	if !ok {
		fmt.Fprintf(os.Stderr, "smallcalls: bad strategy %q\n", os.Args[2])
		os.Exit(2)
	}
	for range calls {
		if err := run(s, g); err != nil {
			fmt.Fprintln(os.Stderr, "smallcalls:", err)
			os.Exit(1)
		}
	}
}

// run is one call, on its own for callgrind's --toggle-collect.
//
//go:noinline
func run(s assign.Strategy, g assign.Group) error {
	a, err := s.Assign(g)
	sink = a
	return err
}

// floor writes an answer of ids' lists of ten partitions each, as
// bench's write-output floor does.
//
//go:noinline
func floor(ids, names []string) {
	out := make(assign.Assignment, len(ids))
	backing := make([]assign.TopicPartition, 10*len(ids))
	for i := range backing {
		backing[i] = assign.TopicPartition{Topic: names[i%len(names)], Partition: int32(i)}
	}
	for i, id := range ids {
		out[id] = backing[i*10 : i*10+10 : i*10+10]
	}
	sink = out
}
