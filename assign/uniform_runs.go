package assign

import (
	"cmp"
	"slices"
	"unsafe"
)

// Reading the members' current targets as runs of consecutive pids: what
// the homogeneous uniform builder (uniform_homogeneous.go) starts from,
// kept apart from the builder's own phases.

// pidRun is pids lo to hi-1, all of topic t, held or given by the member
// at position pos.
type pidRun struct{ lo, hi, t, pos int32 }

// readRuns reads the members' current targets as runs, sorted by pid,
// and sets heldBy, heldIn and heldSorted. It reports false when a target
// holds a partition the topic does not have, a partition twice, or one
// another target holds: readOwner then reads the targets and names the
// fault.
func (sg *serverGroup) readRuns() ([]pidRun, bool) {
	cg := sg.cg
	g := cg.g
	after, goRank := sg.steps()
	pos := sg.positions()
	sg.heldIn = make([]int32, len(cg.topics))
	sg.heldBy = make([]int32, len(g.Members))
	runs := make([]pidRun, 0, len(g.Members)+len(cg.topics)) // about a run per member and per topic
	sg.heldSorted = make([]bool, len(g.Members))
	sg.heldTopic = make([]int32, len(g.Members))
	for m := range g.Members {
		owned := g.Members[m].Owned
		var (
			t     int32
			known bool
		)
		sorted, rank, prev := true, int32(-1), int32(-1) // prev: the last partition of topic rank so far
		for k := 0; k < len(owned); {
			topic := owned[k].Topic
			if t, known = cg.topicAfter(after, t, known, topic); !known {
				j := runEnd(owned, k)
				if !sg.droppedRunValid(owned[k:j]) {
					return nil, false
				}
				k, sorted = j, false
				continue
			}
			if k == 0 {
				sg.heldTopic[m] = t
			}
			n, base := cg.numParts[t], cg.start[t]
			for k < len(owned) {
				if s := owned[k].Topic; unsafe.StringData(s) != unsafe.StringData(topic) || len(s) != len(topic) {
					if s != topic {
						break
					}
					topic = s // the same name in other bytes: follow them
				}
				first := owned[k].Partition
				j := k + stretch(owned[k:], unsafe.StringData(topic), len(topic))
				if first < 0 || int(first)+(j-k) > int(n) { // in int: a stretch may run past MaxInt32
					return nil, false
				}
				last := first + int32(j-k) // exclusive
				if r := rankOf(goRank, t); r < rank || r == rank && first <= prev {
					sorted = false
				} else {
					rank, prev = r, last-1
				}
				runs = append(runs, pidRun{base + first, base + last, t, pos[m]})
				sg.heldBy[m] += last - first
				sg.heldIn[t] += last - first
				k = j
			}
		}
		sg.heldSorted[m] = sorted
	}
	read := runs
	if runs = sortRuns(runs, len(cg.topics)); len(runs) > 0 && &runs[0] != &read[0] {
		sg.spare = read[:0]
	}
	for i := 1; i < len(runs); i++ {
		if runs[i].lo < runs[i-1].hi {
			return nil, false // a partition held twice
		}
	}
	return runs, true
}

// droppedRunValid reports whether a run of partitions of a topic the
// assignors drop (deleted, or subscribed by nobody) passes readTarget's
// checks: the topic has an id, and each partition is one it has.
func (sg *serverGroup) droppedRunValid(run []TopicPartition) bool {
	g := sg.cg.g
	topic := run[0].Topic
	if _, ok := g.TopicIDs[topic]; !ok {
		return false
	}
	n, exists := g.Topics[topic]
	for _, tp := range run {
		if tp.Partition < 0 || exists && tp.Partition >= n {
			return false
		}
	}
	return true
}

// stretch returns how many of the leading entries of run, a non-empty
// list, name the topic of size bytes at data and number partitions
// consecutively from run[0]'s. A leaf of its own, its loop keeps every
// variable in a register.
//
//go:noinline
func stretch(run []TopicPartition, data *byte, size int) int {
	next := run[0].Partition
	for j, tp := range run {
		if unsafe.StringData(tp.Topic) != data || len(tp.Topic) != size || tp.Partition != next {
			return j
		}
		next++
	}
	return len(run)
}

// sortRuns returns runs sorted by lo: a copy, written after them in
// their own array when it has room for as many again, else runs itself,
// sorted in place. topics bounds the runs' topic indices.
//
// Pids number the topics' partitions one topic after the other, so runs
// sorted by topic, then by lo within each topic, are sorted by lo: a
// counting sort by topic, O(len(runs) + topics), leaves a few runs per
// topic to sort, where a comparison sort of them all took most of
// readRuns on BenchmarkKIP848/shape=uniform-1000x100000/strategy=uniform/churn=join1
// (about a run per member, listed member by member, whose partitions the
// member map's order scatters). With few runs for many topics, or few
// runs at all, the comparison sort does. The copy goes into the room
// readRuns leaves after the runs, where it had an array of its own;
// without that room, the runs are moved into place (placeRuns).
// TestSortRuns checks it against the comparison sort.
func sortRuns(runs []pidRun, topics int) []pidRun {
	byLo := func(a, b pidRun) int { return cmp.Compare(a.lo, b.lo) }
	if slices.IsSortedFunc(runs, byLo) {
		return runs
	}
	if len(runs) < 64 || topics > 4*len(runs) {
		slices.SortFunc(runs, byLo)
		return runs
	}
	end := make([]int32, topics+1) // counts, then where each topic's runs start, then end
	for _, r := range runs {
		end[r.t+1]++
	}
	for t := 1; t <= topics; t++ {
		end[t] += end[t-1]
	}
	n := len(runs)
	if cap(runs) < 2*n {
		placeRuns(runs, end)
		return runs
	}
	out := runs[n : 2*n : cap(runs)]
	for _, r := range runs {
		out[end[r.t]] = r
		end[r.t]++
	}
	sortWithin(out, end[:topics])
	return out
}

// sortWithin sorts by lo each topic's runs of runs, which end where ends
// say.
func sortWithin(runs []pidRun, ends []int32) {
	byLo := func(a, b pidRun) int { return cmp.Compare(a.lo, b.lo) }
	from := int32(0)
	for _, to := range ends {
		if one := runs[from:to]; len(one) > 1 && !slices.IsSortedFunc(one, byLo) {
			slices.SortFunc(one, byLo)
		}
		from = to
	}
}

// placeRuns is sortRuns' counting sort in place, for runs with no room
// after them: start[t] is where topic t's runs start, start[topics] the
// end. Each run is moved into its topic's next free slot, taking the run
// there along to place next. It costs more time than a copy (its moves
// wait for each other) and saves the copy's array, the runs' size:
// readRuns leaves room for the copy when the runs are about one per
// member and per topic (BenchmarkKIP848/shape=uniform-1000x100000/
// strategy=uniform/churn=leave1), not when each member holds a part of
// a topic of thousands (.../shape=uniform-2000x1000000/...).
func placeRuns(runs []pidRun, start []int32) {
	topics := len(start) - 1
	next := make([]int32, topics) // the first slot of topic t's that holds no run of it yet
	copy(next, start[:topics])
	for t := range int32(topics) {
		for next[t] < start[t+1] {
			r := runs[next[t]]
			for r.t != t {
				j := next[r.t]
				next[r.t]++
				runs[j], r = r, runs[j]
			}
			runs[next[t]] = r
			next[t]++
		}
	}
	sortWithin(runs, start[1:])
}
