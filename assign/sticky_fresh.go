package assign

import (
	"math"

	"github.com/assigncalc/assigncalc/assign/internal/balance"
)

// The sticky answer of a fresh group, written from its closed form.
//
// When nobody lists a partition, every member subscribes to the same
// topics and racks play no part, the solver's fast path (balance's
// dealFresh) deals partition number i to the member of rank i mod n: P
// partitions over n members, one more to each of the first P mod n ranks.
// Writing the answer straight from that rule skips the owner per
// partition the solver would allocate, fill, check and the output would
// read back: on a fresh group the answer is most of the call, and those
// 4 bytes a partition, and the passes over them, most of the rest
// (BenchmarkAssign/strategy=sticky/impl=ours/shape=uniform-100x10000 in
// bench/). TestFreshDealtMatchesSolver holds it to the solver's answer.
//
// A small shared group (compile_small.go) gets that answer, and, when
// keepAndDeal would answer it, keepAndDeal's, without being compiled
// (smallGroup.sticky), for Sticky and CooperativeSticky alike.

// freshDealt returns the [Sticky] answer of cg, which is also
// [CooperativeSticky]'s (nothing is withheld when nobody lists anything),
// when cg is such a fresh group; ok is false otherwise, and for
// [AssignPacked], which packs owners instead.
func (cg *compiledGroup) freshDealt() (a Assignment, ok bool) {
	n := len(cg.kafkaOrder)
	if cg.pack != nil || n == 0 || cg.kept != nil || cg.claims != nil || cg.ownedOff != nil {
		return nil, false
	}
	sub0 := cg.subs[cg.kafkaOrder[0]]
	for _, m := range cg.kafkaOrder[1:] {
		if !sameElems(cg.subs[m], sub0) {
			return nil, false
		}
	}
	if cg.stickyRackAware() {
		return nil, false
	}
	return dealInTurn(cg.g.Members, cg.kafkaOrder, cg.topics, cg.start, cg.goOrder(), make([]int, 2*n+1)), true
}

// dealInTurn returns the answer that deals partition number i (numbered
// topic by topic as start numbers them) to the member of rank i mod n in
// order, which lists member indices by rank: P partitions over n members,
// one more to each of the first P mod n ranks. Lists are written in
// topics' Go order, which goOrder gives (topic indices), nil when it is
// the order of topics. scratch has room for 2n+1 ints.
func dealInTurn(members []Member, order []int32, topics []string, start, goOrder []int32, scratch []int) Assignment {
	n := len(order)
	total := int(start[len(topics)])
	q, r := total/n, total%n
	off, fill := scratch[:n+1], scratch[n+1:2*n+1] // member index => where its list starts; rank => where its next partition goes
	clear(off)
	for rk, m := range order {
		c := q
		if rk < r {
			c++
		}
		off[m+1] = c
	}
	for m := range n {
		off[m+1] += off[m]
	}
	for rk, m := range order {
		fill[rk] = off[m]
	}
	backing := make([]TopicPartition, total)
	for i := range topics {
		t := int32(i)
		if goOrder != nil {
			t = goOrder[i]
		}
		name, first, end := topics[t], start[t], start[t+1]
		rk := int(first) % n
		for pid := first; pid < end; pid++ {
			backing[fill[rk]] = TopicPartition{name, pid - first}
			fill[rk]++
			if rk++; rk == n {
				rk = 0
			}
		}
	}
	return listsAssignment(members, off, backing)
}

// smallParts bounds the partitions of a small group whose claims
// smallGroup.sticky reads: its owner per partition lives on the stack.
const smallParts = 1024

// sticky returns the [Sticky] answer of g when g is a small shared group
// (see [smallGroup.read]) whose answer smallGroup writes: nobody owns
// anything (dealt), or keepAndDeal answers it (keptDealt); ok is false
// otherwise, and g is then compiled. With withhold, the answer is
// [CooperativeSticky]'s: keepAndDeal(true)'s, which withholds the claims
// given up by a member over its target (keptDealt); where nothing is
// given up the two strategies answer alike (keepAndDeal, freshDealt).
func (sg *smallGroup) sticky(g *Group, withhold bool) (a Assignment, ok bool) {
	if !sg.read(g, true) {
		return nil, false
	}
	for i := range sg.members {
		if len(sg.members[i].Owned) > 0 {
			return sg.keptDealt(withhold)
		}
	}
	return sg.dealt(), true
}

// keptDealt is keepAndDeal's answer for a small shared group, written
// without compiling it: every member keeps what it lists up to its target
// (balance.Targets'), a member listing more gives up the claims
// keepAndDeal's giveUp picks (smallGroup.giveUp), and the partitions
// nobody keeps are dealt in partition order, round-robin, to the members
// below their target, from the lowest rank in Kafka's order: first those
// nobody lists, then, from the lowest rank with room again, those given
// up. With withhold (CooperativeSticky) those given up are withheld
// instead, as keepAndDeal(true) withholds them. It declines (ok false)
// whatever compile would not send to keepAndDeal, and more: a claim of
// a partition or topic that no longer exists or of a topic nobody lists,
// an Owned list whose topics are not in Go order, a partition listed
// twice, claims at different generations, a member over its target while
// some list is not in partition order, no partitions, more than
// smallParts. Churned small groups spent most of their call compiling
// and in keepAndDeal's tables
// (BenchmarkAssign/strategy=sticky/impl=ours/shape=uniform-10x100-leave1
// in bench/; its join1 shape is answered here too);
// TestSmallKeptMatchesCompiled and TestSmallJoinMatchesGeneral hold it to
// the compiled path and to settling every claim.
func (sg *smallGroup) keptDealt(withhold bool) (a Assignment, ok bool) {
	n, nt := len(sg.members), sg.nt
	total := sg.start[nt]
	if total > smallParts {
		return nil, false
	}
	// The claims each member lists are its list's length: keptDealt
	// declines below unless every claim exists, once, so it declines a
	// group of no partitions, and targets set from a list longer than
	// there are partitions are never used. Knowing the targets before
	// reading the claims, a member over its target gives up claims as its
	// list is read, whose runs of one topic are then at hand.
	var count [smallMembers]int32 // member index => partitions it keeps, then gets
	gen, some := int32(0), false
	for m := range n {
		c := len(sg.members[m].Owned)
		if c == 0 {
			continue
		}
		if some && sg.members[m].Generation != gen {
			return nil, false
		}
		gen, some = sg.members[m].Generation, true
		count[m] = int32(c)
	}
	var target [smallMembers]int32 // by rank
	sg.targets(&count, &target, total)

	var owner [smallParts]uint8 // partition number => 1 + the member index that gets it, 0 until known, givenUp
	var runs smallRuns
	inOrder, over := true, false // every list in partition order: what keepAndDeal needs of a group where some member is over target (readKept)
	for rk, m := range sg.order[:n] {
		owned := sg.members[m].Owned
		if len(owned) == 0 {
			continue
		}
		giving := count[m] > target[rk]
		over = over || giving
		var r *smallRuns // a member over its target: its runs of one topic
		if giving {
			runs.n, runs.longest = 0, 0
			r = &runs
		}
		ok, ordered := sg.claim(owned, uint8(m+1), &owner, r)
		if !ok {
			return nil, false
		}
		inOrder = inOrder && ordered
		if giving {
			sg.giveUp(int32(rk), owned, target[rk], r, &owner)
			count[m] = target[rk]
		}
	}
	if over && !inOrder {
		return nil, false
	}

	// Deal the partitions nobody lists, then those given up, in rounds:
	// each gives one to every rank still below its target, in rank order;
	// the second pass starts a round, and finds nothing where nobody gave
	// anything up. With withhold, those given up are
	// withheld instead of dealt, as keepAndDeal(true) withholds them.
	// That is the round the general path gives too, whatever targets the
	// follow-up round's claims get (see keepAndDeal). Claims are at one
	// generation and none is repeated, or keptDealt has declined.
	// TestSmallJoinMatchesGeneral holds the answers to the general path's,
	// groups where those targets move among them.
	var active [smallMembers]int32
	na, turn := 0, 0
	for rk, m := range sg.order[:n] {
		if count[m] < target[rk] {
			active[na] = int32(rk)
			na++
		}
	}
	for dealing := uint8(0); ; dealing = givenUp {
		for pid := range total {
			if owner[pid] != dealing {
				continue
			}
			if na == 0 {
				return nil, false // cannot be: the targets add up to total
			}
			rk := active[turn]
			m := sg.order[rk]
			owner[pid] = uint8(m + 1)
			count[m]++
			if turn++; turn == na {
				na, turn = sg.belowTarget(active[:na], &count, &target), 0
			}
		}
		if withhold || dealing == givenUp {
			break
		}
		na, turn = sg.belowTarget(active[:na], &count, &target), 0
	}

	// Each member's list in partition order, which is Compare's: topics
	// ascend in Go order and are numbered in it.
	var buf [2*smallMembers + 1]int
	off, fill := buf[:n+1], buf[n+1:2*n+1] // member index => where its list starts; where its next partition goes
	for m := range n {
		off[m+1] = off[m] + int(count[m])
		fill[m] = off[m]
	}
	backing := make([]TopicPartition, off[n]) // total, less what is withheld
	for t, name := range sg.topics[:nt] {
		first := sg.start[t]
		for pid := first; pid < sg.start[t+1]; pid++ {
			m := owner[pid] - 1
			if m == givenUp-1 {
				continue // withheld
			}
			backing[fill[m]] = TopicPartition{name, pid - first}
			fill[m]++
		}
	}
	return listsAssignment(sg.members, off, backing), true
}

// claim marks in owner, as who, the partitions owned lists, in their
// runs of one topic when runs is not nil, and reports whether it could
// (every claim of a partition that exists, of a topic listed, in Go
// order, no partition twice: otherwise keptDealt declines) and whether
// they are in partition order. claimFast takes the claims whose topics
// are the very strings of sg.topics, as the names of a group's lists
// usually are ([Carry], a leader's decoder); the claims after the first
// that is not are taken here, comparing names.
func (sg *smallGroup) claim(owned []TopicPartition, who uint8, owner *[smallParts]uint8, runs *smallRuns) (ok, inOrder bool) {
	j, ti, last := sg.claimFast(owned, who, owner, runs)
	for ; j < len(owned); j++ {
		tp := &owned[j]
		if ti < 0 || !sameName(sg.topics[ti], tp.Topic) {
			if ti = sg.topicFrom(ti+1, tp.Topic); ti == sg.nt {
				return false, false // out of Go order, or a topic nobody lists
			}
			if runs != nil {
				runs.open(int32(j), sg.start[ti])
			}
		}
		if last = sg.take(ti, tp.Partition, last, who, owner); last == cannot {
			return false, false
		}
	}
	if runs != nil {
		runs.close(int32(len(owned)))
	}
	return true, last != unordered
}

// claimFast takes, as claim does, the claims of owned up to the first
// whose topic is not a string of sg.topics (by address, sameString) at
// or after the one before it, or that it cannot take (take then refuses
// it), walking the topics once and taking each one's run whole, and
// returns where it stopped, the topic of the claim before or of the one
// it cannot take (-1 if none), and the last claim's partition number
// (see take). It calls nothing: with a comparison of names (a call to
// the runtime) in the loop over the claims, every variable of that loop
// lived on the stack, and it took more instructions on bench's uniform-10x100-leave1 (one
// partition of each topic a member; callgrind; bench/RESULTS.md).
func (sg *smallGroup) claimFast(owned []TopicPartition, who uint8, owner *[smallParts]uint8, runs *smallRuns) (j, ti int, last int32) {
	ti, last = -1, -1
	for t := 0; t < sg.nt && j < len(owned); t++ {
		name := sg.topics[t]
		if !sameString(owned[j].Topic, name) {
			continue
		}
		first, size := sg.start[t], sg.start[t+1]-sg.start[t]
		if runs != nil {
			runs.open(int32(j), first)
		}
		for ti = t; j < len(owned) && sameString(owned[j].Topic, name); j++ {
			p := owned[j].Partition
			if uint32(p) >= uint32(size) || owner[first+p] != 0 { // negative, beyond the topic, or taken
				return j, ti, last
			}
			pid := first + p
			owner[pid] = who
			if pid <= last {
				last = unordered
			} else {
				last = pid
			}
		}
	}
	return j, ti, last
}

// take marks in owner, as who, partition p of topic ti, the next claim
// of a list whose last claim was of partition number last (see start),
// and returns its partition number: unordered once the list has been
// out of partition order, cannot when p does not exist or is taken.
func (sg *smallGroup) take(ti int, p, last int32, who uint8, owner *[smallParts]uint8) int32 {
	first := sg.start[ti]
	if uint32(p) >= uint32(sg.start[ti+1]-first) { // negative, or beyond the topic
		return cannot
	}
	pid := first + p
	if owner[pid] != 0 {
		return cannot
	}
	owner[pid] = who
	if pid <= last {
		return unordered
	}
	return pid
}

// What claim's steps return instead of a partition number: cannot for a
// claim that cannot be taken, unordered for a list out of partition
// order (above every partition number, so that the claims after it
// leave it so).
const (
	cannot    = -2
	unordered = math.MaxInt32
)

// topicFrom returns the index of the topic named name among sg.topics
// from index from on, sg.nt when none is.
func (sg *smallGroup) topicFrom(from int, name string) int {
	for ti := from; ti < sg.nt; ti++ {
		if sameName(sg.topics[ti], name) {
			return ti
		}
	}
	return sg.nt
}

// givenUp marks in keptDealt's owner a partition given up by a member
// over its target: above every 1 + member index (smallMembers < 255).
const givenUp = 255

// targets sets target (by rank) as [balance.Targets] does for members
// listing count (by member index) claims: total/n each, one more for the
// total%n members with the most claims, the lower rank first among
// equals. It picks those (or, when they are most, the others) one at a
// time, rather than comparing every rank with every other.
// TestSmallTargets holds it to balance.Targets.
func (sg *smallGroup) targets(count, target *[smallMembers]int32, total int32) {
	n := int32(len(sg.members))
	q, r := total/n, total%n
	order := sg.order[:n]
	if 2*r <= n {
		for rk := range order {
			target[rk] = q
		}
		for range r { // the most claims not yet picked, the lowest rank first
			best := -1
			for rk, m := range order {
				if target[rk] == q && (best < 0 || count[m] > count[order[best]]) {
					best = rk
				}
			}
			target[best]++
		}
		return
	}
	for rk := range order {
		target[rk] = q + 1
	}
	for range n - r { // the fewest claims not yet picked, the highest rank first
		worst := -1
		for rk, m := range order {
			if target[rk] > q && (worst < 0 || count[m] <= count[order[worst]]) {
				worst = rk
			}
		}
		target[worst]--
	}
}

// belowTarget keeps in active (ranks) those whose member is still below
// its target, in order, and returns how many.
func (sg *smallGroup) belowTarget(active []int32, count *[smallMembers]int32, target *[smallMembers]int32) int {
	k := 0
	for _, rk := range active {
		if count[sg.order[rk]] < target[rk] {
			active[k] = rk
			k++
		}
	}
	return k
}

// smallRuns are the runs of one topic of a member's list as keptDealt
// reads it: pairs of bounds in the list, each run's topic's partition 0
// (see start), the longest run's length.
type smallRuns struct {
	bounds  [2 * smallTopics]int32
	first   [smallTopics]int32
	n       int
	longest int32
}

// open starts a run at claim j of a topic whose partition 0 is first.
func (r *smallRuns) open(j, first int32) {
	if r.n > 0 {
		r.close(j)
	}
	r.bounds[2*r.n], r.first[r.n] = j, first
	r.n++
}

// close ends the last run before claim j.
func (r *smallRuns) close(j int32) {
	r.bounds[2*r.n-1] = j
	r.longest = max(r.longest, j-r.bounds[2*r.n-2])
}

// giveUp marks givenUp in owner the claims that the member of rank rk,
// whose list owned (in runs) is in partition order, gives up to keep keep
// of them: keepAndDeal's rule ([balance.KeptOfRuns] over its runs of one
// topic, as giveUp in keep_join.go applies it). When every run is one
// claim, as after a fresh round dealt partitions round-robin, the rule
// keeps keep runs from run rk mod runs on, cyclically (KeptOfRuns'
// spreading level is then 0 and its extra claims go one to a run from
// there), which giveUp applies without it: TestSmallKeptOfSingles holds
// the two to one answer.
func (sg *smallGroup) giveUp(rk int32, owned []TopicPartition, keep int32, runs *smallRuns, owner *[smallParts]uint8) {
	nr := int32(runs.n)
	if runs.longest == 1 {
		for i, k := keep, rk%nr; i < nr; i++ {
			j := (k + i) % nr
			owner[runs.first[j]+owned[j].Partition] = givenUp
		}
		return
	}
	var kept [smallTopics]int32 // run => how many of its claims the member keeps
	balance.KeptOfRuns(rk, runs.bounds[:2*nr], runs.longest, keep, kept[:nr])
	for k := range nr {
		for j := runs.bounds[2*k] + kept[k]; j < runs.bounds[2*k+1]; j++ {
			owner[runs.first[k]+owned[j].Partition] = givenUp
		}
	}
}
