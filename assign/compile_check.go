package assign

// This file holds compile's validation of what every strategy relies on:
// member IDs and instance IDs, the topic metadata and its replica racks.
// Validation happens once, here, at the boundary.

import (
	"fmt"
	"maps"
	"slices"

	"github.com/assigncalc/assigncalc/assign/internal/keys"
)

// checkMembers checks that every member has an ID and that no ID or
// instance ID is repeated. The first member at fault is reported, for the
// first of its faults in that order. A member subscribed by pattern is
// refused after those: only [Uniform] and [ServerRange] resolve a
// pattern, before they compile (see [ResolveTopicRegex]).
func checkMembers(members []Member) error {
	if err := checkMemberIDs(members); err != nil {
		return err
	}
	for i := range members {
		if members[i].TopicRegex != "" {
			return memberError(i, &members[i], errClassicRegex)
		}
	}
	return nil
}

// checkMemberIDs is checkMembers without the refusal of a TopicRegex.
func checkMemberIDs(members []Member) error {
	empty := -1
	for i := range members {
		if members[i].ID == "" {
			empty = i
			break
		}
	}
	dupID := firstRepeat(members, func(m *Member) string { return m.ID })
	dupInstance := firstRepeat(members, func(m *Member) string { return m.InstanceID })
	i := firstOf(empty, dupID, dupInstance)
	if i < 0 {
		return nil
	}
	m := &members[i]
	switch i {
	case empty:
		return memberError(i, m, ErrEmptyMemberID)
	case dupID:
		return memberError(i, m, ErrDuplicateMemberID)
	default:
		return memberError(i, m, fmt.Errorf("%w %q", ErrDuplicateInstanceID, m.InstanceID))
	}
}

// checkMetadata checks every topic of the metadata, subscribed or not,
// and its replica racks, and returns the topics' names in Go order and
// their partition counts (parallel to the names).
func checkMetadata(g *Group) (meta []string, metaParts []int32, err error) {
	var listed []string // a member's subscription, which may list the metadata in order
	if len(g.Members) > 0 {
		listed = g.Members[0].Topics
	}
	meta, metaParts = sortedMetadata(g.Topics, listed)
	for k, t := range meta {
		if t == "" {
			return nil, nil, topicError(t, ErrEmptyTopicName)
		}
		if metaParts[k] < 0 {
			return nil, nil, topicError(t, fmt.Errorf("%w %d", ErrNegativePartitions, metaParts[k]))
		}
	}
	// A pass in map order finds whether a rack list is wrong; only then
	// are the topics sorted, to report the first fault whatever the map
	// order.
	for t, lists := range g.PartitionRacks {
		if n, ok := g.Topics[t]; !ok || len(lists) != int(n) {
			return nil, nil, firstRackFault(g)
		}
	}
	return meta, metaParts, nil
}

// sortedMetadata returns the topics' names in Go order and their
// partition counts (parallel to the names). A few topics are sorted in
// place, by insertion, allocating nothing more (BenchmarkAssign/
// strategy=sticky/impl=ours/shape=uniform-10x100-join1 in bench/); more
// are read in the order of listed when listed names them all
// ([metadataListed]), else sorted by [sortNames].
func sortedMetadata(topics map[string]int32, listed []string) (meta []string, metaParts []int32) {
	meta = make([]string, 0, len(topics))
	metaParts = make([]int32, 0, len(topics))
	if len(topics) <= shortList {
		for t, n := range topics {
			meta, metaParts = append(meta, t), append(metaParts, n)
			for j := len(meta) - 1; j > 0 && meta[j] < meta[j-1]; j-- {
				meta[j], meta[j-1] = meta[j-1], meta[j]
				metaParts[j], metaParts[j-1] = metaParts[j-1], metaParts[j]
			}
		}
		return meta, metaParts
	}
	if parts, ok := metadataListed(topics, listed, metaParts); ok {
		return append(meta, listed...), parts
	}
	for t, n := range topics {
		meta, metaParts = append(meta, t), append(metaParts, n)
	}
	sortNames(meta, metaParts)
	return meta, metaParts
}

// metadataListed appends to parts the partition counts of the topics
// of listed and reports true when listed is every topic of the metadata,
// in Go order: as many names as topics, each after the one before (so
// none twice), each a topic. Members of a KIP-848 group often subscribe
// to every topic the coordinator's metadata holds, and clients list
// their topics sorted; a comparison and a lookup per name then cost
// less than reading the map and sorting its names
// (BenchmarkKIP848/shape=uniform-1000x100000/strategy=uniform/churn=leave1).
// TestSortedMetadata holds it to a sort of the map's names.
func metadataListed(topics map[string]int32, listed []string, parts []int32) ([]int32, bool) {
	if len(listed) != len(topics) {
		return parts, false
	}
	for i := 1; i < len(listed); i++ {
		if listed[i] <= listed[i-1] {
			return parts, false
		}
	}
	for _, name := range listed {
		n, ok := topics[name]
		if !ok {
			return parts, false
		}
		parts = append(parts, n)
	}
	return parts, true
}

// firstRackFault returns the error of the first topic, in Go order,
// whose replica racks are not one list per partition of a topic of the
// metadata.
func firstRackFault(g *Group) error {
	for _, t := range slices.Sorted(maps.Keys(g.PartitionRacks)) {
		n, ok := g.Topics[t]
		if !ok {
			return topicError(t, ErrRacksUnknownTopic)
		}
		if got := len(g.PartitionRacks[t]); got != int(n) {
			return topicError(t, fmt.Errorf("%w: %d rack lists for %d partitions", ErrRackCount, got, n))
		}
	}
	return nil
}

// firstRepeat returns the position of the first item whose non-empty key
// equals an earlier item's, or -1. Short lists are compared pairwise,
// which costs less than a table; longer ones are first checked for keys
// that strictly ascend but for a few out of place (nearlyAscending), as
// member IDs listed in order do, even with one member replaced (a
// comparison per key, most ending at a byte near the end, where a table
// hashes every key), then go through a table of positions that copies no
// key ([keys.FirstRepeat]). Member IDs are checked on every call of every
// strategy: the table of keys this replaced showed in the profile of
// BenchmarkKIP848/shape=uniform-1000x100000/strategy=uniform/churn=leave1,
// and so did the table that the check for keys all ascending left to it
// there, where the first member is replaced by a later ID.
// TestFirstRepeat holds both to a statement of what is found.
func firstRepeat[T any](items []T, key func(*T) string) int {
	if len(items) <= shortList {
		var keys [shortList]string
		for i := range items {
			k := key(&items[i])
			keys[i] = k
			if k == "" {
				continue
			}
			for _, e := range keys[:i] {
				// IDs such as consumer-00001 differ at the end: look there
				// before comparing whole strings.
				if len(e) == len(k) && e[len(e)-1] == k[len(k)-1] && e == k {
					return i
				}
			}
		}
		return -1
	}
	if first, ok := nearlyAscending(items, key); ok {
		return first
	}
	return keys.FirstRepeat(len(items), func(i int) string { return key(&items[i]) })
}

// outOfPlace is how many keys nearlyAscending sets aside at most: each
// costs a pass over the keys.
const outOfPlace = 4

// nearlyAscending returns firstRepeat's answer, with ok, when the items'
// non-empty keys strictly ascend in Go order once at most outOfPlace of
// them are set aside. Keys that ascend repeat none of each other: only a
// key set aside can repeat another, and each is compared with every key.
//
// A key not above the last one kept sets one of the two aside: the last
// kept when the key is above the one kept before it (a large key among
// smaller ones, as a replaced member's new ID often is), else the key.
func nearlyAscending[T any](items []T, key func(*T) string) (first int, ok bool) {
	var aside [outOfPlace]int
	n := 0
	last, before := -1, -1 // the last two positions kept, ascending
	for i := range items {
		k := key(&items[i])
		switch {
		case k == "":
			continue // an empty key repeats nothing
		case last < 0 || k > key(&items[last]):
			before, last = last, i
			continue
		case n == len(aside):
			return 0, false
		case before < 0 || k > key(&items[before]):
			aside[n], last = last, i
		default:
			aside[n] = i
		}
		n++
	}
	first = -1
	for _, o := range aside[:n] {
		k := key(&items[o])
		for j := range items {
			if later := max(o, j); j != o && (first < 0 || later < first) && key(&items[j]) == k {
				first = later
			}
		}
	}
	return first, true
}

// shortList is the length up to which firstRepeat compares keys pairwise
// rather than with an index.
const shortList = 16

// firstOf returns the smallest of the non-negative positions, or -1.
func firstOf(positions ...int) int {
	first := -1
	for _, p := range positions {
		if p >= 0 && (first < 0 || p < first) {
			first = p
		}
	}
	return first
}
