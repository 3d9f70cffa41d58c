package assign

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
// every claim can be kept, keepAndDeal's, without being compiled
// (smallGroup.sticky).

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
// anything (dealt), or every claim can be kept (keptDealt); ok is false
// otherwise, and g is then compiled.
func (sg *smallGroup) sticky(g *Group) (a Assignment, ok bool) {
	if !sg.read(g, true) {
		return nil, false
	}
	for i := range sg.members {
		if len(sg.members[i].Owned) > 0 {
			return sg.keptDealt()
		}
	}
	return sg.dealt(), true
}

// keptDealt is keepAndDeal's answer for a small shared group, written
// without compiling it: every member keeps what it lists and the
// partitions nobody lists are dealt in partition order, round-robin, to
// the members below their target (balance.Targets'), from the lowest rank
// in Kafka's order. It declines (ok false) whatever compile would not
// send to keepAndDeal, and more: a claim of a partition or topic that no
// longer exists or of a topic nobody lists, an Owned list whose topics
// are not in Go order, a partition listed twice, claims at
// different generations, a member listing more than its target, no
// partitions, more than smallParts. Churned small groups spent half their
// call compiling and a fifth in keepAndDeal's tables
// (BenchmarkAssign/strategy=sticky/impl=ours/shape=uniform-10x100-leave1
// in bench/); TestSmallKeptMatchesCompiled holds it to the compiled path.
func (sg *smallGroup) keptDealt() (a Assignment, ok bool) {
	n, nt := len(sg.members), sg.nt
	total := sg.start[nt]
	if total == 0 || total > smallParts {
		return nil, false
	}
	var owner [smallParts]uint8   // partition number => 1 + the member index that gets it, 0 until known
	var count [smallMembers]int32 // member index => partitions it keeps, then gets
	gen, some := int32(0), false
	for m := range n {
		owned := sg.members[m].Owned
		if len(owned) == 0 {
			continue
		}
		if some && sg.members[m].Generation != gen {
			return nil, false
		}
		gen, some = sg.members[m].Generation, true
		ti := 0
		for _, tp := range owned {
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
			owner[pid] = uint8(m + 1)
		}
		count[m] = int32(len(owned))
	}

	// Targets by rank, as balance.Targets sets them: total/n each, one
	// more for the total%n members with the most claims, the lower rank
	// first among equals.
	var target [smallMembers]int32 // by rank
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
			return nil, false
		}
	}

	// Deal the partitions nobody lists in rounds: each gives one to every
	// rank still below its target, in rank order.
	var active [smallMembers]int32
	na, turn := 0, 0
	for rk, m := range sg.order[:n] {
		if count[m] < target[rk] {
			active[na] = int32(rk)
			na++
		}
	}
	for pid := range total {
		if owner[pid] != 0 {
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
			k := 0
			for _, rk := range active[:na] {
				if count[sg.order[rk]] < target[rk] {
					active[k] = rk
					k++
				}
			}
			na, turn = k, 0
		}
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
