package kafkago

import (
	"fmt"
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
	for _, s := range []assign.Strategy{assign.Range{}, assign.Sticky{}} {
		b.Run(fmt.Sprintf("strategy=%s/impl=assign", s.Name()), func(b *testing.B) {
			for b.Loop() {
				if _, err := s.Assign(g); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("strategy=%s/impl=adapter", s.Name()), func(b *testing.B) {
			bal, err := Balancer(s, OnError(func(err error) { b.Fatal(err) }))
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				bal.AssignGroups(kms, parts)
			}
		})
	}
}
