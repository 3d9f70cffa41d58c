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
