package timeline_test

import (
	"fmt"
	"testing"

	"github.com/assigncalc/assigncalc/timeline"
)

// BenchmarkPatterns plays members subscribed by one pattern that
// matches every topic, and a created topic it matches at 10 s: each
// target hands the pattern's resolution to every member, which once
// merged it into each member's names by a linear search (quadratic in the
// topics a pattern matches).
func BenchmarkPatterns(b *testing.B) {
	for _, shape := range []struct{ members, topics int }{{200, 200}, {200, 800}} {
		topics := make(map[string]int32, shape.topics)
		for i := range shape.topics {
			topics[fmt.Sprintf("orders-%d", i)] = 2
		}
		sc := timeline.Scenario{Protocol: timeline.Consumer, Topics: topics,
			Events: []timeline.Event{{At: 10_000, Kind: timeline.Grow, Topic: "orders-x", Partitions: 2}}}
		for i := range shape.members {
			sc.Members = append(sc.Members, timeline.Member{ID: fmt.Sprintf("c%d", i), TopicRegex: "orders-.*"})
		}
		b.Run(fmt.Sprintf("members=%d/topics=%d", shape.members, shape.topics), func(b *testing.B) { benchmarkSimulate(b, sc) })
	}
}
