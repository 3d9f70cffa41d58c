package assign

// This file holds nameOrder, the radix sort of names by which compile
// orders the topic metadata.

import (
	"encoding/binary"
	"slices"
	"strings"
)

// namedCount is a name with a count, such as a topic's partitions.
type namedCount struct {
	name string
	n    int32
}

// nameOrder returns the indices of items in Go order of their names,
// the order of their bytes. Names usually share a long prefix
// (topic-00001, topic-00002, ...), which every comparison of whole names
// would read again. After the prefix all names share, the next eight
// bytes, big-endian and padded with zeros, are a key that orders two
// names whenever the keys differ: a radix sort orders the keys, byte by
// byte, skipping the bytes every key has alike, and only names with equal
// keys are then compared whole. It pays on the many topics of
// BenchmarkKIP848/shape=uniform-1000x100000, whose names share "topic-00"
// (bench/RESULTS.md has the figures); TestNameOrder checks the order
// against a sort comparing names.
func nameOrder(items []namedCount) []int32 {
	order := make([]int32, len(items))
	if len(items) < 2 {
		for i := range order {
			order[i] = int32(i)
		}
		return order
	}
	prefix := items[0].name
	for _, it := range items[1:] {
		n := 0
		for n < len(prefix) && n < len(it.name) && prefix[n] == it.name[n] {
			n++
		}
		prefix = prefix[:n]
	}
	keys := make([]keyed, len(items))
	for i := range items {
		var key [8]byte
		copy(key[:], items[i].name[len(prefix):])
		keys[i] = keyed{binary.BigEndian.Uint64(key[:]), int32(i)}
	}
	radixSortKeys(keys)
	for i := 0; i < len(keys); {
		j := i + 1
		for j < len(keys) && keys[j].key == keys[i].key {
			j++
		}
		if j-i > 1 {
			slices.SortFunc(keys[i:j], func(a, b keyed) int { return strings.Compare(items[a.i].name, items[b.i].name) })
		}
		i = j
	}
	for k, kd := range keys {
		order[k] = kd.i
	}
	return order
}

// keyed is an item's sort key and its index: what radixSortKeys moves,
// holding no pointer for the garbage collector to follow.
type keyed struct {
	key uint64
	i   int32
}

// radixSortKeys sorts keys by key, stably, a byte at a time from the
// lowest, skipping the bytes that are the same in every key.
func radixSortKeys(keys []keyed) {
	var differ uint64 // the bits in which some key differs from the first
	for _, k := range keys {
		differ |= k.key ^ keys[0].key
	}
	src, dst := keys, make([]keyed, len(keys))
	for shift := 0; shift < 64; shift += 8 {
		if byte(differ>>shift) == 0 {
			continue
		}
		var start [257]int
		for _, k := range src {
			start[int(byte(k.key>>shift))+1]++
		}
		for b := 1; b < len(start); b++ {
			start[b] += start[b-1]
		}
		for _, k := range src {
			b := byte(k.key >> shift)
			dst[start[b]] = k
			start[b]++
		}
		src, dst = dst, src
	}
	if &src[0] != &keys[0] {
		copy(keys, src)
	}
}
