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
	current      [][]tp // consumerToOwnedPartitions
	multiple     map[tp]bool
	maybeRevoked map[tp]int
	under        []int // unfilledMembersWithUnderMinQuotaPartitions
	exact        []int // unfilledMembersWithExactlyMinQuotaPartitions
	minQuota     int
	maxQuota     int
	expectedOver int
	currentOver  int
	assignment   [][]tp
	assigned     []tp
	transferring map[tp]int // partitionsTransferringOwnership
}

func newConstrained(s *leader, current [][]tp, multiple map[tp]bool) *constrained {
	n := len(s.ids)
	b := &constrained{
		s: s, current: current, multiple: multiple,
		maybeRevoked: map[tp]int{},
		assignment:   make([][]tp, n),
		transferring: map[tp]int{},
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

func (b *constrained) build() [][]tp {
	b.assignOwned()
	unassigned := b.unassignedPartitions()
	slices.SortStableFunc(b.under, b.s.compareIDs)
	slices.SortStableFunc(b.exact, b.s.compareIDs)
	if nc := b.s.rack.numConsumers; len(nc) > 0 {
		slices.SortStableFunc(unassigned, func(x, y tp) int { return nc[x] - nc[y] })
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
	for _, c := range b.consumerToOwnedOrder() {
		var owned []tp
		for _, p := range b.current[c] {
			if b.s.rack.mismatch(c, p) {
				b.maybeRevoked[p] = c
				continue
			}
			owned = append(owned, p)
		}
		// Java's sort is stable; this order is total on distinct values, so
		// an unstable sort, far faster than slices.SortStableFunc's merge
		// on BenchmarkJavaSticky/shape=homogeneous-1000x100x100/churn=leave1,
		// leaves the same list.
		slices.SortFunc(owned, func(x, y tp) int {
			if x.Partition != y.Partition {
				if x.Partition < y.Partition {
					return -1
				}
				return 1
			}
			return jvm.CompareStrings(x.Topic, y.Topic)
		})
		for p := range b.multiple { // removing each of a set: order is not observable
			removeFirst(&owned, p)
		}
		switch {
		case len(owned) < b.minQuota:
			b.assignment[c] = append(b.assignment[c], owned...)
			b.assigned = append(b.assigned, owned...)
			b.under = append(b.under, c)
		case len(owned) >= b.maxQuota && b.currentOver < b.expectedOver:
			b.currentOver++
			if b.currentOver == b.expectedOver {
				b.exact = b.exact[:0]
			}
			b.assignment[c] = append(b.assignment[c], owned[:b.maxQuota]...)
			b.assigned = append(b.assigned, owned[:b.maxQuota]...)
			for _, p := range owned[b.maxQuota:] {
				b.maybeRevoked[p] = c
			}
		default:
			b.assignment[c] = append(b.assignment[c], owned[:b.minQuota]...)
			b.assigned = append(b.assigned, owned[:b.minQuota]...)
			for _, p := range owned[b.minQuota:] {
				b.maybeRevoked[p] = c
			}
			if b.currentOver < b.expectedOver {
				b.exact = append(b.exact, c)
			}
		}
	}
}

// unassignedPartitions is the constrained getUnassignedPartitions: a walk
// of all partitions (topics in String order) beside the sorted assigned
// ones. Like Java's, a kept claim of a partition the topic no longer has
// stops the walk's pointer, and every later partition counts as
// unassigned.
func (b *constrained) unassignedPartitions() []tp {
	topics := b.s.sortedTopics()
	var out []tp
	if len(b.assigned) == 0 {
		for _, t := range topics {
			for p := range b.s.counts[t] {
				out = append(out, tp{Topic: t, Partition: p})
			}
		}
		return out
	}
	sorted := b.assigned
	// Stable in Java; total on distinct values here (see assignOwned).
	slices.SortFunc(sorted, func(x, y tp) int {
		if c := jvm.CompareStrings(x.Topic, y.Topic); c != 0 {
			return c
		}
		return int(x.Partition) - int(y.Partition)
	})
	k := 0
	direct := false
	for _, t := range topics {
		for p := range b.s.counts[t] {
			if direct || sorted[k] != (tp{Topic: t, Partition: p}) {
				out = append(out, tp{Topic: t, Partition: p})
			} else if k+1 < len(sorted) {
				k++
			} else {
				direct = true
			}
		}
	}
	return out
}

func (b *constrained) assignRackAwareRoundRobin(unassigned []tp) []tp {
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
				if count < b.maxQuota && b.currentOver < b.expectedOver {
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
					b.currentOver++
					if b.currentOver == b.expectedOver {
						b.exact = b.exact[:0]
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
func (b *constrained) assignRoundRobin(unassigned []tp) {
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

func (b *constrained) assignNew(p tp, consumer int) int {
	b.assignment[consumer] = append(b.assignment[consumer], p)
	if prev, ok := b.maybeRevoked[p]; ok && prev != consumer || b.multiple[p] {
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

func deleteFirstInt(list []int, v int) []int {
	if i := slices.Index(list, v); i >= 0 {
		return slices.Delete(list, i, i+1)
	}
	return list
}
