// Package assigntest provides rapid generators of consumer groups, shared by
// the tests of assign, the fuzz targets and the benchmarks.
package assigntest

import (
	"fmt"
	"slices"

	"github.com/assigncalc/assigncalc/assign"
	"pgregory.net/rapid"
)

// Shape bounds the groups [GroupOf] draws.
type Shape struct {
	MaxMembers    int  // at least 1
	MaxTopics     int  // at least 1
	MaxPartitions int  // per topic; at least 0
	Static        bool // draw group.instance.ids for some members
	Racks         bool // draw member racks and partition replica racks
	Owned         bool // draw previous ownership with generations
	Identical     bool // every member subscribes to every topic
	Odd           bool // unknown topics, empty subscriptions, claims of partitions that do not exist, non-ASCII names
}

// Small is a shape for exhaustive-feeling property tests.
var Small = Shape{MaxMembers: 6, MaxTopics: 4, MaxPartitions: 8, Static: true, Racks: true, Owned: true, Odd: true}

// names that exercise Java's UTF-16 order: U+FF21 sorts after U+10400 in
// Java and before it in Go.
var oddNames = []string{"\uff21", "\U00010400", "é", "Z", "_", "0"}

// GroupOf returns a generator of valid groups of the given shape.
func GroupOf(s Shape) *rapid.Generator[assign.Group] {
	return rapid.Custom(func(t *rapid.T) assign.Group {
		nTopics := rapid.IntRange(1, max(1, s.MaxTopics)).Draw(t, "topics")
		g := assign.Group{Topics: make(map[string]int32)}
		var topics []string
		for i := range nTopics {
			name := fmt.Sprintf("t%d", i)
			if s.Odd && rapid.Bool().Draw(t, "oddTopic") {
				name = rapid.SampledFrom(oddNames).Draw(t, "oddTopicName") + name
			}
			topics = append(topics, name)
			g.Topics[name] = int32(rapid.IntRange(0, max(0, s.MaxPartitions)).Draw(t, "partitions"))
		}
		racks := []string{"a", "b", "c"}
		if s.Racks && rapid.Bool().Draw(t, "withPartitionRacks") {
			g.PartitionRacks = make(map[string][][]string)
			for _, name := range topics {
				lists := make([][]string, g.Topics[name])
				for p := range lists {
					lists[p] = rapid.SliceOfNDistinct(rapid.SampledFrom(racks), 0, 2, rapid.ID[string]).Draw(t, "replicaRacks")
				}
				g.PartitionRacks[name] = lists
			}
		}
		nMembers := rapid.IntRange(1, max(1, s.MaxMembers)).Draw(t, "members")
		for i := range nMembers {
			m := assign.Member{ID: fmt.Sprintf("c%d", i), Generation: -1}
			if s.Odd && rapid.Bool().Draw(t, "oddMember") {
				m.ID = rapid.SampledFrom(oddNames).Draw(t, "oddMemberName") + m.ID
			}
			if s.Static && rapid.Bool().Draw(t, "static") {
				m.InstanceID = fmt.Sprintf("i%d", rapid.IntRange(0, 99).Draw(t, "instance"))
				if slices.ContainsFunc(g.Members, func(o assign.Member) bool { return o.InstanceID == m.InstanceID }) {
					m.InstanceID = ""
				}
			}
			if s.Racks && rapid.Bool().Draw(t, "withRack") {
				m.Rack = rapid.SampledFrom(racks).Draw(t, "rack")
			}
			if s.Identical {
				m.Topics = slices.Clone(topics)
			} else {
				m.Topics = rapid.SliceOfDistinct(rapid.SampledFrom(topics), rapid.ID[string]).Draw(t, "subscription")
			}
			if s.Odd && rapid.IntRange(0, 9).Draw(t, "unknownTopic") == 0 {
				m.Topics = append(m.Topics, "unknown")
			}
			if s.Owned && rapid.Bool().Draw(t, "owns") {
				m.Generation = int32(rapid.IntRange(-1, 3).Draw(t, "generation"))
				for _, name := range topics {
					limit := int(g.Topics[name])
					if s.Odd {
						limit += 2 // claims of partitions that no longer exist
					}
					for p := range limit {
						if rapid.IntRange(0, 3).Draw(t, "claim") == 0 {
							m.Owned = append(m.Owned, assign.TopicPartition{Topic: name, Partition: int32(p)})
						}
					}
				}
			}
			g.Members = append(g.Members, m)
		}
		return g
	})
}

// Shuffled returns a generator of copies of g with the members, each
// member's topics and owned partitions, and therefore the order in which
// any map of them is filled, permuted.
func Shuffled(g assign.Group) *rapid.Generator[assign.Group] {
	return rapid.Custom(func(t *rapid.T) assign.Group {
		out := assign.Group{
			Topics:         make(map[string]int32, len(g.Topics)),
			PartitionRacks: g.PartitionRacks,
		}
		for k, v := range g.Topics {
			out.Topics[k] = v
		}
		out.Members = rapid.Permutation(g.Members).Draw(t, "members")
		for i := range out.Members {
			m := &out.Members[i]
			m.Topics = rapid.Permutation(m.Topics).Draw(t, "topics")
			m.Owned = rapid.Permutation(m.Owned).Draw(t, "owned")
		}
		return out
	})
}

// ThreeOnFour is the small consumer-protocol group of the KIP-848 tests:
// topic "t" of four partitions, with a topic id, and members A, B and C
// subscribed to it, which a java.util.HashMap iterates in that order ("A",
// "B", "C" hash to 65, 66, 67: buckets 1, 2, 3 of 16). Member i owns the
// partitions of owned[i] as its current target.
func ThreeOnFour(owned ...[]int32) assign.Group {
	id, err := assign.ParseTopicID("Yp0cT2sWQ7ChA0qyU5Ckdg")
	if err != nil {
		panic(err)
	}
	g := assign.Group{Topics: map[string]int32{"t": 4}, TopicIDs: map[string]assign.TopicID{"t": id}}
	for i, id := range []string{"A", "B", "C"} {
		m := assign.Member{ID: id, Topics: []string{"t"}}
		if i < len(owned) {
			m.Owned = TPs("t", owned[i]...)
		}
		g.Members = append(g.Members, m)
	}
	return g
}

// TPs lists partitions ps of topic, in the order given.
func TPs(topic string, ps ...int32) []assign.TopicPartition {
	var out []assign.TopicPartition
	for _, p := range ps {
		out = append(out, assign.TopicPartition{Topic: topic, Partition: p})
	}
	return out
}
