// Package keys numbers distinct keys in the order they are first added,
// for the few places of assign that must find repeated names or ids, or
// look one up, once per call: a Go map there is mostly the cost of making
// it. An [Index] is an open-addressing table over [maphash.Comparable]
// hashes with a seed of its own. Numbering 1000 member IDs
// (BenchmarkNumber), it takes fewer bytes and instructions than a
// map[string]int32.
//
// Nothing depends on the seed but the time taken: positions are the order
// of the first additions, and a key crafted to collide under one seed
// does not under the next.
package keys

import "hash/maphash"

// Index numbers the distinct keys added to it, from 0, in the order they
// are first added. The zero Index is not usable; make one with [New].
type Index[K comparable] struct {
	seed maphash.Seed
	keys []K // position => key
	// slots hold a key's position + 1 in the low 32 bits, 0 for an empty
	// slot, and the high 32 bits of its hash above, compared before the
	// keys; the length is a power of two.
	slots []uint64
}

// New returns an empty Index with room for n keys before it grows.
func New[K comparable](n int) *Index[K] {
	x := &Index[K]{seed: maphash.MakeSeed(), keys: make([]K, 0, n)}
	x.slots = make([]uint64, slotsFor(n))
	return x
}

// slotsFor returns the table length for n keys: a power of two at least
// twice n, so that a probe ends after about 1.5 slots on average.
func slotsFor(n int) int {
	size := 8
	for size < 2*n {
		size *= 2
	}
	return size
}

// Len returns the number of distinct keys added.
func (x *Index[K]) Len() int { return len(x.keys) }

// Key returns the key at position i.
func (x *Index[K]) Key(i int32) K { return x.keys[i] }

// Add adds k and returns its position and true, or, when k was added
// before, the position it was given then and false.
func (x *Index[K]) Add(k K) (int32, bool) {
	h := maphash.Comparable(x.seed, k)
	s, found := x.slot(k, h)
	if found {
		return int32(uint32(x.slots[s])) - 1, false
	}
	pos := int32(len(x.keys))
	x.keys = append(x.keys, k)
	x.slots[s] = entry(h, pos)
	if 2*len(x.keys) > len(x.slots) {
		x.grow()
	}
	return pos, true
}

// Find returns the position of k, if it was added.
func (x *Index[K]) Find(k K) (int32, bool) {
	s, found := x.slot(k, maphash.Comparable(x.seed, k))
	if !found {
		return -1, false
	}
	return int32(uint32(x.slots[s])) - 1, true
}

// entry is the slot of the key at pos whose hash is h.
func entry(h uint64, pos int32) uint64 { return h&^(1<<32-1) | uint64(pos+1) }

// slot returns the slot holding k, whose hash is h, or else the empty
// slot where k belongs.
func (x *Index[K]) slot(k K, h uint64) (uint64, bool) {
	mask := uint64(len(x.slots) - 1)
	tag := h &^ (1<<32 - 1)
	for s := h & mask; ; s = (s + 1) & mask {
		e := x.slots[s]
		if e == 0 {
			return s, false
		}
		if e&^(1<<32-1) == tag && x.keys[uint32(e)-1] == k {
			return s, true
		}
	}
}

// grow doubles the table and puts every key back.
func (x *Index[K]) grow() {
	x.slots = make([]uint64, 2*len(x.slots))
	mask := uint64(len(x.slots) - 1)
	for i, k := range x.keys {
		h := maphash.Comparable(x.seed, k)
		s := h & mask
		for x.slots[s] != 0 {
			s = (s + 1) & mask
		}
		x.slots[s] = entry(h, int32(i))
	}
}

// FirstRepeat returns the first i < n whose key(i) is not empty and
// equals an earlier key(j), or -1. Its table holds each key's position,
// not the key, and a key is compared with those in the slots it probes
// by calling key again: 4 bytes a slot, where an Index copies every key
// and keeps 8 bytes a slot. It is sized once, at the first non-empty key,
// for the keys left, and allocates nothing when every key is empty.
func FirstRepeat(n int, key func(i int) string) int {
	var (
		seed  maphash.Seed
		slots []uint32 // position + 1, 0 when empty
		mask  uint64
	)
	for i := range n {
		k := key(i)
		if k == "" {
			continue
		}
		if slots == nil {
			seed = maphash.MakeSeed()
			slots = make([]uint32, slotsFor(n-i))
			mask = uint64(len(slots) - 1)
		}
		for s := maphash.String(seed, k) & mask; ; s = (s + 1) & mask {
			e := slots[s]
			if e == 0 {
				slots[s] = uint32(i + 1)
				break
			}
			if key(int(e)-1) == k {
				return i
			}
		}
	}
	return -1
}
