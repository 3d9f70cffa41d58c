package balance

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestTopicSets checks TopicSets against a linear scan of the
// subscriptions, on dense subscriptions (bit rows, some shared between
// neighbours or with an earlier member, some a prefix of an earlier
// member's slice) and sparse ones (searched).
func TestTopicSets(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		topics := rapid.IntRange(1, 200).Draw(t, "topics")
		n := rapid.IntRange(1, 8).Draw(t, "members")
		subs := make([][]int32, n)
		for m := range subs {
			if m > 0 && rapid.Bool().Draw(t, "share") {
				subs[m] = subs[m-1]
				continue
			}
			if m > 0 && rapid.Bool().Draw(t, "shareEarlier") {
				// An earlier member's slice, or a prefix of it: the same
				// address, another length.
				earlier := subs[rapid.IntRange(0, m-1).Draw(t, "earlier")]
				subs[m] = earlier[:rapid.IntRange(0, len(earlier)).Draw(t, "prefix")]
				continue
			}
			sub := rapid.SliceOfNDistinct(rapid.Int32Range(0, int32(topics-1)), 0, topics, rapid.ID).Draw(t, "sub")
			slices.Sort(sub)
			subs[m] = sub
		}
		ts := NewTopicSets(subs, topics)
		for m := range subs {
			for tp := range int32(topics) {
				if got, want := ts.Has(int32(m), tp), slices.Contains(subs[m], tp); got != want {
					t.Fatalf("has(%d, %d) = %v, want %v (bit rows: %v)", m, tp, got, want, ts.row != nil)
				}
			}
		}
	})
}

// TestSubClassesByAddress: members whose subscription is an earlier
// member's slice, or a prefix of it (the same address, another length),
// land in the class of the members with equal subscriptions, and only
// there: newSubClasses finds a slice it saw by its address before it
// hashes it.
func TestSubClassesByAddress(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 20).Draw(t, "members")
		T := rapid.IntRange(1, 6).Draw(t, "topics")
		subs := make([][]int32, n)
		for m := range n {
			if m > 0 && rapid.Bool().Draw(t, "earlier") {
				e := subs[rapid.IntRange(0, m-1).Draw(t, "with")]
				subs[m] = e[:rapid.IntRange(0, len(e)).Draw(t, "prefix")]
				continue
			}
			for i := range T {
				if rapid.Bool().Draw(t, "sub") {
					subs[m] = append(subs[m], int32(i))
				}
			}
		}
		sc := newSubClasses(subs, T, hashSub)
		classOf := make([]int, n)
		for k := range len(sc.memberOff) - 1 {
			for _, m := range sc.members[sc.memberOff[k]:sc.memberOff[k+1]] {
				classOf[m] = k
			}
		}
		for a := range n {
			for b := range n {
				if same := classOf[a] == classOf[b]; same != slices.Equal(subs[a], subs[b]) {
					t.Fatalf("members %d %v and %d %v: same class %v", a, subs[a], b, subs[b], same)
				}
			}
		}
	})
}
