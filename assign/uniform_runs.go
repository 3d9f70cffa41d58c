package assign

import (
	"cmp"
	"slices"
	"unsafe"
)

// The homogeneous builder on runs. When members hold something, the
// general path reads every member's current target into owner, one
// int32 per partition, and finds the answer's runs by scanning owner.
// Targets are mostly stretches of consecutive partitions, and so is
// what the builder deals: here the targets are read as runs of pids,
// and the answer is made of runs, with no array over the partitions.
// On BenchmarkKIP848's uniform-1000x100000 leave1, callgrind counts 8.7M
// instructions per AssignRanges call against 10.2M on the general path,
// the garbage collector's work included (GOGC=100), for 624 KB
// allocated against 947 KB; TestUniformRunsMatchOwner checks the answers
// and the errors against the general path.
//
// When nobody holds anything, the answer is the chunks dealt
// (freshChunks), as runs, and owner is not even allocated: on
// uniform-2000x1000000 fresh, 4.1M instructions per AssignRanges call
// against 11.3M when owner was filled and scanned, without the collector
// (GOGC=off), and on uniform-1000x100000 fresh 3.9M against 4.3M, for
// 3.0 MB allocated per Assign call against 3.4 MB.

// pidRun is pids lo to hi-1, all of topic t, held or given by the member
// at position pos.
type pidRun struct{ lo, hi, t, pos int32 }

// readRuns reads the members' current targets as runs, sorted by pid,
// and sets heldBy, heldIn and heldSorted. It reports false when a target
// holds a partition the topic does not have, a partition twice, or one
// another target holds: the general path then reads the targets and
// names the fault. pos maps member indices to positions; after and
// goRank are cg.goSteps'.
func (sg *serverGroup) readRuns(pos, after, goRank []int32) ([]pidRun, bool) {
	cg := sg.cg
	g := cg.g
	runs := make([]pidRun, 0, len(g.Members)+len(cg.topics)) // about a run per member and per topic
	sg.heldSorted = make([]bool, len(g.Members))
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
				if r := goRank[t]; r < rank || r == rank && first <= prev {
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
	sortRuns(runs)
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

// sortRuns sorts runs by lo, in place.
func sortRuns(runs []pidRun) {
	byLo := func(a, b pidRun) int { return cmp.Compare(a.lo, b.lo) }
	if !slices.IsSortedFunc(runs, byLo) {
		slices.SortFunc(runs, byLo)
	}
}

// freeFromRuns returns the pids nobody holds, topic by topic in the
// order of topics and ascending within each, from the held runs sorted
// by pid, with room for those members release.
func (sg *serverGroup) freeFromRuns(topics []int32, runs []pidRun, total int32) []int32 {
	cg := sg.cg
	free := make([]int32, 0, max(0, total-sumHeld(sg.heldIn)))
	for _, t := range topics {
		if sg.heldIn[t] == cg.numParts[t] {
			continue // wholly held: nothing free
		}
		lo, hi := cg.start[t], cg.start[t]+cg.numParts[t]
		i, _ := slices.BinarySearchFunc(runs, lo, func(r pidRun, pid int32) int { return int(r.lo - pid) })
		for pid := lo; pid < hi; {
			if i < len(runs) && runs[i].lo == pid {
				pid = runs[i].hi
				i++
				continue
			}
			end := hi
			if i < len(runs) && runs[i].lo < hi {
				end = runs[i].lo
			}
			for ; pid < end; pid++ {
				free = append(free, pid)
			}
		}
	}
	return free
}

// dealtRuns returns the runs of dealing free, in order, to below: each
// member its quota's worth, or what is left.
func (sg *serverGroup) dealtRuns(free []int32, below []unfilled) (runs []pidRun, dealt int) {
	start := sg.cg.start
	for _, u := range below {
		chunk := free[dealt:min(len(free), dealt+int(u.quota))]
		dealt += len(chunk)
		for i := 0; i < len(chunk); {
			t := topicAt(start, chunk[i])
			j := i + 1
			for j < len(chunk) && chunk[j] == chunk[j-1]+1 && chunk[j] < start[t+1] {
				j++
			}
			runs = append(runs, pidRun{chunk[i], chunk[j-1] + 1, t, u.pos})
			i = j
		}
	}
	return runs, dealt
}

// freshChunks returns the chunks of dealing the partitions of topics, in
// that order, to below, each member its quota's worth: a run for each
// topic a chunk covers. It reports whether every partition was dealt. It
// is what the general loop does with the free list when nobody holds
// anything, with no list of pids; TestUniformFreshChunks checks the two.
func (sg *serverGroup) freshChunks(topics []int32, below []unfilled) ([]pidRun, bool) {
	cg := sg.cg
	runs := make([]pidRun, 0, len(below)+len(topics)) // a run per member, and one more where a chunk crosses topics
	t, p := 0, int32(0)                               // the next partition to deal: p of topics[t]
	for _, u := range below {
		for left := u.quota; left > 0 && t < len(topics); {
			topic := topics[t]
			start, n := cg.start[topic], cg.numParts[topic]
			if k := min(left, n-p); k > 0 {
				runs = append(runs, pidRun{start + p, start + p + k, topic, u.pos})
				p, left = p+k, left-k
			}
			if p == n {
				t, p = t+1, 0
			}
		}
	}
	return runs, t == len(topics)
}

// withoutPids returns runs, sorted by pid, less the pids of drop, sorted.
func withoutPids(runs []pidRun, drop []int32) []pidRun {
	if len(drop) == 0 {
		return runs
	}
	out := make([]pidRun, 0, len(runs)+len(drop))
	d := 0
	for _, r := range runs {
		for d < len(drop) && drop[d] < r.lo {
			d++
		}
		for d < len(drop) && drop[d] < r.hi {
			if drop[d] > r.lo {
				out = append(out, pidRun{r.lo, drop[d], r.t, r.pos})
			}
			r.lo = drop[d] + 1
			d++
		}
		if r.lo < r.hi {
			out = append(out, r)
		}
	}
	return out
}

// mergeRuns merges a and b, each sorted by pid and disjoint from the
// other, into one list sorted by pid in which runs that touch, of one
// topic and one member, are one.
func mergeRuns(a, b []pidRun) []pidRun {
	out := make([]pidRun, 0, len(a)+len(b))
	add := func(r pidRun) {
		if n := len(out); n > 0 {
			if p := &out[n-1]; p.hi == r.lo && p.t == r.t && p.pos == r.pos {
				p.hi = r.hi
				return
			}
		}
		out = append(out, r)
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		if j == len(b) || i < len(a) && a[i].lo < b[j].lo {
			add(a[i])
			i++
		} else {
			add(b[j])
			j++
		}
	}
	return out
}

// uniformHomogeneousRuns is uniformHomogeneous on runs (see the top of
// this file), from sg.held, the current targets readRuns read, or, when
// nobody holds anything, from freshChunks. It sets sg.final.
func (sg *serverGroup) uniformHomogeneousRuns(v KafkaVersion) error {
	cg := sg.cg
	if len(sg.byPos) == 0 {
		return nil
	}
	topics, err := sg.subscriptionOrder(sg.byPos[0])
	if err != nil || len(topics) == 0 {
		return err // nothing subscribed exists: every target is empty
	}
	total := int32(0)
	for _, t := range topics {
		total += cg.numParts[t]
	}
	if !sg.anyHeld() {
		below, _ := sg.quotas(v, total, nil)
		dealt, ok := sg.freshChunks(topics, below)
		if !ok {
			return errUnassigned
		}
		sortRuns(dealt)
		sg.final = dealt
		return nil
	}
	free := sg.freeFromRuns(topics, sg.held, total)
	unheld := len(free)
	below, free := sg.quotas(v, total, free)
	dealt, n := sg.dealtRuns(free, below)
	if n < len(free) {
		return errUnassigned
	}
	released := slices.Clone(free[unheld:])
	slices.Sort(released)
	sortRuns(dealt)
	sg.final = mergeRuns(withoutPids(sg.held, released), dealt)
	return nil
}

// finalRuns lists sg.final's runs as ownerRuns does owner's: topic by
// topic in Go order, partitions ascending, with counts.
func (sg *serverGroup) finalRuns(weigh func(ownerRun) int32) (runs []ownerRun, counts []int32) {
	cg := sg.cg
	_, goRank := cg.goSteps()
	counts = make([]int32, len(cg.g.Members)+1)
	runs = make([]ownerRun, len(sg.final))
	for i, r := range sg.final {
		base := cg.start[r.t]
		runs[i] = ownerRun{sg.byPos[r.pos], goRank[r.t], r.lo - base, r.hi - base}
		counts[runs[i].m+1] += weigh(runs[i])
	}
	// sg.final follows topic indices, Java's order of names; Go's differs
	// only for names beyond the Basic Multilingual Plane.
	byTopic := func(a, b ownerRun) int { return int(a.topic - b.topic) }
	if !slices.IsSortedFunc(runs, byTopic) {
		slices.SortStableFunc(runs, byTopic)
	}
	return runs, counts
}
