package assign

import (
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestNameOrder checks nameOrder's prefix keys against a sort comparing
// whole names: names drawn from few bytes (zero and non-ASCII among them)
// with a shared prefix of random length, so that keys tie, names end
// inside the key, and a zero byte meets the key's padding.
func TestNameOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		prefix := rapid.StringMatching(`(topic-0{0,12})?`).Draw(t, "prefix")
		tail := rapid.SliceOf(rapid.SampledFrom([]byte{0, 1, 'a', 'b', 0x7f, 0x80, 0xff}))
		seen := map[string]bool{}
		var items []namedCount
		for i := range rapid.IntRange(0, 40).Draw(t, "n") {
			name := prefix + string(tail.Draw(t, "tail"))
			if seen[name] {
				continue
			}
			seen[name] = true
			items = append(items, namedCount{name: name, n: int32(i)})
		}
		want := slices.Clone(items)
		slices.SortFunc(want, func(a, b namedCount) int { return strings.Compare(a.name, b.name) })
		order := nameOrder(items)
		if len(order) != len(items) {
			t.Fatalf("%d indices for %d items", len(order), len(items))
		}
		for k, i := range order {
			if got := items[i]; got.name != want[k].name || got.n != want[k].n {
				t.Fatalf("position %d: %q (%d), want %q (%d)", k, got.name, got.n, want[k].name, want[k].n)
			}
		}
	})
}
