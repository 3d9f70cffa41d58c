package wire

import (
	"fmt"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/internal/benchmem"
)

// BenchmarkDecode decodes messages of a member owning many partitions of a
// few topics, as a leader of a large group decodes them.
func BenchmarkDecode(b *testing.B) {
	for _, parts := range []int{100, 10000} {
		var owned []assign.TopicPartition
		for p := range parts {
			owned = append(owned, assign.TopicPartition{Topic: fmt.Sprintf("topic-%d", p*10/parts), Partition: int32(p)})
		}
		sub, err := Subscription{Version: 3, Topics: []string{"topic-0", "topic-1"}, OwnedPartitions: owned, GenerationID: 4}.MarshalBinary()
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("message=subscription/partitions=%d", parts), func(b *testing.B) {
			b.SetBytes(int64(len(sub)))
			b.ReportAllocs()
			bytes := benchmem.Start(b, parts)
			for b.Loop() {
				if _, err := DecodeSubscription(sub); err != nil {
					b.Fatal(err)
				}
			}
			bytes.Report()
		})
	}
}

// BenchmarkLead times the phases of the leader's round on uniform groups,
// fresh and after one member of a balanced group is replaced (leave1):
// GroupFromJoin, AssignPacked, SyncGroupPacked, and Lead, all three;
// and Assign (the Assignment map) beside AssignPacked.
// Callgrind instruction counts of one phase against another tell where
// the round goes (bench/ times the round beside the peers).
func BenchmarkLead(b *testing.B) {
	shapes := []struct{ members, topics, parts int }{{1000, 1000, 100}, {2000, 100, 10000}}
	for _, sh := range shapes {
		for _, s := range []assign.Strategy{assign.Sticky{}, assign.CooperativeSticky{}} {
			for _, churn := range []string{"fresh", "leave1"} {
				name := fmt.Sprintf("strategy=%s/shape=uniform-%dx%d/churn=%s", s.Name(), sh.members, sh.topics*sh.parts, churn)
				var join []JoinMember
				var topics map[string]int32
				setup := func(b *testing.B) {
					if join != nil {
						return
					}
					g := uniformGroup(sh.members, sh.topics, sh.parts)
					if churn == "leave1" {
						a, err := s.Assign(g)
						if err != nil {
							b.Fatal(err)
						}
						g = assign.Carry(g, a, 1)
						g.Members[0] = assign.Member{ID: "consumer-new", Topics: g.Members[0].Topics, Generation: -1}
					}
					topics = g.Topics
					for _, m := range g.Members {
						sub, err := NextSubscription(s.Name(), m.Topics, m.Owned, m.Generation, m.Rack)
						if err != nil {
							b.Fatal(err)
						}
						bs, err := sub.MarshalBinary()
						if err != nil {
							b.Fatal(err)
						}
						join = append(join, JoinMember{MemberID: m.ID, Metadata: bs})
					}
				}
				b.Run(name+"/phase=decode", func(b *testing.B) {
					setup(b)
					b.ReportAllocs()
					bytes := benchmem.Start(b, benchmem.Partitions(topics))
					for b.Loop() {
						if _, err := GroupFromJoin(s.Name(), join, topics, nil); err != nil {
							b.Fatal(err)
						}
					}
					bytes.Report()
				})
				b.Run(name+"/phase=assign", func(b *testing.B) {
					setup(b)
					g, err := GroupFromJoin(s.Name(), join, topics, nil)
					if err != nil {
						b.Fatal(err)
					}
					b.ReportAllocs()
					bytes := benchmem.Start(b, benchmem.Partitions(topics))
					for b.Loop() {
						if _, err := assign.AssignPacked(s, g); err != nil {
							b.Fatal(err)
						}
					}
					bytes.Report()
				})
				b.Run(name+"/phase=assign-map", func(b *testing.B) {
					setup(b)
					g, err := GroupFromJoin(s.Name(), join, topics, nil)
					if err != nil {
						b.Fatal(err)
					}
					b.ReportAllocs()
					bytes := benchmem.Start(b, benchmem.Partitions(topics))
					for b.Loop() {
						if _, err := s.Assign(g); err != nil {
							b.Fatal(err)
						}
					}
					bytes.Report()
				})
				b.Run(name+"/phase=encode", func(b *testing.B) {
					setup(b)
					g, err := GroupFromJoin(s.Name(), join, topics, nil)
					if err != nil {
						b.Fatal(err)
					}
					p, err := assign.AssignPacked(s, g)
					if err != nil {
						b.Fatal(err)
					}
					b.ReportAllocs()
					bytes := benchmem.Start(b, benchmem.Partitions(topics))
					for b.Loop() {
						if _, err := SyncGroupPacked(p, MaxAssignmentVersion); err != nil {
							b.Fatal(err)
						}
					}
					bytes.Report()
				})
				b.Run(name+"/phase=round", func(b *testing.B) {
					setup(b)
					b.ReportAllocs()
					bytes := benchmem.Start(b, benchmem.Partitions(topics))
					for b.Loop() {
						if _, err := Lead(s, join, topics, nil); err != nil {
							b.Fatal(err)
						}
					}
					bytes.Report()
				})
			}
		}
	}
}

// uniformGroup is uniform(members, topics, parts) as bench/README names
// it: every member subscribes to every topic, and owns nothing.
func uniformGroup(members, topics, parts int) assign.Group {
	g := assign.Group{Topics: make(map[string]int32, topics)}
	names := make([]string, topics)
	for i := range names {
		names[i] = fmt.Sprintf("topic-%05d", i)
		g.Topics[names[i]] = int32(parts)
	}
	for j := range members {
		g.Members = append(g.Members, assign.Member{ID: fmt.Sprintf("consumer-%05d", j), Topics: names, Generation: -1})
	}
	return g
}
