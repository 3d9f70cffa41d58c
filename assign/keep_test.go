package assign_test

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/assigntest"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// Tests of the keep-and-deal rules (keep.go): what the sticky strategies
// keep of each member's claims and how they deal the rest.

// TestKeepAndDeal: on groups in which no claim can be lost, the usual
// state after members leave or join, the sticky strategies answer from
// which partitions are listed and how many each member lists; their
// answer must be the one settling every claim gives. Groups are a
// previous sticky assignment with members gone and new ones come,
// partition counts changed, and some lists shuffled or padded with
// partitions that no longer exist.
func TestKeepAndDeal(t *testing.T) {
	// Java numbers U+10400 before U+FF21, Go sorts it after: c0's dealt
	// partitions come in Java's order and must be listed in Go's.
	g := assign.Group{
		Topics: map[string]int32{"\uff21": 2, "\U00010400": 2},
		Members: []assign.Member{
			{ID: "c0", Topics: []string{"\uff21", "\U00010400"}, Generation: 1},
			{ID: "c1", Topics: []string{"\uff21", "\U00010400"}, Generation: 1,
				Owned: join(tps("\uff21", 1), tps("\U00010400", 1))},
		},
	}
	want := assign.Assignment{
		"c0": join(tps("\uff21", 0), tps("\U00010400", 0)),
		"c1": join(tps("\uff21", 1), tps("\U00010400", 1)),
	}
	if !assign.KeepsEveryClaim(g) {
		t.Fatalf("the example does not take keepAndDeal")
	}
	for _, s := range []assign.Strategy{assign.Sticky{}, assign.CooperativeSticky{}} {
		if got, err := s.Assign(g); err != nil || !cmp.Equal(want, got) {
			t.Errorf("%s.Assign = %v, %v; want %v", s.Name(), got, err, want)
		}
	}

	taken := 0
	rapid.Check(t, func(t *rapid.T) {
		shape := assigntest.Shape{MaxMembers: 8, MaxTopics: 4, MaxPartitions: 12, Static: true, Identical: true,
			Odd: rapid.Bool().Draw(t, "odd"), Racks: rapid.Bool().Draw(t, "racks")}
		before := assigntest.GroupOf(shape).Draw(t, "before")
		prev, err := assign.Sticky{}.Assign(before)
		if err != nil {
			t.Fatal(err)
		}
		g := assign.Group{Topics: make(map[string]int32), PartitionRacks: before.PartitionRacks}
		for _, name := range slices.Sorted(maps.Keys(before.Topics)) { // draws in a fixed order
			g.Topics[name] = before.Topics[name]
			if g.PartitionRacks == nil && rapid.IntRange(0, 3).Draw(t, "resize") == 0 {
				g.Topics[name] = rapid.Int32Range(0, 14).Draw(t, "partitions")
			}
		}
		gen := rapid.Int32Range(-1, 3).Draw(t, "generation")
		for _, m := range before.Members {
			if rapid.IntRange(0, 3).Draw(t, "leaves") == 0 {
				continue
			}
			m.Owned, m.Generation = slices.Clone(prev[m.ID]), gen
			switch rapid.IntRange(0, 5).Draw(t, "owned") {
			case 0:
				rand.New(rand.NewPCG(uint64(len(m.Owned)), 7)).Shuffle(len(m.Owned), func(i, j int) {
					m.Owned[i], m.Owned[j] = m.Owned[j], m.Owned[i]
				})
			case 1:
				if len(m.Topics) > 0 {
					m.Owned = append(m.Owned, assign.TopicPartition{Topic: m.Topics[0], Partition: 99})
				}
			}
			g.Members = append(g.Members, m)
		}
		for i := range rapid.IntRange(0, 3).Draw(t, "joiners") {
			m := before.Members[0]
			m.ID, m.InstanceID, m.Owned, m.Generation = fmt.Sprintf("new-%d", i), "", nil, -1
			g.Members = append(g.Members, m)
		}
		if len(g.Members) == 0 {
			return
		}
		if assign.KeepsEveryClaim(g) {
			taken++
		}
		for _, s := range []struct {
			name      string
			got, want func(assign.Group) (assign.Assignment, error)
		}{
			{"sticky", assign.Sticky{}.Assign, assign.StickyByClaims},
			{"cooperative-sticky", assign.CooperativeSticky{}.Assign, assign.CooperativeByClaims},
		} {
			want, err := s.want(g)
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.got(g)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("%s mismatch (-by claims +kept):\n%s", s.name, diff)
			}
		}
	})
	if taken == 0 {
		t.Errorf("no group took keepAndDeal")
	}
	t.Logf("%d groups took keepAndDeal", taken)
}
