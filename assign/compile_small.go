package assign

import (
	"strings"

	"github.com/assigncalc/assigncalc/assign/internal/intern"
)

// This file holds the small shared group: a group of few members who all
// list the same topics, read into arrays on the stack, and what is made
// from it: the answers of a group where nobody owns anything, written
// without compiling it, and the compiled group of one where members own
// partitions, made in three allocations.
//
// On such a group the answer of Range, RoundRobin and a fresh Sticky
// follows from two orders alone, the members' (Kafka's) and the topics',
// and the answer itself (a map and one backing array) is most of what a
// call must allocate. compile would allocate about half as much again in
// a dozen small tables (the compiled group, interned names, subscriptions,
// member order) which the collector then pays for in proportion to the
// caller's live heap, not to the group: on BenchmarkAssign/strategy=sticky/
// impl=ours/shape=uniform-10x100 and .../strategy=range/impl=ours/
// shape=uniform-10x100 in bench/ that was most of the call. smallGroup
// reads what those answers need into arrays on the caller's stack.
// TestSmallGroupMatchesCompiled holds every answer written from it to the
// compiled path's.

const (
	// smallMembers bounds the members of a smallGroup: up to here,
	// checkMembers compares IDs pairwise and allocates nothing.
	smallMembers = shortList
	// smallTopics bounds the names a smallGroup's members list.
	smallTopics = 32
)

// smallGroup is a valid group of 1 to smallMembers members who list the
// same topics (the same slice, or equal lists), at most smallTopics
// names, all ASCII, and own nothing, with no replica racks (so racks play
// no part for any strategy). It is read by [smallGroup.read] into its
// own arrays, to live on the caller's stack.
type smallGroup struct {
	members []Member
	listed  int                    // the names each member lists, len(Topics)
	order   [smallMembers]int32    // Kafka's member order (see compiledGroup.kafkaOrder), in order[:len(members)]
	topics  [smallTopics]string    // the listed topics that exist with partitions, ascending, none twice: Go's order, and Java's (ASCII names)
	start   [smallTopics + 1]int32 // topics[t]'s partition 0, numbered topic by topic (see compiledGroup.start); start[nt] is the total
	nt      int                    // topics in topics
}

// read reads g into sg and reports whether g is a small shared group,
// whose members may list partitions when owning is set. When it reports
// false, sg is not to be used and the caller compiles g, which reports
// what is wrong with g if anything is: read declines every group compile
// would refuse, and some it would not, so the rules of what is valid stay
// in compile (checkMembers, checkMetadata) and read only needs to know
// that they hold. (It does not read Owned lists: with owning, the caller
// does: compileOwned, or keptDealt.)
//
// It reads the members in one pass and the topics in another, where
// checkMembers, sortKafkaOrder and an insertion sort of the names made
// several: reading was most of a small fresh group's own compute, by
// instructions beyond writing the answer (bench/cmd/smallcalls, the group
// of BenchmarkAssign/strategy=sticky/impl=ours/shape=uniform-10x100 in
// bench/), much of it checkMembers comparing every two member IDs for a
// repeat (BenchmarkSmallGroup/read), which sorting them finds for free.
func (sg *smallGroup) read(g *Group, owning bool) bool {
	ms := g.Members
	if len(ms) == 0 || len(ms) > smallMembers || len(g.PartitionRacks) != 0 {
		return false
	}
	sub := ms[0].Topics
	if len(sub) > smallTopics {
		return false
	}
	static, bytes := false, uint64(0) // someone has an instance ID; every byte of every ID ORed (orBytes)
	for i := range ms {
		m := &ms[i]
		if len(m.Owned) != 0 && !owning || !sameElems(m.Topics, sub) || m.ID == "" || m.TopicRegex != "" {
			return false
		}
		bytes |= orBytes(m.ID)
		if m.InstanceID != "" {
			static, bytes = true, bytes|orBytes(m.InstanceID)
		}
	}
	order := sg.order[:len(ms)]
	for i := range order {
		order[i] = int32(i)
	}
	if static || bytes&highBits != 0 {
		if checkMemberIDs(ms) != nil {
			return false
		}
		sortKafkaOrder(ms, order)
	} else if !sortIDs(ms, order) {
		return false // an ID repeated
	}

	// The listed topics that exist with partitions, in Go order; a name
	// listed twice counts once, and one missing from the metadata or
	// empty is skipped, as compile does. (One of a negative count is not
	// counted in nt, so the metadata's pass below finds it.) Lists are
	// usually in order, and each name is then compared once, with the one
	// before it.
	nt, total, bytes := 0, 0, uint64(0)
	for _, t := range sub {
		n := g.Topics[t]
		if n <= 0 {
			continue
		}
		if t == "" {
			return false
		}
		bytes |= orBytes(t)
		c := 1
		if nt > 0 {
			c = strings.Compare(t, sg.topics[nt-1])
		}
		switch {
		case c > 0:
			sg.topics[nt], sg.start[nt+1] = t, n // counts for now, prefix sums below
		case c == 0:
			continue
		case !sg.insertTopic(t, n, nt):
			continue
		}
		nt++
		total += int(n)
	}
	if total > MaxPartitions || bytes&highBits != 0 {
		return false
	}
	// What checkMetadata checks of every topic, subscribed or not, unless
	// the listed ones were all there is; the map's order does not matter,
	// as a fault only declines.
	if nt < len(g.Topics) {
		for t, n := range g.Topics {
			if t == "" || n < 0 {
				return false
			}
		}
	}
	sg.nt = nt
	sg.start[0] = 0
	for t := range nt {
		sg.start[t+1] += sg.start[t]
	}
	sg.members, sg.listed = ms, len(sub)
	return true
}

// insertTopic inserts t, of n partitions, into sg.topics[:nt], which is
// in Go order and holds a name after t, and its count into sg.start
// after them, unless t is there already: it reports whether it did.
func (sg *smallGroup) insertTopic(t string, n int32, nt int) bool {
	j := nt - 1
	for j > 0 && t < sg.topics[j-1] {
		j--
	}
	if j > 0 && sg.topics[j-1] == t {
		return false
	}
	copy(sg.topics[j+1:nt+1], sg.topics[j:nt])
	copy(sg.start[j+2:nt+2], sg.start[j+1:nt+1])
	sg.topics[j], sg.start[j+1] = t, n
	return true
}

// sortIDs sorts order, indices into members, by the members' IDs, which
// is Kafka's member order when nobody has an instance ID and every ID is
// ASCII (see compareKafkaMembers), and reports whether no two IDs are
// equal. It sorts by insertion, which compares every two neighbours of
// its result: two equal IDs would be neighbours, so it finds a repeat
// without comparing every pair as checkMemberIDs does.
func sortIDs(members []Member, order []int32) bool {
	for i := 1; i < len(order); i++ {
		m := order[i]
		id := members[m].ID
		j := i
		for ; j > 0; j-- {
			c := strings.Compare(id, members[order[j-1]].ID)
			if c == 0 {
				return false
			}
			if c > 0 {
				break
			}
			order[j] = order[j-1]
		}
		order[j] = m
	}
	return true
}

// orBytes returns the bitwise OR of the bytes of s, eight to a word: s
// is ASCII when no byte of the result has its high bit set (see
// highBits). It reads eight bytes a step, the last eight first
// (overlapping the others), where ascii tests each byte.
func orBytes(s string) uint64 {
	if len(s) < 8 {
		var w uint64
		for i := range len(s) {
			w |= uint64(s[i])
		}
		return w
	}
	w := word(s[len(s)-8:])
	for len(s) > 8 {
		w |= word(s)
		s = s[8:]
	}
	return w
}

// highBits is a word's high bit of every byte: orBytes' result has none
// of them set when its string is ASCII.
const highBits = 0x8080808080808080

// word returns the first eight bytes of s as one little-endian word,
// which the compiler loads at once.
func word(s string) uint64 {
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// compile returns the compiled group of g, which sg has read (with every
// topic of the metadata listed: sg.nt == len(g.Topics)), as compileAny
// would, its tables made from sg's in three allocations where compileAny
// makes a dozen: small churned groups (BenchmarkAssign/strategy=sticky/
// impl=ours/shape=uniform-10x100-leave1 in bench/) spent much of their
// call in compile. TestCompileSmallMatchesAny holds it to compileAny.
func (sg *smallGroup) compile(g Group, use ownedRead) (*compiledGroup, error) {
	n, nt := len(g.Members), sg.nt
	cg := &compiledGroup{group: g}
	cg.g = &cg.group
	// Every topic of the metadata is subscribed and ASCII: the metadata's
	// Go order is the topics' Java order, and positions are topic indices.
	names := make([]string, nt)
	copy(names, sg.topics[:nt])
	cg.meta = intern.New(names)
	cg.topics = names // read-only, as meta's
	tables := make([]int32, 5*nt+1+2*n)
	cg.metaTopic, tables = tables[:nt:nt], tables[nt:]
	cg.numParts, tables = tables[:nt:nt], tables[nt:]
	cg.start, tables = tables[:nt+1:nt+1], tables[nt+1:]
	cg.byGoName, tables = tables[:nt:nt], tables[nt:]
	sub, tables := tables[:nt:nt], tables[nt:] // everybody's subscription: every topic
	cg.kafkaOrder, cg.rankOf = tables[:n:n], tables[n:]
	copy(cg.start, sg.start[:nt+1])
	for t := range nt {
		cg.metaTopic[t], cg.byGoName[t], sub[t] = int32(t), int32(t), int32(t)
		cg.numParts[t] = cg.start[t+1] - cg.start[t]
	}
	copy(cg.kafkaOrder, sg.order[:n])
	if nt == 0 {
		sub = nil
	}
	cg.subs = make([][]int32, n)
	cg.distinctNames = make([]bool, n)
	distinct := sg.listed == nt // no name missing, empty or listed twice
	for m := range n {
		cg.subs[m], cg.distinctNames[m] = sub, distinct
	}
	cg.internRacks()
	if err := cg.compileOwned(use, nil); err != nil {
		return nil, err
	}
	return cg, nil
}

// dealt returns the answer that deals partition number i (see start) to
// the member of rank i mod n in Kafka's order: a fresh [Sticky]'s and
// [RoundRobin]'s, as [compiledGroup.freshDealt] and [roundRobinCommon]
// write them.
func (sg *smallGroup) dealt() Assignment {
	n := len(sg.members)
	var scratch [2*smallMembers + 1]int
	return dealInTurn(sg.members, sg.order[:n], sg.topics[:sg.nt], sg.start[:sg.nt+1], nil, scratch[:])
}

// ranges returns [Range]'s answer: of a topic of P partitions, the member
// of rank k in Kafka's order gets P/n partitions, one more when k < P%n,
// in one run after those of the ranks before it (see rangeWithoutRacks).
func (sg *smallGroup) ranges() Assignment {
	n := len(sg.members)
	var buf [smallMembers + 1]int
	off := buf[:n+1] // member index => where its list starts
	for t := range sg.nt {
		p := int(sg.start[t+1] - sg.start[t])
		q, e := p/n, p%n
		for rk, m := range sg.order[:n] {
			off[m+1] += q
			if rk < e {
				off[m+1]++
			}
		}
	}
	for m := range n {
		off[m+1] += off[m]
	}
	backing := make([]TopicPartition, off[n])
	for rk, m := range sg.order[:n] {
		at := off[m]
		for t, name := range sg.topics[:sg.nt] {
			p := sg.start[t+1] - sg.start[t]
			q, e, k := p/int32(n), p%int32(n), int32(rk)
			first, length := k*q+min(k, e), q
			if k < e {
				length++
			}
			for part := first; part < first+length; part++ {
				backing[at] = TopicPartition{name, part}
				at++
			}
		}
	}
	return listsAssignment(sg.members, off, backing)
}
