// Package intern numbers names against a list of distinct names sorted in
// Go order, for the edges of assign that read many lists of names, each
// usually sorted: the subscriptions and owned partitions of every member
// of a group, looked up in the group's topic metadata (assign's compile
// step and its packing of [assign.Assignment] lists, and the JoinGroup
// decoder of package wire).
//
// Kafka's clients sort subscriptions and owned partitions, so a list
// usually names a topic at or shortly after the one it named before: a
// [Cursor] remembers where that was, and [Sorted.Next] compares the few
// names from there before it looks a name up, so that a sorted list costs
// a few comparisons of bytes per name (most end at the length) and no
// hashing. The lookup after a missed guess is a binary search in a short
// list, and a hash table of positions built once otherwise.
package intern

import (
	"encoding/binary"
	"hash/maphash"
	"math/bits"
	"slices"
	"unsafe"
)

// guesses is how many names from the cursor Next compares before it looks
// a name up: members that subscribe to most topics, not all, skip a few
// between two of theirs, and trying more costs more than the lookup when
// lists name few topics of many.
const guesses = 4

// shortList is the length up to which a list is binary searched rather
// than indexed: building the index costs more than it saves there.
const shortList = 16

// Sorted finds names in a list of distinct names sorted in Go order (the
// order of their bytes). The zero Sorted holds no names.
type Sorted struct {
	names []string
	index *index // nil when names is short
}

// index is an open-addressing table of positions in a Sorted's names by
// the names' hashes: it holds no copy of the names, unlike a map or a
// keys.Index.
//
// A name's hash is first a fold of its length and its first and last
// eight bytes, multiplied by an odd number drawn for each index, whose
// high bits pick the slot (multiply-shift): a few instructions where
// maphash.String is a call into the runtime per name (BenchmarkFind; compile
// looks up a name per member's current target on
// BenchmarkKIP848/shape=uniform-1000x100000/strategy=uniform/churn=leave1).
// Names that differ only in their middle bytes fold alike; should they
// push a name more than maxShift slots past its own while the table is
// built, the table is built again with maphash (byMaphash). A name is
// never further than shift slots from its own, so a look-up stops there.
// TestIndexFoldsAndFallsBack holds both to a linear search.
type index struct {
	seed      maphash.Seed
	mul       uint64 // odd
	drop      uint   // 64 - log2(len(slots)): the low bits of the product dropped
	byMaphash bool
	shift     int // the furthest any name lies past its own slot
	// slots hold a name's position + 1, 0 for an empty slot; the length
	// is a power of two at least twice the names'.
	slots []uint32
}

// maxShift is how far past its own slot the folded hashes may push a
// name before the index is built again with maphash. At the load of at
// most one half that the table keeps, hashes that spread the names
// leave every name far closer to its slot.
const maxShift = 32

// New returns a Sorted over names, which must be distinct and sorted in
// Go order; it keeps names, which must not be modified after.
func New(names []string) Sorted {
	s := Sorted{names: names}
	if len(names) <= shortList {
		return s
	}
	size := 8
	for size < 2*len(names) {
		size *= 2
	}
	x := &index{seed: maphash.MakeSeed(), slots: make([]uint32, size), drop: uint(64 - bits.TrailingZeros(uint(size)))}
	x.mul = maphash.Comparable(x.seed, uint64(size)) | 1
	if !x.fill(names) {
		x.byMaphash = true
		clear(x.slots)
		x.shift = 0
		x.fill(names)
	}
	s.index = x
	return s
}

// fill puts every name in x's slots, and reports false, leaving them
// half filled, when a folded hash pushes a name more than maxShift slots
// past its own.
func (x *index) fill(names []string) bool {
	mask := len(x.slots) - 1
	for k, name := range names {
		home := x.home(name)
		i := home
		for x.slots[i] != 0 {
			i = (i + 1) & mask
		}
		x.slots[i] = uint32(k + 1)
		if d := (i - home) & mask; d > x.shift {
			if d > maxShift && !x.byMaphash {
				return false
			}
			x.shift = d
		}
	}
	return true
}

// home returns name's own slot.
func (x *index) home(name string) int {
	if x.byMaphash {
		return int(maphash.String(x.seed, name) & uint64(len(x.slots)-1))
	}
	return int((fold(name) * x.mul) >> x.drop)
}

// fold returns a name's length and its first and last eight bytes (or
// its bytes, when fewer) in one word.
func fold(name string) uint64 {
	b := unsafe.Slice(unsafe.StringData(name), len(name))
	if len(b) < 8 {
		v := uint64(len(b)) << 56
		for i, c := range b {
			v |= uint64(c) << (8 * i)
		}
		return v
	}
	return binary.LittleEndian.Uint64(b) ^ bits.RotateLeft64(binary.LittleEndian.Uint64(b[len(b)-8:]), 29) ^ uint64(len(b))
}

// Names returns the names, in Go order. It must not be modified.
func (s *Sorted) Names() []string { return s.names }

// Find returns the position of name, if it is listed.
func (s *Sorted) Find(name string) (int32, bool) {
	if s.index == nil {
		k, ok := slices.BinarySearch(s.names, name)
		if !ok {
			return -1, false
		}
		return int32(k), true
	}
	x := s.index
	mask := len(x.slots) - 1
	i := x.home(name)
	for range x.shift + 1 {
		e := x.slots[i]
		if e == 0 {
			return -1, false
		}
		if s.names[e-1] == name {
			return int32(e - 1), true
		}
		i = (i + 1) & mask
	}
	return -1, false
}

// A Cursor is where [Sorted.Next] guesses the next name of a list is: the
// position after the last name it found. The zero Cursor guesses the
// first names; start a new list with a new Cursor.
type Cursor struct{ next int32 }

// Next returns the position of name, if it is listed, comparing the
// guesses names from c before it looks the name up, and moves c past it
// when found. A name not listed leaves c where it was.
func (s *Sorted) Next(name string, c *Cursor) (int32, bool) {
	end := min(c.next+guesses, int32(len(s.names)))
	// A name that is the listed string itself (the same bytes in memory,
	// as when a group's Topics hold its metadata's keys, or the JoinGroup
	// decoder's interned names) is found by its address before any bytes
	// are compared: interning the Topics of members that each list their
	// own is most of Assign on BenchmarkAssign/strategy=sticky/impl=ours/
	// shape=hetero-1000x2000t-join1 in bench/.
	at := unsafe.StringData(name)
	for k := c.next; k < end; k++ {
		if unsafe.StringData(s.names[k]) == at && len(s.names[k]) == len(name) {
			c.next = k + 1
			return k, true
		}
	}
	return s.byBytes(name, c)
}

// byBytes is Next past the comparison of addresses: it compares the
// guesses' bytes, then looks the name up.
func (s *Sorted) byBytes(name string, c *Cursor) (int32, bool) {
	end := min(c.next+guesses, int32(len(s.names)))
	for k := c.next; k < end; k++ {
		if s.names[k] == name {
			c.next = k + 1
			return k, true
		}
	}
	k, ok := s.Find(name)
	if ok {
		c.next = k + 1
	}
	return k, ok
}

// NextBytes is [Sorted.Next] for a name given as bytes, such as a view of
// a message being decoded; it allocates nothing.
func (s *Sorted) NextBytes(name []byte, c *Cursor) (int32, bool) {
	// The string shares name's bytes: byBytes only compares and hashes
	// it and keeps nothing, so the bytes need not be copied. Bytes of a
	// message are never a listed string: Next's comparison of addresses
	// would only cost (BenchmarkRound in bench/, shape=hetero-1000x2000t,
	// whose decoder looks up 1.2 million names a round).
	return s.byBytes(unsafe.String(unsafe.SliceData(name), len(name)), c)
}

// Positions appends to out the position of each of names, -1 for a name
// not listed, looking them up with one Cursor as [Sorted.Next] does.
// Its loop keeps the cursor in a register and compares the guesses'
// addresses in line, calling out only for a name that is not one of
// them: compile reads every member's Topics with it, most of Assign on
// BenchmarkAssign/strategy=sticky/impl=ours/shape=hetero-1000x2000t in
// bench/ (BenchmarkCompileSubs in assign).
func (s *Sorted) Positions(names []string, out []int32) []int32 {
	listed := s.names
	next := int32(0)
	for _, name := range names {
		at, n := unsafe.StringData(name), len(name)
		end := min(next+guesses, int32(len(listed)))
		k := next
		for k < end && (unsafe.StringData(listed[k]) != at || len(listed[k]) != n) {
			k++
		}
		if k == end {
			c := Cursor{next}
			var ok bool
			if k, ok = s.byBytes(name, &c); !ok {
				k = -1
			}
			next = c.next
		} else {
			next = k + 1
		}
		out = append(out, k)
	}
	return out
}
