// The search of the general path's two phases (see general.go and
// shiftAll in shift.go): cheapest paths of moves from the roots of a
// goal, by Bellman-Ford with a queue; then, for the tight walks of
// shift.go, the layering of its tight arcs by hops from the roots
// (layer) and its own paths (path).

package balance

import (
	"fmt"
	"slices"
)

// search computes the cost of a cheapest path of moves between the
// sources of g and every node, forward from the sources or backward from
// the targets of g, by Bellman-Ford with a queue from every root at
// distance 0.
//
// Forward, the arcs out of member a are a -> t for the topic t of every
// pid it holds (cost 1 for its own claim, else 0; relaxing once per pid
// takes the minimum) and a -> c for every pid it holds that c claims
// (cost -1); those out of topic t are t -> b for every subscriber b
// (cost 0). Backward, the same arcs are followed the other way: into
// member b come t -> b for every topic t it subscribes to and a -> b for
// every claim of b that a holds; into topic t, a -> t for every holder a
// of a pid of t.
func (s *solver) search(forward bool, g goal) error {
	s.searches++
	s.prepareSearch()
	s.forward = forward
	if forward && s.heldHead == nil {
		s.buildHeld()
	}
	for i := range s.dist {
		s.dist[i], s.link[i], s.linkPid[i], s.visits[i] = inf, -1, -1, 0
	}
	q := s.queue[:0]
	s.everyLast = g.every
	if g.every {
		s.top = slices.Max(s.load)
	}
	for m := range s.n {
		if g.every {
			s.dist[m] = (s.top - s.load[m]) * s.band
		} else if g.root(forward, s.load[m]) {
			s.dist[m] = 0
			s.inQueue[m] = true
			q = append(q, m)
		}
	}
	next := 0 // every level: the next root to enter the queue
	if g.every {
		s.roots = s.everyOrder(s.roots)
	} else {
		s.roots = append(s.roots[:0], q...)
	}
	relax := func(v, d, from, pid int32) {
		if d < s.dist[v] {
			s.dist[v], s.link[v], s.linkPid[v] = d, from, pid
			if !s.inQueue[v] {
				s.inQueue[v] = true
				s.visits[v]++
				q = append(q, v)
			}
		}
	}
	limit := int32(len(s.dist)) + 2
	for head := 0; ; head++ {
		if head >= len(q) {
			// Every level: the roots enter a level at a time, the
			// highest first, each once the queue is empty, so that no
			// node is read first at a label that a higher level then
			// betters.
			if !g.every || next == len(s.roots) {
				break
			}
			q, next = s.enterLevel(q[:0], next)
			head = -1
			continue
		}
		u := q[head]
		s.pops++
		s.inQueue[u] = false
		if s.visits[u] > limit {
			s.queue = q[:0]
			return fmt.Errorf("%w: negative cycle in the move graph", ErrInternal)
		}
		du := s.dist[u]
		switch {
		case forward && s.byEntries(u):
			for k, t := range s.p.Subs[u] {
				if cost := s.entryCost(s.arcs.off[u] + int32(k)); cost >= 0 {
					relax(s.n+t, du+cost, u, -1)
				}
			}
			if s.foreignHeld[u] > 0 {
				for pid := s.heldHead[u]; pid >= 0; pid = s.heldNext[pid] {
					if c := get(s.claim, pid); c >= 0 && c != u {
						relax(c, du-1, u, pid)
					}
				}
			}
		case forward && u < s.n:
			for pid := s.heldHead[u]; pid >= 0; pid = s.heldNext[pid] {
				switch c := get(s.claim, pid); {
				case c == u:
					relax(s.n+s.topic[pid], du+1, u, -1)
				case c >= 0:
					relax(s.n+s.topic[pid], du, u, -1)
					relax(c, du-1, u, pid)
				default:
					relax(s.n+s.topic[pid], du, u, -1)
				}
			}
		case forward:
			t := u - s.n
			for _, k := range s.sc.classes[s.sc.classOff[t]:s.sc.classOff[t+1]] {
				for _, b := range s.sc.members[s.sc.memberOff[k]:s.sc.memberOff[k+1]] {
					relax(b, du, u, -1)
				}
			}
		case u < s.n:
			for _, t := range s.p.Subs[u] {
				relax(s.n+t, du, u, -1)
			}
			if s.away != nil && s.away[u] > 0 {
				for _, pid := range s.claimed[s.claimOff[u]:s.claimOff[u+1]] {
					if a := s.owner[pid]; a != u {
						relax(a, du-1, u, pid)
					}
				}
			}
		case s.bySubscribers(u - s.n):
			t := u - s.n
			for _, k := range s.sc.classes[s.sc.classOff[t]:s.sc.classOff[t+1]] {
				for _, a := range s.sc.members[s.sc.memberOff[k]:s.sc.memberOff[k+1]] {
					if s.dist[a] <= du {
						continue // no arc costs less than 0: read the index only where it may lower a's distance
					}
					if cost := s.indexedCost(a, t); cost >= 0 {
						relax(a, du+cost, u, -1)
					}
				}
			}
		default:
			t := u - s.n
			for pid := s.start[t]; pid < s.start[t+1]; pid++ {
				a := s.owner[pid]
				if a < 0 {
					continue // unplaced: impossible after place, and caught by valid
				}
				if get(s.claim, pid) == a {
					relax(a, du+1, u, -1)
				} else {
					relax(a, du, u, -1)
				}
			}
		}
		// Compact the queue now and then so it does not grow without bound.
		if head > 4096 && head > len(q)/2 {
			q = append(q[:0], q[head+1:]...)
			head = -1
		}
	}
	s.queue = q[:0]
	s.layered, s.rootLoad = false, -1
	return nil
}

// someRoot reports whether some root of the last search may have a load
// that meets need (see tight). rootLoad may be stale after shifts, but
// only on the hopeful side: sources only lose load, targets only gain.
func (s *solver) someRoot(need int32) bool {
	if s.everyLast {
		return true
	}
	if s.rootLoad < 0 {
		best := int32(-1)
		for _, m := range s.roots {
			if l := s.load[m]; s.atRoot(m) && (best < 0 || s.forward && l > best || !s.forward && l < best) {
				best = l
			}
		}
		s.rootLoad, s.rootStale = best, false
	}
	if s.forward {
		return s.rootLoad >= need
	}
	return s.rootLoad >= 0 && s.rootLoad <= -need
}

// layer sets hop: breadth first from the roots of the last search over
// its tight arcs (those costing exactly the difference of the distances
// at their ends), in the search's direction.
func (s *solver) layer() {
	s.layered = true
	if !s.forward && s.heldHead == nil {
		s.buildHeld() // tight walks along the arcs out of members
	}
	for i := range s.hop {
		s.hop[i] = -1
	}
	clear(s.skip)
	q := s.queue[:0]
	for _, m := range s.roots {
		if s.atRoot(m) {
			s.hop[m] = 0
			q = append(q, m)
		}
	}
	visit := func(v, from int32) {
		if s.hop[v] < 0 {
			s.hop[v] = s.hop[from] + 1
			q = append(q, v)
		}
	}
	for head := 0; head < len(q); head++ {
		u := q[head]
		du := s.dist[u]
		switch {
		case s.forward && s.arcs != nil && u < s.n && int(s.load[u]) > len(s.p.Subs[u]):
			// Unlike the search, whose order of relaxing decides ties,
			// the layering's hops do not depend on the order it visits
			// arcs in: a member's arcs to topics are read per
			// subscription whenever those are fewer than its pids.
			for k, t := range s.p.Subs[u] {
				if cost := s.entryCost(s.arcs.off[u] + int32(k)); cost >= 0 && s.dist[s.n+t] == du+cost {
					visit(s.n+t, u)
				}
			}
			if s.foreignHeld[u] > 0 {
				for pid := s.heldHead[u]; pid >= 0; pid = s.heldNext[pid] {
					if c := get(s.claim, pid); c >= 0 && c != u && s.dist[c] == du-1 {
						visit(c, u)
					}
				}
			}
		case s.forward && u < s.n:
			for pid := s.heldHead[u]; pid >= 0; pid = s.heldNext[pid] {
				c := get(s.claim, pid)
				cost := int32(0)
				if c == u {
					cost = 1
				}
				if t := s.n + s.topic[pid]; s.dist[t] == du+cost {
					visit(t, u)
				}
				if c >= 0 && c != u && s.dist[c] == du-1 {
					visit(c, u)
				}
			}
		case s.forward:
			t := u - s.n
			for _, k := range s.sc.classes[s.sc.classOff[t]:s.sc.classOff[t+1]] {
				for _, b := range s.sc.members[s.sc.memberOff[k]:s.sc.memberOff[k+1]] {
					if s.dist[b] == du {
						visit(b, u)
					}
				}
			}
		case u < s.n:
			for _, t := range s.p.Subs[u] {
				if s.dist[s.n+t] == du {
					visit(s.n+t, u)
				}
			}
			if s.away != nil && s.away[u] > 0 {
				for _, pid := range s.claimed[s.claimOff[u]:s.claimOff[u+1]] {
					if a := s.owner[pid]; a != u && s.dist[a] == du-1 {
						visit(a, u)
					}
				}
			}
		case s.bySubscribers(u - s.n):
			t := u - s.n
			for _, k := range s.sc.classes[s.sc.classOff[t]:s.sc.classOff[t+1]] {
				for _, a := range s.sc.members[s.sc.memberOff[k]:s.sc.memberOff[k+1]] {
					if da := s.dist[a]; s.hop[a] >= 0 || da != du && da != du+1 {
						continue // visited, or no arc of cost 0 or 1 into a can be tight: skip the index
					}
					if cost := s.indexedCost(a, t); cost >= 0 && s.dist[a] == du+cost {
						visit(a, u)
					}
				}
			}
		default:
			t := u - s.n
			for pid := s.start[t]; pid < s.start[t+1]; pid++ {
				a := s.owner[pid]
				cost := int32(0)
				if get(s.claim, pid) == a {
					cost = 1
				}
				if a >= 0 && s.dist[a] == du+cost {
					visit(a, u)
				}
			}
		}
	}
	s.queue = q[:0]
}

// step is one move of a path: a pid of topic t from member from to
// member to, at an arc cost of cost, or (t < 0) the given pid home to
// its claimant to. e is the arc index entry of (from, t) once intact
// has read it, else -1.
type step struct{ from, to, t, pid, cost, e int32 }

// path appends to steps the moves of the last search's path that ends
// at end (a source backward, a target forward), from its source to its
// target.
func (s *solver) path(end int32, steps []step) ([]step, error) {
	n0 := len(steps)
	v := end
	for s.link[v] >= 0 {
		if len(steps)-n0 > int(s.n) {
			return steps, fmt.Errorf("%w: search path does not end", ErrInternal)
		}
		u := s.link[v]
		switch {
		case s.linkPid[v] >= 0 && s.forward:
			steps = append(steps, step{from: u, to: v, t: -1, pid: s.linkPid[v]})
			v = u
		case s.linkPid[v] >= 0:
			steps = append(steps, step{from: v, to: u, t: -1, pid: s.linkPid[v]})
			v = u
		case s.forward:
			a := s.link[u]
			steps = append(steps, step{from: a, to: v, t: u - s.n, pid: -1, cost: s.dist[u] - s.dist[a], e: -1})
			v = a
		default:
			b := s.link[u]
			steps = append(steps, step{from: v, to: b, t: u - s.n, pid: -1, cost: s.dist[v] - s.dist[u], e: -1})
			v = b
		}
		if v < 0 {
			return steps, fmt.Errorf("%w: search path leaves the members", ErrInternal)
		}
	}
	if s.forward {
		slices.Reverse(steps[n0:])
	}
	return steps, nil
}
