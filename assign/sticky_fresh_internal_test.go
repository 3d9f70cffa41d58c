package assign

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/assigncalc/assigncalc/assign/internal/balance"
	"pgregory.net/rapid"
)

// TestFreshDealtMatchesSolver holds freshDealt, which writes a fresh
// group's answer from its closed form, to what the solver answers for
// the same compiled group (newStickyProblem, balance.Solve,
// assignmentOf), member by member and partition by partition. Groups mix
// static and dynamic members (Kafka's member order is not the listed
// one), topic names whose Go and Java orders differ (the answer is
// written in Go order, partitions are numbered in Java's), and, to hold
// freshDealt to declining where it must, members that list partitions,
// that subscribe to other topics, or that sit on racks holding replicas.
func TestFreshDealtMatchesSolver(t *testing.T) {
	names := []string{"a", "b", "\uff21", "\U00010400", "t-10", "t-9"}
	dealt := 0
	rapid.Check(t, func(t *rapid.T) {
		g := Group{Topics: map[string]int32{}}
		nt := rapid.IntRange(1, len(names)).Draw(t, "topics")
		for _, name := range names[:nt] {
			g.Topics[name] = rapid.Int32Range(0, 23).Draw(t, "partitions")
		}
		owning := rapid.IntRange(0, 3).Draw(t, "owning") == 0
		differ := rapid.IntRange(0, 3).Draw(t, "differ") == 0
		racks := rapid.IntRange(0, 3).Draw(t, "racks") == 0
		if racks {
			g.PartitionRacks = map[string][][]string{}
			for _, name := range names[:nt] {
				for range g.Topics[name] {
					g.PartitionRacks[name] = append(g.PartitionRacks[name], []string{rapid.SampledFrom([]string{"r0", "r1"}).Draw(t, "replica")})
				}
			}
		}
		nm := rapid.IntRange(1, 9).Draw(t, "members")
		for i := range nm {
			m := Member{ID: fmt.Sprintf("m%d", nm-i), Topics: names[:nt], Generation: 1}
			if rapid.Bool().Draw(t, "static") {
				m.InstanceID = fmt.Sprintf("i%d", (i*7)%11) // distinct: 11 is prime and nm < 11
			}
			if differ && i > 0 {
				m.Topics = names[:rapid.IntRange(1, nt).Draw(t, "subscribed")]
			}
			if owning && g.Topics[names[0]] > 0 && rapid.Bool().Draw(t, "owns") {
				m.Owned = []TopicPartition{{names[0], rapid.Int32Range(0, g.Topics[names[0]]-1).Draw(t, "owned")}}
			}
			if racks {
				m.Rack = rapid.SampledFrom([]string{"", "r0", "r1"}).Draw(t, "rack")
			}
			g.Members = append(g.Members, m)
		}
		for _, use := range []ownedRead{ownedKeptIfLossless, ownedResolved, ownedListed} {
			cg, err := compile(g, use)
			if err != nil {
				t.Fatal(err)
			}
			sp := newStickyProblem(cg)
			owner, err := balance.Solve(&sp.prob)
			if err != nil {
				t.Fatal(err)
			}
			want := cg.assignmentOf(owner, nil, cg.kafkaOrder)
			got, ok := cg.freshDealt()
			fresh := cg.kept == nil && cg.claims == nil && cg.ownedOff == nil
			if simple := fresh && sp.identical && !cg.stickyRackAware(); ok != simple {
				t.Fatalf("use %d: freshDealt took the group: %v; nobody lists, one subscription, no racks: %v", use, ok, simple)
			}
			if !ok {
				continue
			}
			dealt++
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("use %d: freshDealt answered\n%v\nthe solver\n%v", use, got, want)
			}
		}
	})
	if dealt == 0 {
		t.Fatal("no group took freshDealt")
	}
}

// TestSmallTargets holds smallGroup.targets, which picks the members
// that get one partition more one at a time, to balance.Targets, which
// sorts them: every count of claims up to 5 for up to smallMembers
// members in any Kafka order, every total up to 3 partitions a member.
func TestSmallTargets(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, smallMembers).Draw(t, "members")
		var sg smallGroup
		sg.members = make([]Member, n)
		order := make([]int32, n)
		for i := range order {
			order[i] = int32(i)
		}
		order = rapid.Permutation(order).Draw(t, "order")
		copy(sg.order[:], order)
		var count [smallMembers]int32
		byRank := make([]int32, n)
		for rk, m := range order {
			count[m] = rapid.Int32Range(0, 5).Draw(t, "count")
			byRank[rk] = count[m]
		}
		total := rapid.Int32Range(0, int32(3*n)).Draw(t, "total")
		var got [smallMembers]int32
		sg.targets(&count, &got, total)
		want := balance.Targets(byRank, int(total))
		if !reflect.DeepEqual(got[:n], want) {
			t.Fatalf("counts by rank %v, total %d: targets %v, balance.Targets %v", byRank, total, got[:n], want)
		}
	})
}

// TestSmallKeptOfSingles holds smallGroup.giveUp's shortcut for a list
// whose every run is one claim (it keeps keep runs from run rk mod runs
// on) to balance.KeptOfRuns, whose rule it is: every number of runs up
// to smallTopics, every rank up to 2 rounds of them, every keep below
// the runs.
func TestSmallKeptOfSingles(t *testing.T) {
	for nr := int32(1); nr <= smallTopics; nr++ {
		runs := &smallRuns{n: int(nr), longest: 1}
		owned := make([]TopicPartition, nr)
		for j := range nr {
			runs.bounds[2*j], runs.bounds[2*j+1], runs.first[j] = j, j+1, j // run j: claim j, partition j
		}
		var sg smallGroup
		for rk := range 2 * nr {
			for keep := range nr {
				var owner [smallParts]uint8
				sg.giveUp(rk, owned, keep, runs, &owner)
				kept := make([]int32, nr)
				balance.KeptOfRuns(rk, runs.bounds[:2*nr], 1, keep, kept)
				for j := range nr {
					if given := owner[j] == givenUp; given != (kept[j] == 0) {
						t.Fatalf("%d runs of one, rank %d keeping %d: run %d given up %v, KeptOfRuns keeps %d of it", nr, rk, keep, j, given, kept[j])
					}
				}
			}
		}
	}
}
