package assign

import (
	"fmt"
	"testing"
)

// BenchmarkCompileSubs measures compile's reading of the members'
// subscriptions alone, on the groups of bench/'s hetero(C, T) formula,
// where every member lists its own names: the metadata's strings, sorted.
func BenchmarkCompileSubs(b *testing.B) {
	for _, size := range []struct{ c, t int }{{100, 200}, {1000, 2000}} {
		names := make([]string, size.t)
		g := Group{Topics: map[string]int32{}}
		for i := range names {
			names[i] = fmt.Sprintf("topic-%05d", i)
			g.Topics[names[i]] = int32(1 + (i*7919)%64)
		}
		for j := range size.c {
			m := Member{ID: fmt.Sprintf("consumer-%05d", j), Generation: -1}
			for i, name := range names {
				if (i*31+j*17)%5 < 3 {
					m.Topics = append(m.Topics, name)
				}
			}
			g.Members = append(g.Members, m)
		}
		b.Run(fmt.Sprintf("hetero-%dx%dt", size.c, size.t), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := compile(g, ownedIgnored); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
