package kafkago

import (
	"fmt"
	"runtime"
	"slices"
	"testing"

	"github.com/segmentio/kafka-go"

	"github.com/assigncalc/assigncalc/assign"
)

// BenchmarkAssignGroups times a leader's AssignGroups for a fresh group of
// 100 members subscribed to 10 topics of 1,000 partitions each, beside
// assign.Sticky on the same group: the difference is the adapter's cost.
func BenchmarkAssignGroups(b *testing.B) {
	const members, topics, perTopic = 100, 10, 1000
	var g assign.Group
	g.Topics = make(map[string]int32)
	var names []string
	var parts []kafka.Partition
	for t := range topics {
		name := fmt.Sprintf("topic-%02d", t)
		names = append(names, name)
		g.Topics[name] = perTopic
		for p := range perTopic {
			parts = append(parts, kafka.Partition{Topic: name, ID: p, Replicas: []kafka.Broker{{ID: p % 3}}})
		}
	}
	var kms []kafka.GroupMember
	for m := range members {
		id := fmt.Sprintf("member-%03d", m)
		g.Members = append(g.Members, assign.Member{ID: id, Topics: names, Generation: -1})
		kms = append(kms, kafka.GroupMember{ID: id, Topics: names})
	}
	// The same group a generation later: every member sends what sticky
	// gave it, as its balancer writes it.
	prev, err := assign.Sticky{}.Assign(g)
	if err != nil {
		b.Fatal(err)
	}
	again := slices.Clone(kms)
	for i := range again {
		mb, _ := Balancer(assign.Sticky{})
		gen := &kafka.Generation{ID: 1, Assignments: map[string][]kafka.PartitionAssignment{}}
		for _, tp := range prev[again[i].ID] {
			gen.Assignments[tp.Topic] = append(gen.Assignments[tp.Topic], kafka.PartitionAssignment{ID: int(tp.Partition)})
		}
		mb.Assigned(gen)
		again[i].UserData, _ = mb.UserData()
	}
	b.Run("strategy=sticky/impl=adapter/owned", func(b *testing.B) {
		bal, _ := Balancer(assign.Sticky{}, OnError(func(err error) { b.Fatal(err) }))
		loop(b, len(parts), func() { bal.AssignGroups(again, parts) })
	})
	for _, s := range []assign.Strategy{assign.Range{}, assign.Sticky{}} {
		b.Run(fmt.Sprintf("strategy=%s/impl=assign", s.Name()), func(b *testing.B) {
			loop(b, len(parts), func() {
				if _, err := s.Assign(g); err != nil {
					b.Fatal(err)
				}
			})
		})
		b.Run(fmt.Sprintf("strategy=%s/impl=adapter", s.Name()), func(b *testing.B) {
			bal, err := Balancer(s, OnError(func(err error) { b.Fatal(err) }))
			if err != nil {
				b.Fatal(err)
			}
			loop(b, len(parts), func() { bal.AssignGroups(kms, parts) })
		})
	}
}

// loop runs op in b's timed loop and reports, beside B/op, the bytes per
// partition of the group (B/partition), as every benchmark of the
// repository does (the root module's internal/benchmem, which a released
// adapter does not import).
func loop(b *testing.B, partitions int, op func()) {
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		op()
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(partitions), "B/partition")
}
