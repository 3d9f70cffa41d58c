// Which pid of a topic a move carries (see augment in shift.go): choose,
// over two indexes that find the answer without a pass over everything
// the member holds.
//
// The answer is the best of a's pids of t by (not a's own claim, then
// the preferences' score, then the highest pid). Without preferences it
// is the highest pid a holds that it does not claim, else the highest of
// its own claims that it holds. Two indexes give those directly:
//
//   - the foreign lists: per arc index entry (a, t), the pids of t that
//     a holds and does not claim, as a doubly linked list in descending
//     pid order (foreignHead and foreignTail by entry, foreignNext and
//     foreignPrev by pid), built at the first choose with the index and kept by move;
//   - ownRun and ownTop: per member, the run of its claims of one topic
//     in claimed (by the run's first position) that choose last took
//     from, and a bound above which the member holds none of them;
//     choose lowers it as it scans down, move raises it when a claim
//     comes home. Two int32 per member, where one per claim cost a
//     third more bytes on a member joining hetero(1000, 2000).
//
// On bench/cmd/adversary's random family a few members claim whole
// topics and hand them out one pid per move; a pass over a member's
// pids of the topic, or over the claims it had already handed out, at
// every move made that quadratic in the topic (bench/RESULTS.md, "the
// general path's own paths cached per search").

package balance

import "slices"

// choose picks a pid of topic t that a holds to move to b: one that is not
// a's own claim if a holds any, preferring b's previous ownership, then
// b's rack, then the highest pid (members keep their lowest partitions,
// as on the fast path). It returns -1 when a holds none.
func (s *solver) choose(a, t, b int32) int32 {
	prefs := s.p.Prev != nil || s.p.Rack != nil && s.p.Replicas != nil
	switch {
	case s.arcs != nil:
		if s.heldHead == nil && (s.ownHeld == nil || s.ownHeld[a] != s.load[a]) {
			// The pass this replaced built the held lists here, and
			// their order, which moves keep from then on, decides ties
			// in later searches: build them when it did.
			s.byHeld(a, t)
		}
		e := s.entry(a, t)
		if e < 0 {
			return -1
		}
		if s.arcs.held[e] > s.arcs.own[e] {
			return s.chooseForeign(e, b, prefs)
		}
		return s.chooseOwn(a, t, b, prefs)
	case s.ownHeld != nil && s.ownHeld[a] == s.load[a]:
		return s.chooseOwn(a, t, b, prefs) // a holds only its own claims
	}
	return s.choosePass(a, t, b, prefs)
}

// score is the preferences' score of moving pid to b: 2 for b's previous
// ownership, 1 for a replica on b's rack, else 0.
func (s *solver) score(pid, b int32) int {
	switch {
	case get(s.p.Prev, pid) == b:
		return 2
	case s.p.rackMatch(pid, b):
		return 1
	}
	return 0
}

// chooseForeign is choose among the pids of arc index entry e that its
// member holds and does not claim (there is one): the first of its
// foreign list, or with preferences the best, the list descending so
// that the first of a score is the highest.
func (s *solver) chooseForeign(e, b int32, prefs bool) int32 {
	if s.foreignHead == nil {
		s.buildForeignLists()
	}
	best, bestScore := int32(-1), -1
	for pid := s.foreignHead[e]; pid >= 0; pid = s.foreignNext[pid] {
		if !prefs {
			return pid
		}
		if sc := s.score(pid, b); sc > bestScore {
			best, bestScore = pid, sc
		}
	}
	return best
}

// chooseOwn is choose when a holds none of t but its own claims: a scan
// of a's claims of t from the highest down, or from ownTop when a's
// last choice was of the same run.
func (s *solver) chooseOwn(a, t, b int32, prefs bool) int32 {
	if s.claimed == nil {
		return -1
	}
	lo, hi := s.claimRun(a, t)
	if lo == hi {
		return -1
	}
	if s.ownRun == nil {
		s.ownRun, s.ownTop = make([]int32, s.n), make([]int32, s.n)
		for m := range s.ownRun {
			s.ownRun[m] = -1
		}
	}
	top := hi
	if s.ownRun[a] == lo {
		top = s.ownTop[a]
	}
	best, bestScore := int32(-1), -1
	newTop := lo
	for i := top - 1; i >= lo; i-- {
		pid := s.claimed[i]
		if s.owner[pid] != a {
			continue
		}
		if newTop == lo {
			newTop = i + 1 // a holds none of its claims above i
		}
		if !prefs {
			best = pid
			break
		}
		if sc := s.score(pid, b); sc > bestScore {
			best, bestScore = pid, sc
		}
	}
	s.ownRun[a], s.ownTop[a] = lo, newTop
	return best
}

// choosePass is choose without the arc index when a holds more than its
// own claims: a pass over a's held list when that is shorter than the
// topic, else over the topic from its highest pid.
func (s *solver) choosePass(a, t, b int32, prefs bool) int32 {
	var best [2]int32 // by ownership: not a's claim, a's claim
	bestScore := [2]int{-1, -1}
	consider := func(pid int32) bool {
		k := 0
		if get(s.claim, pid) == a {
			k = 1
		}
		score := s.score(pid, b)
		if score > bestScore[k] || score == bestScore[k] && pid > best[k] {
			best[k], bestScore[k] = pid, score
		}
		return k == 0 && !prefs // the highest pid not a's claim is the answer
	}
	if s.byHeld(a, t) {
		for pid := s.heldHead[a]; pid >= 0; pid = s.heldNext[pid] {
			if s.topic[pid] == t {
				consider(pid)
			}
		}
	} else {
		for pid := s.start[t+1] - 1; pid >= s.start[t]; pid-- {
			if s.owner[pid] == a && consider(pid) {
				break
			}
		}
	}
	switch {
	case bestScore[0] >= 0:
		return best[0]
	case bestScore[1] >= 0:
		return best[1]
	}
	return -1
}

// claimRun returns the positions lo..hi in claimed of a's claims of
// topic t.
func (s *solver) claimRun(a, t int32) (int32, int32) {
	off := s.claimOff[a]
	mine := s.claimed[off:s.claimOff[a+1]]
	lo, _ := slices.BinarySearch(mine, s.start[t])
	hi, _ := slices.BinarySearch(mine, s.start[t+1])
	return off + int32(lo), off + int32(hi)
}

// cameHome raises ownTop for pid, a claim of c that c holds again, when
// it is of the run ownTop bounds.
func (s *solver) cameHome(pid, c int32) {
	lo := s.ownRun[c]
	if lo < 0 || s.topic[s.claimed[lo]] != s.topic[pid] {
		return
	}
	i, _ := slices.BinarySearch(s.claimed[lo:s.claimOff[c+1]], pid)
	s.ownTop[c] = max(s.ownTop[c], lo+int32(i)+1)
}

// buildForeignLists builds the foreign lists from owner; the arc index
// and topic must be built.
func (s *solver) buildForeignLists() {
	total := len(s.owner)
	s.foreignHead, s.foreignTail = make([]int32, len(s.arcs.held)), make([]int32, len(s.arcs.held))
	s.foreignNext, s.foreignPrev = make([]int32, total), make([]int32, total)
	for e := range s.foreignHead {
		s.foreignHead[e], s.foreignTail[e] = -1, -1
	}
	for pid := range int32(total) {
		if m := s.owner[pid]; m >= 0 && get(s.claim, pid) != m {
			e := s.entry(m, s.topic[pid])
			if s.foreignHead[e] < 0 {
				s.foreignTail[e] = pid
			}
			link(s.foreignHead, s.foreignNext, s.foreignPrev, e, pid)
		}
	}
}

// linkForeign puts pid into foreign list k, keeping it descending. A
// pid below the whole list goes to its tail at once: a member that
// passes on partitions of a topic someone hands out from the top down
// receives each below all it holds, and the walk from the head made
// that quadratic in what it holds (bench/RESULTS.md, "every load level
// at once").
func (s *solver) linkForeign(k, pid int32) {
	switch t := s.foreignTail[k]; {
	case t < 0:
		s.foreignTail[k] = pid
		link(s.foreignHead, s.foreignNext, s.foreignPrev, k, pid)
	case pid < t:
		s.foreignNext[t], s.foreignPrev[pid], s.foreignNext[pid] = pid, t, -1
		s.foreignTail[k] = pid
	default:
		linkDesc(s.foreignHead, s.foreignNext, s.foreignPrev, k, pid)
	}
}

// unlinkForeign takes pid out of foreign list k.
func (s *solver) unlinkForeign(k, pid int32) {
	if s.foreignTail[k] == pid {
		s.foreignTail[k] = s.foreignPrev[pid]
	}
	unlink(s.foreignHead, s.foreignNext, s.foreignPrev, k, pid)
}

// linkDesc puts pid into list k of head, next, prev, whose pids descend
// and hold one above pid or none.
func linkDesc(head, next, prev []int32, k, pid int32) {
	h := head[k]
	if h < 0 || h < pid {
		link(head, next, prev, k, pid)
		return
	}
	at := h // the last pid above pid
	for next[at] >= 0 && next[at] > pid {
		at = next[at]
	}
	nx := next[at]
	next[pid], prev[pid] = nx, at
	next[at] = pid
	if nx >= 0 {
		prev[nx] = pid
	}
}
