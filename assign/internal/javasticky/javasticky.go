package javasticky

import (
	"errors"
	"fmt"
	"slices"

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

// ErrTreeBin is returned for a group on which Java's answer depends on the
// iteration order of a HashSet bucket turned into a red-black tree, which
// this package does not reproduce (see the package doc).
var ErrTreeBin = errors.New("javasticky: Java's answer depends on a HashSet tree bin, which is not reproduced")

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
	if v != Kafka38 {
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
	out, treeBin := s.assign()
	if treeBin {
		return nil, ErrTreeBin
	}
	a = make(assign.Assignment, len(g.Members))
	for i, m := range g.Members {
		var ps []tp // nil when the member gets nothing, as assign.Assignment says
		if len(out[i]) > 0 {
			ps = slices.Clone(out[i])
			slices.SortFunc(ps, assign.TopicPartition.Compare)
		}
		a[m.ID] = ps
	}
	return a, nil
}

// leader is what the Java leader holds: the subscriptions, the cluster
// metadata as partitionsPerTopic, and each member's MemberData. Members
// are known by their index in Group.Members.
type leader struct {
	cooperative bool
	ids         []string
	order       []int             // iteration order of the subscriptions HashMap
	topics      [][]string        // subscription topics, sorted, distinct
	subscribed  []map[string]bool // the same as sets
	owned       [][]tp            // ownedPartitions (cooperative) or nil
	claims      [][]tp            // MemberData.partitions
	claimGen    []int32           // MemberData.generation, DEFAULT_GENERATION when absent
	hasClaimGen []bool            // MemberData.generation.isPresent()
	subGen      []int32           // Subscription.generationId().orElse(-1)
	counts      map[string]int32  // partitionsPerTopic: subscribed topics with partitions
	racks       map[string][][]string
	total       int // totalPartitionsCount
	topicHash   map[string]int32
	rack        rackInfo
	maxGen      int32
	treeBin     bool
}

const defaultGeneration = -1

func newLeader(g assign.Group, cooperative bool) *leader {
	n := len(g.Members)
	s := &leader{
		cooperative: cooperative,
		ids:         make([]string, n),
		topics:      make([][]string, n),
		subscribed:  make([]map[string]bool, n),
		owned:       make([][]tp, n),
		claims:      make([][]tp, n),
		claimGen:    make([]int32, n),
		hasClaimGen: make([]bool, n),
		subGen:      make([]int32, n),
		counts:      map[string]int32{},
		racks:       g.PartitionRacks,
		topicHash:   map[string]int32{},
		maxGen:      defaultGeneration,
	}
	for i, m := range g.Members {
		s.ids[i] = m.ID
		// Members listed one after another with the same subscription
		// share its sorted list and set: building them per member was
		// most of the time of the constrained path on
		// BenchmarkJavaSticky/shape=homogeneous-1000x100x100.
		if i > 0 && slices.Equal(m.Topics, g.Members[i-1].Topics) {
			s.topics[i], s.subscribed[i] = s.topics[i-1], s.subscribed[i-1]
		} else {
			ts := slices.Clone(m.Topics)
			slices.SortFunc(ts, jvm.CompareStrings)
			ts = slices.Compact(ts)
			s.topics[i] = ts
			s.subscribed[i] = make(map[string]bool, len(ts))
			for _, t := range ts {
				s.subscribed[i][t] = true
				if c := g.Topics[t]; c > 0 {
					s.counts[t] = c
				}
			}
		}
		owned := slices.Clone(m.Owned)
		slices.SortFunc(owned, func(a, b tp) int {
			if c := jvm.CompareStrings(a.Topic, b.Topic); c != 0 {
				return c
			}
			return int(a.Partition) - int(b.Partition)
		})
		gen := m.Generation
		if gen < 0 {
			gen = defaultGeneration
		}
		s.subGen[i] = gen
		if cooperative {
			s.owned[i] = owned
			s.claims[i] = owned
			s.claimGen[i], s.hasClaimGen[i] = gen, true // generationId, or the generation in the user data
		} else if len(owned) > 0 {
			s.claims[i] = owned
			s.claimGen[i], s.hasClaimGen[i] = gen, m.Generation >= 0
			if !s.hasClaimGen[i] {
				s.claimGen[i] = defaultGeneration
			}
		} else {
			s.claimGen[i] = defaultGeneration
		}
	}
	for t, c := range s.counts {
		s.total += int(c)
		s.topicHash[t] = jvm.StringHash(t)
	}
	s.order = jvm.StringMapOrderDistinct(s.ids)
	s.rack = newRackInfo(s, g)
	return s
}

// assign is AbstractStickyAssignor.assignPartitions, then for
// cooperative-sticky CooperativeStickyAssignor's adjustment. It returns
// each member's list and whether a HashSet tree bin was met.
func (s *leader) assign() ([][]tp, bool) {
	n := len(s.ids)
	ownedByMember := make([][]tp, n) // consumerToOwnedPartitions
	multiple := map[tp]bool{}        // partitionsWithMultiplePreviousOwners
	var out [][]tp
	var transferring map[tp]int
	if s.allSubscriptionsEqual(ownedByMember, multiple) {
		b := newConstrained(s, ownedByMember, multiple)
		out = b.build()
		transferring = b.transferring
	} else {
		b := newGeneral(s, ownedByMember)
		out = b.build()
		if b.treeBin {
			return nil, true
		}
	}
	if s.cooperative {
		if transferring == nil {
			transferring = s.computeTransferring(out)
		}
		for p, c := range transferring { // each entry removes one distinct partition: order is not observable
			removeFirst(&out[c], p)
		}
	}
	return out, false
}

// allSubscriptionsEqual is AbstractStickyAssignor.allSubscriptionsEqual:
// whether every subscription is the same set of names (a member with no
// topics resets the reference, as in Java), and each member's claims that
// survive the generation rules.
func (s *leader) allSubscriptionsEqual(ownedByMember [][]tp, multiple map[tp]bool) bool {
	equal := true
	var reference map[string]bool
	var referenceList []string
	prevOwner := map[tp]int{}
	for _, c := range s.order {
		if len(reference) == 0 {
			reference, referenceList = s.subscribed[c], s.topics[c]
		} else if equal && !sameSet(reference, referenceList, s.topics[c]) {
			equal = false
		}
		gen := s.claimGen[c]
		s.maxGen = max(s.maxGen, gen)
		ownedByMember[c] = []tp{}
		for _, p := range s.claims[c] {
			if _, ok := s.counts[p.Topic]; !ok {
				continue
			}
			other, claimed := prevOwner[p]
			switch {
			case !claimed:
				ownedByMember[c] = append(ownedByMember[c], p)
				prevOwner[p] = c
			case gen == s.subGen[other]:
				multiple[p] = true
				removeFirst(&ownedByMember[other], p)
				prevOwner[p] = c
			case gen > s.subGen[other]:
				ownedByMember[c] = append(ownedByMember[c], p)
				removeFirst(&ownedByMember[other], p)
				prevOwner[p] = c
			}
		}
	}
	return equal
}

// sameSet reports whether set, a member's subscription, holds the same
// names as list, another's; sameList is the first's own list.
func sameSet(set map[string]bool, sameList, list []string) bool {
	if len(set) != len(list) {
		return false
	}
	if len(list) > 0 && len(sameList) > 0 && &list[0] == &sameList[0] {
		return true // one list shared by members with one subscription (newLeader)
	}
	for _, t := range list {
		if !set[t] {
			return false
		}
	}
	return true
}

// removeFirst is ArrayList.remove(Object): it removes the first element
// equal to p, if any.
func removeFirst(list *[]tp, p tp) bool {
	if i := slices.Index(*list, p); i >= 0 {
		*list = slices.Delete(*list, i, i+1)
		return true
	}
	return false
}

// computeTransferring is CooperativeStickyAssignor's
// computePartitionsTransferringOwnership for the general path: partitions
// a member gains that some member gives up.
func (s *leader) computeTransferring(out [][]tp) map[tp]int {
	added := map[tp]int{}
	revoked := map[tp]bool{}
	for _, c := range s.order {
		owned := make(map[tp]bool, len(s.owned[c]))
		for _, p := range s.owned[c] {
			owned[p] = true
		}
		assigned := make(map[tp]bool, len(out[c]))
		for _, p := range out[c] {
			assigned[p] = true
			if !owned[p] {
				added[p] = c
			}
		}
		for _, p := range s.owned[c] {
			if !assigned[p] {
				revoked[p] = true
			}
		}
	}
	for p := range added {
		if !revoked[p] {
			delete(added, p)
		}
	}
	return added
}

// compareIDs is String.compareTo on member ids.
func (s *leader) compareIDs(a, b int) int { return jvm.CompareStrings(s.ids[a], s.ids[b]) }

// sortedTopics returns the topics of partitionsPerTopic in String.compareTo
// order.
func (s *leader) sortedTopics() []string {
	ts := make([]string, 0, len(s.counts))
	for t := range s.counts {
		ts = append(ts, t)
	}
	slices.SortFunc(ts, jvm.CompareStrings)
	return ts
}
