package jvm

import (
	"slices"

	"github.com/assigncalc/assigncalc/assign/internal/keys"
)

// StringMapOrder returns the iteration order of a new HashMap<String, V>()
// into which keys were put in the given order: the indices into keys of
// the first occurrence of each distinct key. A repeated put only replaces
// a value and changes no order.
func StringMapOrder(keys []string) []int {
	return stringOrder(0, keys, firstOccurrences(keys))
}

// StringMapOrderDistinct is [StringMapOrder] for keys known to be
// distinct, which it does not check: it skips the search for repeats.
func StringMapOrderDistinct(keys []string) []int {
	return stringOrder(0, keys, nil)
}

// StringSetOrder returns the iteration order of new HashSet<String>(list)
// for a list holding keys in this order, repeats included (they count in
// the size the set is made for): the indices into keys of the first
// occurrence of each distinct key.
func StringSetOrder(keys []string) []int {
	return stringOrder(SetCapacity(len(keys)), keys, firstOccurrences(keys))
}

// StringSetOrderDistinct is [StringSetOrder] for keys known to be
// distinct, which it does not check: it skips the search for repeats.
func StringSetOrderDistinct(keys []string) []int {
	return stringOrder(SetCapacity(len(keys)), keys, nil)
}

// stringOrder returns the order of keys' distinct entries in a HashMap
// of that initial capacity, as indices into keys. first lists the index
// of each distinct key (firstOccurrences), or is nil when every key is
// distinct.
func stringOrder(capacity int, keys []string, first []int) []int {
	distinct := pick(keys, first)
	hashes := make([]int32, len(distinct))
	for e, k := range distinct {
		hashes[e] = StringHash(k)
	}
	order := Order(capacity, hashes, func(a, b int) int { return CompareStrings(distinct[a], distinct[b]) })
	return entriesToIndices(order, first)
}

// pick returns the items at the indices first lists, or items itself
// when first is nil or lists every item.
func pick[T any](items []T, first []int) []T {
	if first == nil || len(first) == len(items) {
		return items
	}
	out := make([]T, len(first))
	for e, i := range first {
		out[e] = items[i]
	}
	return out
}

// IntSetOrder returns the iteration order of new HashSet<Integer>(list)
// for a list holding values in this order (Integer.hashCode is the
// value): the indices into values of the first occurrence of each
// distinct value.
func IntSetOrder(values []int32) []int {
	capacity := tableSizeFor(SetCapacity(len(values)))
	if fast := inDistinctBuckets(values, capacity); fast != nil {
		return fast
	}
	// An Integer's hash is its value, and equal hashes are equal values:
	// no compareTo is needed.
	first := firstOccurrences(values)
	return entriesToIndices(Order(capacity, pick(values, first), nil), first)
}

// inDistinctBuckets returns the indices of values in the order of their
// buckets, Spread(v) & (capacity-1), when no two values share a bucket,
// and nil otherwise. That is the common case, which needs no table: a
// set with a bucket per value iterates bucket by bucket, whatever the
// order the values were put in. Distinct values in [0, capacity) are in
// it (they iterate ascending), and so is any stretch of consecutive
// partitions within a block of 65536 (h >>> 16 is the same for all of
// them, so their buckets are their values' low bits XORed with one
// constant). That is every member's target on
// BenchmarkKIP848/shape=uniform-2000x1000000/strategy=uniform-ranges/churn=join1,
// 500 consecutive partitions of a topic of 10,000 each.
// TestIntSetFastPathMatchesTable checks it against the table.
func inDistinctBuckets(values []int32, capacity int) []int {
	at := make([]int32, capacity) // bucket => index + 1
	mask := uint32(capacity - 1)
	for i, v := range values {
		b := uint32(Spread(v)) & mask
		if at[b] != 0 {
			return nil
		}
		at[b] = int32(i + 1)
	}
	order := make([]int, 0, len(values))
	for _, i := range at {
		if i != 0 {
			order = append(order, int(i-1))
		}
	}
	return order
}

// UuidMapOrder returns the iteration order of a new HashMap<Uuid, V>()
// into which keys were put in the given order: the indices into keys of
// the first occurrence of each distinct key.
func UuidMapOrder(keys []Uuid) []int {
	return uuidOrder(0, keys, firstOccurrences(keys))
}

// UuidSetOrder returns the iteration order of new HashSet<Uuid>(c) for a
// collection c whose size() is size and whose iterator yields keys in this
// order: the indices into keys of the first occurrence of each distinct
// key. size is usually len(keys); Kafka's TopicIds view reports the number
// of topic names, which may exceed the ids it yields.
func UuidSetOrder(size int, keys []Uuid) []int {
	return uuidOrder(SetCapacity(size), keys, firstOccurrences(keys))
}

// UuidSetOrderDistinct is [UuidSetOrder] for keys known to be distinct,
// which it does not check: it skips the search for repeats.
func UuidSetOrderDistinct(size int, keys []Uuid) []int {
	return uuidOrder(SetCapacity(size), keys, nil)
}

// uuidOrder is stringOrder for Uuids.
func uuidOrder(capacity int, keys []Uuid, first []int) []int {
	distinct := pick(keys, first)
	hashes := make([]int32, len(distinct))
	for e, k := range distinct {
		hashes[e] = k.Hash()
	}
	order := Order(capacity, hashes, func(a, b int) int { return distinct[a].Compare(distinct[b]) })
	return entriesToIndices(order, first)
}

// firstOccurrences returns the indices of the first occurrence of each
// distinct key, ascending: the entries a map or set into which the keys
// were put in this order holds, numbered by insertion.
func firstOccurrences[K comparable](list []K) []int {
	first := make([]int, 0, len(list))
	seen := keys.New[K](len(list))
	for i, k := range list {
		if _, added := seen.Add(k); added {
			first = append(first, i)
		}
	}
	return first
}

// entriesToIndices maps entry indices to the indices of the input they
// came from, in place.
func entriesToIndices(order, first []int) []int {
	if first == nil || len(first) > 0 && first[len(first)-1] == len(first)-1 {
		return order // no repeats: entries are input indices
	}
	for k, e := range order {
		order[k] = first[e]
	}
	return slices.Clip(order)
}
