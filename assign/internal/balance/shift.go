// Shifting, the one mechanism of both phases of the general path (see
// general.go): shiftAll searches (search.go) and shifts partitions along
// the search's tight paths until no path allows it; tight finds another
// tight path when the search's own is spent; augment makes the moves,
// choose picking which pid of a topic moves; arcCost re-reads an arc to
// tell whether a path is intact.

package balance

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// shiftAll shifts partitions for g until no path allows it, and reports
// whether it shifted any. It runs in rounds: a search, then shifts along
// its paths (shiftEnds), until a search finds no end it can reach.
//
// One search serves many shifts. It runs from the smaller side, so that
// every member of the larger side (an end) has a path: backward from
// the targets when they are no more than the sources (a member joining
// takes its share from many sources in one search), forward from the
// sources otherwise (a member holding too much hands it to many
// targets). Its distances are a potential under which every arc has a
// reduced cost >= 0: tight arcs, of reduced cost 0, include those of its
// paths. Shifting along a tight path keeps that true (the reversed arcs
// are tight, arcs that appear are tight, arcs that vanish or grow dearer
// do not matter), so it keeps the move graph free of negative cycles,
// and a tight path costs what the search saw: the distance of its end.
func (s *solver) shiftAll(g goal) (bool, error) {
	shifted := false
	var ends []int32
	var steps []step
	for {
		if g.every {
			if err := s.search(true, g); err != nil {
				return shifted, err
			}
			ends = s.everyEnds(ends[:0])
			if len(ends) == 0 {
				return shifted, nil
			}
			var err error
			if steps, err = s.shiftEnds(g, ends, steps); err != nil {
				return shifted, err
			}
			shifted = true
			continue
		}
		sources, targets := 0, 0
		for _, l := range s.load {
			if g.source(l) {
				sources++
			}
			if g.target(l) {
				targets++
			}
		}
		if sources == 0 || targets == 0 {
			return shifted, nil
		}
		forward := sources < targets
		if s.direction != 0 {
			forward = s.direction > 0
		}
		if s.certified(g) {
			// The search would find nothing (certs.go). Build what it
			// would have built, when it would have: the held lists'
			// order decides ties in later searches.
			s.skipped++
			s.prepareSearch()
			if forward && s.heldHead == nil {
				s.buildHeld()
			}
			return shifted, nil
		}
		if err := s.search(forward, g); err != nil {
			return shifted, err
		}
		ends = ends[:0]
		for m := range s.n {
			if s.dist[m] < g.maxDist && g.end(forward, s.load[m]) {
				ends = append(ends, m)
			}
		}
		if len(ends) == 0 {
			s.learn(g)
			return shifted, nil
		}
		var err error
		if steps, err = s.shiftEnds(g, ends, steps); err != nil {
			return shifted, err
		}
		shifted = true
	}
}

// shiftEnds makes the shifts of one search: each end, the cheapest
// first, follows the search's own path while it is intact, and when it
// is not, another tight path (tight); in passes, one shift per end and
// pass, while the loads allow. It fails unless it shifts at least once:
// the cheapest path of a fresh search is intact. steps is scratch.
func (s *solver) shiftEnds(g goal, ends []int32, steps []step) ([]step, error) {
	slices.SortStableFunc(ends, func(a, b int32) int {
		return cmp.Compare(s.dist[a], s.dist[b])
	})
	for i := range s.dead {
		s.dead[i] = inf
	}
	progress := false
	for again := true; again; {
		again = false
		kept := ends[:0]
		for _, e := range ends {
			// Each end shifts at most one partition per pass, so that
			// loads move evenly, and only while it is still a source or
			// a target.
			if !s.isEnd(g, e) {
				continue
			}
			var ok bool
			var err error
			if steps, ok, err = s.shiftEnd(g, e, steps); err != nil {
				return steps, err
			}
			if ok {
				progress, again = true, true
			}
			if ok || !g.every {
				kept = append(kept, e)
			}
		}
		ends = kept
	}
	if !progress {
		return steps, fmt.Errorf("%w: no path of the search can be followed", ErrInternal)
	}
	return steps, nil
}

// shiftEnd shifts one partition along a path of the last search between
// end e and a root whose load allows it: the search's own path first,
// another tight one if that is spent. It reports whether it shifted.
func (s *solver) shiftEnd(g goal, e int32, steps []step) ([]step, bool, error) {
	need, neg := g.need(s.forward, s.load[e]), g.tie
	if g.every {
		need, neg = s.everyNeed(e)
	}
	if s.rootLoad >= 0 && !s.rootStale && !s.someRoot(need) {
		// A count of the roots' loads made since the last shift says
		// no root lets a path from e shift, the search's own path
		// included: building it would be in vain (on the ladder at
		// 2,000 members, a joiner's search has a thousand ends whose
		// own paths run through hundreds of members). The count is
		// made where it was, below: making it here too, it went stale
		// with the own paths' shifts, and the stale count sent ends to
		// layer and tight that would otherwise have stopped.
		return steps, false, nil
	}
	own := false // follow the search's own path
	if !s.noTree && s.ownMayShift(e, neg) && !s.brokenAhead(e) {
		mine, err := s.ownPath(e)
		if err != nil {
			return steps, false, err
		}
		if s.shiftable(mine, neg) {
			if at := s.brokenAt(mine); at < 0 {
				// augment writes the pids it chooses into the steps:
				// keep the cached path as the search left it.
				steps, own = append(steps[:0], mine...), true
			} else if !s.keepBroken {
				s.markBroken(mine, at)
			}
		}
	}
	if !own {
		if !s.someRoot(need) {
			return steps, false, nil // tight would search in vain
		}
		if !s.layered {
			s.layer()
		}
		var ok bool
		if steps, ok = s.tight(e, need, steps[:0]); !ok {
			if s.rootStale {
				s.rootLoad = -1 // recount before the next walk
			}
			return steps, false, nil
		}
		if !s.shiftable(steps, neg) {
			return steps, false, fmt.Errorf("%w: a tight path cannot shift", ErrInternal)
		}
	}
	s.fairSeen(steps)
	if err := s.augment(steps); err != nil {
		return steps, false, err
	}
	s.rootStale = true
	return steps, true, nil
}

// ownMayShift reports whether the loads may let a partition shift along
// the last search's own path to end e, as shiftable would report for it
// (neg as there):
// from the loads at its ends when an earlier pass has built it
// (ownPath), else true. On the ladder family, whose paths run through
// hundreds of members, building the path of every end in every pass
// took a third of the time.
func (s *solver) ownMayShift(e int32, neg bool) bool {
	if s.ownStamp[e] != s.searches {
		return true
	}
	if s.ownLen[e] == 0 {
		return false // no path: shiftable says no
	}
	src, dst := s.load[s.ownEnd[e]], s.load[e]
	if !s.forward {
		src, dst = dst, src
	}
	return dst <= src-2 || neg && dst == src-1
}

// ownCap bounds the steps of the own paths cached for one search, per
// member, so that the cache stays small whatever the paths' lengths (one
// path may pass the bound): once the cache is full a path is rebuilt at
// each use, as before the cache, in pathScratch. (Bounded per search
// node, it took 8 MB a call on the ladder family at 2,000 members, whose
// paths are long and topics many.)
const ownCap = 2

// ownPath returns the last search's own path to end e (see path). The
// path stays the same until the next search, so from its second use on
// it comes from a cache, with the arc index entries intact has noted in
// it: on bench/cmd/adversary's random family an end whose own path is
// spent tries it again in every pass, which rebuilt the path and found
// each entry in Subs every time (bench/RESULTS.md); most ends of a
// member joining use theirs once, and those stay out of the cache.
func (s *solver) ownPath(e int32) ([]step, error) {
	if s.ownSince != s.searches {
		s.ownSteps, s.ownSince = s.ownSteps[:0], s.searches
	}
	seen := s.ownStamp[e] == s.searches
	if seen && s.ownLen[e] >= 0 {
		return s.ownSteps[s.ownOff[e] : s.ownOff[e]+s.ownLen[e]], nil
	}
	var mine []step
	var err error
	if seen && len(s.ownSteps) < ownCap*int(s.n) {
		off := len(s.ownSteps)
		s.ownSteps, err = s.path(e, s.ownSteps)
		mine = s.ownSteps[off:]
		s.ownOff[e], s.ownLen[e] = int32(off), int32(len(mine))
	} else {
		s.pathScratch, err = s.path(e, s.pathScratch[:0])
		mine, s.ownLen[e] = s.pathScratch, -1 // first use, or the cache is full
	}
	if err != nil {
		return mine, err
	}
	s.ownStamp[e] = s.searches
	if len(mine) == 0 {
		s.ownOff[e], s.ownLen[e] = 0, 0
		return mine, nil
	}
	s.ownEnd[e] = mine[0].from // the other end
	if !s.forward {
		s.ownEnd[e] = mine[len(mine)-1].to
	}
	return mine, nil
}

// brokenAt returns the index of the first move of steps that can no
// longer be made at the cost the search saw, or -1 when every one can.
// It notes in each move through a topic the arc index entry it reads,
// so that a cached path (ownPath) finds it there the next time; a path
// whose first moves are spent is read no further.
func (s *solver) brokenAt(steps []step) int {
	for i := range steps {
		st := &steps[i]
		switch {
		case st.t < 0:
			if s.owner[st.pid] != st.from {
				return i
			}
		case s.arcs != nil:
			if st.e < 0 {
				st.e = s.entry(st.from, st.t)
			}
			if s.entryCost(st.e) != st.cost {
				return i
			}
		case s.arcCost(st.from, st.t) != st.cost:
			return i
		}
	}
	return -1
}

// intact reports whether every move of steps can still be made at the
// cost the search saw (see brokenAt).
func (s *solver) intact(steps []step) bool { return s.brokenAt(steps) < 0 }

// markBroken notes, for the rest of the search, that the own paths of
// the members of steps that pass its move at are broken: those before
// it backward (the members on steps lead on to the target through it),
// those after it forward (theirs lead back to the source through it).
//
// Why: the own paths of a search share their parts near its roots, so
// once a shift spends an arc there every end whose path runs through it
// would build its whole path to find it spent. On the ladder at 2,000
// members, a joiner's backward search has a thousand ends whose paths
// run through some 330 members, and the break lay within the last ten
// moves (BenchmarkBroken). brokenAhead then stops at the first member
// so marked, and marks those it passed on the way.
//
// A mark may outlive the break (a later shift can restore the arc):
// that costs at most a search, never optimality, as a path tight
// misses (see tight); TestBrokenKeepsCost checks the cost.
func (s *solver) markBroken(steps []step, at int) {
	if s.forward {
		for _, st := range steps[at:] {
			s.ownBroken[st.to] = int32(s.searches)
		}
		return
	}
	for _, st := range steps[:at+1] {
		s.ownBroken[st.from] = int32(s.searches)
	}
}

// brokenAhead reports whether the last search's own path from end e
// runs through a member markBroken marked in this search, and if so
// marks the members before it too, so that the next end to come this
// way stops sooner (the ends' paths join one another as they near the
// roots).
func (s *solver) brokenAhead(e int32) bool {
	if s.keepBroken {
		return false
	}
	limit := 2*int(s.n) + 2 // links form a tree; the bound only guards against a bug
	hops := 0
	v := e
	for ; v >= 0 && hops <= limit; v, hops = s.link[v], hops+1 {
		if v < s.n && s.ownBroken[v] == int32(s.searches) {
			break
		}
	}
	if v < 0 || hops > limit {
		return false
	}
	for u := e; u != v; u = s.link[u] {
		if u < s.n {
			s.ownBroken[u] = int32(s.searches)
		}
	}
	return true
}

// shiftable reports whether the loads at the ends of steps let a
// partition shift along it: the target at least two below the source,
// or one below when neg, the path costing less than 0. (Phase 2's
// targets are one below its sources and only gain, so there neg asks
// exactly one below.)
func (s *solver) shiftable(steps []step, neg bool) bool {
	if len(steps) == 0 {
		return false // a member both source and target: impossible
	}
	src, dst := s.load[steps[0].from], s.load[steps[len(steps)-1].to]
	return dst <= src-2 || neg && dst == src-1
}

// tight finds, after a search, a path of moves that is tight under its
// distances (every arc costs exactly the difference of the distances at
// its ends) between end and a root of the search (a member it started
// from, still at distance 0) whose load lets the path shift a partition:
// root load >= need when forward (end is a target, the root a source),
// <= -need when backward (end is a source, the root a target). It
// appends the path's moves to steps, from source to target, and reports
// whether it found one.
//
// It walks the arcs against their direction when forward, along them
// when backward, depth first, each step one hop closer to the roots (see
// layer), so that paths stay short and never loop. A node from which no
// such root could be reached for some need is marked dead for every need
// as hard or harder (dead[v] <= need): sources only lose load and
// targets only gain, so it stays so, but for arcs that shifting creates,
// which a later search sees. (Missing a path costs a search, never
// optimality: shiftAll searches again until a search finds none.)
func (s *solver) tight(end, need int32, steps []step) ([]step, bool) {
	n0 := len(steps)
	steps, ok := s.tightMember(end, need, steps)
	if ok && !s.forward {
		slices.Reverse(steps[n0:])
	}
	return steps, ok
}

func (s *solver) isRoot(m, need int32) bool {
	if !s.atRoot(m) {
		return false
	}
	if s.forward {
		return s.load[m] >= need
	}
	return s.load[m] <= -need
}

func (s *solver) tightMember(v, need int32, steps []step) ([]step, bool) {
	if s.hop[v] < 0 || s.refused(v, need) {
		return steps, false
	}
	if s.atRoot(v) {
		// A root: it ends the walk if its load meets need; if not, no
		// other root lies one hop closer.
		if s.isRoot(v, need) {
			return steps, true
		}
		s.blocked++
		return steps, false
	}
	blocked := s.blocked
	dv := s.dist[v]
	var ok bool
	if s.forward {
		// Into v: t -> v from its topics, a -> v for its claims a holds.
		sub := s.p.Subs[v]
		for j := s.skip[v]; j < int32(len(sub)); j++ {
			t := sub[j]
			layered := s.dist[s.n+t] == dv && s.hop[s.n+t] == s.hop[v]-1
			if j == s.skip[v] && (!layered || s.dead[s.n+t] == math.MinInt32) {
				// Not a tight arc one hop closer to the roots, which stays
				// so until the next search, or dead for good: never look at
				// it again.
				s.skip[v]++
				continue
			}
			if layered {
				var a int32
				if a, steps, ok = s.tightTopic(t, need, steps); ok {
					return append(steps, step{from: a, to: v, t: t, pid: -1, e: -1}), true
				}
			}
		}
		if s.away != nil && s.away[v] > 0 {
			for _, pid := range s.claimed[s.claimOff[v]:s.claimOff[v+1]] {
				if a := s.owner[pid]; a != v && s.dist[a]-1 == dv && s.hop[a] == s.hop[v]-1 {
					if steps, ok = s.tightMember(a, need, steps); ok {
						return append(steps, step{from: a, to: v, t: -1, pid: pid}), true
					}
				}
			}
		}
	} else {
		// Out of v: v -> t for the topics of the pids it holds, v -> c
		// for the pids it holds that c claims.
		for pid := s.heldHead[v]; pid >= 0; pid = s.heldNext[pid] {
			t, c := s.topic[pid], get(s.claim, pid)
			cost := int32(0)
			if c == v {
				cost = 1
			}
			if s.dist[s.n+t]+cost == dv && s.hop[s.n+t] == s.hop[v]-1 {
				var b int32
				if b, steps, ok = s.tightTopic(t, need, steps); ok {
					return append(steps, step{from: v, to: b, t: t, pid: -1, e: -1}), true
				}
			}
			if c >= 0 && c != v && s.dist[c]-1 == dv && s.hop[c] == s.hop[v]-1 {
				if steps, ok = s.tightMember(c, need, steps); ok {
					return append(steps, step{from: v, to: c, t: -1, pid: pid}), true
				}
			}
		}
	}
	s.markDead(v, need, blocked)
	return steps, false
}

// refused reports whether node v is dead for need (see tight), counting
// in blocked a refusal that a lesser need might not meet.
func (s *solver) refused(v, need int32) bool {
	if s.dead[v] > need {
		return false
	}
	if s.dead[v] != math.MinInt32 {
		s.blocked++
	}
	return true
}

// markDead records that the walk from node v found no root meeting
// need. When nothing in that walk depended on need (s.blocked is still
// blocked, its value when the walk reached v), no root is reachable from
// v at all, and v is dead for every need: the tight arcs one hop closer
// to the roots only ever vanish while shifts follow the search (the arcs
// a shift creates lead a hop away from the roots), and a root stays one.
func (s *solver) markDead(v, need int32, blocked int) {
	if s.blocked == blocked {
		s.dead[v] = math.MinInt32
		return
	}
	s.dead[v] = min(s.dead[v], need)
}

// tightTopic continues tight from topic t: forward to a holder of one
// of its pids, backward to a subscriber. It returns that member.
func (s *solver) tightTopic(t, need int32, steps []step) (int32, []step, bool) {
	u := s.n + t
	if s.refused(u, need) {
		return -1, steps, false
	}
	blocked := s.blocked
	du := s.dist[u]
	var ok bool
	switch {
	case s.forward && s.bySubscribers(t):
		for _, k := range s.sc.classes[s.sc.classOff[t]:s.sc.classOff[t+1]] {
			for _, a := range s.sc.members[s.sc.memberOff[k]:s.sc.memberOff[k+1]] {
				if s.hop[a] != s.hop[u]-1 {
					continue // read the index only for a member one hop closer
				}
				if cost := s.indexedCost(a, t); cost >= 0 && s.dist[a]+cost == du {
					if steps, ok = s.tightMember(a, need, steps); ok {
						return a, steps, true
					}
				}
			}
		}
	case s.forward:
		for pid := s.start[t]; pid < s.start[t+1]; pid++ {
			a := s.owner[pid]
			cost := int32(0)
			if get(s.claim, pid) == a {
				cost = 1
			}
			// The arc a -> t costs the least over a's pids of t; a pid
			// dearer than that cannot be tight, as the distances stay a
			// potential.
			if a >= 0 && s.dist[a]+cost == du && s.hop[a] == s.hop[u]-1 {
				if steps, ok = s.tightMember(a, need, steps); ok {
					return a, steps, true
				}
			}
		}
	default:
		for _, k := range s.sc.classes[s.sc.classOff[t]:s.sc.classOff[t+1]] {
			for _, b := range s.sc.members[s.sc.memberOff[k]:s.sc.memberOff[k+1]] {
				if s.dist[b] == du && s.hop[b] == s.hop[u]-1 {
					if steps, ok = s.tightMember(b, need, steps); ok {
						return b, steps, true
					}
				}
			}
		}
	}
	s.markDead(u, need, blocked)
	return -1, steps, false
}

// augment makes the moves of steps. Every pid is chosen before any
// moves, from the state the search saw.
func (s *solver) augment(steps []step) error {
	for i := range steps {
		if st := &steps[i]; st.t >= 0 {
			st.pid = s.choose(st.from, st.t, st.to)
			if s.chose != nil {
				s.chose(s, st.from, st.t, st.to, st.pid)
			}
			if st.pid < 0 {
				return fmt.Errorf("%w: no partition to move", ErrInternal)
			}
		}
	}
	for _, st := range steps {
		s.move(st.pid, st.to)
	}
	return nil
}

// onlyOwn reports whether every pid a holds is its own claim, and if so
// returns a's claims of topic t (ascending; some may be held by others).
func (s *solver) onlyOwn(a, t int32) ([]int32, bool) {
	if s.ownHeld == nil || s.ownHeld[a] != s.load[a] {
		return nil, false
	}
	mine := s.claimed[s.claimOff[a]:s.claimOff[a+1]]
	lo, _ := slices.BinarySearch(mine, s.start[t])
	hi, _ := slices.BinarySearch(mine, s.start[t+1])
	return mine[lo:hi], true
}

// byHeld reports whether the pids a holds are fewer to look through than
// those of t (building the held lists if so).
func (s *solver) byHeld(a, t int32) bool {
	if int(s.start[t+1]-s.start[t]) <= 2*int(s.load[a])+16 {
		return false
	}
	if s.heldHead == nil {
		s.buildHeld()
	}
	return true
}

// arcCost returns the cost of the arc a -> topic t: 0 when a holds a pid
// of t that is not its own claim, 1 when it holds only its own, -1 when
// it holds none.
func (s *solver) arcCost(a, t int32) int32 {
	if s.arcs != nil {
		return s.indexedCost(a, t)
	}
	cost := int32(-1)
	if mine, ok := s.onlyOwn(a, t); ok {
		for _, pid := range mine {
			if s.owner[pid] == a {
				return 1
			}
		}
		return -1
	}
	if s.byHeld(a, t) {
		for pid := s.heldHead[a]; pid >= 0; pid = s.heldNext[pid] {
			if s.topic[pid] == t {
				if get(s.claim, pid) != a {
					return 0
				}
				cost = 1
			}
		}
		return cost
	}
	for pid := s.start[t]; pid < s.start[t+1]; pid++ {
		if s.owner[pid] == a {
			if get(s.claim, pid) != a {
				return 0
			}
			cost = 1
		}
	}
	return cost
}
