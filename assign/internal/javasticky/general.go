package javasticky

import (
	"slices"
)

// general is AbstractStickyAssignor.GeneralAssignmentBuilder, the path
// Java takes when subscriptions differ: keep what is still owned, give
// each unassigned partition to the least loaded member that can take it,
// then move partitions one at a time from the more to the less loaded
// until Java's isBalanced holds, and keep the result only if its balance
// score improved. Java's maps keyed by member names and TopicPartitions
// are slices here, indexed by member and by pid.
type general struct {
	s       *leader
	x       *pindex
	current [][]pid // currentAssignment
	inMap   []bool  // the member is a key of currentAssignment
	owner   []int32 // currentPartitionConsumer by pid; -1 is absent
	// potential is topic2AllPotentialConsumers by topic rank.
	potential [][]int
	// takes is, per member, a bit per topic rank: the member's
	// consumer2AllPotentialTopics as a set (words words per member).
	takes         []uint64
	words         int
	potentialList [][]int32 // consumer2AllPotentialTopics, ranks in String order
	maxSize       []int     // getMaxAssignmentSize per member
	idRank        []int32   // member => place of its id in String.compareTo order
	topicOf       []int32   // pid => topic rank, below total
	sortedAll     []pid     // sortedAllPartitions
	ts            treeSet   // sortedCurrentSubscriptions
	revocation    bool      // revocationRequired
	moves         movements

	// isBalanced's scratch: owners, a partition's owner; has, stamp when
	// the member in hand holds it.
	owners []int32
	has    []uint32
	stamp  uint32
	// balancedKnown holds while no partition moved since isBalanced
	// last answered balancedAnswer; performReassignments clears it.
	balancedKnown  bool
	balancedAnswer bool
}

type prevClaim struct {
	consumer   int32 // -1: no claim
	generation int32
}

func newGeneral(s *leader, current [][]pid) *general {
	n := len(s.ids)
	x := s.idx
	nt := len(x.names)
	b := &general{
		s: s, x: x, current: current,
		inMap:         make([]bool, n),
		owner:         make([]int32, x.size()),
		potential:     make([][]int, nt),
		words:         (nt + 63) / 64,
		potentialList: make([][]int32, n),
		maxSize:       make([]int, n),
	}
	b.takes = make([]uint64, n*b.words)
	perTopic := make([]int, nt)
	for _, c := range s.order {
		for _, r := range s.ranks[c] {
			perTopic[r]++
		}
	}
	sum := 0
	for _, k := range perTopic {
		sum += k
	}
	slab := make([]int, 0, sum)
	for r, k := range perTopic {
		b.potential[r] = slab[len(slab) : len(slab) : len(slab)+k]
		slab = slab[:len(slab)+k]
	}
	for _, c := range s.order {
		b.inMap[c] = true
		b.potentialList[c] = s.ranks[c]
		for _, r := range s.ranks[c] {
			b.takes[c*b.words+int(r)/64] |= 1 << (r % 64)
			b.potential[r] = append(b.potential[r], c)
			b.maxSize[c] += int(x.count(r))
		}
	}
	for i := range b.owner {
		b.owner[i] = -1
	}
	for _, c := range s.order {
		for _, p := range current[c] {
			b.owner[p] = int32(c)
		}
	}
	byID := make([]int, n)
	for c := range byID {
		byID[c] = c
	}
	slices.SortFunc(byID, s.compareIDs)
	b.idRank = make([]int32, n)
	for k, c := range byID {
		b.idRank[c] = int32(k)
	}
	// Topics in String order, stably sorted by number of potential
	// members: by that number, then rank.
	topics := make([]int32, nt)
	for r := range topics {
		topics[r] = int32(r)
	}
	slices.SortFunc(topics, func(a, c int32) int {
		if d := len(b.potential[a]) - len(b.potential[c]); d != 0 {
			return d
		}
		return int(a - c)
	})
	b.sortedAll = make([]pid, 0, x.total)
	b.topicOf = make([]int32, x.total)
	for _, r := range topics {
		for p := x.base[r]; p < x.base[r+1]; p++ {
			b.sortedAll = append(b.sortedAll, p)
			b.topicOf[p] = r
		}
	}
	b.ts = treeSet{less: b.less}
	b.moves = movements{byPartition: map[pid]pair{}, byTopic: map[int32]map[pair]*churnSet{}, x: x}
	return b
}

// canTake reports whether topic r is one of member c's potential topics.
func (b *general) canTake(c int, r int32) bool {
	return b.takes[c*b.words+int(r)/64]&(1<<(r%64)) != 0
}

// topic is the rank of p's topic.
func (b *general) topic(p pid) int32 {
	if int(p) < len(b.topicOf) {
		return b.topicOf[p]
	}
	r, _ := b.x.topicPart(p)
	return r
}

// less is SubscriptionComparator: by number of partitions, then id.
func (b *general) less(x, y int) int {
	if d := len(b.cur(x)) - len(b.cur(y)); d != 0 {
		return d
	}
	return int(b.idRank[x] - b.idRank[y])
}

// cur is currentAssignment.get(c).size() and friends: Java dereferences
// null for a member no longer in the map.
func (b *general) cur(c int) []pid {
	if c < 0 || !b.inMap[c] {
		npe("currentAssignment.get(consumer) is null")
	}
	return b.current[c]
}

func (b *general) build() [][]pid {
	prev := make([]prevClaim, b.x.total)
	for i := range prev {
		prev[i].consumer = -1
	}
	b.prepopulate(prev)
	assigned := b.assignOwned()
	unassigned, aliased := b.unassignedPartitions(assigned)
	for _, c := range b.s.order {
		b.ts.add(c)
	}
	b.balance(prev, unassigned, aliased)
	return b.current
}

// assignOwned keeps each member's claims of its topics on its racks.
// Every claim is of a topic of partitionsPerTopic: allSubscriptionsEqual
// dropped the others, as Java's loop here does.
func (b *general) assignOwned() []pid {
	var assigned []pid
	for _, c := range b.s.order {
		kept := b.current[c][:0] // filtered in place: the list is ours
		for _, p := range b.current[c] {
			if !b.canTake(c, b.topic(p)) || b.s.rack.mismatchPid(c, p) {
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
func (b *general) unassignedPartitions(assigned []pid) ([]pid, bool) {
	if len(assigned) == 0 {
		return b.sortedAll, true
	}
	total := pid(b.x.total)
	if mark, ok := markDistinct(assigned, total); ok {
		// Every assigned partition is one of sortedAll's, distinct: the
		// walk below matches each in turn and returns the others, which
		// a mark per partition finds without sorting.
		out := make([]pid, 0, len(b.sortedAll)-len(assigned))
		for _, p := range b.sortedAll {
			if !mark[p] {
				out = append(out, p)
			}
		}
		return out, false
	}
	// Java sorts by number of potential members, topic, partition,
	// stably; equal values are equal partitions, so the keys sort alike:
	// a topic's place in sortedAll, then the partition (offset, for
	// claims of negative partitions). A partition two members kept
	// (Kafka35's claims can do that) stops the walk as a claim past its
	// topic's end does.
	place := make([]uint64, len(b.x.names))
	for k := 0; k < len(b.sortedAll); {
		r := b.topic(b.sortedAll[k])
		place[r] = uint64(k)
		k += int(b.x.count(r))
	}
	keys := make([]uint64, len(assigned))
	for k, p := range assigned {
		r, n := b.topic(p), p-b.x.base[b.topic(p)]
		if int(p) >= b.x.total {
			_, n = b.x.topicPart(p)
		}
		keys[k] = place[r]<<32 | uint64(uint32(n)^1<<31)
	}
	slices.Sort(keys)
	sorted := assigned // the list is not read again
	for k, key := range keys {
		r := b.topic(b.sortedAll[key>>32])
		sorted[k] = b.x.id(r, int32(uint32(key)^1<<31))
	}
	var out []pid
	k, direct := 0, false
	for _, p := range b.sortedAll {
		if direct || sorted[k] != p {
			out = append(out, p)
		} else if k+1 < len(sorted) {
			k++
		} else {
			direct = true
		}
	}
	return out, false
}

// markDistinct marks the assigned partitions, and reports whether each is
// below total and assigned once: then Java's walk beside them skips
// exactly the marked ones.
func markDistinct(assigned []pid, total pid) ([]bool, bool) {
	if slices.ContainsFunc(assigned, func(p pid) bool { return p >= total }) {
		return nil, false
	}
	mark := make([]bool, total)
	for _, p := range assigned {
		if mark[p] {
			return nil, false
		}
		mark[p] = true
	}
	return mark, true
}

func (b *general) prepopulate(prev []prevClaim) {
	for _, c := range b.s.order {
		switch {
		case b.s.hasClaimGen[c] && b.s.claimGen[c] < b.s.maxGen:
			b.updatePrev(prev, c, b.s.claimGen[c])
		case !b.s.hasClaimGen[c] && b.s.maxGen > defaultGeneration:
			b.updatePrev(prev, c, defaultGeneration)
		}
	}
}

// updatePrev records c's claims as previous assignments. A claim past
// its topic's end is left out: Java only ever looks up the partitions of
// sortedAllPartitions.
func (b *general) updatePrev(prev []prevClaim, c int, gen int32) {
	for _, p := range b.s.claims[c] {
		if int(p) >= len(prev) {
			continue
		}
		if old := prev[p]; old.consumer < 0 || gen > old.generation {
			prev[p] = prevClaim{int32(c), gen}
		}
	}
}

// isBalanced is Java's: loads differ by at most one, or no member could
// take a partition of its topics from a member holding two more (before
// KAFKA-15106, one more: see balanceSlack).
func (b *general) isBalanced() bool {
	// isBalanced reads only the assignment, which changes in the loop
	// of performReassignments only when a partition moves: between
	// moves Java's answer (and any exception) is the one it gave last.
	if b.balancedKnown {
		return b.balancedAnswer
	}
	b.balancedAnswer = b.computeBalanced()
	b.balancedKnown = true
	return b.balancedAnswer
}

func (b *general) computeBalanced() bool {
	if b.ts.len() == 0 {
		throw("NoSuchElementException", "null")
	}
	lo, hi := len(b.cur(b.ts.first())), len(b.cur(b.ts.last()))
	if lo >= hi-1 {
		return true
	}
	slack := b.s.v.balanceSlack()
	// Java fills a HashMap of every partition's owner and a HashSet of
	// each member's partitions on every call; arrays indexed by pid
	// reach the same verdict. A claim past its topic's end is never
	// looked up, so it is left out.
	all := b.scratchOwner()
	for _, c := range b.s.order {
		if b.inMap[c] {
			for _, p := range b.current[c] {
				if int(p) < len(all) {
					all[p] = int32(c)
				}
			}
		}
	}
	for _, c := range b.ts.items {
		mine := b.current[c]
		count := len(mine)
		if count == b.maxSize[c] {
			continue
		}
		b.stamp++
		for _, p := range mine {
			if int(p) < len(all) {
				b.has[p] = b.stamp
			}
		}
		for _, r := range b.potentialList[c] {
			for i := b.x.base[r]; i < b.x.base[r+1]; i++ {
				if b.has[i] == b.stamp {
					continue
				}
				other := all[i]
				if other < 0 {
					npe("allPartitions.get(topicPartition) is null")
				}
				if count+slack < len(b.cur(int(other))) {
					return false
				}
			}
		}
	}
	return true
}

// scratchOwner returns isBalanced's owner array, every entry -1.
func (b *general) scratchOwner() []int32 {
	if b.owners == nil {
		b.owners = make([]int32, b.x.total)
		b.has = make([]uint32, b.x.total)
	}
	for i := range b.owners {
		b.owners[i] = -1
	}
	return b.owners
}

// balanceScore is getBalanceScore: the sum over pairs of members of the
// difference of their loads, computed from the sorted loads.
func (b *general) balanceScore(current [][]pid, in []bool) int {
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

func (b *general) maybeAssignPartition(p pid, rackAware bool) bool {
	r := b.topic(p)
	for _, c := range b.ts.items {
		if b.canTake(c, r) && (!rackAware || !b.s.rack.mismatchPid(c, p)) {
			b.ts.remove(c)
			b.current[c] = append(b.cur(c), p)
			b.owner[p] = int32(c)
			b.ts.add(c)
			return true
		}
	}
	return false
}

func (b *general) maybeAssign(list []pid, rackAware, removeAssigned bool) []pid {
	kept := list[:0:0]
	for _, p := range list {
		if len(b.potential[b.topic(p)]) == 0 {
			kept = append(kept, p)
			continue
		}
		if !b.maybeAssignPartition(p, rackAware) || !removeAssigned {
			kept = append(kept, p)
		}
	}
	return kept
}

func (b *general) balance(prev []prevClaim, unassigned []pid, aliased bool) {
	initializing := len(b.cur(b.ts.last())) == 0
	toAssign := unassigned
	if len(b.s.rack.consumerRacks) > 0 {
		toAssign = b.maybeAssign(slices.Clone(unassigned), true, true)
	}
	b.maybeAssign(toAssign, false, false)

	fixed := func(p pid) bool { return len(b.potential[b.topic(p)]) < 2 }
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

	preCurrent := make([][]pid, len(b.current))
	preIn := slices.Clone(b.inMap)
	for c := range b.current {
		if b.inMap[c] {
			preCurrent[c] = slices.Clone(b.current[c])
		}
	}
	preOwner := slices.Clone(b.owner)

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
	if len(mine) < b.maxSize[c] {
		return true
	}
	for _, p := range mine {
		if len(b.potential[b.topic(p)]) >= 2 {
			return true
		}
	}
	return false
}

func (b *general) performReassignments(list []pid, prev []prevClaim) bool {
	b.balancedKnown = false
	performed := false
	ri := &b.s.rack
	for modified := true; modified; {
		modified = false
		for i := 0; i < len(list) && !b.isBalanced(); i++ {
			p := list[i]
			consumer := int(b.owner[p])
			if pc := prev[p]; pc.consumer >= 0 && len(b.cur(consumer)) > len(b.cur(int(pc.consumer)))+1 {
				b.reassignTo(p, int(pc.consumer))
				performed, modified = true, true
				continue
			}
			found := false
			potential := b.potential[b.topic(p)]
			if r, ok := ri.consumerRacks[consumer]; ok {
				racks := ri.racksOf(p)
				if len(racks) > 0 && racks[r] {
					for _, other := range potential {
						or, ok := ri.consumerRacks[other]
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
				for _, other := range potential {
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
func (b *general) reassign(p pid) {
	r := b.topic(p)
	for _, c := range b.ts.items {
		if b.canTake(c, r) {
			b.reassignTo(p, c)
			return
		}
	}
	npe("no consumer for " + b.x.tp(p).String())
}

func (b *general) reassignTo(p pid, newConsumer int) {
	old := int(b.owner[p])
	moved := b.moves.actualPartitionToMove(p, old, newConsumer)
	b.processMovement(moved, newConsumer)
}

func (b *general) processMovement(p pid, newConsumer int) {
	b.balancedKnown = false
	old := int(b.owner[p])
	if old < 0 {
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
	b.owner[p] = int32(newConsumer)
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
