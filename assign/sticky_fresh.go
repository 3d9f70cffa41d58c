package assign

import "github.com/assigncalc/assigncalc/assign/internal/balance"

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
// (smallGroup.sticky); so does CooperativeSticky's where nothing is
// withheld: nobody owns anything, or every claim is kept.

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
// otherwise, and g is then compiled. With withhold (CooperativeSticky)
// it declines a group where a member lists more than its target, whose
// claims given up are withheld this round: where nothing is withheld,
// the two strategies answer alike (keepAndDeal, freshDealt).
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
// up. It declines (ok false) whatever compile would not send to
// keepAndDeal, and more: a claim of a partition or topic that no longer
// exists or of a topic nobody lists, an Owned list whose topics are not
// in Go order, a partition listed twice, claims at different
// generations, a member over its target while some list is not in
// partition order, no partitions, more than smallParts. Churned small
// groups spent half their call compiling and a fifth in keepAndDeal's
// tables (BenchmarkAssign/strategy=sticky/impl=ours/shape=uniform-10x100-leave1
// in bench/; its join1 shape is answered here too);
// TestSmallKeptMatchesCompiled and TestSmallJoinMatchesGeneral hold it to
// the compiled path and to settling every claim. With withhold it declines
// a group where a member is over its target (see sticky).
func (sg *smallGroup) keptDealt(withhold bool) (a Assignment, ok bool) {
	n, nt := len(sg.members), sg.nt
	total := sg.start[nt]
	if total == 0 || total > smallParts {
		return nil, false
	}
	// The claims each member lists are its list's length: keptDealt
	// declines below unless every claim exists, once. Knowing the targets
	// before reading the claims, a group keptDealt would decline for a
	// member over target (CooperativeSticky's join) is declined without
	// reading them.
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
		count[m] = int32(min(c, smallParts+1))
	}

	// Targets by rank, as balance.Targets sets them: total/n each, one
	// more for the total%n members with the most claims, the lower rank
	// first among equals.
	var target [smallMembers]int32 // by rank
	over := false                  // some member lists more than its target
	q, r := total/int32(n), total%int32(n)
	for rk, m := range sg.order[:n] {
		above := int32(0) // ranks before rk in balance.Targets' order
		for rk2, m2 := range sg.order[:n] {
			if c, c2 := count[m], count[m2]; c2 > c || c2 == c && rk2 < rk {
				above++
			}
		}
		target[rk] = q
		if above < r {
			target[rk]++
		}
		if count[m] > target[rk] {
			if withhold {
				return nil, false
			}
			over = true
		}
	}

	var owner [smallParts]uint8 // partition number => 1 + the member index that gets it, 0 until known, givenUp
	inOrder := true             // every list in partition order: what keepAndDeal needs of a group where some member is over target (readKept)
	for m := range n {
		ti, last := 0, int32(-1)
		for _, tp := range sg.members[m].Owned {
			// Topics in Go order are found walking sg.topics once,
			// comparing names by address first (sameName); any other
			// walks off its end.
			for ti < nt && !sameName(sg.topics[ti], tp.Topic) {
				ti++
			}
			if ti == nt {
				return nil, false // out of Go order, or a topic nobody lists
			}
			first := sg.start[ti]
			pid := first + tp.Partition
			if tp.Partition < 0 || pid >= sg.start[ti+1] || owner[pid] != 0 {
				return nil, false
			}
			if pid <= last {
				inOrder = false
			}
			owner[pid], last = uint8(m+1), pid
		}
	}
	if over && !inOrder {
		return nil, false
	}
	if over {
		for rk, m := range sg.order[:n] {
			if count[m] > target[rk] {
				sg.giveUp(int32(rk), sg.members[m].Owned, target[rk], &owner)
				count[m] = target[rk]
			}
		}
	}

	// Deal the partitions nobody lists, then those given up, in rounds:
	// each gives one to every rank still below its target, in rank order;
	// the second pass starts a round.
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
		if !over || dealing == givenUp {
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
	backing := make([]TopicPartition, total)
	for t, name := range sg.topics[:nt] {
		first := sg.start[t]
		for pid := first; pid < sg.start[t+1]; pid++ {
			m := owner[pid] - 1
			backing[fill[m]] = TopicPartition{name, pid - first}
			fill[m]++
		}
	}
	return listsAssignment(sg.members, off, backing), true
}

// givenUp marks in keptDealt's owner a partition given up by a member
// over its target: above every 1 + member index (smallMembers < 255).
const givenUp = 255

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

// giveUp marks givenUp in owner the claims that the member of rank rk,
// whose list owned is in partition order, gives up to keep keep of them:
// keepAndDeal's rule ([balance.KeptOfRuns] over its runs of one topic,
// as giveUp in keep_join.go applies it).
func (sg *smallGroup) giveUp(rk int32, owned []TopicPartition, keep int32, owner *[smallParts]uint8) {
	var runs [2 * smallTopics]int32 // pairs of bounds in owned of its runs of one topic
	var first [smallTopics]int32    // run => its topic's partition 0 (see start)
	var kept [smallTopics]int32     // run => how many of its claims the member keeps
	nr, ti, longest := 0, 0, int32(0)
	for j, tp := range owned {
		if nr > 0 {
			if sameName(sg.topics[ti], tp.Topic) {
				continue // the run goes on
			}
			runs[2*nr-1] = int32(j)
			longest = max(longest, runs[2*nr-1]-runs[2*nr-2])
			ti++ // a later topic: the list is in Go order (keptDealt read it)
		}
		for !sameName(sg.topics[ti], tp.Topic) {
			ti++
		}
		runs[2*nr], first[nr] = int32(j), sg.start[ti]
		nr++
	}
	runs[2*nr-1] = int32(len(owned)) // over its target: owned is not empty
	longest = max(longest, runs[2*nr-1]-runs[2*nr-2])
	balance.KeptOfRuns(rk, runs[:2*nr], longest, keep, kept[:nr])
	for k := range nr {
		for j := runs[2*k] + kept[k]; j < runs[2*k+1]; j++ {
			owner[first[k]+owned[j].Partition] = givenUp
		}
	}
}
