package assign

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestSortedMetadata: the insertion sort sortedMetadata uses for a few
// topics, and for more the member's list metadataListed reads or
// sortNames, all list the names in Go order with their own counts, the
// order slices.Sorted gives, on names that share prefixes, are empty, or
// are not ASCII, around the size where one gives way to the other.
func TestSortedMetadata(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		name := rapid.OneOf(
			rapid.StringMatching(`topic-0{0,3}[0-9]{0,3}`),
			rapid.StringN(0, 6, -1),
			rapid.SampledFrom([]string{"", "a", "ab", "b", "é", "\U0001F600", "topic-00010", "topic-0001"}),
		)
		topics := rapid.MapOfN(name, rapid.Int32Range(-2, 50), 0, 2*shortList+2).Draw(t, "topics")
		// A member's list, which metadataListed reads in place of the map
		// when it is every topic in order: drawn as that list, or with a
		// name dropped, added, repeated or swapped, or as any list.
		listed := slices.Sorted(maps.Keys(topics))
		switch change := rapid.IntRange(0, 5).Draw(t, "change"); {
		case change == 1 && len(listed) > 0:
			listed = slices.Delete(listed, 0, 1)
		case change == 2:
			listed = append(listed, "zzz-not-a-topic")
		case change == 3 && len(listed) > 1:
			listed[len(listed)-1] = listed[len(listed)-2] // a repeat: as many names, one topic missing
		case change == 4 && len(listed) > 1:
			listed[0], listed[1] = listed[1], listed[0]
		case change == 5:
			listed = rapid.SliceOf(name).Draw(t, "listed")
		}
		meta, parts := sortedMetadata(topics, listed)
		if want := slices.Sorted(maps.Keys(topics)); !slices.Equal(meta, want) {
			t.Fatalf("%d topics: names %q, want %q", len(topics), meta, want)
		}
		for k, name := range meta {
			if parts[k] != topics[name] {
				t.Fatalf("%q: %d partitions, want %d", name, parts[k], topics[name])
			}
		}
	})
}

// TestGivenSubsAreTopics: subscriptions given as indices into the
// metadata's names in Go order, each ascending, naming every topic, are
// kept as the compiled subscriptions without a copy (areTopics), and
// compile to what the same names as Topics compile to; one index out of
// order, or a topic nobody lists, takes the general path to the same.
func TestGivenSubsAreTopics(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nt := rapid.IntRange(1, 20).Draw(t, "topics")
		g := Group{Topics: map[string]int32{}}
		var names []string
		for k := range nt {
			name := fmt.Sprintf("t%02d", k)
			names = append(names, name)
			g.Topics[name] = int32(rapid.IntRange(1, 5).Draw(t, "parts"))
		}
		o := &OwnedRuns{RunOff: make([]int32, 1), Names: names}
		bare := g
		for i := range rapid.IntRange(1, 6).Draw(t, "members") {
			sub := rapid.SliceOfDistinct(rapid.IntRange(0, nt-1), func(k int) int { return k }).Draw(t, "sub")
			if rapid.IntRange(0, 3).Draw(t, "sorted") > 0 {
				slices.Sort(sub) // as Kafka's clients send them: the path that keeps them
			}
			var idx []int32
			var topics []string
			for _, k := range sub {
				idx = append(idx, int32(k))
				topics = append(topics, names[k])
			}
			if i > 0 && rapid.Bool().Draw(t, "share") {
				idx, topics = o.Subs[i-1], g.Members[i-1].Topics
			} else if i > 0 && rapid.Bool().Draw(t, "copy") {
				j := rapid.IntRange(0, i-1).Draw(t, "earlier") // an equal list, in a slice of its own
				idx = slices.Clone(o.Subs[j])
				if m := len(idx) / 2; m > 0 && m+1 < len(idx) && idx[m+1]-idx[m-1] > 2 && rapid.Bool().Draw(t, "swap") {
					// The same length, first and last names, another
					// name between, still ascending.
					if idx[m]+1 < idx[m+1] {
						idx[m]++
					} else {
						idx[m]--
					}
				}
				topics = nil
				for _, k := range idx {
					topics = append(topics, names[k])
				}
			}
			o.Subs = append(o.Subs, idx)
			o.RunOff = append(o.RunOff, 0)
			id := fmt.Sprintf("m%d", i)
			g.Members = append(g.Members, Member{ID: id, Topics: topics, Generation: -1})
			bare.Members = append(bare.Members, Member{ID: id, Generation: -1})
		}
		want, err := compile(g, ownedResolved)
		if err != nil {
			t.Fatal(err)
		}
		got, err := compileWith(bare, ownedResolved, o)
		if err != nil {
			t.Fatal(err)
		}
		for i := range g.Members {
			if !slices.Equal(got.subs[i], want.subs[i]) || got.distinctNames[i] != want.distinctNames[i] {
				t.Fatalf("member %d: subscription %v (distinct %v), want %v (%v)", i, got.subs[i], got.distinctNames[i], want.subs[i], want.distinctNames[i])
			}
		}
		if !slices.Equal(got.topics, want.topics) || !slices.Equal(got.start, want.start) || !slices.Equal(got.metaTopic, want.metaTopic) || !slices.Equal(got.byGoName, want.byGoName) {
			t.Fatalf("tables differ: %v %v %v %v, want %v %v %v %v", got.topics, got.start, got.metaTopic, got.byGoName, want.topics, want.start, want.metaTopic, want.byGoName)
		}
		every := true // every topic listed, every list ascending: kept as given
		listed := make([]bool, nt)
		for _, sub := range o.Subs {
			every = every && slices.IsSorted(sub)
			for _, k := range sub {
				listed[k] = true
			}
		}
		every = every && !slices.Contains(listed, false)
		for i, sub := range o.Subs {
			// Kept as given: its own slice, or an earlier member's equal
			// one (equal lists share one).
			kept := false
			for j := range i + 1 {
				kept = kept || len(sub) > 0 && slices.Equal(o.Subs[j], sub) && &got.subs[i][0] == &o.Subs[j][0]
			}
			if len(sub) > 0 && every != kept {
				t.Fatalf("member %d: kept as given %v, want %v", i, kept, every)
			}
		}
	})
}
