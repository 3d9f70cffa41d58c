package keys

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"
)

// TestIndexAgainstMap adds and finds random keys, few enough to repeat,
// and checks every answer against a map numbering keys by first addition.
func TestIndexAgainstMap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		key := rapid.StringMatching(`[ab]{0,4}`)
		x := New[string](rapid.IntRange(0, 20).Draw(t, "n"))
		want := map[string]int32{}
		for range rapid.IntRange(0, 200).Draw(t, "ops") {
			k := key.Draw(t, "key")
			if rapid.Bool().Draw(t, "find") {
				pos, ok := x.Find(k)
				wpos, wok := want[k]
				if ok != wok || ok && pos != wpos {
					t.Fatalf("Find(%q) = %d, %v; want %d, %v", k, pos, ok, wpos, wok)
				}
				continue
			}
			pos, added := x.Add(k)
			wpos, seen := want[k]
			if !seen {
				wpos = int32(len(want))
				want[k] = wpos
			}
			if pos != wpos || added == seen {
				t.Fatalf("Add(%q) = %d, %v; want %d, %v", k, pos, added, wpos, !seen)
			}
			if x.Key(pos) != k {
				t.Fatalf("Key(%d) = %q, want %q", pos, x.Key(pos), k)
			}
		}
		if x.Len() != len(want) {
			t.Fatalf("Len() = %d, want %d", x.Len(), len(want))
		}
	})
}

// TestIndexGrows fills an Index made for no key with many, and finds
// every one at its position.
func TestIndexGrows(t *testing.T) {
	x := New[[16]byte](0)
	for i := range 5000 {
		var k [16]byte
		k[i%16] = byte(i)
		k[(i/256)%16] ^= byte(i / 256)
		k[15] = byte(i / 4096)
		x.Add(k)
	}
	if x.Len() < 1000 {
		t.Fatalf("only %d distinct keys", x.Len())
	}
	for i := range int32(x.Len()) {
		if pos, ok := x.Find(x.Key(i)); !ok || pos != i {
			t.Fatalf("Find(Key(%d)) = %d, %v", i, pos, ok)
		}
	}
}

var names = func() []string {
	s := make([]string, 1000)
	for i := range s {
		s[i] = fmt.Sprintf("consumer-%05d", i)
	}
	return s
}()

// BenchmarkNumber numbers 1000 distinct names, as compile does a group's
// member IDs, with an Index and with a map.
func BenchmarkNumber(b *testing.B) {
	b.Run("index", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			x := New[string](len(names))
			for _, n := range names {
				x.Add(n)
			}
		}
	})
	b.Run("map", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m := make(map[string]int32, len(names))
			for _, n := range names {
				if _, ok := m[n]; !ok {
					m[n] = int32(len(m))
				}
			}
		}
	})
}

// TestFirstRepeatAgainstMap checks FirstRepeat against a map of the keys
// seen, on keys few enough to repeat, empty ones among them (never a
// repeat), and on distinct keys, where it finds none.
func TestFirstRepeatAgainstMap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pattern := `[ab]{0,5}`
		if rapid.Bool().Draw(t, "wide") {
			pattern = `[a-z]{0,12}`
		}
		ks := rapid.SliceOfN(rapid.StringMatching(pattern), 0, 300).Draw(t, "keys")
		want := -1
		seen := map[string]bool{}
		for i, k := range ks {
			if k != "" && seen[k] {
				want = i
				break
			}
			seen[k] = true
		}
		if got := FirstRepeat(len(ks), func(i int) string { return ks[i] }); got != want {
			t.Fatalf("FirstRepeat(%q) = %d, want %d", ks, got, want)
		}
	})
}
