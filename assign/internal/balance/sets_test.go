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

// TestOutside: Outside finds the first member of a list that does not
// subscribe to the topic, skipping negative entries, as a pass calling
// slices.Contains finds it, in each of TopicSets' three forms: a mask of
// at most 64 bit rows, more rows than that, and binary search.
func TestOutside(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		form := rapid.IntRange(0, 2).Draw(t, "form") // 0: mask, 1: more rows (a slice, hence a row, per member), 2: search
		topics, n, per := rapid.IntRange(1, 100).Draw(t, "topics"), rapid.IntRange(1, 40).Draw(t, "members"), 0
		switch form {
		case 1:
			topics, n = rapid.IntRange(8, 100).Draw(t, "topics"), rapid.IntRange(65, 90).Draw(t, "members")
			per = topics / 2 // long enough for bit rows
		case 2:
			topics, per = rapid.IntRange(640, 1000).Draw(t, "topics"), 1
		}
		subs := make([][]int32, n)
		for m := range subs {
			if m > 0 && form == 0 && rapid.Bool().Draw(t, "share") {
				subs[m] = subs[rapid.IntRange(0, m-1).Draw(t, "earlier")]
				continue
			}
			k := per
			if k == 0 {
				k = rapid.IntRange(0, topics).Draw(t, "len")
			}
			sub := rapid.SliceOfNDistinct(rapid.Int32Range(0, int32(topics-1)), k, k, rapid.ID).Draw(t, "sub")
			slices.Sort(sub)
			subs[m] = sub
		}
		ts := NewTopicSets(subs, topics)
		switch rows := len(ts.bits) / max(ts.words, 1); {
		case form == 2 && ts.row != nil, form != 2 && ts.row == nil:
			t.Skip("the draw did not reach the form") // rare: the sizes above pick it
		case form == 0 && rows > 64:
			t.Fatalf("%d rows for the mask form", rows)
		}
		ms := rapid.SliceOf(rapid.Int32Range(-1, int32(n-1))).Draw(t, "ms")
		tp := rapid.Int32Range(0, int32(topics-1)).Draw(t, "topic")
		want := -1
		for i, m := range ms {
			if m >= 0 && !slices.Contains(subs[m], tp) {
				want = i
				break
			}
		}
		if got := ts.Outside(tp, ms); got != want {
			t.Fatalf("Outside(%d, %v) = %d, want %d (form %d)", tp, ms, got, want, form)
		}
	})
}
