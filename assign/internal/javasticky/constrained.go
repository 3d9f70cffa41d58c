package javasticky

import (
	"slices"

	"github.com/assigncalc/assigncalc/assign/internal/jvm"
)

// constrained is AbstractStickyAssignor.ConstrainedAssignmentBuilder, the
// path Java takes when every subscription is the same: keep what each
// member owned up to its quota, then deal the rest round robin, within
// racks first when rack-aware.
type constrained struct {
	s            *leader
	current      [][]pid // consumerToOwnedPartitions
	multiple     []bool  // by pid
	maybeRevoked []int32 // by pid: the member that may revoke it, or -1 (allRevokedPartitions before KAFKA-15170)
	under        []int   // unfilledMembersWithUnderMinQuotaPartitions
	exact        []int   // unfilledMembersWithExactlyMinQuotaPartitions
	minQuota     int
	maxQuota     int
	expectedOver int
	currentOver  int
	assignment   [][]pid
	assigned     []pid
	transferring map[pid]int // partitionsTransferringOwnership
}

func newConstrained(s *leader, current [][]pid, multiple []bool) *constrained {
	n := len(s.ids)
	b := &constrained{
		s: s, current: current, multiple: multiple,
		maybeRevoked: make([]int32, s.idx.size()),
		assignment:   make([][]pid, n),
		transferring: map[pid]int{},
	}
	for i := range b.maybeRevoked {
		b.maybeRevoked[i] = -1
	}
	if n == 0 {
		// Java computes totalPartitionsCount % 0.
		throw("ArithmeticException", "/ by zero")
	}
	b.minQuota = s.total / n
	b.maxQuota = (s.total + n - 1) / n
	b.expectedOver = s.total % n
	return b
}

func (b *constrained) build() [][]pid {
	b.assignOwned()
	unassigned := b.unassignedPartitions()
	slices.SortStableFunc(b.under, b.s.compareIDs)
	slices.SortStableFunc(b.exact, b.s.compareIDs)
	if ri := &b.s.rack; len(ri.numConsumers) > 0 {
		slices.SortStableFunc(unassigned, func(x, y pid) int { return ri.numOf(x) - ri.numOf(y) })
	}
	unassigned = b.assignRackAwareRoundRobin(unassigned)
	b.assignRoundRobin(unassigned)
	b.verifyUnfilled()
	return b.assignment
}

// consumerToOwnedOrder is the iteration order of consumerToOwnedPartitions,
// a HashMap filled in the order of the subscriptions map.
func (b *constrained) consumerToOwnedOrder() []int {
	keys := make([]string, len(b.s.order))
	for k, c := range b.s.order {
		keys[k] = b.s.ids[c]
	}
	order := jvm.StringMapOrderDistinct(keys)
	for k, e := range order {
		order[k] = b.s.order[e]
	}
	return order
}

func (b *constrained) assignOwned() {
	x := b.s.idx
	var keys []uint64
	// Members are given their partitions as slices of one slab: each
	// keeps at most maxQuota of its own and is dealt up to maxQuota.
	slab := make([]pid, 0, len(b.s.ids)*b.maxQuota)
	// assigned holds at most every claim: sized once, it is not copied
	// as it grows (growing it was a seventh of Assign on
	// homogeneous-1000x100x100 join1).
	claims := 0
	for _, l := range b.current {
		claims += len(l)
	}
	b.assigned = make([]pid, 0, min(claims, cap(slab))) // each member keeps at most maxQuota
	for _, c := range b.consumerToOwnedOrder() {
		owned := b.current[c][:0] // the list is not read again
		if b.s.v.sortsOwnedByPartition() {
			// Java sorts by partition, then topic (KAFKA-16277), stably;
			// distinct values sort the same unstably, here as keys.
			keys = keys[:0]
			for _, p := range b.current[c] {
				if b.s.rack.mismatchPid(c, p) {
					b.revokeMismatch(p, c)
					continue
				}
				if b.multiple[p] {
					continue // removed after the sort in Java: the rest keep their order
				}
				r, n := x.topicPart(p)
				keys = append(keys, uint64(uint32(n)^1<<31)<<32|uint64(r))
			}
			slices.Sort(keys)
			for _, k := range keys {
				r, n := int32(uint32(k)), int32(uint32(k>>32)^1<<31)
				if n >= 0 && n < x.base[r+1]-x.base[r] {
					owned = append(owned, x.base[r]+n)
				} else {
					owned = append(owned, x.id(r, n))
				}
			}
		} else {
			// The claims' own order: (topic, partition), or for eager
			// sticky with a generation, the order of its user data.
			if !b.s.cooperative && b.s.hasClaimGen[c] {
				b.userDataOrder(c, b.current[c])
			}
			for _, p := range b.current[c] {
				if b.s.rack.mismatchPid(c, p) {
					b.revokeMismatch(p, c)
				} else if !b.multiple[p] {
					owned = append(owned, p)
				}
			}
		}
		keep := len(owned)
		switch {
		case len(owned) < b.minQuota:
			b.under = append(b.under, c)
		case len(owned) >= b.maxQuota && b.currentOver < b.expectedOver:
			b.currentOver++
			if b.currentOver == b.expectedOver {
				b.exact = b.exact[:0]
			}
			keep = b.maxQuota
		default:
			keep = b.minQuota
			if b.currentOver < b.expectedOver {
				b.exact = append(b.exact, c)
			}
		}
		for _, p := range owned[keep:] {
			b.maybeRevoked[p] = int32(c)
		}
		mine := append(slab[len(slab):len(slab):len(slab)+b.maxQuota], owned[:keep]...)
		slab = slab[:len(slab)+b.maxQuota]
		b.assignment[c] = mine
		b.assigned = append(b.assigned, mine...)
	}
}

// unassignedPartitions is the constrained getUnassignedPartitions: a walk
// of all partitions (topics in String order) beside the sorted assigned
// ones. Like Java's, a kept claim of a partition the topic no longer has
// stops the walk's pointer, and every later partition counts as
// unassigned.
func (b *constrained) unassignedPartitions() []pid {
	total := pid(b.s.total)
	if len(b.assigned) == 0 {
		out := make([]pid, total)
		for i := range out {
			out[i] = pid(i)
		}
		return out
	}
	out := make([]pid, 0, max(0, int(total)-len(b.assigned)))
	if mark, ok := markDistinct(b.assigned, total); ok {
		// Every assigned partition is one of the walk's, once: the walk
		// then matches each in turn and returns the others, which a mark
		// per partition finds without sorting.
		for p := range total {
			if !mark[p] {
				out = append(out, p)
			}
		}
		return out
	}
	sorted := b.assigned
	b.s.idx.sortByTopic(sorted) // stable in Java; equal values are equal partitions
	k := 0
	direct := false
	for p := range total {
		if direct || sorted[k] != p {
			out = append(out, p)
		} else if k+1 < len(sorted) {
			k++
		} else {
			direct = true
		}
	}
	return out
}

func (b *constrained) assignRackAwareRoundRobin(unassigned []pid) []pid {
	ri := &b.s.rack
	if len(ri.consumerRacks) == 0 {
		return unassigned
	}
	next := 0
	kept := unassigned[:0:0]
	for _, p := range unassigned {
		consumer := -1
		if k := ri.nextRackConsumer(p, b.under, next); k >= 0 {
			consumer = b.under[k]
			count := len(b.assignment[consumer]) + 1
			if count >= b.minQuota {
				b.under = deleteFirstInt(b.under, consumer)
				if count < b.maxQuota && (!b.s.v.fixesRackQuota() || b.currentOver < b.expectedOver) {
					b.exact = append(b.exact, consumer)
				}
			} else {
				k++
			}
			if len(b.under) == 0 {
				next = 0
			} else {
				next = k % len(b.under)
			}
		} else if len(b.exact) > 0 {
			if k := ri.nextRackConsumer(p, b.exact, 0); k >= 0 {
				consumer = b.exact[k]
				if len(b.assignment[consumer])+1 == b.maxQuota {
					b.exact = slices.Delete(b.exact, k, k+1)
					if b.s.v.fixesRackQuota() {
						b.currentOver++
						if b.currentOver == b.expectedOver {
							b.exact = b.exact[:0]
						}
					}
				}
			}
		}
		if consumer >= 0 {
			b.assignNew(p, consumer)
		} else {
			kept = append(kept, p)
		}
	}
	return kept
}

// assignRoundRobin deals the rest, walking the under-quota members with a
// LinkedList iterator whose remove() Java calls even when the member came
// from the other list: iterator mirrors ListItr's cursor and lastReturned.
func (b *constrained) assignRoundRobin(unassigned []pid) {
	cursor, last := 0, -1
	for _, p := range unassigned {
		var consumer int
		switch {
		case cursor < len(b.under):
			consumer, last = b.under[cursor], cursor
			cursor++
		case len(b.under) == 0 && len(b.exact) == 0:
			throw("IllegalStateException", "No more unfilled consumers to be assigned.")
		case len(b.under) == 0:
			consumer = b.exact[0]
			b.exact = b.exact[1:]
		default:
			cursor, last = 1, 0
			consumer = b.under[0]
		}
		count := b.assignNew(p, consumer)
		if count == b.minQuota {
			if last < 0 {
				throw("IllegalStateException", "null")
			}
			b.under = slices.Delete(b.under, last, last+1)
			cursor, last = last, -1
			b.exact = append(b.exact, consumer)
		} else if count == b.maxQuota {
			b.currentOver++
		}
	}
}

func (b *constrained) assignNew(p pid, consumer int) int {
	b.assignment[consumer] = append(b.assignment[consumer], p)
	prev := b.maybeRevoked[p]
	if prev >= 0 && (int(prev) != consumer || !b.s.v.fixesRackQuota()) || b.multiple[p] {
		b.transferring[p] = consumer
	}
	return len(b.assignment[consumer])
}

func (b *constrained) verifyUnfilled() {
	if len(b.under) == 0 {
		return
	}
	if b.currentOver != b.expectedOver {
		throw("IllegalStateException", "We haven't reached the expected number of members with more than the minQuota partitions, but no more partitions to be assigned")
	}
	for _, c := range b.under {
		if len(b.assignment[c]) != b.minQuota {
			throw("IllegalStateException", "Consumer: ["+b.s.ids[c]+"] doesn't reach minQuota partitions, and no more partitions to be assigned")
		}
	}
}

// userDataOrder sorts c's claims, sorted by (topic, partition), as
// StickyAssignor's V1 user data lists them: serializeTopicPartitionAssignment
// groups the previous assignment by topic in a HashMap
// (CollectionUtils.groupPartitionsByTopic, with computeIfAbsent), so the
// topics come in that map's order, each topic's partitions ascending. The
// map holds every topic the member claimed, those Kafka's cluster
// metadata lacks included. Only the constrained path before KAFKA-16277
// reads this order; since, it sorts the claims afresh.
func (b *constrained) userDataOrder(c int, claims []pid) {
	var names []string
	for _, p := range b.s.members[c].Owned {
		names = append(names, p.Topic)
	}
	slices.SortFunc(names, jvm.CompareStrings)
	names = slices.Compact(names)
	hashes := make([]int32, len(names))
	for k, n := range names {
		hashes[k] = jvm.StringHash(n)
	}
	rank := make(map[string]int, len(names))
	for k, e := range jvm.ComputeOrder(0, hashes, func(x, y int) int { return jvm.CompareStrings(names[x], names[y]) }) {
		rank[names[e]] = k
	}
	x := b.s.idx
	slices.SortStableFunc(claims, func(p, q pid) int {
		rp, _ := x.topicPart(p)
		rq, _ := x.topicPart(q)
		return rank[x.names[rp]] - rank[x.names[rq]]
	})
}

// revokeMismatch records that member c loses its claim of p to a rack
// mismatch: maybe revoked since KAFKA-15170, unrecorded before.
func (b *constrained) revokeMismatch(p pid, c int) {
	if b.s.v.fixesRackQuota() {
		b.maybeRevoked[p] = int32(c)
	}
}

func deleteFirstInt(list []int, v int) []int {
	if i := slices.Index(list, v); i >= 0 {
		return slices.Delete(list, i, i+1)
	}
	return list
}
