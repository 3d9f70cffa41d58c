package assign

import (
	"fmt"
	"math"
	"slices"

	"github.com/assigncalc/assigncalc/assign/internal/jvm"
)

// Simple is the group coordinator's "simple" assignor for share groups
// (KIP-932), the only one group.share.assignors offers: the broker
// computes every member's target assignment with it, and unlike every
// other strategy here one partition may go to several members at once,
// which then share its records. Simple returns exactly the target Kafka's
// SimpleAssignor returns, under the conventions of [Uniform] (members in a
// java.util.HashMap put in the order of Group.Members, subscriptions as
// HashSet<String> seen through Kafka's TopicIds view, current targets
// (Member.Owned) as HashMap<Uuid, HashSet<Integer>> built in the listed
// order, topic ids from Group.TopicIDs), extended below with what this
// assignor iterates besides.
//
// It reproduces Apache Kafka's SimpleAssignor, SimpleHomogeneousAssignmentBuilder
// and SimpleHeterogeneousAssignmentBuilder as of commit 860853dba2
// (KAFKA-19363, July 2025, after KAFKA-19362 removed the hash-based
// placement), which the 4.2, 4.3 and 4.4 branches carry unchanged; the
// oracle (assign/testdata/share) compares it with those classes compiled
// from each of the three branches.
//
// # Algorithm
//
// Kafka picks one of two builders by the group's subscription type. Both
// work on numbers: a member's index is its position in the member map, and
// a partition's desired sharing is ceil(S/P) for S members and P
// partitions (1 when there are at least as many partitions as members).
// The ceil(S/P)×P assignments are spread over the members in index order: member k desires ceil(x·(k+1)) − ceil(x·k)
// of them, x = ceil(S/P)·P/S, computed in doubles as Kafka does.
//
// Homogeneous (every member names the same topics): S is every member, P
// every partition of the subscribed topics. Each member's current target
// loses the topics it no longer subscribes to; members holding more than
// they desire lose what they hold beyond it, the first in their set's
// order (a HashSet<TopicIdPartition>, whose hash is 31·Uuid.hashCode +
// partition); a partition held by more members than the desired sharing
// loses the first holders in its member set's order. Then the partitions,
// in the order of a HashMap<TopicIdPartition, Set<Integer>> (those held
// first, then the rest of the subscribed topics' partitions, topic by
// topic in the first member's subscription order), each take members
// below their count round-robin, in index order, until the partition
// reaches the desired sharing.
//
// Heterogeneous: the same, topic by topic, with S the topic's subscribers
// and P its partitions, and the partitions visited in their HashMap order
// (ascending below 65536).
//
// Balance comes before stickiness: a member keeps what it holds only up to
// its count. Where every member still below its count already holds a
// partition that wants more members, Kafka leaves that partition, and
// every partition after it in this round, below the desired sharing, and
// picking a member twice for one partition counts twice (a HashSet keeps
// it once): both are Kafka's and are reproduced.
//
// # Kafka's answer beyond validity
//
// The heterogeneous builder visits only topics someone subscribes to, so a
// member keeps, in its target, partitions of a deleted topic or of a topic
// nobody subscribes to any longer (KAFKA-19363's code; the homogeneous
// builder drops them). Simple returns them too, as Kafka does, so
// [VerifyShare] refuses such an answer: it names the partition of a topic
// the member does not subscribe to.
//
// # Conventions beyond Uniform's
//
// Kafka's sets of member indices are HashSet<Integer>, of partition
// indices HashSet<Integer> and of partitions HashSet<TopicIdPartition>,
// iterated in the order java.util.HashMap gives (package jvm's
// emulation). A partition's set of holders (new HashSet<>(), filled in
// member index order) that comes to hold nine indices in one bucket of a
// table of 64 or more becomes a red-black tree (eleven indices agreeing
// modulo 64 do it: the crowded bucket first doubles the table from 16 to
// 64). When revokeOverfilledMembers then removes members from it, Java
// moves each new root to the front of the bucket, or turns the tree back
// into a list; Simple replays such a set (nine holders agreeing modulo
// 64, one removed) through jvm.ChurnSet, so revokeOversharedPartitions
// drops the holders Kafka drops (testdata/share/treebin.jsonl: groups of
// 1000 members, checked against Kafka's classes). Integers have distinct
// hash codes, so Java's order there is deterministic. One place is not
// reproduced:
//
//   - TopicIdPartition is a record, not Comparable, and its hash code is
//     31·Uuid.hashCode + partition, so partition p of every topic whose
//     ids have equal hash codes shares one hash code. When enough of them
//     fill one bucket for it to become a red-black tree (eight in the map
//     of partitions, which computeIfAbsent fills; nine in a set; in a
//     table of 64 buckets or more, which a smaller table doubles to reach),
//     Java orders the equal ones by identity hash codes. Those depend on
//     what the JVM did before, so Kafka's own answer for such a group
//     varies between brokers and runs (the oracle shows it: one group
//     answered alone and after others gets two answers). Simple orders
//     such ties by topic id, then partition; the oracle test detects the
//     case and does not hold Simple to Kafka there.
//
// # Input
//
// As for [Uniform]: [Group.TopicIDs] gives an id for every topic a member
// subscribes to or holds. A current target may share a partition with
// other members' (that is what share groups do) but not list one twice
// ([ErrDuplicateOwned]) or one the topic does not have
// ([ErrTargetOutOfRange]). Every partition is assignable: Kafka withholds
// a partition until its share-group state is initialized, which a
// calculator does not model.
//
// # Example
//
// Members C0 and C1 subscribe to t0 and t1, three partitions each, and
// hold nothing: six partitions for two members, so no sharing and three
// each. With the topic ids of the Example, C0 comes first in the member
// map and takes the first, third and fifth partitions in the order of
// the map of partitions, C1 the others:
//
//	C0: t0-2 t1-0 t1-2
//	C1: t0-0 t0-1 t1-1
//
// With five members and the two partitions of t0, each partition is
// shared by ceil(5/2) = 3 members, six assignments: the first member in
// the map (C3) desires two, the others one each.
type Simple struct{}

// Name is the assignor's name in group.share.assignors: "simple".
func (Simple) Name() string { return "simple" }

// Protocol is [Share]: one partition may go to several members.
func (Simple) Protocol() RebalanceProtocol { return Share }

// Traits says that Simple is sticky up to each member's count.
func (Simple) Traits() Traits { return Traits{Sticky: true} }

// Assign returns each member's new target assignment, lists sorted, every
// member present; a member with nothing gets a nil list. It returns an
// [*InputError] for a group Kafka could not hold (see the type's doc).
func (Simple) Assign(g Group) (Assignment, error) {
	a, _, err := simpleAssign(g)
	return a, err
}

// simpleAssign is Assign that also reports whether Kafka's answer
// depended on identity hash codes: two partitions of equal hash code met
// in a tree bucket of a map or set keyed by TopicIdPartition (see the
// type's doc). The oracle test uses it to tell Kafka's run-to-run
// variation from a fault of ours.
func simpleAssign(g Group) (Assignment, bool, error) {
	sg, err := newSimpleGroup(g)
	if err != nil {
		return nil, false, err
	}
	if sg.homogeneous {
		err = sg.homogeneousBuild()
	} else {
		err = sg.heterogeneousBuild()
	}
	if err != nil {
		return nil, false, err
	}
	return sg.assignment(), sg.identityTie, nil
}

// errSimpleStuck is Kafka's NoSuchElementException: a partition wants
// more members when none is below its count. Sums of the desired counts
// make it unreachable for targets Simple accepts.
var errSimpleStuck = fmt.Errorf("%w: no member left below its count", ErrPartitionAssignor)

// simpleGroup is a group as the simple builders see it. Members are
// numbered by their position in the member map (Kafka's member index),
// topics as in cg.
type simpleGroup struct {
	*serverGroup
	m    int      // members
	hash []int32  // topic index => Uuid.hashCode of its id
	held [][]held // member index => current target, in its map's order

	// out[j] is member j's answer by topic: nil where the answer is its
	// current target for that topic.
	gave  [][]int32 // member => pids given, beyond what it keeps
	lost  []map[int32]bool
	keep  []bool // member => its current target's topics are kept as they are (heterogeneous: topics nobody subscribes to)
	clear []bool // member => the answer is empty (Kafka's Map.of())

	// identityTie records that Java would have ordered two keys by their
	// identity hash codes (partitionTable.compare was called).
	identityTie bool
}

// held is one topic of a member's current target: the topic's index in
// cg (-1 when the assignors do not know it: deleted, or subscribed by
// nobody), its name and its partitions in the HashSet's order.
type held struct {
	t     int32
	name  string
	parts []int32
}

func newSimpleGroup(g Group) (*simpleGroup, error) {
	sg0, err := newServerGroup(g)
	if err != nil {
		return nil, err
	}
	sg := &simpleGroup{serverGroup: sg0, m: len(g.Members)}
	cg := sg.cg
	sg.hash = make([]int32, len(cg.topics))
	for t := range cg.topics {
		sg.hash[t] = sg.ids[t].Hash()
	}
	sg.held = make([][]held, sg.m)
	for j, mi := range sg.byPos {
		h, err := sg.readSimpleTarget(int(mi))
		if err != nil {
			return nil, err
		}
		sg.held[j] = h
	}
	sg.gave = make([][]int32, sg.m)
	sg.lost = make([]map[int32]bool, sg.m)
	sg.clear = make([]bool, sg.m)
	sg.keep = make([]bool, sg.m)
	return sg, nil
}

// readSimpleTarget checks member mi's current target and returns it as
// the builders iterate it (convention 4 of [Uniform]).
func (sg *simpleGroup) readSimpleTarget(mi int) ([]held, error) {
	g := sg.cg.g
	mem := &g.Members[mi]
	var out []held
	var uuids []jvm.Uuid
	slot := make(map[string]int)
	seen := make(map[TopicPartition]bool, len(mem.Owned))
	for _, tp := range mem.Owned {
		fail := func(err error) error {
			return &InputError{Member: mem.ID, Index: mi, Topic: tp.Topic, Partition: tp.Partition, Err: err}
		}
		id, ok := g.TopicIDs[tp.Topic]
		if !ok {
			return nil, fail(ErrNoTopicID)
		}
		n, exists := g.Topics[tp.Topic]
		if tp.Partition < 0 || exists && tp.Partition >= n {
			return nil, fail(ErrTargetOutOfRange)
		}
		if seen[tp] {
			return nil, fail(ErrDuplicateOwned)
		}
		seen[tp] = true
		k, ok := slot[tp.Topic]
		if !ok {
			k = len(out)
			slot[tp.Topic] = k
			t, known := sg.cg.topicIndex(tp.Topic)
			if !known {
				t = -1
			}
			out = append(out, held{t: t, name: tp.Topic})
			uuids = append(uuids, jvm.Uuid(id))
		}
		out[k].parts = append(out[k].parts, tp.Partition)
	}
	order := jvm.UuidMapOrder(uuids)
	sorted := make([]held, len(order))
	for k, i := range order {
		h := out[i]
		set := make([]int32, len(h.parts))
		for x, y := range jvm.IntSetOrder(h.parts) {
			set[x] = h.parts[y]
		}
		h.parts = set
		sorted[k] = h
	}
	return sorted, nil
}

// desiredCounts returns how many of the sharing×p assignments each of s
// members desires, in index order, as Kafka computes it in doubles.
func desiredCounts(s, p int) (sharing int, counts []int) {
	counts = make([]int, s)
	if p == 0 || s == 0 {
		return 0, counts
	}
	sharing = (s + p - 1) / p
	x := float64(int32(sharing*p)) / float64(s)
	for k := range counts {
		counts[k] = int(int32(math.Ceil(x*float64(k+1)))) - int(int32(math.Ceil(x*float64(k))))
	}
	return sharing, counts
}

// newHashMapCapacity is the initial capacity Kafka's AssignorHelpers
// newHashMap and newHashSet ask for n entries: (int) ((n + 1) / 0.75f + 1).
func newHashMapCapacity(n int) int {
	return int(float32(n+1)/float32(0.75) + 1)
}

// intOrder returns 0..n-1 in the order a HashMap<Integer, V> made with
// room for them (newHashMap(n) or more) iterates them: by Spread(i),
// which is i itself below 65536.
func intOrder(n int) []int32 {
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(i)
	}
	if n > 1<<16 {
		slices.SortFunc(out, func(a, b int32) int { return int(jvm.Spread(a)) - int(jvm.Spread(b)) })
	}
	return out
}

// setOrder returns the positions of keys in the iteration order of a
// HashSet made by new HashSet<>() (capacity) into which keys with these
// hash codes were added in order; tie orders keys of equal hash code
// (see the type's doc).
func setOrder(capacity int, hashes []int32, tie func(a, b int) int) []int {
	return jvm.Order(capacity, hashes, tie)
}

// unfilledRing is Kafka's HashSet<Integer> of members below their count,
// sized for every member, with the iterator assignRemainingPartitions
// walks round and round: members in index order (see intOrder), removed
// through the iterator.
type unfilledRing struct {
	order      []int32 // members in the set's order
	next, prev []int32 // by position in order; -1 at the ends
	head       int32
	cur        int32 // position of the member next() returned, -1 before the first
	nextPos    int32 // position next() returns, -1 when none
	size       int
}

func newUnfilledRing(order []int32, in func(j int32) bool) *unfilledRing {
	r := &unfilledRing{head: -1, cur: -1}
	for _, j := range order {
		if in(j) {
			r.order = append(r.order, j)
		}
	}
	n := len(r.order)
	r.size = n
	r.next = make([]int32, n)
	r.prev = make([]int32, n)
	for i := range n {
		r.next[i], r.prev[i] = int32(i+1), int32(i-1)
	}
	if n > 0 {
		r.next[n-1] = -1
		r.head = 0
	}
	r.nextPos = r.head
	return r
}

func (r *unfilledRing) hasNext() bool { return r.nextPos >= 0 }

func (r *unfilledRing) restart() { r.nextPos, r.cur = r.head, -1 }

func (r *unfilledRing) nextMember() (int32, bool) {
	if r.nextPos < 0 {
		return 0, false
	}
	r.cur = r.nextPos
	r.nextPos = r.next[r.cur]
	return r.order[r.cur], true
}

// remove removes the member nextMember returned last.
func (r *unfilledRing) remove() {
	c := r.cur
	if p := r.prev[c]; p >= 0 {
		r.next[p] = r.next[c]
	} else {
		r.head = r.next[c]
	}
	if n := r.next[c]; n >= 0 {
		r.prev[n] = r.prev[c]
	}
	r.size--
}

// dealRound is assignRemainingPartitions' walk for one partition that has
// have members and wants sharing: members below their count are taken
// round-robin from ring, skipping those holding it (holds). give records
// a new holder and reports whether it reached its count. assigned carries
// Kafka's partitionAssignedForThisIterator from partition to partition.
func dealRound(ring *unfilledRing, have, sharing int, assigned *bool, holds func(j int32) bool, give func(j int32) bool) error {
	var givenHere []int32
	for need := sharing - have; need > 0; {
		if !ring.hasNext() {
			if !*assigned {
				return nil
			}
			ring.restart()
			*assigned = false
		}
		j, ok := ring.nextMember()
		if !ok {
			return errSimpleStuck
		}
		if holds(j) {
			continue
		}
		need--
		*assigned = true
		if slices.Contains(givenHere, j) {
			continue // a HashSet adds it once; the count stays
		}
		givenHere = append(givenHere, j)
		if give(j) {
			ring.remove()
		}
	}
	return nil
}

// assignment writes the answer: each member's current target without
// what it lost, with what it was given, sorted.
func (sg *simpleGroup) assignment() Assignment {
	cg := sg.cg
	g := cg.g
	a := make(Assignment, sg.m)
	for j, mi := range sg.byPos {
		var list []TopicPartition
		if !sg.clear[j] {
			for _, h := range sg.held[j] {
				if h.t < 0 {
					if sg.keep[j] {
						for _, p := range h.parts {
							list = append(list, TopicPartition{h.name, p})
						}
					}
					continue
				}
				base := cg.start[h.t]
				for _, p := range h.parts {
					if !sg.lost[j][base+p] {
						list = append(list, TopicPartition{h.name, p})
					}
				}
			}
			for _, pid := range sg.gave[j] {
				t := sg.topicOfPid(pid)
				list = append(list, TopicPartition{cg.topics[t], pid - cg.start[t]})
			}
		}
		slices.SortFunc(list, TopicPartition.Compare)
		a[g.Members[mi].ID] = list
	}
	return a
}

// topicOfPid returns the topic index of pid.
func (sg *simpleGroup) topicOfPid(pid int32) int32 {
	t, _ := slices.BinarySearch(sg.cg.start, pid+1)
	return int32(t - 1)
}

// lose records that member j's target no longer holds pid.
func (sg *simpleGroup) lose(j, pid int32) {
	if sg.lost[j] == nil {
		sg.lost[j] = make(map[int32]bool)
	}
	sg.lost[j][pid] = true
}
