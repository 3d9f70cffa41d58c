package assign

// Reading Owned lists in order: the loop keepAndDeal's groups spend most
// of their reading in (every member's list in order, as Carry and every
// client give), kept apart from keep.go's other readers.

// inOrder claims the partitions of owned for member i as long as the
// list is in order (topics ascending in Go order, partitions ascending
// within each, all existing), and returns how many it claimed: the
// length of that prefix, which is also its count.
func (r *keptReader) inOrder(i int, owned []TopicPartition) (int, int32) {
	cg := r.cg
	run := inRun{rank: -1, last: -1}
	guess := ownedGuess{sub: cg.subs[i]}
	tab := r.tab // the guesses in order: sub equals the subscription they were built from
	for k := 0; ; {
		at := guess.at
		k, guess.at = r.inOrderRuns(int32(i), owned, k, guess.at, tab, &run)
		if k == len(owned) {
			return k, int32(k)
		}
		if guess.at != at {
			guess.misses = 0 // the guess hit since the last lookup
		}
		tp := &owned[k]
		if sameString(tp.Topic, run.name) {
			return k, int32(k) // a partition out of order or gone
		}
		// A name that is neither the string before nor the guess is
		// looked up (see ownedTopic).
		ti, known := int32(0), run.rank >= 0
		if known {
			ti = cg.goOrder()[run.rank]
		}
		next, ok := cg.ownedTopic(&guess, r.after, ti, known, tp.Topic)
		if guess.sub == nil {
			tab = nil // guessing stopped paying
		}
		switch {
		case !ok:
			return k, int32(k)
		case known && next == ti:
			run.name = tp.Topic // the same topic in another string: the run goes on
		case r.goRank[next] <= run.rank:
			return k, int32(k)
		default:
			run = inRun{rank: r.goRank[next], start: cg.start[next], end: cg.start[next+1], last: int(cg.start[next]) - 1, name: tp.Topic}
		}
	}
}

// inTopic is the topic at one position of the members' subscription,
// as inOrderRuns starts a run of it: its name, its rank in Go order, and
// its partitions' numbers, from start to end.
type inTopic struct {
	name       string
	rank       int32
	start, end int32
}

// inRun is the run of one topic inOrder is reading: its topic's rank in
// Go order (-1 before the first run), the topic's partition numbers
// (start to end), the number of the run's last partition (start-1 before
// its first), and the topic's name as listed.
type inRun struct {
	rank       int32
	start, end int32
	last       int
	name       string
}

// inOrderRuns is inOrder's loop over member i's owned from position k:
// it claims partitions while they continue run or start a run of a
// guessed topic, one of tab[at:at+ownedGuesses] as ownedTopic guesses
// (names compared by address, not by their bytes), and returns where it
// stopped (at a partition it cannot claim so, or len(owned)) and the
// guess's position. It calls nothing and
// reads each topic's numbers from one table, so that the compiler keeps
// the loop's variables in registers: a call in the loop, even on a path
// it seldom takes, and a slice per number made it keep them in memory
// and reload them at every partition
// (BenchmarkAssign/strategy=sticky/impl=ours/shape=uniform-100x10000-leave1
// in bench/, where every run is one partition).
func (r *keptReader) inOrderRuns(i int32, owned []TopicPartition, k, at int, tab []inTopic, run *inRun) (int, int) {
	listed, lister := r.kc.listed, r.lister
	rank, start, end, last, name := run.rank, int(run.start), int(run.end), run.last, run.name
	rest := owned[k:]
	j := 0
	for ; j < len(rest); j++ {
		tp := &rest[j]
		if !sameString(tp.Topic, name) {
			// The guess: the next ownedGuesses topics of the
			// subscription, as ownedTopic tries them.
			a, stop := at, min(at+ownedGuesses, len(tab))
			for a < stop && !sameString(tab[a].name, tp.Topic) {
				a++
			}
			if a >= stop {
				break // inOrder looks the name up (at may be past tab when tab is nil)
			}
			if next := &tab[a]; next.rank != rank {
				if next.rank < rank {
					break // out of order: inOrder finds it again and stops
				}
				rank, start, end = next.rank, int(next.start), int(next.end)
				last = start - 1
			}
			name, at = tp.Topic, a+1
		}
		// Partition numbers of one topic ascend from start: one
		// comparison refuses a partition below the last, or negative.
		pid := start + int(tp.Partition)
		if pid <= last || pid >= end {
			break
		}
		last = pid
		u := uint(pid)
		listed[u/64] |= 1 << (u % 64)
		if lister != nil {
			lister[u] = i + 1
		}
	}
	*run = inRun{rank: rank, start: int32(start), end: int32(end), last: last, name: name}
	return k + j, at
}
