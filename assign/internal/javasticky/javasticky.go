package javasticky

import (
	"fmt"
	"slices"
	"unsafe"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/internal/jvm"
)

// Version selects the Kafka release line whose assignor code is reproduced.
type Version int

// The versions reproduced (see the package doc for the commits).
const (
	// Kafka38 is Kafka 3.8.0 and later, as of apache/kafka trunk
	// 1eb7644349c (2024-10-25).
	Kafka38 Version = iota
)

// JavaError reports that Kafka's Java assignor throws on the group, and
// what: the simple name of the exception's class and its message, as
// getClass().getSimpleName() and getMessage() give them ("null" for none).
type JavaError struct {
	Exception string // e.g. "IllegalStateException"
	Message   string
}

func (e *JavaError) Error() string {
	return "javasticky: Kafka's Java assignor throws " + e.Exception + ": " + e.Message
}

// javaThrow is what the emulation panics with where Java throws; Assign
// recovers it into a *JavaError. Nothing else is recovered.
type javaThrow struct{ err *JavaError }

func throw(exception, message string) { panic(javaThrow{&JavaError{exception, message}}) }

// npe is Java dereferencing null, where Kafka's code assumes a map holds a
// key it does not.
func npe(what string) { throw("NullPointerException", what) }

// tp is a partition, as Kafka's TopicPartition: equal when topic and number
// are.
type tp = assign.TopicPartition

// Assign returns what a fresh Kafka StickyAssignor (cooperative false) or
// CooperativeStickyAssignor (cooperative true) of version v returns for g
// under the conventions of the package doc: for cooperative-sticky, the
// round Java returns, without the partitions it withholds until their
// owners revoke them. Every member appears; each member's partitions are
// sorted by [assign.TopicPartition.Compare], a partition Java hands the
// same member twice listed twice. A group [assign.Group.Validate] refuses
// yields its *assign.InputError; a group on which Java throws, a
// [*JavaError].
func Assign(g assign.Group, cooperative bool, v Version) (a assign.Assignment, err error) {
	if !v.valid() {
		return nil, fmt.Errorf("javasticky: unknown version %d", v)
	}
	if err := g.Validate(); err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			t, ok := r.(javaThrow)
			if !ok {
				panic(r)
			}
			a, err = nil, t.err
		}
	}()
	s := newLeader(g, cooperative)
	s.v, s.members = v, g.Members
	out := s.assign()
	a = make(assign.Assignment, len(g.Members))
	for i, m := range g.Members {
		if len(out[i]) == 0 {
			out[i] = nil // nil when the member gets nothing, as assign.Assignment says
		}
		a[m.ID] = out[i]
	}
	return a, nil
}

// leader is what the Java leader holds: the subscriptions, the cluster
// metadata as partitionsPerTopic, and each member's MemberData. Members
// are known by their index in Group.Members, partitions by their pid.
type leader struct {
	cooperative bool
	v           Version
	members     []assign.Member // as given; read only where a version needs their Owned order
	ids         []string
	order       []int     // iteration order of the subscriptions HashMap
	topics      [][]int32 // subscription topics, by place in String order, sorted, distinct
	ranks       [][]int32 // the ranks of those of partitionsPerTopic, ascending
	// claims is MemberData.partitions, sorted by (topic, partition), less
	// the partitions of topics partitionsPerTopic lacks: Java drops those
	// before anything reads them. For cooperative-sticky they are the
	// ownedPartitions too.
	claims      [][]pid
	claimGen    []int32 // MemberData.generation, DEFAULT_GENERATION when absent
	hasClaimGen []bool  // MemberData.generation.isPresent()
	subGen      []int32 // Subscription.generationId().orElse(-1)
	idx         *pindex
	racks       map[string][][]string
	total       int // totalPartitionsCount
	rack        rackInfo
	maxGen      int32
	trees       treeUse // of PartitionMovements, for the tests
}

const defaultGeneration = -1

func newLeader(g assign.Group, cooperative bool) *leader {
	n := len(g.Members)
	s := &leader{
		cooperative: cooperative,
		ids:         make([]string, n),
		topics:      make([][]int32, n),
		ranks:       make([][]int32, n),
		claims:      make([][]pid, n),
		claimGen:    make([]int32, n),
		hasClaimGen: make([]bool, n),
		subGen:      make([]int32, n),
		racks:       g.PartitionRacks,
		maxGen:      defaultGeneration,
	}
	// Topic names are numbered as first met, then placed in
	// String.compareTo order, so that each subscription is sorted as
	// numbers rather than strings.
	nameID := map[string]int32{}
	var names []string
	claimed := 0
	// Grown as needed rather than sized for every member's list: members
	// sharing a subscription take no room (sizing it was 0.8 MB per call
	// on homogeneous-1000x100x100, with rankSlab).
	var subSlab []int32
	for i, m := range g.Members {
		s.ids[i] = m.ID
		claimed += len(m.Owned)
		// Members listed one after another with the same subscription
		// share its sorted list: building them per member was most of
		// the time of the constrained path on
		// BenchmarkJavaSticky/shape=homogeneous-1000x100x100.
		if i > 0 && sameStrings(m.Topics, g.Members[i-1].Topics) {
			s.topics[i] = s.topics[i-1]
			continue
		}
		start := len(subSlab)
		for _, t := range m.Topics {
			id, ok := nameID[t]
			if !ok {
				id = int32(len(names))
				nameID[t] = id
				names = append(names, t)
			}
			subSlab = append(subSlab, id)
		}
		s.topics[i] = subSlab[start:len(subSlab):len(subSlab)]
	}
	byName := make([]int32, len(names))
	for k := range byName {
		byName[k] = int32(k)
	}
	slices.SortFunc(byName, func(a, b int32) int { return jvm.CompareStrings(names[a], names[b]) })
	place := make([]int32, len(names)) // name id => place in String order
	var known []string                 // partitionsPerTopic's topics in String order
	var counts []int32
	rankOf := make([]int32, len(names)) // place => rank in known, or -1
	for k, id := range byName {
		place[id] = int32(k)
		rankOf[k] = -1
		if c := g.Topics[names[id]]; c > 0 {
			rankOf[k] = int32(len(known))
			known = append(known, names[id])
			counts = append(counts, c)
		}
	}
	s.idx = newPindex(known, counts)
	s.total = s.idx.total
	var rankSlab []int32
	for i, ts := range s.topics {
		if i > 0 && len(ts) > 0 && len(s.topics[i-1]) > 0 && &ts[0] == &s.topics[i-1][0] {
			s.ranks[i] = s.ranks[i-1]
			continue
		}
		for k, id := range ts {
			ts[k] = place[id]
		}
		slices.Sort(ts)
		ts = slices.Compact(ts)
		s.topics[i] = ts
		start := len(rankSlab)
		for _, pl := range ts {
			if r := rankOf[pl]; r >= 0 {
				rankSlab = append(rankSlab, r)
			}
		}
		s.ranks[i] = rankSlab[start:len(rankSlab):len(rankSlab)]
	}
	slab := make([]pid, 0, claimed)
	lastTopic, lastRank := "", int32(-1)
	x := s.idx
	for i, m := range g.Members {
		start := len(slab)
		// Owned lists are sorted in Go's order, and a member of a
		// homogeneous group owns a partition of most topics: the topic
		// after the one before in that order is tried before the map,
		// whose lookups were an eighth of Assign on
		// homogeneous-100x10x100 leave1.
		nextGo := 0 // place in Go's order of the topic to try first
		for _, p := range m.Owned {
			if p.Topic != lastTopic || lastRank < 0 {
				var r int32
				var ok bool
				if nextGo < len(x.byGo) && x.names[x.byGo[nextGo]] == p.Topic {
					r, ok = x.byGo[nextGo], true
				} else {
					r, ok = x.lookup(p.Topic)
				}
				if !ok {
					continue
				}
				lastTopic, lastRank = p.Topic, r
				nextGo = int(x.goRank[r]) + 1
			}
			slab = append(slab, x.id(lastRank, p.Partition))
		}
		claims := slab[start:len(slab):len(slab)]
		s.idx.sortByTopic(claims)
		gen := m.Generation
		if gen < 0 {
			gen = defaultGeneration
		}
		s.subGen[i] = gen
		if cooperative {
			s.claims[i] = claims
			s.claimGen[i], s.hasClaimGen[i] = gen, true // generationId, or the generation in the user data
		} else if len(m.Owned) > 0 {
			s.claims[i] = claims
			s.claimGen[i], s.hasClaimGen[i] = gen, m.Generation >= 0
			if !s.hasClaimGen[i] {
				s.claimGen[i] = defaultGeneration
			}
		} else {
			s.claimGen[i] = defaultGeneration
		}
	}
	s.order = jvm.StringMapOrderDistinct(s.ids)
	s.rack = newRackInfo(s, g)
	return s
}

// assign is AbstractStickyAssignor.assignPartitions, then for
// cooperative-sticky CooperativeStickyAssignor's adjustment. It returns
// each member's list, sorted by assign.TopicPartition.Compare.
func (s *leader) assign() [][]tp {
	n := len(s.ids)
	ownedByMember := make([][]pid, n)      // consumerToOwnedPartitions
	multiple := make([]bool, s.idx.size()) // partitionsWithMultiplePreviousOwners
	if s.allSubscriptionsEqual(ownedByMember, multiple) {
		b := newConstrained(s, ownedByMember, multiple)
		out := b.build()
		if s.cooperative {
			for p, c := range b.transferring { // each entry removes one distinct partition: order is not observable
				removeFirst(&out[c], p)
			}
		}
		return s.idx.output(out)
	}
	b := newGeneral(s, ownedByMember)
	out := b.build()
	s.trees = b.moves.trees
	if s.cooperative {
		s.removeTransferring(out)
	}
	return s.idx.output(out)
}

// allSubscriptionsEqual is AbstractStickyAssignor.allSubscriptionsEqual:
// whether every subscription is the same set of names (a member with no
// topics resets the reference, as in Java), and each member's claims that
// survive the generation rules.
func (s *leader) allSubscriptionsEqual(ownedByMember [][]pid, multiple []bool) bool {
	equal := true
	var reference []int32
	prevOwner := make([]int32, s.idx.size())
	for i := range prevOwner {
		prevOwner[i] = -1
	}
	claimed := 0
	for _, c := range s.claims {
		claimed += len(c)
	}
	// Each claim is appended at most once, to its claimant's list.
	slab := make([]pid, claimed)
	for _, c := range s.order {
		if len(reference) == 0 {
			reference = s.topics[c]
		} else if equal && !sameSet(reference, s.topics[c]) {
			equal = false
		}
		gen := s.claimGen[c]
		s.maxGen = max(s.maxGen, gen)
		k := len(s.claims[c])
		ownedByMember[c], slab = slab[:0:k], slab[k:]
		for _, p := range s.claims[c] {
			other := prevOwner[p]
			switch {
			case other < 0:
				ownedByMember[c] = append(ownedByMember[c], p)
				prevOwner[p] = int32(c)
			case gen == s.subGen[other]:
				multiple[p] = true
				removeFirst(&ownedByMember[other], p)
				prevOwner[p] = int32(c)
			case gen > s.subGen[other]:
				ownedByMember[c] = append(ownedByMember[c], p)
				removeFirst(&ownedByMember[other], p)
				prevOwner[p] = int32(c)
			case !s.v.winnerKeepsClaim():
				prevOwner[p] = int32(c)
			}
		}
	}
	return equal
}

// sameSet reports whether two subscriptions, sorted and without repeats,
// are the same set of names.
func sameSet(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) > 0 && &a[0] == &b[0] {
		return true // one list shared by members with one subscription (newLeader)
	}
	return slices.Equal(a, b)
}

// sameStrings is slices.Equal for lists of names that, listed member
// after member, usually hold the very same strings: equal data pointers
// settle most comparisons without a call to compare bytes, which was a
// quarter of BenchmarkJavaSticky/shape=homogeneous-1000x100x100/churn=join1.
func sameStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i, s := range a {
		t := b[i]
		if len(s) != len(t) || unsafe.StringData(s) != unsafe.StringData(t) && s != t {
			return false
		}
	}
	return true
}

// removeFirst is ArrayList.remove(Object): it removes the first element
// equal to p, if any.
func removeFirst(list *[]pid, p pid) bool {
	if i := slices.Index(*list, p); i >= 0 {
		*list = slices.Delete(*list, i, i+1)
		return true
	}
	return false
}

// removeTransferring is CooperativeStickyAssignor's
// computePartitionsTransferringOwnership for the general path, partitions
// a member gains that some member gives up, taken out of what the members
// gain (the last member in the subscriptions' order to gain one, as
// Java's map keeps).
func (s *leader) removeTransferring(out [][]pid) {
	size := s.idx.size()
	ownedBy := make([]int32, size) // c+1 while member c is in hand
	assignedTo := make([]int32, size)
	addedTo := make([]int32, size) // c+1: the last member to gain it
	revoked := make([]bool, size)
	var added []pid
	for _, c := range s.order {
		mark := int32(c + 1)
		for _, p := range s.claims[c] {
			ownedBy[p] = mark
		}
		for _, p := range out[c] {
			assignedTo[p] = mark
			if ownedBy[p] != mark {
				if addedTo[p] == 0 {
					added = append(added, p)
				}
				addedTo[p] = mark
			}
		}
		for _, p := range s.claims[c] {
			if assignedTo[p] != mark {
				revoked[p] = true
			}
		}
	}
	for _, p := range added { // each removes one distinct partition: order is not observable
		if revoked[p] {
			removeFirst(&out[addedTo[p]-1], p)
		}
	}
}

// compareIDs is String.compareTo on member ids.
func (s *leader) compareIDs(a, b int) int { return jvm.CompareStrings(s.ids[a], s.ids[b]) }
