package assign

import (
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestSortNames checks sortNames' prefix keys and its moves in place
// against a sort comparing whole names: names drawn from few bytes (zero
// and non-ASCII among them) with a shared prefix of random length, so
// that keys tie, names end inside the key, and a zero byte meets the
// key's padding; each count must stay with its name.
func TestSortNames(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		prefix := rapid.StringMatching(`(topic-0{0,12})?`).Draw(t, "prefix")
		tail := rapid.SliceOf(rapid.SampledFrom([]byte{0, 1, 'a', 'b', 0x7f, 0x80, 0xff}))
		seen := map[string]bool{}
		var names []string
		var counts []int32
		for i := range rapid.IntRange(0, 40).Draw(t, "n") {
			name := prefix + string(tail.Draw(t, "tail"))
			if seen[name] {
				continue
			}
			seen[name] = true
			names, counts = append(names, name), append(counts, int32(i))
		}
		countOf := map[string]int32{}
		for k, name := range names {
			countOf[name] = counts[k]
		}
		want := slices.Clone(names)
		slices.SortFunc(want, strings.Compare)
		sortNames(names, counts)
		if !slices.Equal(names, want) {
			t.Fatalf("names %q, want %q", names, want)
		}
		for k, name := range names {
			if counts[k] != countOf[name] {
				t.Fatalf("%q: count %d, want %d", name, counts[k], countOf[name])
			}
		}
	})
}

// TestEqualNames holds equalNames to slices.Equal on lists of names of
// every length around its two words (8 to 16 bytes), equal, copied, or
// differing in one byte anywhere, sharing their strings or not.
func TestEqualNames(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := rapid.SliceOfN(rapid.StringMatching(`[ab]{0,20}`), 0, 6).Draw(t, "a")
		b := make([]string, len(a))
		for i, s := range a {
			b[i] = s
			if rapid.Bool().Draw(t, "copy") {
				b[i] = strings.Clone(s)
			}
		}
		if len(b) > 0 && rapid.Bool().Draw(t, "change") {
			i := rapid.IntRange(0, len(b)-1).Draw(t, "at")
			if s := []byte(b[i]); len(s) > 0 {
				s[rapid.IntRange(0, len(s)-1).Draw(t, "byte")] ^= 3
				b[i] = string(s)
			}
		}
		if rapid.Bool().Draw(t, "longer") {
			b = append(b, "a")
		}
		if got, want := equalNames(a, b), slices.Equal(a, b); got != want {
			t.Fatalf("equalNames(%q, %q) = %v, want %v", a, b, got, want)
		}
	})
}
