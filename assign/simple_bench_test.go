package assign

import (
	"fmt"
	"slices"
	"testing"
)

// BenchmarkSimple times the share assignor on one topic, homogeneous:
// fresh (nobody holds anything), and one round after a member joined or
// left (everyone holding the answer of the round before). members=1000/
// partitions=100 shares each partition ten ways, so its rounds after a
// change release members from holder sets of more than eight, which
// Simple replays (partitionTable.holderOrder); 5000 on 10 shares them
// 500 ways.
func BenchmarkSimple(b *testing.B) {
	for _, shape := range []struct{ members, partitions int }{{100, 10000}, {1000, 100}, {5000, 10}} {
		for _, churn := range []string{"fresh", "join1", "leave1"} {
			g := simpleBenchGroup(b, shape.members, shape.partitions, churn)
			b.Run(fmt.Sprintf("members=%d/partitions=%d/churn=%s", shape.members, shape.partitions, churn), func(b *testing.B) {
				b.ReportAllocs()
				bytes := CountPartitionBytes(b, g)
				for b.Loop() {
					if _, err := (Simple{}).Assign(g); err != nil {
						b.Fatal(err)
					}
				}
				bytes.Report()
			})
		}
	}
}

// simpleBenchGroup is members consumer-NNNNN on topic t of the given
// partitions, after churn: fresh, or holding Simple's answer for the
// group before one member joined (join1) or the first left (leave1).
func simpleBenchGroup(b *testing.B, members, partitions int, churn string) Group {
	g := Group{Topics: map[string]int32{"t": int32(partitions)}, TopicIDs: map[string]TopicID{"t": nameTopicID("t")}}
	for j := range members {
		g.Members = append(g.Members, Member{ID: fmt.Sprintf("consumer-%05d", j), Topics: []string{"t"}})
	}
	if churn == "fresh" {
		return g
	}
	before := g
	if churn == "join1" {
		before.Members = g.Members[:members-1]
	}
	a, err := Simple{}.Assign(before)
	if err != nil {
		b.Fatal(err)
	}
	g.Members = slices.Clone(g.Members)
	for i := range g.Members {
		g.Members[i].Owned = a[g.Members[i].ID]
	}
	if churn == "leave1" {
		g.Members = g.Members[1:]
	}
	return g
}
