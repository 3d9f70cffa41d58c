package keys

import (
	"encoding/binary"
	"hash/maphash"
	"math/bits"
)

// Seen finds repeats among 16-byte keys (topic ids) that are added one
// by one, as from a map's iteration, keeping 8 bytes of each: a folded
// fingerprint. Equal keys have equal fingerprints, so Add never misses a
// repeat; two keys with one fingerprint are reported as a possible
// repeat, which the caller settles with an exact check (it is also what
// a crafted set of keys can force, once, not a slowdown per key).
//
// It costs less than an [Index] of the keys (BenchmarkSeen): no copy of
// the keys, and a multiplication by an odd number drawn for each Seen in
// place of maphash, whose fingerprints' high bits pick the slot
// (multiply-shift hashing, universal: a set of keys crafted to crowd the
// slots of one multiplier does not crowd another's). [assign.CheckTopicIDs]
// checks every topic id of a group with it on each call of the KIP-848
// assignors.
type Seen struct {
	mul   uint64   // odd
	shift uint     // 64 - log2(len(slots))
	slots []uint64 // fingerprints; 0 is an empty slot
	n     int      // fingerprints held, the zero one included
	zero  bool     // the zero fingerprint was added
}

// NewSeen returns an empty Seen with room for n keys before it grows.
func NewSeen(n int) *Seen {
	size := slotsFor(n)
	s := &Seen{slots: make([]uint64, size), shift: uint(64 - bits.TrailingZeros(uint(size)))}
	s.mul = maphash.Comparable(maphash.MakeSeed(), uint64(size)) | 1
	return s
}

// Add adds k and reports whether a key of the same fingerprint, k
// itself or another, was added before.
func (s *Seen) Add(k [16]byte) (maybeRepeat bool) {
	f := binary.LittleEndian.Uint64(k[:8]) ^ bits.RotateLeft64(binary.LittleEndian.Uint64(k[8:]), 29)
	if f == 0 {
		maybeRepeat, s.zero = s.zero, true
		if !maybeRepeat {
			s.n++
		}
		return maybeRepeat
	}
	if 2*(s.n+1) > len(s.slots) {
		s.grow()
	}
	mask := uint64(len(s.slots) - 1)
	for i := (f * s.mul) >> s.shift; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case 0:
			s.slots[i] = f
			s.n++
			return false
		case f:
			return true
		}
	}
}

// grow doubles the table and puts every fingerprint back.
func (s *Seen) grow() {
	old := s.slots
	s.slots = make([]uint64, 2*len(old))
	s.shift--
	mask := uint64(len(s.slots) - 1)
	for _, f := range old {
		if f == 0 {
			continue
		}
		i := (f * s.mul) >> s.shift
		for s.slots[i] != 0 {
			i = (i + 1) & mask
		}
		s.slots[i] = f
	}
}
