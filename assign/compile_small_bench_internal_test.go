package assign

import (
	"fmt"
	"testing"
)

// BenchmarkSmallGroup runs the strategies a small shared group is
// answered for on the groups of bench's uniform-10x100 (10 members, 10
// topics of 10 partitions; then its Sticky answer carried over at
// generation 1 and one member replaced, every tenth, or one joining), in
// this package's small heap, beside the floor: writing an answer of as
// many lists and partitions. The floor's time is the part of a call no
// change to how the group is read and answered removes; the rest is the
// small path's own.
func BenchmarkSmallGroup(b *testing.B) {
	shapes := smallBenchShapes(b)
	b.Run("floor", func(b *testing.B) {
		g := shapes[0].g
		ids := make([]string, len(g.Members))
		for i := range ids {
			ids[i] = g.Members[i].ID
		}
		topic := g.Members[0].Topics[0]
		var last Assignment
		b.ReportAllocs()
		for b.Loop() {
			out := make(Assignment, len(ids))
			backing := make([]TopicPartition, 100)
			for i := range backing {
				backing[i] = TopicPartition{topic, int32(i)}
			}
			for i, id := range ids {
				out[id] = backing[i*10 : i*10+10 : i*10+10]
			}
			last = out
		}
		_ = last
	})
	for _, sh := range shapes {
		b.Run("read/"+sh.name, func(b *testing.B) {
			for b.Loop() {
				var sg smallGroup
				if !sg.read(&sh.g, true) {
					b.Fatal("declined")
				}
			}
		})
	}
	for _, s := range []Strategy{Sticky{}, CooperativeSticky{}, Range{}} {
		for _, sh := range shapes {
			if sh.name != "fresh" && s.Name() == "range" {
				continue
			}
			b.Run(s.Name()+"/"+sh.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := s.Assign(sh.g); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

type smallBenchShape struct {
	name string
	g    Group
}

// smallBenchShapes returns bench's uniform-10x100 groups (bench/workload):
// fresh, leave1, replace10, join1.
func smallBenchShapes(tb testing.TB) []smallBenchShape {
	g := Group{Topics: map[string]int32{}}
	names := make([]string, 10)
	for i := range names {
		names[i] = fmt.Sprintf("topic-%05d", i)
		g.Topics[names[i]] = 10
	}
	for j := range 10 {
		g.Members = append(g.Members, Member{ID: fmt.Sprintf("consumer-%05d", j), Topics: names, Generation: -1})
	}
	prev, err := Sticky{}.Assign(g)
	if err != nil {
		tb.Fatal(err)
	}
	churned := func(c string) Group {
		out := Carry(g, prev, 1)
		for j, m := range out.Members {
			switch {
			case c == "leave1" && j == 0:
				out.Members[j] = Member{ID: "consumer-new", Topics: m.Topics, Generation: -1}
			case c == "replace10" && j%10 == 0:
				out.Members[j] = Member{ID: fmt.Sprintf("consumer-new-%05d", j), Topics: m.Topics, Generation: -1}
			}
		}
		if c == "join1" {
			out.Members = append(out.Members, Member{ID: "consumer-new", Topics: names, Generation: -1})
		}
		return out
	}
	return []smallBenchShape{
		{"fresh", g},
		{"leave1", churned("leave1")},
		{"replace10", churned("replace10")},
		{"join1", churned("join1")},
	}
}
