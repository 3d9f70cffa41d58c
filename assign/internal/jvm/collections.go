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
	return stringOrder(0, keys)
}

// StringSetOrder returns the iteration order of new HashSet<String>(list)
// for a list holding keys in this order, repeats included (they count in
// the size the set is made for): the indices into keys of the first
// occurrence of each distinct key.
func StringSetOrder(keys []string) []int {
	return stringOrder(SetCapacity(len(keys)), keys)
}

func stringOrder(capacity int, keys []string) []int {
	first := firstOccurrences(keys)
	hashes := make([]int32, len(first))
	for e, i := range first {
		hashes[e] = StringHash(keys[i])
	}
	order := Order(capacity, hashes, func(a, b int) int { return CompareStrings(keys[first[a]], keys[first[b]]) })
	return entriesToIndices(order, first)
}

// IntSetOrder returns the iteration order of new HashSet<Integer>(list)
// for a list holding values in this order (Integer.hashCode is the
// value): the indices into values of the first occurrence of each
// distinct value.
func IntSetOrder(values []int32) []int {
	capacity := tableSizeFor(SetCapacity(len(values)))
	// The common case needs no table: distinct values in [0, capacity)
	// each have a bucket of their own (the spread leaves values below
	// 65536 unchanged, and the size never reaches the threshold), so the
	// set iterates in ascending order.
	if fast := ascendingIfSparse(values, capacity); fast != nil {
		return fast
	}
	first := firstOccurrences(values)
	hashes := make([]int32, len(first))
	for e, i := range first {
		hashes[e] = values[i]
	}
	// Equal Integer hashes are equal values: no compareTo is needed.
	return entriesToIndices(Order(capacity, hashes, nil), first)
}

// ascendingIfSparse returns the indices of values in ascending order of
// value when the values are distinct and all in [0, capacity) with
// capacity <= 65536, and nil otherwise.
func ascendingIfSparse(values []int32, capacity int) []int {
	if capacity > 1<<16 {
		return nil
	}
	at := make([]int32, capacity) // value => index + 1
	for i, v := range values {
		if v < 0 || int(v) >= capacity || at[v] != 0 {
			return nil
		}
		at[v] = int32(i + 1)
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
	return uuidOrder(0, keys)
}

// UuidSetOrder returns the iteration order of new HashSet<Uuid>(c) for a
// collection c whose size() is size and whose iterator yields keys in this
// order: the indices into keys of the first occurrence of each distinct
// key. size is usually len(keys); Kafka's TopicIds view reports the number
// of topic names, which may exceed the ids it yields.
func UuidSetOrder(size int, keys []Uuid) []int {
	return uuidOrder(SetCapacity(size), keys)
}

func uuidOrder(capacity int, keys []Uuid) []int {
	first := firstOccurrences(keys)
	hashes := make([]int32, len(first))
	for e, i := range first {
		hashes[e] = keys[i].Hash()
	}
	order := Order(capacity, hashes, func(a, b int) int { return keys[first[a]].Compare(keys[first[b]]) })
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
	if len(first) > 0 && first[len(first)-1] == len(first)-1 {
		return order // no repeats: entries are input indices
	}
	for k, e := range order {
		order[k] = first[e]
	}
	return slices.Clip(order)
}
