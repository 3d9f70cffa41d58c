package assign

// This file holds the topics of a compiled group: compileSubs, which
// interns the subscribed topics and every member's subscription, and the
// lookups that find a topic again. There are four, each for its own key:
//
//	topicIndex(name)                    a topic's name, in any order
//	topicAfter(after, ti, known, name)  a name of a list sorted in Go order, such as an Owned list:
//	                                    topicIndex, trying first the topic after the one before
//	ownedTopic(g, after, ti, known, name)  the next run of a member's claims: topicAfter, trying
//	                                    first, by address, the next topics of the member's subscription
//	topicAt(start, pid)                 a partition number (see start)
//
// and two tables: metaTopic maps a topic of the metadata (a position in
// meta) to its topic index, and goOrder (output.go) lists the topic
// indices in Go order of their names, which goSteps turns into the next
// topic and the position in that order.

import (
	"encoding/binary"
	"fmt"
	"slices"
	"unsafe"

	"github.com/assigncalc/assigncalc/assign/internal/intern"
)

// compileSubs finds the topics someone subscribes to that exist with
// partitions (cg.topics, in Java order, with numParts, start, meta,
// metaTopic and byGoName) and every member's subscription as ascending
// topic indices (cg.subs). meta is the metadata's topic names in Go
// order, metaParts their partition counts; given, when it carries
// subscriptions ([OwnedRuns.Subs]), gives them in place of the members'
// Topics.
//
// Names are looked up once per distinct subscription: members that share
// their Topics with the member before them (as clients that build every
// member alike do) share its subscription too, at the cost of comparing
// string headers. Names are found by [intern.Sorted.Positions]; given
// subscriptions' names are found once each, for every member.
func (cg *compiledGroup) compileSubs(meta []string, metaParts []int32, given *OwnedRuns) error {
	g := cg.g
	cg.meta = intern.New(meta)
	var subs subscriptions = topicLists(g.Members)
	if given != nil && given.Subs != nil {
		subs = givenSubs{given, cg.meta.Positions(given.Names, nil)}
	}
	n := len(g.Members)
	flags := make([]bool, len(meta)+3*n)
	used := flags[:len(meta):len(meta)]                    // position in meta => someone subscribes to it
	shared := flags[len(meta) : len(meta)+n : len(meta)+n] // member => its subscription repeats an earlier member's (see from)
	cg.distinctNames = flags[len(meta)+n : len(meta)+2*n : len(meta)+2*n]
	ascending := flags[len(meta)+2*n:] // member => its positions ascend, without a repeat (internSubs)
	topics := 0                        // of used
	var from []int32                   // nil: a shared subscription is the one before; else member => the member whose it is
	gs, isGiven := subs.(givenSubs)
	aliased := isGiven && gs.areTopics(meta, metaParts)
	if aliased {
		// The given indices are already the topic indices: compile
		// keeps them, read-only, instead of a copy.
		// Members whose lists are equal share one, as internSubs has
		// them share (BenchmarkRound in bench/, shape=hetero-1000x2000t:
		// the solver's indexes then keep one row per distinct list).
		cg.subs = make([][]int32, n)
		var rp repeats
		for i, sub := range gs.o.Subs {
			cg.distinctNames[i] = true
			if i > 0 && sameSlice(sub, gs.o.Subs[i-1]) {
				cg.subs[i] = cg.subs[i-1]
				continue
			}
			if i > 0 && len(sub) >= minRepeated {
				if j := rp.find(subs, i); j >= 0 { // subs holds gs: passing gs would convert it to an interface, an allocation, per member
					cg.subs[i] = cg.subs[j]
					continue
				}
			}
			if len(sub) > 0 {
				cg.subs[i] = slices.Clip(sub)
			}
		}
		for k := range used {
			used[k] = true
		}
		topics = len(meta)
	} else {
		from = cg.internSubs(subs, metaParts, used, shared, ascending, &topics)
	}

	// The tables by topic, in one array: metaTopic, numParts, start, and
	// byGoName, which first holds the topics' positions in meta in Go
	// order, then (below) their topic indices.
	tables := make([]int32, len(meta)+3*topics+1)
	cg.metaTopic = tables[:len(meta):len(meta)]
	tables = tables[len(meta):]
	cg.numParts, cg.start, cg.byGoName = tables[:topics:topics], tables[topics:2*topics+1:2*topics+1], tables[2*topics+1:]
	byGo := cg.byGoName[:0] // positions in meta of the topics, Go order
	for k := range meta {
		if used[k] {
			byGo = append(byGo, int32(k))
		}
	}

	// Topics in Java order: Go's order but for names with characters
	// beyond the Basic Multilingual Plane (or bytes that are not UTF-8),
	// so this sort finds them nearly sorted, and ASCII names need none.
	byJava := byGo
	inGoOrder := ascii(meta...)
	if !inGoOrder {
		byJava = slices.Clone(byGo)
		slices.SortFunc(byJava, func(a, b int32) int { return javaCompare(meta[a], meta[b]) })
	}
	// When every topic of meta is one, in Go order, cg.topics is meta,
	// read-only as meta is (intern.New keeps it): a copy was a large share
	// of the bytes of
	// BenchmarkKIP848/shape=uniform-1000x100000/strategy=uniform/churn=leave1.
	// TestCompileSubscriptions and TestCompileSubsInOrder cover both.
	whole := inGoOrder && topics == len(meta)
	if whole {
		cg.topics = meta
	} else {
		cg.topics = make([]string, len(byJava))
	}
	for k := range cg.metaTopic {
		cg.metaTopic[k] = -1
	}
	total := 0
	for ti, k := range byJava {
		if !whole {
			cg.topics[ti] = meta[k]
		}
		cg.metaTopic[k] = int32(ti)
		cg.numParts[ti] = metaParts[k]
		total += int(metaParts[k])
		if total > MaxPartitions {
			return topicError(meta[k], fmt.Errorf("%w: the subscribed topics hold more than %d", ErrTooManyPartitions, MaxPartitions))
		}
		cg.start[ti+1] = int32(total)
	}
	for i, k := range byGo { // in place: byGo is byGoName
		cg.byGoName[i] = cg.metaTopic[k]
	}

	if aliased {
		return nil
	}
	// Positions to topic indices, ascending, without repeats; each
	// distinct subscription once. Where Java's order is Go's, positions
	// that ascend map to topic indices that ascend, and they are the
	// topic indices when every topic of meta is one (a list in order,
	// as Kafka's clients send them: BenchmarkAssign/strategy=sticky/
	// impl=ours/shape=hetero-100x200t in bench/, where every member
	// lists its own; TestCompileSubsInOrder holds it to the general path).
	identity := inGoOrder && topics == len(meta)
	for i, sub := range cg.subs {
		if shared[i] {
			j := i - 1
			if from != nil {
				j = int(from[i])
			}
			cg.subs[i] = cg.subs[j] // read-only from here on
			cg.distinctNames[i] = cg.distinctNames[j]
			continue
		}
		if inGoOrder && ascending[i] {
			if !identity {
				for j, k := range sub {
					sub[j] = cg.metaTopic[k]
				}
			}
			if len(sub) == 0 {
				sub = nil
			}
			cg.subs[i] = sub // clipped by internSubs
			continue
		}
		for j, k := range sub {
			sub[j] = cg.metaTopic[k]
		}
		if !slices.IsSorted(sub) {
			slices.Sort(sub)
		}
		n := len(sub)
		if sub = slices.Compact(sub); len(sub) == 0 {
			sub = nil
		}
		if len(sub) < n {
			cg.distinctNames[i] = false // a name repeated
		}
		cg.subs[i] = slices.Clip(sub)
	}
	return nil
}

// internSubs is compileSubs's reading of the members' subscriptions as
// positions in meta (see compileSubs): it fills cg.subs with them,
// marks the positions used (counting them in topics), the members whose
// subscription repeats an earlier member's (shared), those whose
// positions ascend without a repeat (ascending), and cg.distinctNames.
// A shared subscription is the one before unless from, which it then
// returns, names the member whose it is.
//
// A subscription equal to an earlier one that is not just before it is
// found by a map from its length and first and last names to the first
// member that listed such a list, and one comparison with that list:
// groups have few distinct subscriptions, each member listing its own
// copy (BenchmarkAssign/strategy=sticky/impl=ours/shape=hetero-1000x2000t
// in bench/, where 1,000 members list 5 distinct lists of ~1,200 names;
// TestCompileSubsInOrder holds it to a map of names).
func (cg *compiledGroup) internSubs(subs subscriptions, metaParts []int32, used, shared, ascending []bool, topics *int) (from []int32) {
	n := len(cg.g.Members)
	// Subscriptions as positions in meta first, all in one array, with
	// room after it for the positions of the longest list. The arrays
	// of compileSubs share a few allocations (one of int32s, one of
	// bools, then one of int32s per topic): allocations are most of what
	// a small group costs (BenchmarkAssign/strategy=sticky/impl=ours/
	// shape=uniform-10x100-join1 in bench/).
	var rp repeats // made only once two lists differ: most groups of members that list equal topics share one slice
	distinct, longest := 0, 0
	for i := range n {
		if i > 0 && subs.same(i) {
			shared[i] = true
			if from != nil {
				from[i] = from[i-1]
			}
			continue
		}
		if l := subs.len(i); l >= minRepeated && i > 0 {
			if j := rp.find(subs, i); j >= 0 {
				if from == nil {
					from = make([]int32, n)
					for h := range i {
						from[h] = int32(h)
						if shared[h] {
							from[h] = from[h-1]
						}
					}
				}
				shared[i], from[i] = true, j
				continue
			}
		}
		if from != nil {
			from[i] = int32(i)
		}
		distinct += subs.len(i)
		longest = max(longest, subs.len(i))
	}
	slab := make([]int32, distinct+longest)
	backing, positions := slab[:0:distinct], slab[distinct:distinct]
	cg.subs = make([][]int32, n)
	for i := range n {
		if shared[i] {
			continue
		}
		first := len(backing)
		distinctNames, last := true, int32(-1) // until a name is missing or empty; the last position
		positions = subs.positions(&cg.meta, i, positions[:0])
		for _, k := range positions {
			if k < 0 || metaParts[k] <= 0 {
				distinctNames = false // not in the metadata, or empty: skipped, as Kafka does
				continue
			}
			backing = append(backing, k)
			if k > last {
				last = k
			} else {
				last = len32(metaParts) // out of order, or repeated: from here on above every position
			}
			if !used[k] {
				used[k] = true
				*topics++
			}
		}
		cg.distinctNames[i] = distinctNames
		ascending[i] = last < len32(metaParts)
		cg.subs[i] = backing[first:len(backing):len(backing)]
	}
	return from
}

// minRepeated is the length from which internSubs looks for a list
// repeated further back than the member before: for shorter ones the
// look-up costs about what it saves.
const minRepeated = 8

// repeats finds, for a member's list, an earlier member that listed an
// equal one: a map from a list's key (its length, first and last names)
// to the first member that listed a list of that key, and a chain from
// each such member to the next one whose list has its key but differs.
// Distinct lists do share keys: of bench's hetero groups' five, two
// (members j with j*17 % 5 of 1 and 2) have the same length, first and
// last topics, and without the chain every member of the second listed
// its own copy, interned name by name (BenchmarkAssign/strategy=sticky/
// impl=ours/shape=hetero-100x200t-replace10 in bench/;
// TestCompileSharesCollidingLists). A list is compared with at most
// maxCompared earlier ones, so that lists made to collide cost no more
// than interning them.
type repeats struct {
	firsts map[subKey]int32 // a list's key => the first member that listed such a list
	next   []int32          // member => the next member with a list of its key that differs, or -1; nil until two differ
}

// maxCompared bounds the earlier lists repeats compares a list with.
const maxCompared = 4

// find returns an earlier member whose list equals member i's (i > 0,
// subs.len(i) >= minRepeated), or -1; it then records i's list, unless
// maxCompared lists of its key precede it.
func (rp *repeats) find(subs subscriptions, i int) int32 {
	if rp.firsts == nil {
		rp.firsts = make(map[subKey]int32)
		if subs.len(0) >= minRepeated {
			rp.firsts[subs.key(0)] = 0
		}
	}
	k := subs.key(i)
	j, ok := rp.firsts[k]
	if !ok {
		rp.firsts[k] = int32(i)
		return -1
	}
	for tries := 1; ; tries++ {
		if subs.equal(i, int(j)) {
			return j
		}
		next := int32(-1)
		if rp.next != nil {
			next = rp.next[j]
		}
		if next >= 0 && tries < maxCompared {
			j = next
			continue
		}
		if next < 0 && tries < maxCompared {
			if rp.next == nil {
				rp.next = make([]int32, subs.count())
				for m := range rp.next {
					rp.next[m] = -1
				}
			}
			rp.next[j] = int32(i)
		}
		return -1
	}
}

// subKey is what internSubs keys a list by when it looks for repeats.
type subKey struct {
	n           int
	first, last string
}

// len32 returns len(s) as an int32: a bound no position in s reaches.
func len32[T any](s []T) int32 { return int32(len(s)) }

// subscriptions is the members' subscriptions as compileSubs reads
// them: from their Topics, or as indices given in [OwnedRuns].
type subscriptions interface {
	count() int                                                // the number of members
	len(i int) int                                             // the number of names member i lists
	same(i int) bool                                           // member i lists what member i-1 lists, as the same slice or equal
	key(i int) subKey                                          // member i's list's length and first and last names; len(i) > 0
	equal(i, j int) bool                                       // members i and j list the same names
	positions(meta *intern.Sorted, i int, out []int32) []int32 // appends to out the position in meta of each name, or -1
}

// topicLists reads the members' Topics.
type topicLists []Member

func (ms topicLists) count() int      { return len(ms) }
func (ms topicLists) len(i int) int   { return len(ms[i].Topics) }
func (ms topicLists) same(i int) bool { return equalNames(ms[i].Topics, ms[i-1].Topics) }
func (ms topicLists) key(i int) subKey {
	ts := ms[i].Topics
	return subKey{len(ts), ts[0], ts[len(ts)-1]}
}
func (ms topicLists) equal(i, j int) bool {
	a, b := ms[i].Topics, ms[j].Topics
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !sameName(a[k], b[k]) {
			return false
		}
	}
	return true
}
func (ms topicLists) positions(meta *intern.Sorted, i int, out []int32) []int32 {
	return meta.Positions(ms[i].Topics, out)
}

// givenSubs reads [OwnedRuns.Subs]; at holds the position in meta of
// each of its Names, or -1, found once for every member: the leader's
// round then looks no name up per member (BenchmarkRound in bench/,
// shape=hetero-1000x2000t, where every member lists its own ~1,200
// names; TestAssignPackedOwnedIsAssignPacked holds it to Topics).
type givenSubs struct {
	o  *OwnedRuns
	at []int32
}

func (gs givenSubs) count() int      { return len(gs.o.Subs) }
func (gs givenSubs) len(i int) int   { return len(gs.o.Subs[i]) }
func (gs givenSubs) same(i int) bool { return sameElems(gs.o.Subs[i], gs.o.Subs[i-1]) }
func (gs givenSubs) key(i int) subKey {
	sub := gs.o.Subs[i]
	return subKey{len(sub), gs.o.Names[sub[0]], gs.o.Names[sub[len(sub)-1]]}
}
func (gs givenSubs) equal(i, j int) bool { return sameElems(gs.o.Subs[i], gs.o.Subs[j]) }

// areTopics reports whether gs's indices are already topic indices:
// Names begins with meta (package wire's decoder puts the metadata's
// names first, in Go order), every topic of meta has partitions and is
// listed by someone, Go's order of the names is Java's, and every
// subscription ascends without a repeat. Each index then names the
// topic whose index it is. On a group whose members each send their own
// list (BenchmarkRound in bench/, shape=hetero-1000x2000t) this spares
// compile a copy of every list; TestGivenSubsAreTopics holds it to the
// general path.
func (gs givenSubs) areTopics(meta []string, metaParts []int32) bool {
	if len(gs.at) < len(meta) || !ascii(meta...) {
		return false
	}
	for k := range meta {
		if gs.at[k] != int32(k) || metaParts[k] <= 0 {
			return false
		}
	}
	listed := make([]bool, len(meta))
	missing := len(meta)
	for i, sub := range gs.o.Subs {
		if i > 0 && sameSlice(sub, gs.o.Subs[i-1]) {
			continue
		}
		last := int32(-1)
		for _, k := range sub {
			if k <= last || k >= int32(len(meta)) {
				return false
			}
			last = k
			if !listed[k] {
				listed[k] = true
				missing--
			}
		}
	}
	return missing == 0
}

func (gs givenSubs) positions(_ *intern.Sorted, i int, out []int32) []int32 {
	for _, k := range gs.o.Subs[i] {
		out = append(out, gs.at[k])
	}
	return out
}

// equalNames reports whether a and b list equal names, at once when
// they share their backing array. Names are compared by address, then,
// from 8 to 16 bytes long, as two words that cover them, in line: a
// member's list is compared with the one before it name by name, and
// where each member lists its own copy of the names (a decoder's), that
// was a call to the runtime per name, a million on
// BenchmarkKIP848/shape=uniform-1000x100000-own/strategy=uniform/churn=leave1.
// TestEqualNames holds it to slices.Equal.
func equalNames(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true
	}
	for k, x := range a {
		y := b[k]
		n := len(x)
		if n != len(y) {
			return false
		}
		px, py := unsafe.StringData(x), unsafe.StringData(y)
		if px == py {
			continue
		}
		if n < 8 || n > 16 {
			if x != y {
				return false
			}
			continue
		}
		bx, by := unsafe.Slice(px, n), unsafe.Slice(py, n)
		if binary.LittleEndian.Uint64(bx) != binary.LittleEndian.Uint64(by) || binary.LittleEndian.Uint64(bx[n-8:]) != binary.LittleEndian.Uint64(by[n-8:]) {
			return false
		}
	}
	return true
}

// sameElems reports whether a and b hold the same elements, at once when
// they share their backing array.
func sameElems[T comparable](a, b []T) bool {
	return sameSlice(a, b) || slices.Equal(a, b)
}

// topicIndex returns the index of the topic named name, if someone
// subscribes to it and it has partitions.
func (cg *compiledGroup) topicIndex(name string) (int32, bool) {
	k, ok := cg.meta.Find(name)
	if !ok || cg.metaTopic[k] < 0 {
		return 0, false
	}
	return cg.metaTopic[k], true
}

// goSteps returns, for each topic, the next topic in Go order (-1 for the
// last) and its position in Go order. A sorted list of partitions often
// goes from a topic to the next one in Go order (a member usually owns
// some of every topic): topicAfter tries it with a string comparison
// before looking the name up. Trying more costs more than the lookup when
// members own few partitions of many topics.
func (cg *compiledGroup) goSteps() (after, goRank []int32) {
	order := cg.goOrder()
	both := make([]int32, 2*len(order)) // one allocation: BenchmarkAssign/strategy=sticky/impl=ours/shape=uniform-10x100-join1 in bench/
	after, goRank = both[:len(order):len(order)], both[len(order):]
	for k, t := range order {
		after[t], goRank[t] = -1, int32(k)
		if k+1 < len(order) {
			after[t] = order[k+1]
		}
	}
	return after, goRank
}

// topicAfter is topicIndex(name) for the next name of a list sorted in
// Go order: it tries first the topic after ti in Go order (after is
// goSteps' first result, or nil when Go order is the topic indices'
// own) when known says ti, the list's topic before, is a topic.
func (cg *compiledGroup) topicAfter(after []int32, ti int32, known bool, name string) (int32, bool) {
	if known {
		next := ti + 1
		if after != nil {
			next = after[ti]
		} else if int(next) == len(cg.topics) {
			next = -1
		}
		if next >= 0 && sameName(cg.topics[next], name) {
			return next, true
		}
	}
	return cg.topicIndex(name)
}

// ownedGuesses is how many topics of a member's own subscription
// ownedTopic compares by address before it looks a name up. Members of
// hetero-1000x2000t (bench/) own a few partitions of one topic in about
// twenty of the ~1,200 they list, so the window is wide; a member whose
// names are not its metadata's strings stops guessing after two misses.
const ownedGuesses = 32

// ownedGuess is where ownedTopic guesses the next run of one member's
// claims is: in its subscription (ascending topic indices) sub, from at.
type ownedGuess struct {
	sub    []int32 // nil once guessing stopped paying
	at     int
	misses int // guesses missed in a row
}

// ownedTopic is topicAfter for the next run of a member's claims: it
// first compares the addresses of the names of the next ownedGuesses
// topics of the member's subscription from g.at, and moves g.at past the
// one it finds. A member owns mostly topics it subscribes to, in the
// order it lists them, and a group's Owned lists usually hold the very
// strings of its metadata (what [Carry] and a leader's decoder give), so
// this finds most runs' topics with a few pointer comparisons where a
// member owns some of many of its topics, not every next one (topicAfter's
// guess), and the lookup was a hash and a comparison of bytes per run
// (BenchmarkAssign/strategy=sticky/impl=ours/shape=hetero-100x200t-join1
// in bench/; TestOwnedTopicIsTopicIndex holds it to topicIndex).
func (cg *compiledGroup) ownedTopic(g *ownedGuess, after []int32, ti int32, known bool, name string) (int32, bool) {
	p := unsafe.StringData(name)
	end := min(g.at+ownedGuesses, len(g.sub))
	for k := g.at; k < end; k++ {
		if t := g.sub[k]; unsafe.StringData(cg.topics[t]) == p && len(cg.topics[t]) == len(name) { // sameString, hoisted
			g.at, g.misses = k+1, 0
			return t, true
		}
	}
	if g.misses++; g.misses >= 2 {
		g.sub = nil
	}
	return cg.topicAfter(after, ti, known, name)
}

// sameString reports whether a and b are one string: the same bytes in
// memory, of one length. Strings that are not may still be equal.
func sameString(a, b string) bool {
	return unsafe.StringData(a) == unsafe.StringData(b) && len(a) == len(b)
}

// sameName reports whether a and b are equal, comparing their addresses
// before their bytes, and their last bytes before the rest: the names a
// group's lists repeat are usually one string, and names of one length
// that differ, such as numbered topics, usually differ at the end. It
// inlines where a == b calls the runtime (compileOwned reading Owned lists on
// BenchmarkAssign/strategy=sticky/impl=ours/shape=uniform-100x10000-join1
// in bench/, where every run is one partition).
func sameName(a, b string) bool {
	return len(a) == len(b) && (unsafe.StringData(a) == unsafe.StringData(b) || len(a) == 0 || a[len(a)-1] == b[len(a)-1] && a == b)
}

// topicAt returns the topic of partition number pid: the last t with
// start[t] <= pid < start[t+1].
func topicAt(start []int32, pid int32) int32 {
	lo, hi := 0, len(start)-1 // start[lo] <= pid < start[hi]
	for hi-lo > 1 {
		mid := int(uint(lo+hi) >> 1)
		if start[mid] <= pid {
			lo = mid
		} else {
			hi = mid
		}
	}
	return int32(lo)
}
