package balance

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Kinds of pid a member holds: its own claim, another member's claim, or
// an unclaimed pid. Moving one away costs +1, 0 (or -1 to its claimant),
// and 0.
const (
	own = iota
	foreign
	free
)

const inf = math.MaxInt32 / 2

// solver is the general path's state; see the package documentation.
type solver struct {
	p     *Problem
	n     int32 // members; search nodes 0..n-1 are members, n+t is topic t
	start []int32
	topic []int32 // pid => topic

	owner []int32      // pid => member
	load  []int32      // member => pids held
	held  [3][][]int32 // kind => member => pids held of that kind
	pos   []int32      // pid => index in its held list

	subOff         []int32 // member => its first slot; slot = subOff[m] + index of t in Subs[m]
	cntOwn, cntNon []int32 // slot => own claims held, other pids held

	subscribers [][]int32 // topic => members subscribed, ascending
	heapAbove   int       // see the constant

	// The search.
	dist    []int32 // node => shortest distance from the sources
	pred    []int32 // node => previous node on the path, -1 at a source
	predPid []int32 // member node => pid moved on a -1 arc into it, or -1
	inQueue []bool
	visits  []int32
	queue   []int32
}

// heapAbove is the product of a topic's subscribers and unclaimed pids
// above which place uses heaps rather than scans.
const heapAbove = 1024

func general(p *Problem, start []int32, total int) ([]int32, error) {
	return generalWith(p, start, total, heapAbove)
}

func generalWith(p *Problem, start []int32, total, heapAbove int) ([]int32, error) {
	s := newSolver(p, start, total)
	s.heapAbove = heapAbove
	s.place()
	if err := s.balance(); err != nil {
		return nil, err
	}
	if err := s.settleTies(); err != nil {
		return nil, err
	}
	return s.owner, nil
}

func newSolver(p *Problem, start []int32, total int) *solver {
	n := len(p.Subs)
	T := len(p.Parts)
	s := &solver{p: p, n: int32(n), start: start,
		topic: make([]int32, total), owner: make([]int32, total), pos: make([]int32, total),
		load: make([]int32, n), subOff: make([]int32, n+1),
		subscribers: make([][]int32, T),
		dist:        make([]int32, n+T), pred: make([]int32, n+T), predPid: make([]int32, n+T),
		inQueue: make([]bool, n+T), visits: make([]int32, n+T)}
	for t := range T {
		for pid := start[t]; pid < start[t+1]; pid++ {
			s.topic[pid] = int32(t)
		}
	}
	for k := range s.held {
		s.held[k] = make([][]int32, n)
	}
	for m, sub := range p.Subs {
		s.subOff[m+1] = s.subOff[m] + int32(len(sub))
		for _, t := range sub {
			s.subscribers[t] = append(s.subscribers[t], int32(m))
		}
	}
	s.cntOwn = make([]int32, s.subOff[n])
	s.cntNon = make([]int32, s.subOff[n])
	for i := range s.owner {
		s.owner[i] = -1
	}
	return s
}

func (s *solver) kind(pid, m int32) int {
	switch c := get(s.p.Claim, pid); {
	case c == m:
		return own
	case c >= 0:
		return foreign
	}
	return free
}

func (s *solver) slot(m, t int32) int32 {
	i, _ := slices.BinarySearch(s.p.Subs[m], t)
	return s.subOff[m] + int32(i)
}

func (s *solver) add(pid, m int32) {
	k := s.kind(pid, m)
	s.owner[pid] = m
	s.load[m]++
	s.pos[pid] = int32(len(s.held[k][m]))
	s.held[k][m] = append(s.held[k][m], pid)
	if k == own {
		s.cntOwn[s.slot(m, s.topic[pid])]++
	} else {
		s.cntNon[s.slot(m, s.topic[pid])]++
	}
}

func (s *solver) remove(pid int32) {
	m := s.owner[pid]
	k := s.kind(pid, m)
	list := s.held[k][m]
	i, last := s.pos[pid], list[len(list)-1]
	list[i], s.pos[last] = last, i
	s.held[k][m] = list[:len(list)-1]
	s.owner[pid] = -1
	s.load[m]--
	if k == own {
		s.cntOwn[s.slot(m, s.topic[pid])]--
	} else {
		s.cntNon[s.slot(m, s.topic[pid])]--
	}
}

// place keeps every claim and puts each unclaimed pid on a subscriber
// holding the fewest pids of its topic (so that topics spread evenly; the
// balancing phase evens the totals after): its previous owner if it is
// one of those, else one on a rack holding a replica, else the least
// loaded, else the lowest member. Topics with many subscribers and many
// unclaimed pids use heaps (one for all subscribers, one per rack) that
// make the same choices in O(log n) each.
func (s *solver) place() {
	for pid := range int32(len(s.owner)) {
		if c := get(s.p.Claim, pid); c >= 0 {
			s.add(pid, c)
		}
	}
	// Topics with the fewest subscribers first: they have the least
	// choice, so the others can make up for them, which leaves fewer
	// partitions for the balancing phase to shift.
	order := make([]int32, len(s.p.Parts))
	for t := range order {
		order[t] = int32(t)
	}
	slices.SortStableFunc(order, func(a, b int32) int {
		return cmp.Compare(len(s.subscribers[a]), len(s.subscribers[b]))
	})
	var pl *placer
	for _, t := range order {
		subs := s.subscribers[t]
		unclaimed := 0
		for pid := s.start[t]; pid < s.start[t+1]; pid++ {
			if s.owner[pid] < 0 {
				unclaimed++
			}
		}
		if unclaimed == 0 || len(subs) == 0 {
			continue // nobody subscribes: impossible, topics exist only when subscribed
		}
		if unclaimed*len(subs) > s.heapAbove {
			if pl == nil {
				pl = newPlacer(s)
			}
			pl.topic(t)
			continue
		}
		for pid := s.start[t]; pid < s.start[t+1]; pid++ {
			if s.owner[pid] < 0 {
				s.add(pid, s.scan(pid, t, subs))
			}
		}
	}
}

// scan chooses where place puts pid by looking at every subscriber.
func (s *solver) scan(pid, t int32, subs []int32) int32 {
	count := func(m int32) int32 {
		sl := s.slot(m, t)
		return s.cntOwn[sl] + s.cntNon[sl]
	}
	low := int32(inf)
	for _, m := range subs {
		low = min(low, count(m))
	}
	if pr := get(s.p.Prev, pid); pr >= 0 && count(pr) == low {
		return pr
	}
	best, bestRack, bestLoad := int32(-1), false, int32(inf)
	for _, m := range subs {
		if count(m) != low {
			continue
		}
		rack := s.p.rackMatch(pid, m)
		if best < 0 || rack && !bestRack || rack == bestRack && s.load[m] < bestLoad {
			best, bestRack, bestLoad = m, rack, s.load[m]
		}
	}
	return best
}

// placer makes scan's choices with heaps ordered by (count of the topic,
// load, member): heap 0 holds every subscriber of the topic, heap 1+r
// those on rack r.
type placer struct {
	s     *solver
	cnt   []int32 // member => pids of the current topic it holds
	heaps []memberHeap
}

func newPlacer(s *solver) *placer {
	racks := 0
	if s.p.Rack != nil && s.p.Replicas != nil {
		for _, r := range s.p.Rack {
			racks = max(racks, int(r)+1)
		}
	}
	pl := &placer{s: s, cnt: make([]int32, s.n), heaps: make([]memberHeap, 1+racks)}
	// A member is in heap 0 and at most one rack heap: the rack heaps can
	// share one position index.
	all, byRack := make([]int32, s.n), make([]int32, s.n)
	for m := range all {
		all[m], byRack[m] = -1, -1
	}
	for i := range pl.heaps {
		pl.heaps[i] = memberHeap{pl: pl, pos: byRack}
	}
	pl.heaps[0].pos = all
	return pl
}

func (pl *placer) topic(t int32) {
	s := pl.s
	for i := range pl.heaps {
		pl.heaps[i].clear()
	}
	for _, m := range s.subscribers[t] {
		sl := s.slot(m, t)
		pl.cnt[m] = s.cntOwn[sl] + s.cntNon[sl]
		pl.heaps[0].items = append(pl.heaps[0].items, m)
		if len(pl.heaps) > 1 && s.p.Rack[m] >= 0 {
			pl.heaps[1+s.p.Rack[m]].items = append(pl.heaps[1+s.p.Rack[m]].items, m)
		}
	}
	for i := range pl.heaps {
		pl.heaps[i].init()
	}
	for pid := s.start[t]; pid < s.start[t+1]; pid++ {
		if s.owner[pid] >= 0 {
			continue
		}
		top := pl.heaps[0].items[0]
		low := pl.cnt[top]
		best := top
		if pr := get(s.p.Prev, pid); pr >= 0 && pl.cnt[pr] == low {
			best = pr
		} else if len(pl.heaps) > 1 && s.p.Replicas[pid] != nil {
			found := false
			for _, r := range s.p.Replicas[pid] {
				if int(r)+1 >= len(pl.heaps) || len(pl.heaps[1+r].items) == 0 {
					continue
				}
				m := pl.heaps[1+r].items[0]
				if pl.cnt[m] == low && (!found || pl.less(m, best)) {
					best, found = m, true
				}
			}
		}
		s.add(pid, best)
		pl.cnt[best]++
		pl.heaps[0].fix(best)
		if len(pl.heaps) > 1 && s.p.Rack[best] >= 0 {
			pl.heaps[1+s.p.Rack[best]].fix(best)
		}
	}
}

func (pl *placer) less(a, b int32) bool {
	if pl.cnt[a] != pl.cnt[b] {
		return pl.cnt[a] < pl.cnt[b]
	}
	la, lb := pl.s.load[a], pl.s.load[b]
	if la != lb {
		return la < lb
	}
	return a < b
}

// memberHeap is a binary min-heap of members under placer.less that knows
// where each member sits, so a member whose key grew can sink.
type memberHeap struct {
	pl    *placer
	items []int32
	pos   []int32 // member => index in items, or -1
}

func (h *memberHeap) clear() {
	for _, m := range h.items {
		h.pos[m] = -1
	}
	h.items = h.items[:0]
}

func (h *memberHeap) init() {
	for i, m := range h.items {
		h.pos[m] = int32(i)
	}
	for i := len(h.items)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

// fix restores the heap after m's key grew.
func (h *memberHeap) fix(m int32) {
	if i := h.pos[m]; i >= 0 {
		h.down(int(i))
	}
}

func (h *memberHeap) down(i int) {
	n := len(h.items)
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if c+1 < n && h.pl.less(h.items[c+1], h.items[c]) {
			c++
		}
		if !h.pl.less(h.items[c], h.items[i]) {
			return
		}
		h.items[i], h.items[c] = h.items[c], h.items[i]
		h.pos[h.items[i]], h.pos[h.items[c]] = int32(i), int32(c)
		i = c
	}
}

// search computes shortest move-cost paths from every member of load
// level, all at distance 0.
func (s *solver) search(level int32) error {
	for i := range s.dist {
		s.dist[i], s.pred[i], s.predPid[i], s.visits[i] = inf, -1, -1, 0
	}
	q := s.queue[:0]
	for m := range s.n {
		if s.load[m] == level {
			s.dist[m] = 0
			s.inQueue[m] = true
			q = append(q, m)
		}
	}
	limit := int32(len(s.dist)) + 2
	relax := func(v, d, from, pid int32) {
		if d >= s.dist[v] {
			return
		}
		s.dist[v], s.pred[v], s.predPid[v] = d, from, pid
		if !s.inQueue[v] {
			s.inQueue[v] = true
			s.visits[v]++
			q = append(q, v)
		}
	}
	for head := 0; head < len(q); head++ {
		u := q[head]
		s.inQueue[u] = false
		if s.visits[u] > limit {
			s.queue = q
			return fmt.Errorf("%w: negative cycle in the move graph", ErrInternal)
		}
		du := s.dist[u]
		if u >= s.n {
			for _, b := range s.subscribers[u-s.n] {
				relax(b, du, u, -1)
			}
			continue
		}
		off := s.subOff[u]
		for j, t := range s.p.Subs[u] {
			switch {
			case s.cntNon[off+int32(j)] > 0:
				relax(s.n+t, du, u, -1)
			case s.cntOwn[off+int32(j)] > 0:
				relax(s.n+t, du+1, u, -1)
			}
		}
		for _, pid := range s.held[foreign][u] {
			relax(s.p.Claim[pid], du-1, u, pid)
		}
		// Compact the queue now and then so it does not grow without bound.
		if head > 4096 && head > len(q)/2 {
			q = append(q[:0], q[head+1:]...)
			head = -1
		}
	}
	s.queue = q[:0]
	return nil
}

type link struct{ pid, to int32 }

// augment shifts one pid along each link of the path the search found
// to d. Every pid is chosen before any moves, from the state the search
// saw.
func (s *solver) augment(d int32, links []link) ([]link, error) {
	links = links[:0]
	v := d
	for steps := int32(0); s.pred[v] >= 0; steps++ {
		if steps > s.n {
			return links, fmt.Errorf("%w: search path does not end", ErrInternal)
		}
		if pid := s.predPid[v]; pid >= 0 {
			links = append(links, link{pid, v})
			v = s.pred[v]
			continue
		}
		tnode := s.pred[v]
		a := s.pred[tnode]
		pid := s.choose(a, tnode-s.n, v)
		if pid < 0 {
			return links, fmt.Errorf("%w: no partition to move", ErrInternal)
		}
		links = append(links, link{pid, v})
		v = a
	}
	for _, l := range links {
		s.remove(l.pid)
		s.add(l.pid, l.to)
	}
	return links, nil
}

// choose picks a pid of topic t that a holds to move to b: one that is not
// a's own claim if a holds any, preferring b's previous ownership, then
// b's rack, then the highest pid (members keep their lowest partitions,
// as on the fast path).
func (s *solver) choose(a, t, b int32) int32 {
	kinds := [2][]int32{s.held[free][a], s.held[foreign][a]}
	if s.cntNon[s.slot(a, t)] == 0 {
		kinds = [2][]int32{s.held[own][a], nil}
	}
	best, bestScore := int32(-1), -1
	for _, held := range kinds {
		for _, pid := range held {
			if s.topic[pid] != t {
				continue
			}
			score := 0
			if get(s.p.Prev, pid) == b {
				score = 2
			} else if s.p.rackMatch(pid, b) {
				score = 1
			}
			if score > bestScore || score == bestScore && pid > best {
				best, bestScore = pid, score
			}
		}
	}
	return best
}

// levels returns the distinct loads, highest first.
func (s *solver) levels() []int32 {
	ls := slices.Clone(s.load)
	slices.Sort(ls)
	ls = slices.Compact(ls)
	slices.Reverse(ls)
	return ls
}

// balance removes every path of kind (ii): load(d) <= load(s) - 2.
func (s *solver) balance() error {
	for changed := true; changed; {
		changed = false
		ls := s.levels()
		low := ls[len(ls)-1]
		for _, level := range ls {
			if level < low+2 {
				break
			}
			shifted, err := s.shiftAll(level, math.MinInt32, level-2, inf)
			if err != nil {
				return err
			}
			changed = changed || shifted
		}
	}
	return nil
}

// settleTies removes every path of kind (iii): load(d) = load(s) - 1 and a
// negative cost, so that the members keeping the larger counts are those
// that keep the most claims (KAFKA-18688).
func (s *solver) settleTies() error {
	if s.p.Claim == nil {
		return nil
	}
	for changed := true; changed; {
		changed = false
		for _, level := range s.levels() {
			shifted, err := s.shiftAll(level, level-1, level-1, 0)
			if err != nil {
				return err
			}
			changed = changed || shifted
		}
	}
	return nil
}

// shiftAll shifts partitions from members of load level to members d
// with minLoad <= load(d) <= maxLoad along shortest paths of cost below
// maxDist until there are none, and reports whether it shifted any.
//
// One search serves many shifts. Its distances are a potential under
// which every arc has a reduced cost >= 0 and the arcs of its paths 0;
// shifting along such a path keeps both true (the reversed arcs are
// tight, arcs that appear are tight, arcs that vanish do not matter), so
// another path of the same search that is still intact is still a
// shortest path, and the successive-shortest-path lemma applies to it.
func (s *solver) shiftAll(level, minLoad, maxLoad, maxDist int32) (bool, error) {
	shifted := false
	var cands []int32
	var moves []link
	var err error
	for {
		if err := s.search(level); err != nil {
			return shifted, err
		}
		cands = s.targets(minLoad, maxLoad, maxDist, cands[:0])
		if len(cands) == 0 {
			return shifted, nil
		}
		for _, d := range cands {
			if l := s.load[d]; l < minLoad || l > maxLoad || !s.intact(d, level) {
				continue
			}
			if moves, err = s.augment(d, moves); err != nil {
				return shifted, err
			}
			shifted = true
		}
	}
}

// targets appends to out the members d with minLoad <= load(d) <=
// maxLoad that the search reached at a distance below maxDist, the least
// distance first, then the least load, then the lowest member.
func (s *solver) targets(minLoad, maxLoad, maxDist int32, out []int32) []int32 {
	for m := range s.n {
		if l := s.load[m]; l >= minLoad && l <= maxLoad && s.dist[m] < maxDist {
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b int32) int {
		if c := cmp.Compare(s.dist[a], s.dist[b]); c != 0 {
			return c
		}
		if c := cmp.Compare(s.load[a], s.load[b]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	return out
}

// intact reports whether the path the last search found to d can still
// be followed at the cost it saw: its source still has load level, and
// every link still exists with that cost.
func (s *solver) intact(d, level int32) bool {
	v := d
	for steps := int32(0); s.pred[v] >= 0; steps++ {
		if steps > s.n {
			return false
		}
		if pid := s.predPid[v]; pid >= 0 {
			a := s.pred[v]
			if s.owner[pid] != a {
				return false
			}
			v = a
			continue
		}
		tnode := s.pred[v]
		a := s.pred[tnode]
		sl := s.slot(a, tnode-s.n)
		switch s.dist[tnode] - s.dist[a] {
		case 0:
			if s.cntNon[sl] == 0 {
				return false
			}
		case 1:
			if s.cntNon[sl] != 0 || s.cntOwn[sl] == 0 {
				return false
			}
		default:
			return false
		}
		v = a
	}
	return s.load[v] == level
}
