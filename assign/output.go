package assign

// builder collects an assignment on indices: the owner of every
// partition, numbered topic by topic (see compiledGroup.start).
type builder struct {
	cg    *compiledGroup
	owner []int32 // partition number => member index, or -1
}

func newBuilder(cg *compiledGroup) *builder {
	owner := make([]int32, cg.start[len(cg.numParts)])
	for i := range owner {
		owner[i] = -1
	}
	return &builder{cg: cg, owner: owner}
}

func (b *builder) add(member int32, t, p int32) {
	b.owner[b.cg.start[t]+p] = member
}

func (b *builder) assignment() Assignment { return b.cg.assignmentOf(b.owner, nil, nil) }

// assignmentOf turns the owner of every partition (a member index, or -1
// for none; with members non-nil, an index into members, which holds
// member indices), less the partitions marked in skip (nil for none),
// into an [Assignment]: every member present, each list sorted
// by [TopicPartition.Compare], all lists in one backing array. Counting
// each member's partitions first and then walking topics in Go string
// order, partitions ascending, lays every list out in order: nothing is
// sorted and nothing grows.
//
// (Sorting partition numbers by member first, to write each list in one
// sequential sweep, measured slower, most of all on round-robin owners;
// bench/RESULTS.md has the figure.)
func (cg *compiledGroup) assignmentOf(owner []int32, skip []bool, members []int32) Assignment {
	if cg.pack != nil {
		cg.packOwners(owner, skip, members)
		return nil
	}
	n := len(cg.g.Members)
	counts := make([]int, 2*n+1) // fill and off in one allocation (BenchmarkAssign/strategy=sticky/impl=ours/shape=uniform-10x100-join1 in bench/)
	fill := counts[:n:n]         // owner value => its partitions; then where its next one goes
	for pid, v := range owner {
		if v >= 0 && (skip == nil || !skip[pid]) {
			fill[v]++
		}
	}
	off := counts[n:] // member index => where its list starts
	for v, c := range fill {
		m := v
		if members != nil {
			m = int(members[v])
		}
		off[m+1] = c
	}
	for m := range n {
		off[m+1] += off[m]
	}
	for v := range fill {
		m := v
		if members != nil {
			m = int(members[v])
		}
		fill[v] = off[m]
	}
	backing := make([]TopicPartition, off[n])
	for _, t := range cg.goOrder() {
		name, first, end := cg.topics[t], cg.start[t], cg.start[t+1]
		if skip == nil {
			for p, m := range owner[first:end] {
				if m >= 0 {
					backing[fill[m]] = TopicPartition{name, int32(p)}
					fill[m]++
				}
			}
			continue
		}
		for p, m := range owner[first:end] {
			if m >= 0 && !skip[first+int32(p)] {
				backing[fill[m]] = TopicPartition{name, int32(p)}
				fill[m]++
			}
		}
	}
	return cg.assignmentFrom(off, backing)
}

// assignmentFrom returns the Assignment whose member m (an index) has
// backing[off[m]:off[m+1]].
func (cg *compiledGroup) assignmentFrom(off []int, backing []TopicPartition) Assignment {
	if cg.pack != nil {
		cg.packListsOf(func(m int) []TopicPartition { return backing[off[m]:off[m+1]] })
		return nil
	}
	return listsAssignment(cg.g.Members, off, backing)
}

// listsAssignment returns the Assignment whose member members[m] has
// backing[off[m]:off[m+1]], nil when that is empty.
func listsAssignment(members []Member, off []int, backing []TopicPartition) Assignment {
	out := make(Assignment, len(members))
	for m := range members {
		var list []TopicPartition
		if off[m+1] > off[m] {
			list = backing[off[m]:off[m+1]:off[m+1]]
		}
		out[members[m].ID] = list
	}
	return out
}

// goOrder returns the topic indices in Go string order of their names, the
// order of [TopicPartition.Compare].
// The slice is shared: never modify it.
func (cg *compiledGroup) goOrder() []int32 { return cg.byGoName }
