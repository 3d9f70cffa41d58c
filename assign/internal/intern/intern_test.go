package intern

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestSortedAgainstLinearSearch looks up lists of names, mostly sorted
// as Kafka's clients send them but not always, some of them not listed,
// some the listed strings themselves or prefixes of them,
// in lists short and long enough to be indexed, and checks every answer
// and every cursor against a linear search.
func TestSortedAgainstLinearSearch(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		name := rapid.StringMatching(`[a-c]{0,3}`)
		names := slices.Compact(slices.Sorted(slices.Values(rapid.SliceOfN(name, 0, 3*shortList).Draw(t, "names"))))
		s := New(names)
		want := func(n string) int32 { return int32(slices.Index(names, n)) }
		list := rapid.SliceOf(name).Draw(t, "list")
		if rapid.Bool().Draw(t, "sorted") {
			slices.Sort(list)
		}
		// Some names are the listed strings themselves (Next finds those
		// by address) or a prefix of one, which shares its address but
		// is another name.
		for i := range list {
			k := slices.Index(names, list[i])
			switch {
			case k < 0:
			case rapid.Bool().Draw(t, "same"):
				list[i] = names[k]
			case len(names[k]) > 0 && rapid.Bool().Draw(t, "prefix"):
				list[i] = names[k][:len(names[k])-1]
			}
		}
		var c, cb Cursor
		for _, n := range list {
			w := want(n)
			before := c
			k, ok := s.Next(n, &c)
			if ok != (w >= 0) || ok && k != w {
				t.Fatalf("Next(%q) = %d, %v; want %d", n, k, ok, w)
			}
			if ok && c.next != w+1 || !ok && c != before {
				t.Fatalf("Next(%q) left the cursor at %d, from %d", n, c.next, before.next)
			}
			if kb, okb := s.NextBytes([]byte(n), &cb); kb != k || okb != ok || cb != c {
				t.Fatalf("NextBytes(%q) = %d, %v, cursor %d; Next gave %d, %v, cursor %d", n, kb, okb, cb.next, k, ok, c.next)
			}
			if kf, okf := s.Find(n); okf != ok || ok && kf != k {
				t.Fatalf("Find(%q) = %d, %v; want %d", n, kf, okf, w)
			}
		}
		got := s.Positions(list, nil)
		for i, n := range list {
			if got[i] != want(n) {
				t.Fatalf("Positions(%q)[%d] = %d, want %d", list, i, got[i], want(n))
			}
		}
	})
}

// TestNextBytesAllocatesNothing: the JoinGroup decoder looks every topic
// name of every member up as bytes of the message; a copy of each would
// cost an allocation per name.
func TestNextBytesAllocatesNothing(t *testing.T) {
	names := make([]string, 3*shortList)
	for i := range names {
		names[i] = "a-rather-long-topic-name-beyond-thirty-two-bytes-" + string(rune('a'+i))
	}
	s := New(names)
	miss := []byte("a-rather-long-topic-name-that-is-not-listed-anywhere")
	hit := []byte(names[2*shortList])
	allocs := testing.AllocsPerRun(100, func() {
		var c Cursor
		s.NextBytes(hit, &c)
		s.NextBytes(miss, &c)
	})
	if allocs != 0 {
		t.Errorf("NextBytes allocates %v times a call, want 0", allocs)
	}
}

// TestIndexFoldsAndFallsBack: numbered names are indexed by their folded
// bytes; names that fold alike (one length, first and last eight bytes)
// are still found, by probing as far as the furthest name lies from its
// slot while they are few, and through maphash once more than maxShift
// crowd one slot. Every look-up, of listed names and others, is checked
// against a linear search.
func TestIndexFoldsAndFallsBack(t *testing.T) {
	numbered := func(n int) []string {
		var names []string
		for i := range n {
			names = append(names, fmt.Sprintf("topic-%05d", i))
		}
		return names
	}
	alike := func(n int) []string { // one fold: only the middle differs
		var names []string
		for i := range n {
			names = append(names, fmt.Sprintf("same-head-%04d-same-tail", i))
		}
		return names
	}
	for _, c := range []struct {
		name      string
		names     []string
		byMaphash bool
	}{
		{"numbered", numbered(1000), false},
		{"few alike", append(alike(maxShift/2), numbered(100)...), false},
		{"many alike", append(alike(3*maxShift), numbered(100)...), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			names := slices.Sorted(slices.Values(c.names))
			s := New(names)
			if s.index == nil || s.index.byMaphash != c.byMaphash {
				t.Fatalf("index %+v, want byMaphash %v", s.index, c.byMaphash)
			}
			if c.name == "few alike" && s.index.shift < maxShift/2-1 {
				t.Fatalf("shift %d with %d names of one fold", s.index.shift, maxShift/2)
			}
			others := append(numbered(1100)[1000:], alike(4 * maxShift)[3*maxShift:]...)
			for _, n := range append(slices.Clone(names), others...) {
				want := int32(slices.Index(names, n))
				if k, ok := s.Find(n); ok != (want >= 0) || ok && k != want {
					t.Fatalf("Find(%q) = %d, %v; want %d", n, k, ok, want)
				}
			}
		})
	}
}

// BenchmarkFind looks up each of 1,000 numbered topic names once, in a
// scattered order, as compile looks up the first topic of each member's
// current target.
func BenchmarkFind(b *testing.B) {
	var names []string
	for i := range 1000 {
		names = append(names, fmt.Sprintf("topic-%05d", i))
	}
	s := New(names)
	list := make([]string, len(names))
	for i := range list {
		list[i] = names[(i*617)%len(names)]
	}
	for b.Loop() {
		for _, n := range list {
			if _, ok := s.Find(n); !ok {
				b.Fatal(n)
			}
		}
	}
}
