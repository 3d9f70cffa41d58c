package assign

import (
	"slices"
	"unsafe"
)

// The answer of the KIP-848 assignors in its two forms: an [Assignment],
// a TopicPartition per partition (Uniform.Assign), and a
// [RangeAssignment] (Uniform.AssignRanges), both written from the runs
// answerRuns lists.

// cursors turns counts, from ownerRuns, into each member's first slot:
// cursor[m] is where member m's output starts and bounds[m+1] where it
// ends; cursor is advanced as the output is written.
func cursors(counts []int32) (cursor, bounds []int32) {
	for m := 1; m < len(counts); m++ {
		counts[m] += counts[m-1]
	}
	return counts, slices.Clone(counts)
}

// assignment builds the [Assignment] from the answer's runs; a member
// whose target is its Owned list exactly is given that list (see
// heldAsIs for why).
func (sg *serverGroup) assignment() Assignment {
	goOrder := sg.cg.goOrder()
	if sg.asIs != nil {
		// The homogeneous builder found the lists handed back: only the
		// other members' runs are listed.
		runs, counts := sg.finalRuns(partitionsIn, sg.asIs)
		return sg.writeAssignment(goOrder, runs, counts, sg.asIs)
	}
	runs, counts := sg.answerRuns(goOrder, partitionsIn)
	var asIs []bool // nobody holds anything: no list to hand back
	if sg.anyHeld() {
		asIs = sg.heldAsIs(goOrder, runs, counts)
	}
	return sg.writeAssignment(goOrder, runs, counts, asIs)
}

// partitionsIn weighs a run by its partitions, for answerRuns.
func partitionsIn(r ownerRun) int32 { return r.end - r.start }

// writeAssignment writes the [Assignment] of runs and counts (from
// answerRuns): member by member, each member's runs in the order given,
// which is topic by topic in Go order, partitions ascending, so every
// list comes out sorted; a member m for which asIs[m] is set is given
// its Owned list instead (asIs is nil when none is).
//
// The lists are written member after member into backing arrays that
// listChunks hands out, each written as soon as it is allocated rather
// than one array for the whole answer allocated first and written run
// by run: see listChunks for why.
func (sg *serverGroup) writeAssignment(goOrder []int32, runs []ownerRun, counts []int32, asIs []bool) Assignment {
	cg := sg.cg
	g := cg.g
	sizes := counts[1:]
	for m, same := range asIs {
		if same {
			sizes[m] = 0
		}
	}
	// Group the runs by member, keeping each member's in the order given:
	// first[m] counts member m's runs, then, summed, is where they end in
	// byMember; placing them from the last run down leaves it where they
	// start, and first[m+1] where they end.
	first := make([]int32, len(g.Members)+1)
	for _, r := range runs {
		if sizes[r.m] > 0 {
			first[r.m]++
		}
	}
	for m := 1; m < len(first); m++ {
		first[m] += first[m-1]
	}
	byMember := make([]ownerRun, first[len(first)-1])
	for i := len(runs) - 1; i >= 0; i-- {
		if r := runs[i]; sizes[r.m] > 0 {
			first[r.m]--
			byMember[first[r.m]] = r
		}
	}
	a := make(Assignment, len(g.Members))
	chunks := newListChunks(sizes)
	for m := range g.Members {
		var list []TopicPartition
		switch {
		case asIs != nil && asIs[m]:
			list = sg.handBack(m)
		case sizes[m] > 0:
			list = chunks.take(m)
			at := 0
			for _, r := range byMember[first[m]:first[m+1]] {
				name := cg.topics[goOrder[r.topic]]
				out := list[at : at+int(r.end-r.start)]
				for i := range out {
					out[i] = TopicPartition{name, r.start + int32(i)}
				}
				at += len(out)
			}
		}
		a[g.Members[m].ID] = list
	}
	return a
}

// listChunks hands out the members' lists of an answer, in member
// order, from backing arrays (chunks) that chunkSize sizes, of up to
// chunkPages pages unless the lists are long: a list that does not fit
// in what is left of one starts the next.
//
// An answer written as one backing array allocated whole, then written,
// passes over its memory twice (the allocation zeroes it all, then the
// writes come back to it) and, allocated while the collector is idle,
// is often what starts a collection: it is then both scanned (it was
// reachable when the collection began) and written with write barriers
// on, so the collector sees each of its pointers twice. A chunk written
// as soon as it is allocated is written while its zeroed memory is
// still in the cache, and only the chunk being written when a
// collection starts is seen twice: those before are scanned, those
// after were allocated marked and see write barriers only, until the
// collection ends. It was chosen on
// BenchmarkKIP848/shape=uniform-2000x1000000/strategy=uniform/churn=fresh
// and .../shape=uniform-1000x100000/..., where every list is written.
// TestListChunks holds the chunks to these rules, and
// TestUniformAssignRanges compares the answer, the fresh bench group's
// included, with AssignRanges expanded by RangeAssignment.Assignment,
// which writes one array.
type listChunks struct {
	sizes []int32 // member => entries of its list, 0 for none to write
	left  int     // entries of the lists not handed out yet
	chunk []TopicPartition
}

const (
	// chunkPages bounds a chunk of short lists: 24 of the runtime's 8
	// KiB pages, 192 KiB, which fits in a core's cache.
	chunkPages = 24
	pageBytes  = 8192
	entryBytes = int(unsafe.Sizeof(TopicPartition{}))
)

// newListChunks returns listChunks for lists of sizes entries.
func newListChunks(sizes []int32) listChunks {
	total := 0
	for _, n := range sizes {
		total += int(n)
	}
	return listChunks{sizes: sizes, left: total}
}

// take returns member m's list, sizes[m] > 0 entries; members are taken
// in increasing order.
func (c *listChunks) take(m int) []TopicPartition {
	n := int(c.sizes[m])
	if len(c.chunk) < n {
		// What is left of the chunk is lost: less than a list.
		c.chunk = make([]TopicPartition, c.chunkSize(m))
	}
	c.left -= n
	list := c.chunk[:n:n]
	c.chunk = c.chunk[n:]
	return list
}

// chunkSize returns the entries of a new chunk whose first list is
// member m's. The runtime rounds a large allocation up to whole pages,
// and what is left at the end of a chunk, too short for the next list,
// is lost; so: all the lists left if they fit in chunkPages pages; for
// a list longer than half that, it and the lists after it up to four
// times that, whole, which loses less than a page to rounding; else a
// whole number of pages, chunkPages/2 to chunkPages, that lists as long
// as m's fill the most.
func (c *listChunks) chunkSize(m int) int {
	n := int(c.sizes[m])
	if c.left*entryBytes <= chunkPages*pageBytes {
		return c.left
	}
	if n*entryBytes > chunkPages*pageBytes/2 {
		total := n
		for k := m + 1; k < len(c.sizes) && (total+int(c.sizes[k]))*entryBytes <= 4*chunkPages*pageBytes; k++ {
			total += int(c.sizes[k])
		}
		return total
	}
	best, lost := 0, 0
	for p := chunkPages / 2; p <= chunkPages; p++ {
		size := p * pageBytes / entryBytes
		// size % n entries are lost of size: keep the smallest share.
		if l := size % n; best == 0 || l*best < lost*size {
			best, lost = size, l
		}
	}
	return best
}

// heldAsIs reports, member by member, whether the target that runs and
// counts (from answerRuns, before cursors) give it is its Owned list
// exactly: the same partitions, in the order of [TopicPartition.Compare]
// and each once. assignment hands such a list back rather than copy it,
// as Kafka's coordinator hands back a member's own set. That is most of
// a group after one member leaves, and writing those lists again costs
// most on BenchmarkKIP848/shape=uniform-2000x1000000/strategy=uniform/churn=leave1.
//
// On runs, where readRuns found a member's Owned sorted (heldSorted), a
// run of the target matches the slice of Owned of its length where the
// run's first and last partitions are that slice's: between them the
// slice can only step up one partition at a time. Elsewhere every entry
// is compared.
func (sg *serverGroup) heldAsIs(goOrder []int32, runs []ownerRun, counts []int32) []bool {
	cg := sg.cg
	members := cg.g.Members
	same := make([]bool, len(members))
	for m := range members {
		n := len(members[m].Owned)
		same[m] = n > 0 && int64(n) == int64(counts[m+1]) && (sg.heldSorted == nil || sg.heldSorted[m])
	}
	next := make([]int32, len(members)) // where in Owned m's next run must start
	for _, r := range runs {
		if !same[r.m] {
			continue
		}
		held := members[r.m].Owned[next[r.m]:][:r.end-r.start]
		name := cg.topics[goOrder[r.topic]]
		if sg.heldSorted != nil {
			first, last := held[0], held[len(held)-1]
			same[r.m] = first.Partition == r.start && last.Partition == r.end-1 && first.Topic == name && last.Topic == name
		} else {
			same[r.m] = isStretch(held, name, r.start)
		}
		next[r.m] += r.end - r.start
	}
	return same
}

// isStretch reports whether held lists partitions first, first+1, ... of
// topic, in that order, comparing names byte by byte only where an
// entry's name is in other bytes than the entry before it.
func isStretch(held []TopicPartition, topic string, first int32) bool {
	for k := 0; k < len(held); {
		if tp := held[k]; tp.Partition != first+int32(k) || tp.Topic != topic {
			return false
		}
		k += stretch(held[k:], unsafe.StringData(held[k].Topic), len(held[k].Topic))
	}
	return true
}

// ranges builds the [RangeAssignment] from the answer's runs (answerRuns,
// one pass), written at each member's cursor, so every member's ranges
// come out sorted.
func (sg *serverGroup) ranges() RangeAssignment {
	cg := sg.cg
	g := cg.g
	goOrder := cg.goOrder()
	runs, counts := sg.answerRuns(goOrder, func(ownerRun) int32 { return 1 })
	cursor, bounds := cursors(counts)
	backing := make([]TopicRange, len(runs))
	for _, r := range runs {
		backing[cursor[r.m]] = TopicRange{r.topic, r.start, r.end}
		cursor[r.m]++
	}
	ra := RangeAssignment{Topics: make([]string, len(goOrder)), IDs: make([]string, len(g.Members)), Ranges: make([][]TopicRange, len(g.Members))}
	for m := range g.Members {
		ra.IDs[m] = g.Members[m].ID
	}
	for k, t := range goOrder {
		ra.Topics[k] = cg.topics[t]
	}
	for m := range g.Members {
		if lo, hi := bounds[m], bounds[m+1]; hi > lo {
			ra.Ranges[m] = backing[lo:hi:hi]
		}
	}
	return ra
}
