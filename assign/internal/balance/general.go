package balance

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"
)

const inf = math.MaxInt32 / 2

// solver is the general path's state; see the package documentation.
//
// It keeps no per-(member, topic) counters: the arcs of the move graph
// are read off owner and the problem's own slices. A topic's pids are
// the range start[t]..start[t+1], so its holders and the cost of each
// holder's arc to it come from one pass over that range; the members
// that may take a pid of topic t are its subscribers (subClasses); the
// -1 arcs into a member are its claims that someone else holds, listed
// once per claimant (claimOff, claimed); and those out of a member are
// among the pids it holds, which the forward search lists (held).
type solver struct {
	p     *Problem
	n     int32 // members; search nodes 0..n-1 are members, n+t is topic t
	start []int32

	owner []int32 // pid => member
	load  []int32 // member => pids held

	// The pids member m claims are claimed[claimOff[m]:claimOff[m+1]],
	// ascending; both are nil without claims or before the first search.
	// away[m] counts those that another member holds, and foreign sums
	// away: the number of -1 arcs.
	claimOff, claimed []int32
	away              []int32
	foreign           int
	ownHeld           []int32 // member => its own claims it holds; nil without claims

	options

	sc *subClasses // set by place

	// The pids each member holds, as doubly linked lists (heldNext and
	// heldPrev are by pid, -1 at the ends), and the topic of every pid:
	// built for the arcs out of members when first needed (a forward
	// search, or tight after a backward one), nil until then.
	heldHead, heldNext, heldPrev []int32
	topic                        []int32

	// The last search. Forward, it runs from the sources and link leads
	// from a node back towards them; backward, it runs from the targets
	// and link leads from a node on towards them.
	forward   bool
	dist      []int32 // node => cost of a cheapest path from a source, or to a target
	link      []int32 // node => the neighbour on that path, -1 at its end
	linkPid   []int32 // member node => the pid of the -1 arc to or from link, or -1
	layered   bool    // hop is set for the last search
	rootLoad  int32   // the most (forward) or least load of a root of the last search, -1 when not counted
	rootStale bool    // a shift since rootLoad was counted
	hop       []int32 // node => fewest arcs on a tight path from a root, -1 when none
	dead      []int32 // node => see tight
	skip      []int32 // member => its subscriptions before this one are dead for good (forward)
	inQueue   []bool
	visits    []int32
	queue     []int32
	searches  int // searches run, for tests
}

// heapAbove is the product of a topic's subscribers and unclaimed pids
// above which place uses heaps rather than scans.
const heapAbove = 64

func general(p *Problem, start []int32, total int) ([]int32, error) {
	return generalWith(p, start, total, heapAbove)
}

func generalWith(p *Problem, start []int32, total, heapAbove int) ([]int32, error) {
	return generalOpts(p, start, total, options{heapAbove: heapAbove})
}

// options are the solver's knobs; tests turn them to reach every
// mechanism.
type options struct {
	heapAbove int  // see the constant
	direction int8 // of the searches: 0 the smaller side, 1 forward, -1 backward
	noTree    bool // never follow a search's own paths, only tight's
}

func generalOpts(p *Problem, start []int32, total int, o options) ([]int32, error) {
	s := newSolver(p, start, total)
	s.options = o
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
	return &solver{p: p, n: int32(n), start: start, owner: make([]int32, total), load: make([]int32, n)}
}

// prepareSearch allocates what searches need, at the first: most
// problems need none. Nothing has moved yet then, so no claim is away.
func (s *solver) prepareSearch() {
	if s.dist != nil {
		return
	}
	n := int(s.n)
	V := n + len(s.p.Parts)
	s.dist, s.link, s.linkPid = make([]int32, V), make([]int32, V), make([]int32, V)
	s.dead, s.hop, s.skip = make([]int32, V), make([]int32, V), make([]int32, n)
	s.inQueue, s.visits = make([]bool, V), make([]int32, V)
	if s.p.Claim == nil {
		return
	}
	s.away = make([]int32, n)
	s.claimOff = make([]int32, n+1)
	for _, c := range s.p.Claim {
		if c >= 0 {
			s.claimOff[c+1]++
		}
	}
	for m := range n {
		s.claimOff[m+1] += s.claimOff[m]
	}
	s.claimed = make([]int32, s.claimOff[n])
	fill := slices.Clone(s.claimOff[:n])
	for pid, c := range s.p.Claim {
		if c >= 0 {
			s.claimed[fill[c]] = int32(pid)
			fill[c]++
		}
	}
}

// move gives pid to member to.
func (s *solver) move(pid, to int32) {
	from := s.owner[pid]
	if c := get(s.p.Claim, pid); c >= 0 {
		if c != from {
			s.away[c]--
			s.foreign--
		} else {
			s.ownHeld[c]--
		}
		if c != to {
			s.away[c]++
			s.foreign++
		} else {
			s.ownHeld[c]++
		}
	}
	s.owner[pid] = to
	s.load[from]--
	s.load[to]++
	if s.heldHead != nil {
		s.unhold(pid, from)
		s.hold(pid, to)
	}
}

func (s *solver) hold(pid, m int32) {
	h := s.heldHead[m]
	s.heldNext[pid], s.heldPrev[pid] = h, -1
	if h >= 0 {
		s.heldPrev[h] = pid
	}
	s.heldHead[m] = pid
}

func (s *solver) unhold(pid, m int32) {
	nx, pv := s.heldNext[pid], s.heldPrev[pid]
	if pv >= 0 {
		s.heldNext[pv] = nx
	} else {
		s.heldHead[m] = nx
	}
	if nx >= 0 {
		s.heldPrev[nx] = pv
	}
}

// buildHeld builds the held lists and topic.
func (s *solver) buildHeld() {
	total := len(s.owner)
	s.heldHead = make([]int32, s.n)
	s.heldNext, s.heldPrev, s.topic = make([]int32, total), make([]int32, total), make([]int32, total)
	for m := range s.heldHead {
		s.heldHead[m] = -1
	}
	for t := range int32(len(s.p.Parts)) {
		for pid := s.start[t]; pid < s.start[t+1]; pid++ {
			s.topic[pid] = t
		}
	}
	for pid := int32(total) - 1; pid >= 0; pid-- {
		if m := s.owner[pid]; m >= 0 {
			s.hold(pid, m)
		}
	}
}

// place keeps every claim and puts each unclaimed pid on a subscriber
// holding the fewest pids of its topic (so that topics spread evenly; the
// balancing phase evens the totals after): its previous owner if it is
// one of those, else one on a rack holding a replica, else the least
// loaded, else the lowest member. Topics with many subscribers and many
// unclaimed pids use heaps (one for all subscribers, one per rack) that
// make the same choices in O(log n) each, or without previous owners and
// racks (plain) pick the same members in one go (spread).
func (s *solver) place() {
	if s.p.Claim != nil {
		s.ownHeld = make([]int32, s.n)
	}
	for pid := range s.owner {
		c := get(s.p.Claim, int32(pid))
		s.owner[pid] = c
		if c >= 0 {
			s.load[c]++
			s.ownHeld[c]++
		}
	}
	sc := newSubClasses(s.p.Subs, len(s.p.Parts), hashSub)
	s.sc = sc
	// Topics with the fewest subscribers first: they have the least
	// choice, so the others can make up for them, which leaves fewer
	// partitions for the balancing phase to shift. (Sorting count<<32 | t
	// is a stable sort by count.)
	T := len(s.p.Parts)
	keys := make([]uint64, T)
	for t := range keys {
		keys[t] = uint64(sc.count(int32(t)))<<32 | uint64(t)
	}
	slices.Sort(keys)
	tsubs := make([]int32, 0, s.n)
	cnt := make([]int32, s.n) // member => pids of the current topic it holds; 0 between topics
	var pl *placer
	for _, key := range keys {
		t := int32(key)
		unclaimed := 0
		for pid := s.start[t]; pid < s.start[t+1]; pid++ {
			if s.owner[pid] < 0 {
				unclaimed++
			}
		}
		if unclaimed == 0 {
			continue
		}
		for pid := s.start[t]; pid < s.start[t+1]; pid++ {
			if m := s.owner[pid]; m >= 0 {
				cnt[m]++
			}
		}
		tsubs = sc.subscribers(t, tsubs[:0])
		switch {
		case len(tsubs) == 0:
			// Nothing to place (nobody subscribing is impossible: topics
			// exist only when subscribed).
		case unclaimed*len(tsubs) > s.heapAbove:
			if pl == nil {
				pl = newPlacer(s, cnt)
			}
			pl.topic(t, tsubs, unclaimed)
		default:
			for pid := s.start[t]; pid < s.start[t+1]; pid++ {
				if s.owner[pid] < 0 {
					m := s.scan(pid, tsubs, cnt)
					s.owner[pid] = m
					s.load[m]++
					cnt[m]++
				}
			}
		}
		for pid := s.start[t]; pid < s.start[t+1]; pid++ {
			if m := s.owner[pid]; m >= 0 {
				cnt[m] = 0
			}
		}
	}
}

// subClasses groups members by subscription: members with equal Subs
// form a class, numbered by their lowest member, and each topic lists
// the classes subscribing to it. Members usually share a few
// subscriptions, so this gathers a topic's subscribers without a list
// per (topic, member) pair, which costs a scattered write per pair.
type subClasses struct {
	memberOff, members []int32 // class k => its members, ascending: members[memberOff[k]:memberOff[k+1]]
	classOff, classes  []int32 // topic t => its classes, ascending: classes[classOff[t]:classOff[t+1]]
	// bits holds each class's members as a bit set of words words, when
	// that is small; union is scratch for one topic's.
	bits, union []uint64
	words       int
}

func newSubClasses(subs [][]int32, topics int, hash func([]int32) uint64) *subClasses {
	n := len(subs)
	classOf := make([]int32, n)
	var reps []int32 // class => its lowest member
	// Classes by a hash of the subscription; those sharing a hash are
	// chained through sameHash. The map is only looked up, never ranged
	// over.
	byHash := make(map[uint64]int32)
	var sameHash []int32
	for m, sub := range subs {
		if m > 0 && sameSlice(sub, subs[m-1]) {
			classOf[m] = classOf[m-1]
			continue
		}
		if m > 0 && sameSlice(sub, subs[0]) {
			classOf[m] = 0
			continue
		}
		h := hash(sub)
		first, ok := byHash[h]
		k := int32(-1)
		if ok {
			for c := first; c >= 0; c = sameHash[c] {
				if slices.Equal(subs[reps[c]], sub) {
					k = c
					break
				}
			}
		}
		if k < 0 {
			k = int32(len(reps))
			reps = append(reps, int32(m))
			sameHash = append(sameHash, -1)
			if ok {
				sameHash[k], sameHash[first] = sameHash[first], k
			} else {
				byHash[h] = k
			}
		}
		classOf[m] = k
	}
	K := len(reps)
	sc := &subClasses{memberOff: make([]int32, K+1), members: make([]int32, n), classOff: make([]int32, topics+1)}
	if words := (n + 63) / 64; K*words <= 1<<16 {
		sc.words = words
		sc.bits, sc.union = make([]uint64, K*words), make([]uint64, words)
		for m, k := range classOf {
			sc.bits[int(k)*words+m/64] |= 1 << (m % 64)
		}
	}
	for _, k := range classOf {
		sc.memberOff[k+1]++
	}
	for k := range K {
		sc.memberOff[k+1] += sc.memberOff[k]
		for _, t := range subs[reps[k]] {
			sc.classOff[t+1]++
		}
	}
	for t := range topics {
		sc.classOff[t+1] += sc.classOff[t]
	}
	fill := slices.Clone(sc.memberOff[:K])
	for m, k := range classOf {
		sc.members[fill[k]] = int32(m)
		fill[k]++
	}
	sc.classes = make([]int32, sc.classOff[topics])
	fill = slices.Clone(sc.classOff[:topics])
	for k := range K {
		for _, t := range subs[reps[k]] {
			sc.classes[fill[t]] = int32(k)
			fill[t]++
		}
	}
	return sc
}

// hashSub hashes a subscription: FNV-1a on four interleaved lanes, which
// do not wait on each other's multiplications, two topics per word.
func hashSub(sub []int32) uint64 {
	const prime = 1099511628211
	h := [4]uint64{14695981039346656037, 1, 2, 3}
	word := func(i int) uint64 { return uint64(uint32(sub[i]))<<32 | uint64(uint32(sub[i+1])) }
	i := 0
	for ; i+8 <= len(sub); i += 8 {
		h[0] = (h[0] ^ word(i)) * prime
		h[1] = (h[1] ^ word(i+2)) * prime
		h[2] = (h[2] ^ word(i+4)) * prime
		h[3] = (h[3] ^ word(i+6)) * prime
	}
	for ; i < len(sub); i++ {
		h[0] = (h[0] ^ uint64(uint32(sub[i]))) * prime
	}
	return (h[0]^h[1]*3^h[2]*5^h[3]*7)*prime ^ uint64(len(sub))
}

// count returns the number of members subscribing to t.
func (sc *subClasses) count(t int32) int32 {
	c := int32(0)
	for _, k := range sc.classes[sc.classOff[t]:sc.classOff[t+1]] {
		c += sc.memberOff[k+1] - sc.memberOff[k]
	}
	return c
}

// subscribers appends the members subscribing to t to out, class by
// class.
func (sc *subClasses) subscribers(t int32, out []int32) []int32 {
	for _, k := range sc.classes[sc.classOff[t]:sc.classOff[t+1]] {
		out = append(out, sc.members[sc.memberOff[k]:sc.memberOff[k+1]]...)
	}
	return out
}

// sorted appends the members subscribing to t to out, ascending.
func (sc *subClasses) sorted(t int32, out []int32) []int32 {
	ks := sc.classes[sc.classOff[t]:sc.classOff[t+1]]
	switch {
	case len(ks) == 1:
		return append(out, sc.members[sc.memberOff[ks[0]]:sc.memberOff[ks[0]+1]]...)
	case sc.bits != nil:
		u := sc.union
		clear(u)
		for _, k := range ks {
			for i, w := range sc.bits[int(k)*sc.words : int(k+1)*sc.words] {
				u[i] |= w
			}
		}
		for i, w := range u {
			for ; w != 0; w &= w - 1 {
				out = append(out, int32(i*64+bits.TrailingZeros64(w)))
			}
		}
		return out
	}
	n0 := len(out)
	out = sc.subscribers(t, out)
	slices.Sort(out[n0:])
	return out
}

// scan chooses where place puts pid by looking at every subscriber, in
// any order; cnt holds their pids of the topic.
func (s *solver) scan(pid int32, subs, cnt []int32) int32 {
	low := int32(inf)
	for _, m := range subs {
		low = min(low, cnt[m])
	}
	if pr := get(s.p.Prev, pid); pr >= 0 && cnt[pr] == low {
		return pr
	}
	best, bestRack, bestLoad := int32(-1), false, int32(inf)
	for _, m := range subs {
		if cnt[m] != low {
			continue
		}
		rack := s.p.rackMatch(pid, m)
		if best < 0 || rack && !bestRack || rack == bestRack && (s.load[m] < bestLoad || s.load[m] == bestLoad && m < best) {
			best, bestRack, bestLoad = m, rack, s.load[m]
		}
	}
	return best
}

// placer makes scan's choices with heaps ordered by (count of the topic,
// load, member): heap 0 holds every subscriber of the topic, heap 1+r
// those on rack r.
type placer struct {
	s       *solver
	cnt     []int32  // the solver's: member => pids of the current topic it holds
	key     []uint64 // member => cnt<<32 | load, for the current topic
	heaps   []memberHeap
	packed  []uint64 // scratch for spread
	levels  []int32  // scratch for spread
	picks   []int32  // scratch for spread
	ordered []int32  // scratch for spread
}

func newPlacer(s *solver, cnt []int32) *placer {
	racks := 0
	if s.p.Rack != nil && s.p.Replicas != nil {
		for _, r := range s.p.Rack {
			racks = max(racks, int(r)+1)
		}
	}
	pl := &placer{s: s, cnt: cnt, key: make([]uint64, s.n), heaps: make([]memberHeap, 1+racks)}
	// A member is in heap 0 and at most one rack heap: the rack heaps can
	// share one position index.
	all, byRack := make([]int32, s.n), make([]int32, s.n)
	for m := range all {
		all[m], byRack[m] = -1, -1
	}
	for i := range pl.heaps {
		pl.heaps[i] = memberHeap{key: pl.key, pos: byRack}
	}
	pl.heaps[0].pos = all
	return pl
}

// topic places the unclaimed pids of t, whose subscribers are subs.
//
// Each heap holds only the unclaimed smallest of its members: placing a
// pid raises one member's key, so while fewer than unclaimed pids are
// placed some member among those is untouched, and it precedes every
// member left out, whose key can only have grown. The heads of the heaps
// are therefore those of heaps of every member.
func (pl *placer) topic(t int32, subs []int32, unclaimed int) {
	s := pl.s
	fresh := int32(unclaimed) == s.start[t+1]-s.start[t]
	if pl.plain(t) && pl.spread(t, subs, unclaimed, fresh) {
		return
	}
	for i := range pl.heaps {
		pl.heaps[i].clear()
	}
	for _, m := range subs {
		pl.key[m] = uint64(pl.cnt[m])<<32 | uint64(s.load[m])
		pl.heaps[0].items = append(pl.heaps[0].items, m)
		if len(pl.heaps) > 1 && s.p.Rack[m] >= 0 {
			pl.heaps[1+s.p.Rack[m]].items = append(pl.heaps[1+s.p.Rack[m]].items, m)
		}
	}
	for i := range pl.heaps {
		h := &pl.heaps[i]
		h.items = h.smallest(h.items, unclaimed)
		h.init()
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
				if pl.cnt[m] == low && (!found || pl.heaps[0].less(m, best)) {
					best, found = m, true
				}
			}
		}
		s.owner[pid] = best
		s.load[best]++
		pl.cnt[best]++
		pl.key[best] += 1<<32 | 1
		pl.heaps[0].fix(best)
		if len(pl.heaps) > 1 && s.p.Rack[best] >= 0 {
			pl.heaps[1+s.p.Rack[best]].fix(best)
		}
	}
}

// plain reports whether no unclaimed pid of t has a previous owner or
// rack preference, so that each goes to the head of heap 0.
func (pl *placer) plain(t int32) bool {
	s := pl.s
	if s.p.Prev == nil && len(pl.heaps) == 1 {
		return true
	}
	for pid := s.start[t]; pid < s.start[t+1]; pid++ {
		if s.owner[pid] < 0 && (get(s.p.Prev, pid) >= 0 || len(pl.heaps) > 1 && s.p.Replicas[pid] != nil) {
			return false
		}
	}
	return true
}

// spread places the unclaimed pids of t, when plain, without a heap if
// at least unclaimed subscribers share the lowest count of t: a member
// that receives one leaves that count, so the heap would hand one pid
// to each of the unclaimed smallest of them by (load, member), in that
// order. It reports whether it placed them. fresh says that nobody
// holds a pid of t yet.
func (pl *placer) spread(t int32, subs []int32, unclaimed int, fresh bool) bool {
	s := pl.s
	low := int32(0)
	if !fresh {
		low = int32(inf)
		for _, m := range subs {
			low = min(low, pl.cnt[m])
		}
	}
	// The candidates are those at count low. Counting them by load takes
	// the subscribers in order, which costs a pass; it pays when many of
	// them take a pid.
	var best []int32
	if unclaimed*4 >= len(subs) {
		minL, maxL, cands := int32(inf), int32(-1), 0
		for _, m := range subs {
			if pl.cnt[m] == low {
				minL, maxL = min(minL, s.load[m]), max(maxL, s.load[m])
				cands++
			}
		}
		if cands < unclaimed {
			return false
		}
		if maxL-minL < int32(4*len(subs)+64) {
			pl.ordered = s.sc.sorted(t, pl.ordered[:0])
			best = pl.bucketed(pl.ordered, low, minL, maxL, unclaimed)
		}
	}
	if best == nil {
		if best = pl.selected(subs, low, unclaimed); best == nil {
			return false
		}
	}
	i := 0
	for pid := s.start[t]; pid < s.start[t+1]; pid++ {
		if s.owner[pid] < 0 {
			m := best[i]
			i++
			s.owner[pid] = m
			s.load[m]++
			pl.cnt[m]++
		}
	}
	return true
}

// bucketed returns the keep smallest by (load, member) of the members of
// subs (ascending) at count low, whose loads lie in [minL, maxL], in that
// order: a counting sort by load, stable, so members stay ascending
// within a load.
func (pl *placer) bucketed(subs []int32, low, minL, maxL int32, keep int) []int32 {
	s := pl.s
	levels := int(maxL-minL) + 1
	pos := slices.Grow(pl.levels[:0], levels)[:levels]
	clear(pos)
	for _, m := range subs {
		if pl.cnt[m] == low {
			pos[s.load[m]-minL]++
		}
	}
	// pos[l] becomes where load minL+l starts in the order; loads from
	// top on do not fit in keep.
	at, top := int32(0), int32(levels)
	for l := range int32(levels) {
		c := pos[l]
		pos[l] = at
		if at += c; int(at) >= keep {
			top = l + 1
			break
		}
	}
	best := slices.Grow(pl.picks[:0], keep)[:keep]
	for _, m := range subs {
		if pl.cnt[m] != low {
			continue
		}
		if l := s.load[m] - minL; l < top && int(pos[l]) < keep {
			best[pos[l]] = m
			pos[l]++
		}
	}
	pl.levels, pl.picks = pos, best
	return best
}

// selected is bucketed by selection, for subs in any order, or nil when
// fewer than keep members are at count low.
func (pl *placer) selected(subs []int32, low int32, keep int) []int32 {
	s := pl.s
	// (load, member) packed in one word, so that comparing is one branch.
	cands := pl.packed[:0]
	for _, m := range subs {
		if pl.cnt[m] == low {
			cands = append(cands, uint64(s.load[m])<<32|uint64(m))
		}
	}
	pl.packed = cands
	if len(cands) < keep {
		return nil
	}
	sel := smallest(cands, keep)
	slices.Sort(sel)
	best := slices.Grow(pl.picks[:0], keep)[:keep]
	for i, x := range sel {
		best[i] = int32(uint32(x))
	}
	pl.picks = best
	return best
}

// smallest moves the keep smallest of xs to its front, in no particular
// order, and returns them: a max-heap of the best so far, which most
// values leave after one comparison with its head.
func smallest(xs []uint64, keep int) []uint64 {
	if keep <= 0 {
		return xs[:0]
	}
	if len(xs) <= keep {
		return xs
	}
	best := xs[:keep]
	for i := keep/2 - 1; i >= 0; i-- {
		downMax(best, i)
	}
	for _, x := range xs[keep:] {
		if x < best[0] {
			best[0] = x
			downMax(best, 0)
		}
	}
	return best
}

// downMax sinks xs[i] in the max-heap xs.
func downMax(xs []uint64, i int) {
	n := len(xs)
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if c+1 < n && xs[c] < xs[c+1] {
			c++
		}
		if xs[i] >= xs[c] {
			return
		}
		xs[i], xs[c] = xs[c], xs[i]
		i = c
	}
}

// memberHeap is a binary min-heap of members by (key, member) that knows
// where each member sits, so a member whose key grew can sink.
type memberHeap struct {
	key   []uint64
	items []int32
	pos   []int32 // member => index in items, or -1
}

func (h *memberHeap) less(a, b int32) bool {
	ka, kb := h.key[a], h.key[b]
	return ka < kb || ka == kb && a < b
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

// smallest moves the keep smallest of items to its front, in no
// particular order, and returns them: a max-heap of the best so far
// (most members fail one comparison with its head).
func (h *memberHeap) smallest(items []int32, keep int) []int32 {
	if keep <= 0 {
		return items[:0]
	}
	if len(items) <= keep {
		return items
	}
	best := items[:keep]
	for i := keep/2 - 1; i >= 0; i-- {
		h.downMax(best, i)
	}
	for _, m := range items[keep:] {
		if h.less(m, best[0]) {
			best[0] = m
			h.downMax(best, 0)
		}
	}
	return best
}

// downMax sinks items[i] in the max-heap items.
func (h *memberHeap) downMax(items []int32, i int) {
	n := len(items)
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if c+1 < n && h.less(items[c], items[c+1]) {
			c++
		}
		if !h.less(items[i], items[c]) {
			return
		}
		items[i], items[c] = items[c], items[i]
		i = c
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
		if c+1 < n && h.less(h.items[c+1], h.items[c]) {
			c++
		}
		if !h.less(h.items[c], h.items[i]) {
			return
		}
		h.items[i], h.items[c] = h.items[c], h.items[i]
		h.pos[h.items[i]], h.pos[h.items[c]] = int32(i), int32(c)
		i = c
	}
}

// search computes the cost of a cheapest path of moves between the
// sources (members of load level) and every node, forward from the
// sources or backward from the targets (members d with minLoad <=
// load(d) <= maxLoad), by Bellman-Ford with a queue from every root at
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
func (s *solver) search(forward bool, level, minLoad, maxLoad int32) error {
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
	for m := range s.n {
		if l := s.load[m]; forward && l == level || !forward && l >= minLoad && l <= maxLoad {
			s.dist[m] = 0
			s.inQueue[m] = true
			q = append(q, m)
		}
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
	for head := 0; head < len(q); head++ {
		u := q[head]
		s.inQueue[u] = false
		if s.visits[u] > limit {
			s.queue = q[:0]
			return fmt.Errorf("%w: negative cycle in the move graph", ErrInternal)
		}
		du := s.dist[u]
		switch {
		case forward && u < s.n:
			for pid := s.heldHead[u]; pid >= 0; pid = s.heldNext[pid] {
				switch c := get(s.p.Claim, pid); {
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
		default:
			t := u - s.n
			for pid := s.start[t]; pid < s.start[t+1]; pid++ {
				a := s.owner[pid]
				if a < 0 {
					continue // unplaced: impossible after place, and caught by valid
				}
				if get(s.p.Claim, pid) == a {
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
	if s.rootLoad < 0 {
		best := int32(-1)
		for m := range s.n {
			if l := s.load[m]; s.link[m] < 0 && s.dist[m] == 0 && (best < 0 || s.forward && l > best || !s.forward && l < best) {
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
	for m := range s.n {
		if s.link[m] < 0 && s.dist[m] == 0 {
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
		case s.forward && u < s.n:
			for pid := s.heldHead[u]; pid >= 0; pid = s.heldNext[pid] {
				c := get(s.p.Claim, pid)
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
		default:
			t := u - s.n
			for pid := s.start[t]; pid < s.start[t+1]; pid++ {
				a := s.owner[pid]
				cost := int32(0)
				if get(s.p.Claim, pid) == a {
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
// its claimant to.
type step struct{ from, to, t, pid, cost int32 }

// path returns the moves of the last search's path that ends at end (a
// source backward, a target forward), from its source to its target.
func (s *solver) path(end int32, steps []step) ([]step, error) {
	steps = steps[:0]
	v := end
	for s.link[v] >= 0 {
		if len(steps) > int(s.n) {
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
			steps = append(steps, step{from: a, to: v, t: u - s.n, pid: -1, cost: s.dist[u] - s.dist[a]})
			v = a
		default:
			b := s.link[u]
			steps = append(steps, step{from: v, to: b, t: u - s.n, pid: -1, cost: s.dist[v] - s.dist[u]})
			v = b
		}
		if v < 0 {
			return steps, fmt.Errorf("%w: search path leaves the members", ErrInternal)
		}
	}
	if s.forward {
		slices.Reverse(steps)
	}
	return steps, nil
}

// intact reports whether every move of steps can still be made at the
// cost the search saw.
func (s *solver) intact(steps []step) bool {
	for _, st := range steps {
		if st.t < 0 && s.owner[st.pid] != st.from || st.t >= 0 && s.arcCost(st.from, st.t) != st.cost {
			return false
		}
	}
	return true
}

// shiftable reports whether the loads at the ends of steps let a
// partition shift along it.
func (s *solver) shiftable(steps []step, tie bool) bool {
	if len(steps) == 0 {
		return false // a member both source and target: impossible
	}
	src, dst := s.load[steps[0].from], s.load[steps[len(steps)-1].to]
	return tie && dst == src-1 || !tie && dst <= src-2
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
	if s.link[m] >= 0 || s.dist[m] != 0 {
		return false
	}
	if s.forward {
		return s.load[m] >= need
	}
	return s.load[m] <= -need
}

func (s *solver) tightMember(v, need int32, steps []step) ([]step, bool) {
	if s.hop[v] < 0 || s.dead[v] <= need {
		return steps, false
	}
	if s.isRoot(v, need) {
		return steps, true
	}
	dv := s.dist[v]
	var ok bool
	if s.forward {
		// Into v: t -> v from its topics, a -> v for its claims a holds.
		sub := s.p.Subs[v]
		for j := s.skip[v]; j < int32(len(sub)); j++ {
			t := sub[j]
			if j == s.skip[v] && s.dead[s.n+t] == math.MinInt32 {
				s.skip[v]++ // dead for good: never look at it again
				continue
			}
			if s.dist[s.n+t] == dv && s.hop[s.n+t] == s.hop[v]-1 {
				var a int32
				if a, steps, ok = s.tightTopic(t, need, steps); ok {
					return append(steps, step{from: a, to: v, t: t, pid: -1}), true
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
			t, c := s.topic[pid], get(s.p.Claim, pid)
			cost := int32(0)
			if c == v {
				cost = 1
			}
			if s.dist[s.n+t]+cost == dv && s.hop[s.n+t] == s.hop[v]-1 {
				var b int32
				if b, steps, ok = s.tightTopic(t, need, steps); ok {
					return append(steps, step{from: v, to: b, t: t, pid: -1}), true
				}
			}
			if c >= 0 && c != v && s.dist[c]-1 == dv && s.hop[c] == s.hop[v]-1 {
				if steps, ok = s.tightMember(c, need, steps); ok {
					return append(steps, step{from: v, to: c, t: -1, pid: pid}), true
				}
			}
		}
	}
	s.dead[v] = min(s.dead[v], need)
	return steps, false
}

// tightTopic continues tight from topic t: forward to a holder of one
// of its pids, backward to a subscriber. It returns that member.
func (s *solver) tightTopic(t, need int32, steps []step) (int32, []step, bool) {
	u := s.n + t
	if s.dead[u] <= need {
		return -1, steps, false
	}
	du := s.dist[u]
	var ok bool
	found := false // an arc on to the roots at all
	if s.forward {
		for pid := s.start[t]; pid < s.start[t+1]; pid++ {
			a := s.owner[pid]
			cost := int32(0)
			if get(s.p.Claim, pid) == a {
				cost = 1
			}
			// The arc a -> t costs the least over a's pids of t; a pid
			// dearer than that cannot be tight, as the distances stay a
			// potential.
			if a >= 0 && s.dist[a]+cost == du && s.hop[a] == s.hop[u]-1 {
				found = true
				if steps, ok = s.tightMember(a, need, steps); ok {
					return a, steps, true
				}
			}
		}
	} else {
		for _, k := range s.sc.classes[s.sc.classOff[t]:s.sc.classOff[t+1]] {
			for _, b := range s.sc.members[s.sc.memberOff[k]:s.sc.memberOff[k+1]] {
				if s.dist[b] == du && s.hop[b] == s.hop[u]-1 {
					found = true
					if steps, ok = s.tightMember(b, need, steps); ok {
						return b, steps, true
					}
				}
			}
		}
	}
	s.dead[u] = min(s.dead[u], need)
	if !found {
		// Shifting only ever adds arcs that lead away from the roots, so
		// it stays so until the next search.
		s.dead[u] = math.MinInt32
	}
	return -1, steps, false
}

// augment makes the moves of steps. Every pid is chosen before any
// moves, from the state the search saw.
func (s *solver) augment(steps []step) error {
	for i := range steps {
		if st := &steps[i]; st.t >= 0 {
			if st.pid = s.choose(st.from, st.t, st.to); st.pid < 0 {
				return fmt.Errorf("%w: no partition to move", ErrInternal)
			}
		}
	}
	for _, st := range steps {
		s.move(st.pid, st.to)
	}
	return nil
}

// choose picks a pid of topic t that a holds to move to b: one that is not
// a's own claim if a holds any, preferring b's previous ownership, then
// b's rack, then the highest pid (members keep their lowest partitions,
// as on the fast path).
func (s *solver) choose(a, t, b int32) int32 {
	prefs := s.p.Prev != nil || s.p.Rack != nil && s.p.Replicas != nil
	var best [2]int32 // by ownership: not a's claim, a's claim
	bestScore := [2]int{-1, -1}
	consider := func(pid int32) bool {
		k := 0
		if get(s.p.Claim, pid) == a {
			k = 1
		}
		score := 0
		if get(s.p.Prev, pid) == b {
			score = 2
		} else if s.p.rackMatch(pid, b) {
			score = 1
		}
		if score > bestScore[k] || score == bestScore[k] && pid > best[k] {
			best[k], bestScore[k] = pid, score
		}
		return k == 0 && !prefs // the highest pid not a's claim is the answer
	}
	if mine, ok := s.onlyOwn(a, t); ok {
		for i := len(mine) - 1; i >= 0; i-- {
			if pid := mine[i]; s.owner[pid] == a {
				consider(pid)
				if !prefs {
					break // the highest
				}
			}
		}
	} else if s.byHeld(a, t) {
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
				if get(s.p.Claim, pid) != a {
					return 0
				}
				cost = 1
			}
		}
		return cost
	}
	for pid := s.start[t]; pid < s.start[t+1]; pid++ {
		if s.owner[pid] == a {
			if get(s.p.Claim, pid) != a {
				return 0
			}
			cost = 1
		}
	}
	return cost
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
			shifted, err := s.shiftAll(level, false, math.MinInt32, level-2, inf)
			if err != nil {
				return err
			}
			if shifted {
				changed = true
				break // the levels changed: start again from the top
			}
		}
	}
	return nil
}

// settleTies removes every path of kind (iii): load(d) = load(s) - 1 and a
// negative cost, so that the members keeping the larger counts are those
// that keep the most claims (KAFKA-18688). A path of negative cost needs
// an arc of cost -1, a pid held away from its claimant: without one
// there is nothing to do.
func (s *solver) settleTies() error {
	if s.p.Claim == nil {
		return nil
	}
	for changed := true; changed && s.foreign > 0; {
		changed = false
		for _, level := range s.levels() {
			if s.foreign == 0 {
				break
			}
			shifted, err := s.shiftAll(level, true, level-1, level-1, 0)
			if err != nil {
				return err
			}
			changed = changed || shifted
		}
	}
	return nil
}

// shiftAll shifts partitions from members of load level to members d
// with minLoad <= load(d) <= maxLoad along paths of cost below maxDist
// until there are none, and reports whether it shifted any. A shift
// needs load(d) = load(s) - 1 (tie) or load(d) <= load(s) - 2 (not tie),
// with the loads at the time of the shift.
//
// One search serves many shifts. It runs from the smaller side, so that
// every member of the larger side (an end) has a path: backward from
// the targets when sources are as many (a member joining takes its share
// from many sources in one search), forward from the sources otherwise
// (a member holding too much hands it to many targets). Its distances
// are a potential under which every arc has a reduced cost >= 0: tight
// arcs, of reduced cost 0, include those of its paths. Shifting along a
// tight path keeps that true (the reversed arcs are tight, arcs that
// appear are tight, arcs that vanish or grow dearer do not matter), so
// it keeps the move graph free of negative cycles, and a tight path
// costs what the search saw: the distance of its end. So each end, the
// cheapest first, follows the search's own path while it is intact, and
// when it is not, another tight path (tight); in passes, one shift per
// end and pass, while the loads allow.
func (s *solver) shiftAll(level int32, tie bool, minLoad, maxLoad, maxDist int32) (bool, error) {
	shifted := false
	var ends []int32
	var steps []step
	for {
		sources, targets := 0, 0
		for _, l := range s.load {
			if l == level {
				sources++
			}
			if l >= minLoad && l <= maxLoad {
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
		if err := s.search(forward, level, minLoad, maxLoad); err != nil {
			return shifted, err
		}
		ends = ends[:0]
		for m := range s.n {
			if l := s.load[m]; s.dist[m] < maxDist && (forward && l >= minLoad && l <= maxLoad || !forward && l == level) {
				ends = append(ends, m)
			}
		}
		if len(ends) == 0 {
			return shifted, nil
		}
		slices.SortStableFunc(ends, func(a, b int32) int {
			return cmp.Compare(s.dist[a], s.dist[b])
		})
		for i := range s.dead {
			s.dead[i] = inf
		}
		progress := false
		for again := true; again; {
			again = false
			for _, e := range ends {
				// Each end shifts at most one partition per pass, so that
				// loads move evenly, and only while it is still a source or
				// a target.
				if l := s.load[e]; !forward && l != level || forward && (l < minLoad || l > maxLoad) {
					continue
				}
				var need int32
				switch {
				case forward && tie:
					need = s.load[e] + 1
				case forward:
					need = s.load[e] + 2
				case tie:
					need = -(s.load[e] - 1)
				default:
					need = -(s.load[e] - 2)
				}
				// The search's own path first; another tight one if that is
				// spent.
				var err error
				if steps, err = s.path(e, steps[:0]); err != nil {
					return shifted, err
				}
				if s.noTree || !s.shiftable(steps, tie) || !s.intact(steps) {
					if !s.someRoot(need) {
						continue // tight would search in vain
					}
					if !s.layered {
						s.layer()
					}
					var ok bool
					if steps, ok = s.tight(e, need, steps[:0]); !ok {
						if s.rootStale {
							s.rootLoad = -1 // recount before the next walk
						}
						continue
					}
					if !s.shiftable(steps, tie) {
						return shifted, fmt.Errorf("%w: a tight path cannot shift", ErrInternal)
					}
				}
				if err := s.augment(steps); err != nil {
					return shifted, err
				}
				shifted, progress, again = true, true, true
				s.rootStale = true
			}
		}
		if !progress {
			// The cheapest path of a fresh search is intact.
			return shifted, fmt.Errorf("%w: no path of the search can be followed", ErrInternal)
		}
	}
}
