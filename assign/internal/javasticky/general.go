package javasticky

import (
	"slices"

	"github.com/assigncalc/assigncalc/assign/internal/jvm"
)

// general is AbstractStickyAssignor.GeneralAssignmentBuilder, the path
// Java takes when subscriptions differ: keep what is still owned, give
// each unassigned partition to the least loaded member that can take it,
// then move partitions one at a time from the more to the less loaded
// until Java's isBalanced holds, and keep the result only if its balance
// score improved.
type general struct {
	s       *leader
	current [][]tp // currentAssignment
	inMap   []bool // the member is a key of currentAssignment
	// owner is currentPartitionConsumer; -1 is absent.
	owner          map[tp]int
	potential      map[string][]int // topic2AllPotentialConsumers
	potentialTopic []map[string]bool
	potentialList  [][]string // consumer2AllPotentialTopics
	sortedAll      []tp       // sortedAllPartitions
	ts             treeSet    // sortedCurrentSubscriptions
	revocation     bool       // revocationRequired
	moves          movements
	treeBin        bool

	// isBalanced's dense arrays: base is each topic's first index;
	// owners, a partition's owner; has, stamp when the member in hand
	// holds it.
	base      map[string]topicRange
	lastTopic string
	last      topicRange
	owners    []int32
	has       []uint32
	stamp     uint32
}

// topicRange is where a topic's partitions lie in isBalanced's arrays.
type topicRange struct {
	base  int
	count int32
}

type prevClaim struct {
	consumer   int
	generation int32
}

func newGeneral(s *leader, current [][]tp) *general {
	n := len(s.ids)
	b := &general{
		s: s, current: current,
		inMap:          make([]bool, n),
		owner:          map[tp]int{},
		potential:      make(map[string][]int, len(s.counts)),
		potentialTopic: make([]map[string]bool, n),
		potentialList:  make([][]string, n),
	}
	for t := range s.counts {
		b.potential[t] = nil
	}
	for _, c := range s.order {
		b.inMap[c] = true
		b.potentialTopic[c] = map[string]bool{}
		for _, t := range s.topics[c] {
			if _, ok := s.counts[t]; ok {
				b.potentialList[c] = append(b.potentialList[c], t)
				b.potentialTopic[c][t] = true
				b.potential[t] = append(b.potential[t], c)
			}
		}
	}
	for _, c := range s.order {
		for _, p := range current[c] {
			b.owner[p] = c
		}
	}
	topics := s.sortedTopics()
	slices.SortStableFunc(topics, func(x, y string) int {
		if d := len(b.potential[x]) - len(b.potential[y]); d != 0 {
			return d
		}
		return jvm.CompareStrings(x, y)
	})
	b.base = make(map[string]topicRange, len(topics))
	for _, t := range topics {
		b.base[t] = topicRange{len(b.sortedAll), s.counts[t]}
		for p := range s.counts[t] {
			b.sortedAll = append(b.sortedAll, tp{Topic: t, Partition: p})
		}
	}
	b.ts = treeSet{less: b.less}
	b.moves = movements{byPartition: map[tp]pair{}, byTopic: map[string]map[pair]*jvm.ChurnSet[tp]{}, s: s}
	return b
}

// less is SubscriptionComparator: by number of partitions, then id.
func (b *general) less(x, y int) int {
	if d := len(b.cur(x)) - len(b.cur(y)); d != 0 {
		return d
	}
	return b.s.compareIDs(x, y)
}

// cur is currentAssignment.get(c).size() and friends: Java dereferences
// null for a member no longer in the map.
func (b *general) cur(c int) []tp {
	if c < 0 || !b.inMap[c] {
		npe("currentAssignment.get(consumer) is null")
	}
	return b.current[c]
}

func (b *general) build() [][]tp {
	prev := map[tp]prevClaim{}
	b.prepopulate(prev)
	assigned := b.assignOwned()
	unassigned, aliased := b.unassignedPartitions(assigned)
	for _, c := range b.s.order {
		b.ts.add(c)
	}
	b.balance(prev, unassigned, aliased)
	b.treeBin = b.moves.treeBin
	return b.current
}

func (b *general) assignOwned() []tp {
	var assigned []tp
	for _, c := range b.s.order {
		kept := b.current[c][:0:0]
		for _, p := range b.current[c] {
			if _, ok := b.potential[p.Topic]; !ok {
				delete(b.owner, p)
				continue
			}
			if !b.s.subscribed[c][p.Topic] || b.s.rack.mismatch(c, p) {
				b.revocation = true
				continue
			}
			kept = append(kept, p)
			assigned = append(assigned, p)
		}
		b.current[c] = kept
	}
	return assigned
}

// unassignedPartitions is the general getUnassignedPartitions; aliased
// reports that it returned sortedAllPartitions itself, as Java does when
// nothing is assigned (the two lists are then one).
func (b *general) unassignedPartitions(assigned []tp) ([]tp, bool) {
	if len(assigned) == 0 {
		return b.sortedAll, true
	}
	// Stable in Java; total on distinct values here (see
	// constrained.assignOwned).
	slices.SortFunc(assigned, func(x, y tp) int {
		if d := len(b.potential[x.Topic]) - len(b.potential[y.Topic]); d != 0 {
			return d
		}
		if d := jvm.CompareStrings(x.Topic, y.Topic); d != 0 {
			return d
		}
		return int(x.Partition) - int(y.Partition)
	})
	var out []tp
	k, direct := 0, false
	for _, p := range b.sortedAll {
		if direct || assigned[k] != p {
			out = append(out, p)
		} else if k+1 < len(assigned) {
			k++
		} else {
			direct = true
		}
	}
	return out, false
}

func (b *general) prepopulate(prev map[tp]prevClaim) {
	for _, c := range b.s.order {
		switch {
		case b.s.hasClaimGen[c] && b.s.claimGen[c] < b.s.maxGen:
			b.updatePrev(prev, c, b.s.claimGen[c])
		case !b.s.hasClaimGen[c] && b.s.maxGen > defaultGeneration:
			b.updatePrev(prev, c, defaultGeneration)
		}
	}
}

func (b *general) updatePrev(prev map[tp]prevClaim, c int, gen int32) {
	for _, p := range b.s.claims[c] {
		if old, ok := prev[p]; !ok || gen > old.generation {
			prev[p] = prevClaim{c, gen}
		}
	}
}

// isBalanced is Java's: loads differ by at most one, or no member could
// take a partition of its topics from a member holding two more.
func (b *general) isBalanced() bool {
	if b.ts.len() == 0 {
		throw("NoSuchElementException", "null")
	}
	lo, hi := len(b.cur(b.ts.first())), len(b.cur(b.ts.last()))
	if lo >= hi-1 {
		return true
	}
	// Java fills a HashMap of every partition's owner and a HashSet of
	// each member's partitions on every call; dense arrays indexed by
	// partition (topic base + number) reach the same verdict in a fraction
	// of the time (BenchmarkJavaSticky/shape=heterogeneous-100x20x10, where
	// this call was most of the time). A partition past its topic's count
	// is never looked up, so it is left out.
	all := b.scratchOwner()
	for _, c := range b.s.order {
		if b.inMap[c] {
			for _, p := range b.current[c] {
				if i, ok := b.index(p); ok {
					all[i] = int32(c)
				}
			}
		}
	}
	for _, c := range b.ts.items {
		mine := b.current[c]
		count := len(mine)
		if count == b.maxAssignmentSize(c) {
			continue
		}
		b.stamp++
		for _, p := range mine {
			if i, ok := b.index(p); ok {
				b.has[i] = b.stamp
			}
		}
		for _, t := range b.potentialList[c] {
			base := b.base[t].base
			for i := range int(b.s.counts[t]) {
				if b.has[base+i] == b.stamp {
					continue
				}
				other := all[base+i]
				if other < 0 {
					npe("allPartitions.get(topicPartition) is null")
				}
				if count+1 < len(b.cur(int(other))) {
					return false
				}
			}
		}
	}
	return true
}

// index is p's place in the dense arrays of isBalanced, if p is a
// partition of a topic of partitionsPerTopic. Lists hold runs of one
// topic, so the last topic's range is kept to spare a lookup.
func (b *general) index(p tp) (int, bool) {
	if p.Topic != b.lastTopic {
		r, ok := b.base[p.Topic]
		if !ok {
			return 0, false
		}
		b.lastTopic, b.last = p.Topic, r
	}
	if p.Partition < 0 || p.Partition >= b.last.count {
		return 0, false
	}
	return b.last.base + int(p.Partition), true
}

// scratchOwner returns isBalanced's owner array, every entry -1.
func (b *general) scratchOwner() []int32 {
	if b.owners == nil {
		b.owners = make([]int32, b.s.total)
		b.has = make([]uint32, b.s.total)
	}
	for i := range b.owners {
		b.owners[i] = -1
	}
	return b.owners
}

func (b *general) maxAssignmentSize(c int) int {
	if len(b.potentialList[c]) == len(b.s.counts) {
		return b.s.total
	}
	sum := 0
	for _, t := range b.potentialList[c] {
		sum += int(b.s.counts[t])
	}
	return sum
}

// balanceScore is getBalanceScore: the sum over pairs of members of the
// difference of their loads, computed from the sorted loads.
func (b *general) balanceScore(current [][]tp, in []bool) int {
	var loads []int
	for c := range current {
		if in[c] {
			loads = append(loads, len(current[c]))
		}
	}
	slices.Sort(loads)
	score, prefix := 0, 0
	for i, l := range loads {
		score += i*l - prefix
		prefix += l
	}
	return int(int32(score))
}

func (b *general) maybeAssignPartition(p tp, rackAware bool) bool {
	for _, c := range b.ts.items {
		if b.potentialTopic[c][p.Topic] && (!rackAware || !b.s.rack.mismatch(c, p)) {
			b.ts.remove(c)
			b.current[c] = append(b.cur(c), p)
			b.owner[p] = c
			b.ts.add(c)
			return true
		}
	}
	return false
}

func (b *general) maybeAssign(list []tp, rackAware, removeAssigned bool) []tp {
	kept := list[:0:0]
	for _, p := range list {
		if len(b.potential[p.Topic]) == 0 {
			kept = append(kept, p)
			continue
		}
		if !b.maybeAssignPartition(p, rackAware) || !removeAssigned {
			kept = append(kept, p)
		}
	}
	return kept
}

func (b *general) balance(prev map[tp]prevClaim, unassigned []tp, aliased bool) {
	initializing := len(b.cur(b.ts.last())) == 0
	toAssign := unassigned
	if len(b.s.rack.consumerRacks) > 0 {
		toAssign = b.maybeAssign(slices.Clone(unassigned), true, true)
	}
	b.maybeAssign(toAssign, false, false)

	fixed := func(p tp) bool { return len(b.potential[p.Topic]) < 2 }
	b.sortedAll = slices.DeleteFunc(b.sortedAll, fixed)
	if aliased {
		unassigned = b.sortedAll
	} else {
		unassigned = slices.DeleteFunc(unassigned, fixed)
	}

	var fixedMembers []int
	for _, c := range b.s.order {
		if !b.canParticipate(c) {
			b.ts.remove(c)
			b.inMap[c] = false
			fixedMembers = append(fixedMembers, c)
		}
	}

	preCurrent := make([][]tp, len(b.current))
	preIn := slices.Clone(b.inMap)
	for c := range b.current {
		if b.inMap[c] {
			preCurrent[c] = slices.Clone(b.current[c])
		}
	}
	preOwner := make(map[tp]int, len(b.owner))
	for p, c := range b.owner {
		preOwner[p] = c
	}

	if !b.revocation {
		b.performReassignments(unassigned, prev)
	}
	performed := b.performReassignments(b.sortedAll, prev)
	if !initializing && performed && b.balanceScore(b.current, b.inMap) >= b.balanceScore(preCurrent, preIn) {
		for c := range b.current {
			if preIn[c] {
				b.current[c] = preCurrent[c]
			}
		}
		b.owner = preOwner
	}
	for _, c := range fixedMembers {
		b.inMap[c] = true
	}
}

func (b *general) canParticipate(c int) bool {
	mine := b.cur(c)
	if len(mine) < b.maxAssignmentSize(c) {
		return true
	}
	for _, p := range mine {
		if len(b.potential[p.Topic]) >= 2 {
			return true
		}
	}
	return false
}

func (b *general) performReassignments(list []tp, prev map[tp]prevClaim) bool {
	performed := false
	for modified := true; modified; {
		modified = false
		for i := 0; i < len(list) && !b.isBalanced(); i++ {
			p := list[i]
			consumer, ok := b.owner[p]
			if !ok {
				consumer = -1
			}
			if pc, ok := prev[p]; ok && len(b.cur(consumer)) > len(b.cur(pc.consumer))+1 {
				b.reassignTo(p, pc.consumer)
				performed, modified = true, true
				continue
			}
			found := false
			if r, ok := b.s.rack.consumerRacks[consumer]; ok {
				racks := b.s.rack.partitionRacks[p]
				if len(racks) > 0 && racks[r] {
					for _, other := range b.potential[p.Topic] {
						or, ok := b.s.rack.consumerRacks[other]
						if !ok || !racks[or] {
							continue
						}
						if len(b.cur(consumer)) > len(b.cur(other))+1 {
							b.reassign(p)
							performed, modified, found = true, true, true
							break
						}
					}
				}
			}
			if !found {
				for _, other := range b.potential[p.Topic] {
					if len(b.cur(consumer)) > len(b.cur(other))+1 {
						b.reassign(p)
						performed, modified = true, true
						break
					}
				}
			}
		}
	}
	return performed
}

// reassign gives p to the least loaded member that can take it.
func (b *general) reassign(p tp) {
	for _, c := range b.ts.items {
		if b.potentialTopic[c][p.Topic] {
			b.reassignTo(p, c)
			return
		}
	}
	npe("no consumer for " + p.String())
}

func (b *general) reassignTo(p tp, newConsumer int) {
	old, ok := b.owner[p]
	if !ok {
		old = -1
	}
	moved := b.moves.actualPartitionToMove(p, old, newConsumer)
	b.processMovement(moved, newConsumer)
}

func (b *general) processMovement(p tp, newConsumer int) {
	old, ok := b.owner[p]
	if !ok {
		npe("currentPartitionConsumer.get(partition) is null")
	}
	b.ts.remove(old)
	b.ts.remove(newConsumer)
	b.moves.move(p, old, newConsumer)
	removeFirst(&b.current[old], p)
	if !b.inMap[old] {
		npe("currentAssignment.get(oldConsumer) is null")
	}
	b.current[newConsumer] = append(b.cur(newConsumer), p)
	b.owner[p] = newConsumer
	b.ts.add(newConsumer)
	b.ts.add(old)
}

// treeSet is a java.util.TreeSet<String> of members ordered by less,
// which reads loads that change only while a member is out of the set.
type treeSet struct {
	items []int
	less  func(x, y int) int
}

func (t *treeSet) len() int   { return len(t.items) }
func (t *treeSet) first() int { return t.items[0] }
func (t *treeSet) last() int  { return t.items[len(t.items)-1] }

func (t *treeSet) add(c int) {
	i, found := slices.BinarySearchFunc(t.items, c, t.less)
	if !found {
		t.items = slices.Insert(t.items, i, c)
	}
}

func (t *treeSet) remove(c int) {
	if i, found := slices.BinarySearchFunc(t.items, c, t.less); found {
		t.items = slices.Delete(t.items, i, i+1)
	}
}
