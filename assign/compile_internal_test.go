package assign

import (
	"maps"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestSortedMetadata: the insertion sort sortedMetadata uses for a few
// topics and the nameOrder it uses for more both list the names in Go
// order with their own counts, the order slices.Sorted gives, on names
// that share prefixes, are empty, or are not ASCII, around the size
// where one gives way to the other.
func TestSortedMetadata(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		name := rapid.OneOf(
			rapid.StringMatching(`topic-0{0,3}[0-9]{0,3}`),
			rapid.StringN(0, 6, -1),
			rapid.SampledFrom([]string{"", "a", "ab", "b", "é", "\U0001F600", "topic-00010", "topic-0001"}),
		)
		topics := rapid.MapOfN(name, rapid.Int32Range(-2, 50), 0, 2*shortList+2).Draw(t, "topics")
		meta, parts := sortedMetadata(topics)
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
