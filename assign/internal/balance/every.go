// Every load level at once: an alternative to the two phases' sweeps of
// general.go, with one search from every member instead of one per
// level.
//
// The cost of the package documentation, BIG*sum(load^2) + moves, has a
// negative cycle exactly when some path of moves s -> d has
// 2*BIG*(load(d) - load(s) + 1) + sum(w) < 0. Start every member m at
// the label (load(m), 0) and extend a label (L, c) along an arc of cost
// w to (L, c+w); order labels by the larger L, then the smaller c. A
// member's best label (L, c) then names the most loaded member that
// reaches it and the cheapest path from those: as |sum(w)| < BIG, it
// is the best the cost above can do, and d closes a negative cycle if
// and only if L >= load(d) + 2, or L = load(d) + 1 and c < 0.
//
// The labels are encoded in one int32, (top - L)*band + c with top the
// largest load and band = 2*(V+2) > 2*|c|, so that the search, the
// layering and the tight walks of search.go and shift.go run on them
// unchanged: an arc is tight under the labels exactly when it is tight
// under the encoding. The encoding is a potential of the move graph (an
// arc to a node of larger L has a reduced cost of at least band - |2c|
// - 1 > 0), so shifting along its tight paths keeps invariant (i) as in
// shiftAll, and each shift lowers the cost: the method ends, and ends
// only when no negative cycle is left, with both phases' work done.
//
// Two things keep a search from every member about as cheap as one from
// a level: the roots enter the queue a level at a time, the highest
// first, so that a node is rarely read at a label a higher level then
// betters (about one pop per node and search on the random family);
// and an end that finds no path to shift along is dropped until the
// next search, as no later shift of the same search can give it one
// along the tight walks (see tight) — its own path may come back, which
// costs at most a search.
//
// It starts from refillStart's start rather than place's: the unclaimed
// pids spread by whole loads rather than topic by topic.

package balance

import "slices"

// everyFits reports whether the labels of the loads of s fit an int32.
func (s *solver) everyFits() bool {
	top := int64(0)
	for _, l := range s.load {
		top = max(top, int64(l))
	}
	V := int64(s.n) + int64(len(s.p.Parts))
	return (top+1)*2*(V+2) < 1<<30
}

// solveEvery is both phases at once (see the file's comment).
func (s *solver) solveEvery() error {
	s.band = 2 * (s.n + int32(len(s.p.Parts)) + 2)
	_, err := s.shiftAll(goal{every: true})
	return err
}

// everyPerLoad is the most members above per distinct load, on
// average, for which everyPays chooses the every-level search.
// BenchmarkEvery measures both sides: at 1.25 (the random windows, 35
// members on 28 loads at 125 members), up to 2.5 (the ladder's
// follow-up rounds under cooperative-sticky, 3 to 10 members on 2 to 5
// loads) and 8.3 (the deleted family, 25 members on 3 loads) it is the
// faster; at 43 and 66 (the lopsided family's follow-up rounds, 257
// members on 6 loads and 264 on 4) the sweeps are, serving each level
// in one search. 16 lies between, not tuned further.
const everyPerLoad = 16

// everyPays reports whether to solve s, just placed, by solveEvery
// rather than the sweeps: as the option says, where the labels fit;
// by default where place left members above the average plus one
// holding a pid that is not their own claim (so that refill has
// something to spread), standing on many loads (everyPerLoad). Where
// members stand above only on their own claims (the nested family) or
// none does (BenchmarkGeneral's shapes, the ladder's first round) the
// sweeps are faster (BenchmarkEvery; TestEveryPays says which way each
// goes; bench/RESULTS.md, session 11, has bench/cmd/adversary's
// families on both sides). The rule before refill, eight distinct loads
// above, left the ladder's follow-up round to the sweeps.
func (s *solver) everyPays() bool {
	if s.every < 0 || !s.everyFits() {
		return false
	}
	if s.every > 0 {
		return true
	}
	fair := int32((len(s.owner) + int(s.n) - 1) / int(s.n))
	var above []int32 // the loads of the members that count; nil for most problems
	for m, l := range s.load {
		if l > fair+1 && (s.ownHeld == nil || l > s.ownHeld[m]) {
			above = append(above, l)
		}
	}
	if len(above) == 0 {
		return false
	}
	slices.Sort(above)
	return everyPerLoad*len(slices.Compact(slices.Clone(above))) >= len(above)
}

// atRoot reports whether member m is a root of the last search still at
// its starting label: one no cheaper path reached.
func (s *solver) atRoot(m int32) bool { return s.link[m] < 0 && s.dist[m] < inf }

// label decodes the last search's label of node v, reached (dist < inf)
// in an every-level search: the load of the member its paths start from
// and their cost.
func (s *solver) label(v int32) (load, cost int32) {
	k := (s.dist[v] + s.band/2) / s.band
	return s.top - k, s.dist[v] - k*s.band
}

// everyEnds appends to ends the members that close a negative cycle
// after an every-level search.
func (s *solver) everyEnds(ends []int32) []int32 {
	for m := range s.n {
		if s.link[m] >= 0 && s.dist[m] < inf && s.everyEnd(m) {
			ends = append(ends, m)
		}
	}
	return ends
}

// everyEnd reports whether member e, reached by the last every-level
// search, still closes a negative cycle at its present load.
func (s *solver) everyEnd(e int32) bool {
	l, c := s.label(e)
	return l >= s.load[e]+2 || l == s.load[e]+1 && c < 0
}

// isEnd reports whether e is still an end of the last search for g.
func (s *solver) isEnd(g goal, e int32) bool {
	if g.every {
		return s.everyEnd(e)
	}
	return g.end(s.forward, s.load[e])
}

// everyNeed returns what a root must meet for a shift to end e after an
// every-level search (see goal.need): a load of load(e)+1 when the
// path costs less than 0, and neg so, else load(e)+2.
func (s *solver) everyNeed(e int32) (need int32, neg bool) {
	if _, c := s.label(e); c < 0 {
		return s.load[e] + 1, true
	}
	return s.load[e] + 2, false
}

// everyOrder returns the members in the order an every-level search
// lets them in: by load, the highest first, then by number, in roots'
// array. The order is total, so the result does not depend on where
// the sort starts from: it starts from the last search's, which the
// shifts in between have disturbed little, by insertion.
func (s *solver) everyOrder(roots []int32) []int32 {
	if len(roots) != int(s.n) {
		roots = roots[:0]
		for m := range s.n {
			roots = append(roots, m)
		}
	}
	before := func(a, b int32) bool {
		return s.load[a] > s.load[b] || s.load[a] == s.load[b] && a < b
	}
	for i := 1; i < len(roots); i++ {
		m := roots[i]
		j := i
		for ; j > 0 && before(m, roots[j-1]); j-- {
			roots[j] = roots[j-1]
		}
		roots[j] = m
	}
	return roots
}

// enterLevel appends to q the roots from s.roots[next] on that share
// its load and that no higher level has reached, and returns where the
// next level starts.
func (s *solver) enterLevel(q []int32, next int) ([]int32, int) {
	l := s.load[s.roots[next]]
	for ; next < len(s.roots) && s.load[s.roots[next]] == l; next++ {
		if m := s.roots[next]; s.link[m] < 0 {
			s.inQueue[m] = true
			q = append(q, m)
		}
	}
	return q, next
}

// refills reports whether to refill after place, every saying whether
// the every-level search follows.
func (s *solver) refills(every bool) bool {
	return s.refill > 0 || s.refill == 0 && every
}

// refillStart puts every unclaimed pid back and places it again as
// place does, but on a subscriber with the least load in all rather
// than the fewest pids of its topic (its previous owner if it is one of
// those, else one on a rack holding a replica, else the lowest member),
// taking the topics with the most pids per subscriber first (byChoice);
// claims stay, so invariant (i) holds as after place.
//
// Why: place evens out each topic over its subscribers and leaves the
// totals to the balancing phases. Where that start leaves some member
// above the average plus one (everyPays), most of the every-level
// search's shifts would only undo it: on the adversary's random windows
// and the ladder's follow-up round under cooperative-sticky, refill
// leaves at most half place's excess over the final loads, and the
// search finishes in fewer searches (TestRefillPays).
func (s *solver) refillStart() {
	s.byLoad = true
	s.place()
	s.byLoad = false
}
