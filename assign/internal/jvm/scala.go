package jvm

import (
	"cmp"
	"slices"
)

// scalaImprove is scala.collection.Hashing.improve, which Scala 2.13's
// immutable.HashMap applies to a key's hashCode.
func scalaImprove(h int32) uint32 {
	x := uint32(h)
	x += ^(x << 9)
	x ^= x >> 14
	x += x << 4
	x ^= x >> 10
	return x
}

// ScalaMutableOrder returns the iteration order of a Scala 2.13
// mutable.HashMap with the given String keys, distinct, inserted in index
// order: the order of the buckets, improved hash h ^ (h >>> 16) masked by
// the table size, and within a bucket ascending improved hash (as a signed
// Int), equal hashes in insertion order. The table starts at 16 entries
// and doubles before an insertion that would bring the size to 3/4 of it.
func ScalaMutableOrder(keys []string) []int {
	capacity := 16
	for len(keys) >= capacity*3/4 {
		capacity *= 2
	}
	hashes := make([]int32, len(keys))
	for i, k := range keys {
		hashes[i] = Spread(StringHash(k))
	}
	order := make([]int, len(keys))
	for i := range order {
		order[i] = i
	}
	mask := int32(capacity - 1)
	slices.SortStableFunc(order, func(a, b int) int {
		if c := cmp.Compare(hashes[a]&mask, hashes[b]&mask); c != 0 {
			return c
		}
		return cmp.Compare(hashes[a], hashes[b])
	})
	return order
}

// ChampOrder returns the iteration order of a Scala 2.13 immutable.HashMap
// (a CHAMP trie) holding distinct keys with the given hashCodes, inserted
// in index order. The trie is canonical: an entry sits inline in the node
// of the shortest hash prefix no other entry shares, so its shape does not
// depend on insertion order, except inside a collision node. Each node
// lists its inline entries first, by their 5-bit digit of the improved
// hash (level 0 takes the lowest five bits), then its sub-nodes by digit.
func ChampOrder(hashCodes []int32) []int {
	entries := make([]int, len(hashCodes))
	improved := make([]uint32, len(hashCodes))
	for i, h := range hashCodes {
		entries[i] = i
		improved[i] = scalaImprove(h)
	}
	var order []int
	var walk func(entries []int, shift uint)
	walk = func(entries []int, shift uint) {
		if shift >= 32 { // equal hashes: a collision node, in insertion order
			order = append(order, entries...)
			return
		}
		var slots [32][]int
		for _, e := range entries {
			d := improved[e] >> shift & 31
			slots[d] = append(slots[d], e)
		}
		for _, s := range slots { // inline entries first, by digit
			if len(s) == 1 {
				order = append(order, s[0])
			}
		}
		for _, s := range slots { // then sub-nodes, by digit
			if len(s) > 1 {
				walk(s, shift+5)
			}
		}
	}
	walk(entries, 0)
	return order
}
