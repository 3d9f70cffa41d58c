package assign

import (
	"fmt"
	"testing"
)

// UniformGroup, a hook for the external tests too, has members
// consumer-00000, ... all subscribed to topics topic-00000, ... of parts
// partitions each.
func UniformGroup(members, topics, parts int) Group {
	g := Group{Topics: make(map[string]int32)}
	var names []string
	for i := range topics {
		name := fmt.Sprintf("topic-%05d", i)
		names = append(names, name)
		g.Topics[name] = int32(parts)
	}
	for i := range members {
		g.Members = append(g.Members, Member{ID: fmt.Sprintf("consumer-%05d", i), Topics: names, Generation: -1})
	}
	return g
}

// MixSubscriptions subscribes each member of a [UniformGroup] to about 3
// of its topics in 5, overlapping differently member by member.
func MixSubscriptions(g Group) Group {
	for j := range g.Members {
		var sub []string
		for i := range len(g.Topics) {
			if (i*31+j*17)%5 < 3 {
				sub = append(sub, fmt.Sprintf("topic-%05d", i))
			}
		}
		g.Members[j].Topics = sub
	}
	return g
}

// UnevenPartitions gives the topics of a [UniformGroup] 1 to 64 partitions.
func UnevenPartitions(g Group) Group {
	for i := range len(g.Topics) {
		g.Topics[fmt.Sprintf("topic-%05d", i)] = int32(1 + i*7919%64)
	}
	return g
}

// pathGroups are the groups the path benchmarks run on: common
// subscriptions (everybody on everything) at the sizes of BenchmarkRange
// and others, uneven partition counts, mixed subscriptions, and sparse ones
// (each member on two neighbouring topics of many).
func pathGroups() []struct {
	name string
	g    Group
} {
	uniform, mixed := UniformGroup, func(members, topics, parts int) Group {
		return MixSubscriptions(UniformGroup(members, topics, parts))
	}
	sparse := func(members, topics, parts int) Group {
		g := uniform(members, topics, parts)
		for j := range g.Members {
			g.Members[j].Topics = []string{fmt.Sprintf("topic-%05d", j%topics), fmt.Sprintf("topic-%05d", (j+1)%topics)}
		}
		return g
	}
	return []struct {
		name string
		g    Group
	}{
		{"common/members=10/topics=10/partitions=1000", uniform(10, 10, 100)},
		{"common/members=100/topics=100/partitions=10000", uniform(100, 100, 100)},
		{"common/members=1000/topics=1000/partitions=100000", uniform(1000, 1000, 100)},
		{"common/members=1000/topics=10/partitions=1000", uniform(1000, 10, 100)},
		{"common/members=100/topics=2/partitions=100000", uniform(100, 2, 50000)},
		{"uneven/members=1000/topics=1000", UnevenPartitions(uniform(1000, 1000, 1))},
		{"mixed/members=100/topics=100/partitions=10000", mixed(100, 100, 100)},
		{"mixed/members=1000/topics=1000/partitions=100000", mixed(1000, 1000, 100)},
		{"mixed-uneven/members=1000/topics=1000", UnevenPartitions(mixed(1000, 1000, 1))},
		{"sparse/members=1000/topics=1000/partitions=100000", sparse(1000, 1000, 100)},
	}
}

// rangeByRanger is Range without rack matching, by the general ranger
// (the rack-aware path less the matching):
// every topic gives each subscriber in member order the lowest partitions
// up to its quota.
func rangeByRanger(cg *compiledGroup) Assignment {
	r := newRanger(cg)
	r.b = newBuilder(cg)
	r.count = make([]int32, len(r.subs))
	for t := range cg.topics {
		r.fillRanges(int32(t))
	}
	return r.b.assignment()
}

// path is one way a strategy computes its assignment of a compiled
// group; ok is false when the path does not take the group.
type path struct {
	name string
	run  func(*compiledGroup) (a Assignment, ok bool)
}

// commonOnly wraps a path for groups whose members share one subscription.
func commonOnly(name string, run func(*compiledGroup, []int32) Assignment) path {
	return path{name, func(cg *compiledGroup) (Assignment, bool) {
		subscribers, ok := commonSubscribers(cg)
		if !ok {
			return nil, false
		}
		return run(cg, subscribers), true
	}}
}

// rangePaths are Range's paths without rack matching, the general one
// first.
var rangePaths = []path{
	{"ranger", func(cg *compiledGroup) (Assignment, bool) { return rangeByRanger(cg), true }},
	{"without-racks", func(cg *compiledGroup) (Assignment, bool) { return rangeWithoutRacks(cg), true }},
}

// roundRobinPaths are RoundRobin's paths, the general one first.
var roundRobinPaths = []path{
	{"rows", func(cg *compiledGroup) (Assignment, bool) { return cg.assignmentOf(dealByRows(cg), nil, nil), true }},
	{"sets", func(cg *compiledGroup) (Assignment, bool) { return cg.assignmentOf(dealBySets(cg), nil, nil), true }},
	commonOnly("common", roundRobinCommon),
}

// AssignByPaths is a hook for the differential tests: it returns each
// path's assignment of g for "range" (rack matching aside) or
// "roundrobin", the general path's first, leaving out the paths that do
// not take g.
func AssignByPaths(strategy string, g Group) (names []string, as []Assignment, err error) {
	paths := rangePaths
	if strategy == "roundrobin" {
		paths = roundRobinPaths
	}
	for _, p := range paths {
		cg, err := compile(g, ownedIgnored)
		if err != nil {
			return nil, nil, err
		}
		if a, ok := p.run(cg); ok {
			names = append(names, p.name)
			as = append(as, a)
		}
	}
	return names, as, nil
}

// benchmarkPaths runs each path, compile included, on every group of
// pathGroups that it takes, so that the paths are compared in one run.
func benchmarkPaths(b *testing.B, paths []path) {
	for _, pg := range pathGroups() {
		for _, path := range paths {
			cg, err := compile(pg.g, ownedIgnored)
			if err != nil {
				b.Fatal(err)
			}
			if _, ok := path.run(cg); !ok {
				continue
			}
			b.Run(pg.name+"/path="+path.name, func(b *testing.B) {
				b.ReportAllocs()
				bytes := CountPartitionBytes(b, pg.g)
				for b.Loop() {
					cg, err := compile(pg.g, ownedIgnored)
					if err != nil {
						b.Fatal(err)
					}
					path.run(cg)
				}
				bytes.Report()
			})
		}
	}
}

// BenchmarkRangePaths compares Range's paths without racks.
func BenchmarkRangePaths(b *testing.B) { benchmarkPaths(b, rangePaths) }

// BenchmarkRoundRobinPaths compares RoundRobin's paths.
func BenchmarkRoundRobinPaths(b *testing.B) { benchmarkPaths(b, roundRobinPaths) }
