package assign

// This file holds sortNames, the radix sort of names by which compile
// orders the topic metadata.

import (
	"encoding/binary"
	"slices"
	"strings"
)

// sortNames sorts names in Go order, the order of their bytes, and
// counts with them (counts[k] stays with names[k]), in place. The names
// must be distinct. Names usually share a long prefix (topic-00001,
// topic-00002, ...), which every comparison of whole names would read
// again. After the prefix all names share, the next eight bytes,
// big-endian and padded with zeros, are a key that orders two names
// whenever the keys differ: a radix sort orders the keys, byte by byte,
// skipping the bytes every key has alike, and only names with equal keys
// are then compared whole. It pays on the many topics of
// BenchmarkKIP848/shape=uniform-1000x100000, whose names share "topic-00"
// (bench/RESULTS.md has the figures). The names are then moved to their
// places along the permutation's cycles, in place: the one allocation is
// the keys and their scratch, which hold no pointer, where copying the
// names out of the map and back was much of what compile allocated
// there. TestSortNames checks the order against a sort
// comparing names.
func sortNames(names []string, counts []int32) {
	if len(names) < 2 {
		return
	}
	prefix := names[0]
	for _, name := range names[1:] {
		n := 0
		for n < len(prefix) && n < len(name) && prefix[n] == name[n] {
			n++
		}
		prefix = prefix[:n]
	}
	both := make([]keyed, 2*len(names))
	keys, scratch := both[:len(names):len(names)], both[len(names):]
	for i, name := range names {
		var key [8]byte
		copy(key[:], name[len(prefix):])
		keys[i] = keyed{binary.BigEndian.Uint64(key[:]), int32(i)}
	}
	radixSortKeys(keys, scratch)
	for i := 0; i < len(keys); {
		j := i + 1
		for j < len(keys) && keys[j].key == keys[i].key {
			j++
		}
		if j-i > 1 {
			slices.SortFunc(keys[i:j], func(a, b keyed) int { return strings.Compare(names[a.i], names[b.i]) })
		}
		i = j
	}
	// keys[k].i is the position names[k] is to be taken from. Each cycle
	// of that permutation is walked once from its first position, which
	// is saved and written last; positions walked are marked -1.
	for k := range keys {
		if keys[k].i < 0 || int(keys[k].i) == k {
			continue
		}
		name, count := names[k], counts[k]
		j := k
		for {
			src := int(keys[j].i)
			keys[j].i = -1
			if src == k {
				names[j], counts[j] = name, count
				break
			}
			names[j], counts[j] = names[src], counts[src]
			j = src
		}
	}
}

// keyed is an item's sort key and its index: what radixSortKeys moves,
// holding no pointer for the garbage collector to follow.
type keyed struct {
	key uint64
	i   int32
}

// radixSortKeys sorts keys by key, stably, a byte at a time from the
// lowest, skipping the bytes that are the same in every key; scratch is
// as long as keys.
func radixSortKeys(keys, scratch []keyed) {
	var differ uint64 // the bits in which some key differs from the first
	for _, k := range keys {
		differ |= k.key ^ keys[0].key
	}
	src, dst := keys, scratch
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
