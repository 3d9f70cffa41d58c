package assign

import (
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

// TestUniformAssignRanges checks the compact path against the general
// one: on random groups and on the homogeneous bench shape after a leave,
// for both Kafka versions, AssignRanges expanded is exactly Assign, every
// member's ranges are sorted, non-empty and maximal (two ranges of one
// topic never touch: they would be one run). Assign, its reference, is
// anchored by the Kafka oracle goldens (TestKIP848Goldens).
func TestUniformAssignRanges(t *testing.T) {
	var groups []Group
	for i := range 300 {
		groups = append(groups, randomKIP848Group(newTestRand(uint64(i)), "ranges"))
	}
	sh := kip848Shapes[0]
	g := sh.group()
	fresh, err := Uniform{}.Assign(g)
	if err != nil {
		t.Fatal(err)
	}
	groups = append(groups, g, churned(g, fresh, true), churned(g, fresh, false))
	for i, g := range groups {
		for _, u := range []Uniform{{}, {Kafka: Kafka40}} {
			want, err := u.Assign(g)
			ra, rerr := u.AssignRanges(g)
			if (err == nil) != (rerr == nil) {
				t.Fatalf("group %d, %v: Assign error %v, AssignRanges error %v", i, u.Kafka, err, rerr)
			}
			if err != nil {
				continue
			}
			if diff := cmp.Diff(want, ra.Assignment()); diff != "" {
				t.Fatalf("group %d, %v: AssignRanges differs from Assign (-Assign +ranges):\n%s", i, u.Kafka, diff)
			}
			for m, rs := range ra.Ranges {
				id := ra.IDs[m]
				for k, r := range rs {
					if r.Start >= r.End {
						t.Fatalf("group %d: %s: empty range %v", i, id, r)
					}
					if k > 0 {
						p := rs[k-1]
						if p.Topic > r.Topic || p.Topic == r.Topic && p.End >= r.Start {
							t.Fatalf("group %d: %s: ranges %v then %v are out of order or touch", i, id, p, r)
						}
					}
				}
			}
		}
	}
}

// TestUniformFreshChunks checks freshChunks, how Uniform deals a
// homogeneous group that holds nothing, against the loop over the free
// list of the owner path (solveOwner): on fresh homogeneous random groups
// and the bench shape, for both Kafka versions, the answers are the same;
// the Kafka oracle goldens anchor that reference (TestUniformOwnerGoldens).
func TestUniformFreshChunks(t *testing.T) {
	var groups []Group
	for i := range 300 {
		g := randomKIP848Group(newTestRand(uint64(i)), "fresh")
		for j := range g.Members {
			g.Members[j].Owned = nil
		}
		groups = append(groups, g)
	}
	groups = append(groups, kip848Shapes[0].group())
	tested := 0
	for i, g := range groups {
		for _, u := range []Uniform{{}, {Kafka: Kafka40}} {
			runs, err := u.solve(g)
			if err != nil {
				t.Fatal(err)
			}
			if runs.owner != nil {
				continue // heterogeneous: no runs
			}
			general, err := solveOwner(u, g)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(general.ranges(), runs.ranges()); diff != "" {
				t.Fatalf("group %d, %v: freshChunks differs from the free list (-general +chunks):\n%s", i, u.Kafka, diff)
			}
			tested++
		}
	}
	if tested < 100 {
		t.Errorf("only %d homogeneous groups tested", tested)
	}
}

// TestServerRangeShared checks sharedRanges, the path of groups whose
// members share one subscription, against the general loop over
// subscriptions, which a copy of the subscription per member forces
// (sameSlice then fails): on random groups made homogeneous and on the
// bench shape, the ranges are the same.
func TestServerRangeShared(t *testing.T) {
	var groups []Group
	for i := range 300 {
		g := randomKIP848Group(newTestRand(uint64(i)), "shared")
		for j := range g.Members {
			g.Members[j].Topics = g.Members[0].Topics
		}
		groups = append(groups, g)
	}
	// Every member gets a range of every topic (everyTopicRanges): five
	// and seven partitions for three members.
	every := Group{
		Topics:   map[string]int32{"a": 5, "b": 7},
		TopicIDs: map[string]TopicID{"a": nameTopicID("a"), "b": nameTopicID("b")},
	}
	for _, id := range []string{"m2", "m0", "m1"} {
		every.Members = append(every.Members, Member{ID: id, Topics: []string{"b", "a"}})
	}
	for j := range every.Members {
		every.Members[j].Topics = every.Members[0].Topics
	}
	groups = append(groups, kip848Shapes[0].group(), every)
	for i, g := range groups {
		shared, err := ServerRange{}.AssignRanges(g)
		if err != nil {
			t.Fatal(err)
		}
		copied := g
		copied.Members = slices.Clone(g.Members)
		for j := range copied.Members {
			copied.Members[j].Topics = slices.Clone(g.Members[0].Topics)
		}
		if len(copied.Members) > 1 {
			// Not consecutive in member order either, so that compile
			// cannot share them.
			copied.Members[0].Topics = append(slices.Clone(g.Members[0].Topics), "not-a-topic")
		}
		general, err := ServerRange{}.AssignRanges(copied)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(general, shared); diff != "" {
			t.Fatalf("group %d: sharedRanges differs from the general loop (-general +shared):\n%s", i, diff)
		}
	}
}

// TestFill checks fill against a plain loop at every length up to 70,
// powers of two and their neighbours included.
func TestFill(t *testing.T) {
	for n := range 71 {
		s := make([]int32, n)
		fill(s, -7)
		for i, v := range s {
			if v != -7 {
				t.Fatalf("fill of %d: s[%d] = %d, want -7", n, i, v)
			}
		}
	}
}

// TestRunEnd8 checks runEnd8 against a one-at-a-time scan on random
// owner arrays of few distinct owners, so that runs of every length, and
// runs ending at the array's end, occur.
func TestRunEnd8(t *testing.T) {
	rng := newTestRand(4)
	for range 2000 {
		owners := make([]int32, 1+rng.IntN(60))
		for i := range owners {
			if i > 0 && rng.IntN(4) > 0 {
				owners[i] = owners[i-1]
			} else {
				owners[i] = int32(rng.IntN(3)) - 1
			}
		}
		for p := range owners {
			want := p + 1
			for want < len(owners) && owners[want] == owners[p] {
				want++
			}
			if got := runEnd8(owners, p); got != want {
				t.Fatalf("runEnd8(%v, %d) = %d, want %d", owners, p, got, want)
			}
		}
	}
}

// TestUniformTopicsSharingBytes: topic names that share their first bytes
// in memory (one a prefix of the other, as substrings of one string are)
// are told apart by length, and a name in bytes of its own is followed.
func TestUniformTopicsSharingBytes(t *testing.T) {
	backing := "topicab"
	long, short := backing[:6], backing[:5] // "topica", "topic": same data pointer
	other := strings.Clone(short)
	g := Group{
		Topics:   map[string]int32{long: 2, short: 2},
		TopicIDs: map[string]TopicID{long: nameTopicID(long), short: nameTopicID(short)},
		Members: []Member{
			{ID: "c0", Topics: []string{long, short}, Owned: []TopicPartition{{long, 0}, {short, 0}, {other, 1}, {long, 1}}},
			{ID: "c1", Topics: []string{long, short}},
		},
	}
	a, err := Uniform{}.Assign(g)
	if err != nil {
		t.Fatal(err)
	}
	// c0 holds all four and its quota is two: it keeps two of them and
	// releases two to c1, whatever the order; every partition goes once.
	if len(a["c0"]) != 2 || len(a["c1"]) != 2 {
		t.Fatalf("got %v, want two partitions each", a)
	}
	if err := Verify(g, a); err != nil {
		t.Fatal(err)
	}
}

// TestListChunks checks how writeAssignment's lists are cut from chunks:
// on random list lengths, long and short, with members that have no
// list, every list has the length asked for and a capacity as long, no
// two lists share memory, a chunk is given up only when too short for
// the next list (so it loses less than a list), and a chunk of short
// lists is a whole number of pages but for less than an entry.
func TestListChunks(t *testing.T) {
	for seed := range 200 {
		r := newTestRand(uint64(seed))
		sizes := make([]int32, 1+r.IntN(300))
		long := []int32{4, 120, 1000, 5000, 30000}[r.IntN(5)]
		for m := range sizes {
			if r.IntN(5) > 0 {
				sizes[m] = 1 + int32(r.IntN(int(long)))
			}
		}
		c := newListChunks(sizes)
		var lists [][]TopicPartition
		for m, n := range sizes {
			if n == 0 {
				continue
			}
			before := c.chunk
			short := len(before) < int(n)
			list := c.take(m)
			if len(list) != int(n) || cap(list) != int(n) {
				t.Fatalf("seed %d: member %d: list of len %d cap %d, want %d", seed, m, len(list), cap(list), n)
			}
			if !short && &list[0] != unsafe.SliceData(before) {
				t.Fatalf("seed %d: member %d: a new chunk though %d entries were left for %d", seed, m, len(before), n)
			}
			if short && int(n)*entryBytes <= chunkPages*pageBytes/2 && c.left+int(n) > len(list)+len(c.chunk) {
				size := len(list) + len(c.chunk)
				if waste := size * entryBytes % pageBytes; waste >= entryBytes && pageBytes-waste >= entryBytes {
					t.Fatalf("seed %d: member %d: a chunk of %d entries is %d bytes off whole pages", seed, m, size, waste)
				}
			}
			for i := range list {
				list[i].Partition = int32(m)
			}
			lists = append(lists, list)
		}
		for _, list := range lists {
			m := list[0].Partition
			for _, tp := range list {
				if tp.Partition != m {
					t.Fatalf("seed %d: member %d's list was overwritten by member %d's", seed, m, tp.Partition)
				}
			}
		}
		if c.left != 0 {
			t.Fatalf("seed %d: %d entries left after every list was taken", seed, c.left)
		}
	}
}
