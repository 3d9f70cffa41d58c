package keys

import (
	"crypto/rand"
	"encoding/binary"
	"math/bits"
	"testing"

	"pgregory.net/rapid"
)

// fingerprint is Seen's fold of a key, written again here from its
// definition: the low 8 bytes XOR the high 8 rotated left by 29, both
// little-endian.
func fingerprint(k [16]byte) uint64 {
	return binary.LittleEndian.Uint64(k[:8]) ^ bits.RotateLeft64(binary.LittleEndian.Uint64(k[8:]), 29)
}

// TestSeenAgainstMap adds random keys drawn from few bytes, so that keys
// repeat and distinct keys share fingerprints (the zero one included),
// to a Seen made for few keys, so that it grows; every answer is checked
// against a map of the keys and one of their fingerprints: a repeat is
// always reported, and a new key only when its fingerprint was seen.
func TestSeenAgainstMap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := NewSeen(rapid.IntRange(0, 8).Draw(t, "n"))
		keys := map[[16]byte]bool{}
		prints := map[uint64]bool{}
		for range rapid.IntRange(0, 300).Draw(t, "adds") {
			var k [16]byte
			for i := range k {
				k[i] = rapid.SampledFrom([]byte{0, 1, 0x80}).Draw(t, "byte")
			}
			f := fingerprint(k)
			want := keys[k] || prints[f]
			if got := s.Add(k); got != want {
				t.Fatalf("Add(%x) = %v; want %v (repeat %v, fingerprint seen %v)", k, got, want, keys[k], prints[f])
			}
			keys[k], prints[f] = true, true
		}
	})
}

// TestSeenDistinct adds 100,000 random keys to a Seen made for none:
// none is reported, and each again is.
func TestSeenDistinct(t *testing.T) {
	ks := make([][16]byte, 100_000)
	for i := range ks {
		rand.Read(ks[i][:])
	}
	s := NewSeen(0)
	for _, k := range ks {
		if s.Add(k) {
			t.Fatalf("Add(%x) reported a repeat among random keys", k)
		}
	}
	for _, k := range ks {
		if !s.Add(k) {
			t.Fatalf("Add(%x) again not reported", k)
		}
	}
}

// BenchmarkSeen finds repeats among 1000 random 16-byte keys, as
// CheckTopicIDs does a group's topic ids, with a Seen and with an Index.
func BenchmarkSeen(b *testing.B) {
	ks := make([][16]byte, 1000)
	for i := range ks {
		rand.Read(ks[i][:])
	}
	b.Run("seen", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s := NewSeen(len(ks))
			for _, k := range ks {
				if s.Add(k) {
					b.Fatal("repeat")
				}
			}
		}
	})
	b.Run("index", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			x := New[[16]byte](len(ks))
			for _, k := range ks {
				if _, added := x.Add(k); !added {
					b.Fatal("repeat")
				}
			}
		}
	})
}
