// The general path's start (see general.go): place keeps every claim and
// spreads every other pid topic by topic, which leaves no cycle of moves
// of negative cost (kind (i) in the package documentation), the
// invariant both later phases keep. For a big topic it makes scan's
// choices with heaps (heap.go) or, without preferences, in one
// selection (spread); a topic whose few unclaimed pids go to subscribers
// holding none of it, without preferences, it places from the least
// loaded members first (lowLoads).

package balance

import (
	"math/bits"
	"slices"
)

// place keeps every claim and puts each unclaimed pid on a subscriber
// holding the fewest pids of its topic (so that topics spread evenly; the
// balancing phase evens the totals after): its previous owner if it is
// one of those, else one on a rack holding a replica, else the least
// loaded, else the lowest member. Topics with many subscribers and many
// unclaimed pids use heaps (one for all subscribers, one per rack) that
// make the same choices in O(log n) each, or without previous owners and
// racks (plain) pick the same members in one go (spread).
func (s *solver) place() {
	s.keepClaims()
	if s.sc == nil && s.spare != nil {
		s.sc = s.spare.sc // of the same Subs
	}
	if s.sc == nil {
		s.sc = newSubClasses(s.p.Subs, len(s.p.Parts), hashSub)
	}
	tsubs := make([]int32, 0, s.n)
	cnt := make([]int32, s.n) // member => pids of the current topic it holds (byLoad: its load); 0 between topics
	var pl *placer
	var low lowLoads
	lowOK := !s.byLoad && !s.noLow && s.sc.bits != nil
	for _, key := range s.byChoice() {
		t := int32(key)
		unclaimed, plain := 0, true
		for pid := s.start[t]; pid < s.start[t+1]; pid++ {
			if s.owner[pid] < 0 {
				unclaimed++
				plain = plain && get(s.p.Prev, pid) < 0 && (s.p.Rack == nil || s.p.Replicas == nil || s.p.Replicas[pid] == nil)
			}
		}
		if unclaimed == 0 {
			continue
		}
		if !s.byLoad {
			for pid := s.start[t]; pid < s.start[t+1]; pid++ {
				if m := s.owner[pid]; m >= 0 {
					cnt[m]++
				}
			}
			if lowOK && plain && low.place(s, t, cnt, unclaimed) {
				for pid := s.start[t]; pid < s.start[t+1]; pid++ {
					cnt[s.owner[pid]] = 0
				}
				continue
			}
			low.built = false // the paths below change loads without it
		}
		tsubs = s.sc.subscribers(t, tsubs[:0])
		if s.byLoad {
			for _, m := range tsubs {
				cnt[m] = s.load[m]
			}
		}
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
			s.scanTopic(t, tsubs, cnt)
		}
		if s.byLoad {
			for _, m := range tsubs {
				cnt[m] = 0
			}
			continue
		}
		for pid := s.start[t]; pid < s.start[t+1]; pid++ {
			if m := s.owner[pid]; m >= 0 {
				cnt[m] = 0
			}
		}
	}
}

// lowLoads places a plain topic's unclaimed pids, when some of its
// subscribers hold none of it, without a pass over its subscribers: scan,
// spread and levelled all give them, in pid order, to the unclaimed
// least by (load, member) of the subscribers holding none of the topic
// (a member that takes one then holds one), and a bit set of the members
// at each load, from the least, finds those among the few least loaded.
// After churn, as when a tenth of a group is replaced, most topics have a
// few unclaimed pids and the newcomers take them
// (BenchmarkAssign/strategy=sticky/impl=ours/shape=hetero-100x200t-replace10
// in bench/, where the passes over every subscriber of every topic were a
// large share of the call; TestLowLoadsMatchesPasses).
type lowLoads struct {
	built  bool     // false: build before use (loads changed without it)
	base   int32    // the load of level 0: the least load when built
	levels int32    // loads base .. base+levels-1 are kept
	first  int32    // no member below this level
	words  int      // per level
	count  []int32  // level => members at it
	bits   []uint64 // level => its members, words words
	picks  []int32
}

// build indexes the loads of s's members.
func (ll *lowLoads) build(s *solver) {
	ll.words = (int(s.n) + 63) / 64
	ll.base = slices.Min(s.load)
	ll.levels = int32(min(64, max(1, 4096/ll.words)))
	ll.bits = reuse(ll.bits, int(ll.levels)*ll.words)
	ll.count = reuse(ll.count, int(ll.levels))
	ll.first = 0
	for m, l := range s.load {
		if d := l - ll.base; d < ll.levels {
			ll.bits[int(d)*ll.words+m/64] |= 1 << (m % 64)
			ll.count[d]++
		}
	}
	ll.built = true
}

// place gives topic t's unclaimed pids, in pid order, to the unclaimed
// least by (load, member) of t's subscribers holding none of t (cnt 0),
// and reports whether it did: not when the levels kept hold fewer.
func (ll *lowLoads) place(s *solver, t int32, cnt []int32, unclaimed int) bool {
	if !ll.built {
		ll.build(s)
	}
	in := s.sc.union(t)
	picks := ll.picks[:0]
	for d := ll.first; d < ll.levels && len(picks) < unclaimed; d++ {
		if ll.count[d] == 0 {
			if d == ll.first {
				ll.first++
			}
			continue
		}
		row := ll.bits[int(d)*ll.words : int(d+1)*ll.words]
		for w, x := range row {
			for x &= in[w]; x != 0 && len(picks) < unclaimed; x &= x - 1 {
				if m := int32(w*64 + bits.TrailingZeros64(x)); cnt[m] == 0 {
					picks = append(picks, m)
				}
			}
		}
	}
	ll.picks = picks
	if len(picks) < unclaimed {
		return false
	}
	i := 0
	for pid := s.start[t]; pid < s.start[t+1]; pid++ {
		if s.owner[pid] < 0 {
			m := picks[i]
			i++
			s.owner[pid] = m
			if d := s.load[m] - ll.base; d < ll.levels {
				ll.bits[int(d)*ll.words+int(m/64)] &^= 1 << (m % 64)
				ll.count[d]--
				if d+1 < ll.levels {
					ll.bits[int(d+1)*ll.words+int(m/64)] |= 1 << (m % 64)
					ll.count[d+1]++
				}
			}
			s.load[m]++
		}
	}
	return true
}

// keepClaims gives every claimed pid to its claimant, the start of the
// package documentation's invariant: no move then costs less than 0.
// Every pid held is then a claim held, so ownHeld is a copy of load; and
// where owner is Claim's array (ClaimReusable) nothing is written but the
// unclaimed marks (BenchmarkAssign/strategy=sticky/impl=ours/shape=
// hetero-100x200t-leave1 in bench/).
func (s *solver) keepClaims() {
	clear(s.load)
	claim := s.claim
	if claim == nil {
		for pid := range s.owner {
			s.owner[pid] = -1
		}
		return
	}
	for pid, c := range claim {
		if c >= 0 {
			s.load[c]++
		} else if s.unclaimed != nil {
			s.unclaimed[pid>>6] |= 1 << (pid & 63)
		}
	}
	if len(claim) > 0 && &claim[0] != &s.owner[0] {
		copy(s.owner, claim)
	}
	if s.ownHeld == nil {
		s.ownHeld = make([]int32, s.n)
	}
	copy(s.ownHeld, s.load)
}

// byChoice returns the order in which place takes the topics, as keys
// count<<32 | t: those with the fewest subscribers first. They have the
// least choice, so the others can make up for them, which leaves fewer
// partitions for the balancing phase to shift. (Sorting the keys is a
// stable sort by count.)
//
// Refill (byLoad, every.go) takes them by the most pids per subscriber
// first instead: it places by whole loads, and a topic whose
// subscribers must each take many of its pids is the one that a load
// raised by other topics first would push over the final loads. On the
// adversary's random windows at 125 members that leaves less above the
// final loads and needs fewer searches (TestRefillOrderPays): random(1)
// takes a third fewer instructions (BenchmarkEvery/shape=windows-125x6250).
func (s *solver) byChoice() []uint64 {
	keys := make([]uint64, len(s.p.Parts))
	for t := range keys {
		c := s.sc.count(int32(t))
		keys[t] = uint64(c)<<32 | uint64(t)
		if s.byLoad && s.refill != refillByCount {
			// Refill: the most pids per subscriber first, in 1/256ths.
			r := min(uint64(s.start[t+1]-s.start[t])*256/uint64(max(c, 1)), 1<<31-1)
			keys[t] = (1<<31-1-r)<<32 | uint64(t)
		}
	}
	slices.Sort(keys)
	return keys
}

// refillByCount is the refill option under which refill takes the
// topics in place's order, for TestRefillOrderPays; a value of refill
// rather than a field of its own keeps options, and the solver, within
// their size class.
const refillByCount = 2

// scanTopic places the unclaimed pids of t, whose subscribers are subs,
// one scan of them each; cnt holds their pids of t.
func (s *solver) scanTopic(t int32, subs, cnt []int32) {
	for pid := s.start[t]; pid < s.start[t+1]; pid++ {
		if s.owner[pid] < 0 {
			m := s.scan(pid, subs, cnt)
			s.owner[pid] = m
			s.load[m]++
			cnt[m]++
		}
	}
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
	packed  []uint64 // scratch for spread and levelled
	levels  []int32  // scratch for spread
	picks   []int32  // scratch for spread
	ordered []int32  // scratch for spread
	active  []uint64 // scratch for levelled
	merged  []uint64 // scratch for levelled
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
	fresh := !s.byLoad && int32(unclaimed) == s.start[t+1]-s.start[t]
	if pl.plain(t) && (pl.spread(t, subs, unclaimed, fresh) || pl.levelled(t, subs, unclaimed)) {
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
	pl.handOut(t, best)
	return true
}

// handOut gives topic t's pids that have no owner yet, in order, to
// picks, one each.
func (pl *placer) handOut(t int32, picks []int32) {
	s := pl.s
	i := 0
	for pid := s.start[t]; pid < s.start[t+1]; pid++ {
		if s.owner[pid] < 0 {
			m := picks[i]
			i++
			s.owner[pid] = m
			s.load[m]++
			pl.cnt[m]++
		}
	}
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

// levelled places the unclaimed pids of t, when plain, as the heaps
// would, without them: in one sort and a merge per count. It reports
// false, placing nothing, when the keys do not fit its packing.
//
// The heap hands each pid to the least (count, load, member), and that
// member's count and load both grow by one, so its load less its count
// stays what it was. Hence once the least count reaches c, every
// subscriber whose count started at c or below holds c, and they take
// one pid each in the order of (load less count, member), the order
// fixed from the start, before any of them reaches c+1 and the
// subscribers starting at c+1 join them. On bench/cmd/adversary's
// deleted family, where place (and, on the every-level path, refill,
// whose count is the whole load) spent a third of the time in the
// heaps' sifts, it sorts the unclaimed least of each topic's
// subscribers once (TestLevelledMatchesHeaps checks every pick against
// the heaps; BenchmarkPlace measures both).
func (pl *placer) levelled(t int32, subs []int32, unclaimed int) bool {
	s := pl.s
	if s.noLevels || len(subs) == 0 || s.n >= 1<<levelM {
		return false
	}
	// Keys pack count, load less count and member, so that sorting and
	// merging compare one word.
	const relMask = 1<<(levelRel+levelM) - 1
	keys := pl.packed[:0]
	for _, m := range subs {
		c, rel := pl.cnt[m], s.load[m]-pl.cnt[m]
		if c >= 1<<levelC || rel >= 1<<levelRel {
			return false
		}
		keys = append(keys, uint64(c)<<(levelRel+levelM)|uint64(rel)<<levelM|uint64(m))
	}
	// Every pick is among the unclaimed least keys, as in topic.
	keys = smallest(keys, unclaimed)
	slices.Sort(keys)
	picks := slices.Grow(pl.picks[:0], unclaimed)
	active, merged := pl.active[:0], pl.merged[:0]
	for i, c := 0, keys[0]>>(levelRel+levelM); len(picks) < unclaimed; c++ {
		j := i
		for j < len(keys) && keys[j]>>(levelRel+levelM) == c {
			keys[j] &= relMask
			j++
		}
		if j > i {
			merged = mergeKeys(merged[:0], active, keys[i:j])
			active, merged = merged, active
			i = j
		}
		for _, k := range active {
			if len(picks) == unclaimed {
				break
			}
			picks = append(picks, int32(k&(1<<levelM-1)))
		}
	}
	pl.handOut(t, picks)
	pl.packed, pl.active, pl.merged, pl.picks = keys, active, merged, picks
	return true
}

// The bits of levelled's keys: count, load less count, member.
const levelC, levelRel, levelM = 21, 22, 21

// mergeKeys appends to dst the ascending keys of a and b, ascending.
func mergeKeys(dst, a, b []uint64) []uint64 {
	for len(a) > 0 && len(b) > 0 {
		if a[0] <= b[0] {
			dst, a = append(dst, a[0]), a[1:]
		} else {
			dst, b = append(dst, b[0]), b[1:]
		}
	}
	return append(append(dst, a...), b...)
}
