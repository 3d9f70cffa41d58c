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
	total := int(cg.start[len(cg.topics)])
	q, r := total/n, total%n
	off := make([]int, 2*n+1) // member index => where its list starts; then fill, by rank
	fill := off[n+1:]
	for rk, m := range cg.kafkaOrder {
		c := q
		if rk < r {
			c++
		}
		off[m+1] = c
	}
	for m := range n {
		off[m+1] += off[m]
	}
	for rk, m := range cg.kafkaOrder {
		fill[rk] = off[m]
	}
	backing := make([]TopicPartition, total)
	for _, t := range cg.goOrder() {
		name, first, end := cg.topics[t], cg.start[t], cg.start[t+1]
		rk := int(first) % n
		for pid := first; pid < end; pid++ {
			backing[fill[rk]] = TopicPartition{name, pid - first}
			fill[rk]++
			if rk++; rk == n {
				rk = 0
			}
		}
	}
	return cg.assignmentFrom(off[:n+1], backing), true
}
