// Package balance computes sticky partition assignments on dense integers:
// the optimal-balance, fewest-moves core of assign.Sticky and
// assign.CooperativeSticky.
//
// # The problem
//
// Members are 0..n-1 and topics 0..T-1; partition p of topic t has the
// global number Start(t)+p ("pid"). Member m may hold partitions of the
// topics in Subs[m]. Each pid has at most one claimant, Claim[pid], a
// member that subscribes to its topic and owned it in the newest
// generation; optionally a previous owner Prev[pid]. An assignment gives
// every pid an owner that subscribes to its topic. Write load(m) for the
// number of pids m holds and
//
//	moves = #{pid : Claim[pid] >= 0 and owner[pid] != Claim[pid]}
//
// Solve returns an assignment that is, lexicographically:
//
//  1. balanced: there is no chain m0, ..., mk (k >= 1) in which each m(i)
//     holds a pid of a topic m(i+1) subscribes to and
//     load(m0) >= load(mk) + 2. Such assignments are exactly the optimal
//     semi-matchings of Harvey, Ladner, Lovász and Tamir ("Semi-matchings
//     for bipartite graphs and load balancing"): they minimise
//     sum(load(m)^2), and all of them share one sorted load vector;
//  2. sticky: among balanced assignments, moves is minimal;
//  3. then, as tie-breaks that never cost 1 or 2: a pid that moves goes to
//     its previous owner, else to a member on a rack holding a replica,
//     else to the member holding the fewest of its topic; remaining ties go
//     to the lower member number (the adapter numbers members in a
//     canonical order, so input order never matters).
//
// # The general method: min-cost flow with a convex cost
//
// The objective is cost = BIG*sum(load^2) + moves, a separable convex
// cost flow (partitions to members). A flow is optimal if and only if its
// residual graph has no negative cycle. Moving pid from a to b (b
// subscribes to its topic) changes moves by
//
//	w(pid, a, b) = c(pid, b) - c(pid, a), c(pid, m) = 0 if Claim[pid] is m or -1, else 1
//
// which is +1 for a's own claim leaving, -1 for b's claim returning home,
// 0 otherwise. A cycle through the load arcs takes one unit from some s,
// moves pids along a path s -> d and gives one unit to d; its cost is
//
//	BIG*(2*load(d)+1) - BIG*(2*load(s)-1) + sum(w) = 2*BIG*(load(d)-load(s)+1) + sum(w)
//
// with |sum(w)| < BIG. So negative cycles of the residual graph are of
// three kinds:
//
//	(i)   a cycle of moves with sum(w) < 0;
//	(ii)  a path of moves s -> d with load(d) <= load(s) - 2 (any cost);
//	(iii) a path of moves s -> d with load(d) = load(s) - 1 and sum(w) < 0.
//
// The solver keeps the invariant "no cycle of kind (i)" from start to end:
//
//   - start: every claim kept, every unclaimed pid on a subscriber with
//     the fewest of its topic. Every possible move then costs >= 0, so
//     (i) holds.
//   - phase 1 removes every path (ii): shortest paths by w (Bellman-Ford
//     with a queue; sound because (i) holds) between the members of one
//     load level L and the members with load <= L-2, and one partition
//     shifted along each link of a path. Augmenting along a shortest path
//     preserves (i) (the successive-shortest-path lemma) and lowers
//     sum(load^2), so it ends.
//   - phase 2 removes every path (iii) the same way; it keeps sum(load^2)
//     and lowers moves, so it ends, and no path (ii) can reappear because
//     sum(load^2) is already minimal. It is skipped when no pid is held
//     away from its claimant: without an arc of cost -1 no path costs
//     less than 0.
//
// With no negative cycle left the assignment is optimal for 1 then 2.
//
// One search serves many shifts. It runs from the smaller side: backward
// from the targets when there are as many sources (a joining member takes
// its whole share in one search), forward from the sources otherwise (an
// overloaded member hands out to many targets at once). Its distances are
// a potential under which every arc has a reduced cost >= 0, and shifting
// along a tight path (every arc of reduced cost 0) keeps that true. So
// every end of the search shifts along the search's own path while that
// path is intact, and otherwise along another tight path, found by a
// depth-first walk that goes one hop closer to the roots at each step;
// only when none is left does the solver search again (see shiftAll).
//
// Moves go through topics: the search graph has a node per member and per
// topic, arcs a -> t of cost 0 when a holds a non-own pid of t, else +1
// when it holds one of its own claims of t; arcs t -> b of cost 0 for
// every subscriber b of t; and arcs a -> Claim[pid] of cost -1 for every
// pid a holds that another member claims (few: each is a move). Arc costs
// are read off a topic's pid range, an index of the claims, or lists of
// the pids each member holds, built only when a search needs them; no
// counter per (member, topic) is kept.
//
// Complexity: one search is O(V*E) in the worst case and close to O(E) in
// practice, with V = n+T and E = 2*sum(len(Subs[m])) + moves; the number
// of searches is at most the number of partitions shifted plus one per
// load level and phase.
//
// # The fast path: identical subscriptions
//
// When every member subscribes to the same topics, balanced means totals
// of q = P/n or q+1, with r = P mod n members at q+1. Solve gives the q+1
// slots to the r members with the most claims (ties to the lower member),
// lets each member keep min(claims, target) of its claims, and hands the
// rest out to the members below their target. Moves are then
// sum(max(0, claims(m) - target(m))), the least any balanced assignment
// can have: a member with target q keeps at most q claims, and giving the
// r larger targets to the largest claim counts keeps the most. It runs in
// O(P + n log n).
package balance

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
)

// Problem is the input of [Solve]. Slices are read, never written.
type Problem struct {
	// Parts maps a topic to its partition count.
	Parts []int32

	// Subs maps a member to the topics it subscribes to, ascending,
	// without repeats.
	Subs [][]int32

	// Claim maps a pid to its claimant, or -1. A claimant must subscribe
	// to the pid's topic. nil means no claims.
	Claim []int32

	// Prev maps a pid to its previous owner (KIP-341), or -1: the member
	// preferred when the pid must go somewhere new. It must subscribe to
	// the pid's topic. nil means none.
	Prev []int32

	// Rack maps a member to its rack, or -1. nil turns rack preference off.
	Rack []int32

	// Replicas maps a pid to the ascending racks of its replicas; nil
	// entries (or a nil slice) mean unknown.
	Replicas [][]int32

	// Sets optionally holds Subs as [TopicSets], when the caller has
	// built them already; Solve builds them when needed otherwise.
	Sets *TopicSets

	// Late optionally marks pids the fast path hands out only after all
	// the others, when it fills members below target: pids with a zero
	// entry go first (previous owners first), then, with the round-robin
	// restarted at the lowest member with room, pids with a nonzero entry
	// (previous owners first again). nil hands every pid out in one pass.
	// The sticky adapter marks the partitions some member lists, which a
	// cooperative member must revoke before they move, so that they are
	// dealt as the follow-up cooperative round will deal them. The general
	// path ignores it.
	Late []uint8
}

// ErrInternal reports a broken invariant of the solver: a bug, never bad
// input. Solve returns it rather than an assignment it cannot vouch for.
var ErrInternal = errors.New("balance: internal error")

// Start returns the first pid of each topic, and the total, as a slice of
// len(parts)+1.
func Start(parts []int32) []int32 {
	start := make([]int32, len(parts)+1)
	for t, n := range parts {
		start[t+1] = start[t] + n
	}
	return start
}

// Solve returns owner[pid] for every pid, as described in the package
// documentation, or an error when the problem is malformed.
func Solve(p *Problem) ([]int32, error) {
	start := Start(p.Parts)
	total := int(start[len(p.Parts)])
	same := Identical(p.Subs)
	sets, err := check(p, start, total, same)
	if err != nil {
		return nil, err
	}
	if total == 0 {
		return []int32{}, nil
	}
	var owner []int32
	if same {
		owner = fast(p, start, total)
	} else if owner, err = general(p, start, total); err != nil {
		return nil, err
	}
	if err := valid(p, start, owner, sets); err != nil {
		return nil, err
	}
	return owner, nil
}

// valid is a last line of defence: every pid has an owner that
// subscribes to its topic, and with identical subscriptions loads differ
// by at most one. (The general path's last searches prove its balance.)
// sets is nil when subscriptions are identical.
func valid(p *Problem, start, owner []int32, sets *TopicSets) error {
	n := int32(len(p.Subs))
	same := sets == nil
	load := make([]int32, n)
	for t := range p.Parts {
		for pid := start[t]; pid < start[t+1]; pid++ {
			m := owner[pid]
			if m < 0 || m >= n || !same && !sets.Has(m, int32(t)) {
				return fmt.Errorf("%w: partition %d of topic %d has no valid owner", ErrInternal, pid-start[t], t)
			}
			load[m]++
		}
	}
	if same && slices.Max(load)-slices.Min(load) > 1 {
		return fmt.Errorf("%w: loads from %d to %d", ErrInternal, slices.Min(load), slices.Max(load))
	}
	return nil
}

// check refuses a malformed problem. Unless subscriptions are identical
// it returns the subscriptions as sets, for valid to use too.
func check(p *Problem, start []int32, total int, same bool) (*TopicSets, error) {
	if p.Claim != nil && len(p.Claim) != total || p.Prev != nil && len(p.Prev) != total ||
		p.Replicas != nil && len(p.Replicas) != total || p.Late != nil && len(p.Late) != total {
		return nil, fmt.Errorf("%w: per-partition slices must have %d entries", ErrInternal, total)
	}
	if p.Rack != nil && len(p.Rack) != len(p.Subs) {
		return nil, fmt.Errorf("%w: racks for %d members, want %d", ErrInternal, len(p.Rack), len(p.Subs))
	}
	n := int32(len(p.Subs))
	subscribed := make([]bool, len(p.Parts))
	for m, sub := range p.Subs {
		if m > 0 && sameSlice(sub, p.Subs[0]) {
			continue // checked already
		}
		for i, t := range sub {
			if t < 0 || int(t) >= len(p.Parts) || i > 0 && sub[i-1] >= t {
				return nil, fmt.Errorf("%w: subscriptions must be ascending topic numbers", ErrInternal)
			}
			subscribed[t] = true
		}
	}
	for t, parts := range p.Parts {
		if parts < 0 || parts > 0 && !subscribed[t] {
			return nil, fmt.Errorf("%w: topic %d has %d partitions and no subscriber", ErrInternal, t, parts)
		}
	}
	// With identical subscriptions every member subscribes to every
	// topic that has partitions (each has a subscriber, checked above).
	var sets *TopicSets
	if !same {
		if sets = p.Sets; sets == nil {
			sets = NewTopicSets(p.Subs, len(p.Parts))
		}
	}
	for _, by := range [][]int32{p.Claim, p.Prev} {
		if by == nil {
			continue
		}
		for t := range p.Parts {
			for pid := start[t]; pid < start[t+1]; pid++ {
				m := by[pid]
				if m < -1 || m >= n {
					return nil, fmt.Errorf("%w: member %d out of range", ErrInternal, m)
				}
				if m >= 0 && !same && !sets.Has(m, int32(t)) {
					return nil, fmt.Errorf("%w: member %d claims a partition of topic %d it does not subscribe to", ErrInternal, m, t)
				}
			}
		}
	}
	return sets, nil
}

func subscribes(sub []int32, t int32) bool {
	_, ok := slices.BinarySearch(sub, t)
	return ok
}

// TopicSets answers whether member m subscribes to topic t in O(1): one
// bit per topic and distinct subscription, members that share their
// neighbour's subscription slice sharing its row. When the rows would
// take more words than the subscriptions have entries (many topics, each
// member on few), it binary-searches the subscriptions instead.
type TopicSets struct {
	subs  [][]int32
	words int     // per row
	row   []int32 // member => its row; nil when searching instead
	bits  []uint64
}

// NewTopicSets returns the sets of subs (ascending topic numbers below
// topics, as in [Problem.Subs]).
func NewTopicSets(subs [][]int32, topics int) *TopicSets {
	ts := &TopicSets{subs: subs, words: (topics + 63) / 64}
	row := make([]int32, len(subs))
	rows, entries := 0, 0
	for m, sub := range subs {
		if m > 0 && sameSlice(sub, subs[m-1]) {
			row[m] = row[m-1]
			continue
		}
		row[m] = int32(rows)
		rows++
		entries += len(sub)
	}
	if rows*ts.words > entries+len(subs) {
		return ts
	}
	ts.row, ts.bits = row, make([]uint64, rows*ts.words)
	for m, sub := range subs {
		if m > 0 && row[m] == row[m-1] {
			continue
		}
		bits := ts.bits[int(row[m])*ts.words:]
		for _, t := range sub {
			bits[t>>6] |= 1 << (t & 63)
		}
	}
	return ts
}

// Has reports whether member m subscribes to topic t.
func (ts *TopicSets) Has(m, t int32) bool {
	if ts.row == nil {
		return subscribes(ts.subs[m], t)
	}
	return ts.bits[int(ts.row[m])*ts.words+int(t>>6)]&(1<<(t&63)) != 0
}

// Identical reports whether every member subscribes to the same topics,
// which sends [Solve] down its fast path.
func Identical(subs [][]int32) bool {
	if len(subs) == 0 {
		return true
	}
	for _, s := range subs[1:] {
		if !sameSlice(s, subs[0]) && !slices.Equal(s, subs[0]) {
			return false
		}
	}
	return true
}

// sameSlice reports whether a and b are one slice: an O(1) shortcut for
// callers that share one subscription slice between members.
func sameSlice(a, b []int32) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

func get(s []int32, i int32) int32 {
	if s == nil {
		return -1
	}
	return s[i]
}

// rackMatch reports whether member m sits on a rack holding a replica of pid.
func (p *Problem) rackMatch(pid, m int32) bool {
	if p.Rack == nil || p.Replicas == nil || p.Rack[m] < 0 {
		return false
	}
	_, ok := slices.BinarySearch(p.Replicas[pid], p.Rack[m])
	return ok
}

// Targets returns each member's share of total partitions when every
// member subscribes to every topic: total/n each, and one more for the
// total%n members with the most claims (claims[m], by member), the lower
// member first among equals. Such targets keep the most claims a balanced
// assignment can keep.
func Targets(claims []int32, total int) []int32 {
	n := len(claims)
	q, r := total/n, total%n
	target := make([]int32, n)
	for m := range target {
		target[m] = int32(q)
	}
	if r > 0 {
		order := make([]int32, n)
		for m := range order {
			order[m] = int32(m)
		}
		slices.SortFunc(order, func(a, b int32) int {
			if c := cmp.Compare(claims[b], claims[a]); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
		for _, m := range order[:r] {
			target[m]++
		}
	}
	return target
}

// fast solves identical subscriptions; see the package documentation.
func fast(p *Problem, start []int32, total int) []int32 {
	return fastWith(p, start, total, true)
}

// fastWith is fast; shortcut allows the closed form of a fresh group.
func fastWith(p *Problem, start []int32, total int, shortcut bool) []int32 {
	n := len(p.Subs)
	owner := make([]int32, total)
	if shortcut && p.Claim == nil && p.Prev == nil && p.Late == nil && (p.Rack == nil || p.Replicas == nil) {
		// Nothing is claimed and nothing prefers anyone: the round-robin
		// below deals pid i to member i mod n (the first total mod n
		// members, which get the extra partitions, are the lowest).
		for pid := range owner {
			owner[pid] = int32(pid % n)
		}
		return owner
	}
	if len(p.Subs[0]) == 0 {
		for pid := range owner {
			owner[pid] = -1
		}
		return owner // nobody subscribes to anything: total is 0 here in practice
	}

	// Targets: the r members with the most claims get q+1.
	claims := make([]int32, n)
	if p.Claim != nil {
		for _, m := range p.Claim {
			if m >= 0 {
				claims[m]++
			}
		}
	}
	target := Targets(claims, total)

	// A member with no more claims than its target keeps them all; the
	// claims of the others are listed per member (a CSR in pid order, so
	// grouped by topic) to choose which to keep.
	over := make([]int32, n+1) // member => its first slot in byMember, for members over target
	for m := range n {
		over[m+1] = over[m]
		if claims[m] > target[m] {
			over[m+1] += claims[m]
		}
	}
	byMember := make([]int32, over[n])
	fill := over // reused: over[m] becomes the next free slot, then the end of m's list
	for pid := range owner {
		m := int32(-1)
		if p.Claim != nil {
			m = p.Claim[pid]
		}
		if m >= 0 && claims[m] > target[m] {
			byMember[fill[m]] = int32(pid)
			fill[m]++
			m = -1
		}
		owner[pid] = m
	}
	// Keep claims up to target, spreading what is kept across topics.
	deficit := target // reused: target minus what the member holds
	var scratch []int32
	end := int32(0)
	kept := 0
	for m := range int32(n) {
		first := end // fill[m-1]: where m's list starts
		end = fill[m]
		if claims[m] <= target[m] {
			deficit[m] -= claims[m]
			kept += int(claims[m])
			continue
		}
		scratch = keepSpread(p, start, m, byMember[first:end], target[m], owner, scratch)
		kept += int(target[m])
		deficit[m] = 0
	}

	// Hand out the rest, pass by pass.
	free := make([]int32, 0, total-kept) // pids nobody keeps, ascending
	for pid, m := range owner {
		if m < 0 {
			free = append(free, int32(pid))
		}
	}
	if len(free) == 0 {
		return owner
	}
	passes := 1
	if p.Late != nil {
		passes = 2
	}
	f := newFiller(p, deficit)
	for pass := range passes {
		inPass := func(pid int32) bool { return p.Late == nil || (p.Late[pid] != 0) == (pass == 1) }
		// Previous owners first (KIP-341), so that a partition returns
		// home whatever its number; then round-robin from the lowest
		// member with room.
		if p.Prev != nil {
			for _, pid := range free {
				if owner[pid] < 0 && inPass(pid) {
					if pr := p.Prev[pid]; pr >= 0 && f.deficit[pr] > 0 {
						f.give(pr)
						owner[pid] = pr
					}
				}
			}
		}
		f.reset()
		for _, pid := range free {
			if owner[pid] < 0 && inPass(pid) {
				owner[pid] = f.take(pid)
			}
		}
	}
	return owner
}

// keepSpread keeps keep of m's claims mine (ascending pids, so grouped by
// topic) and leaves the others unowned. It keeps as evenly across topics
// as it can (water-filling), preferring claims on a rack holding a replica
// and then lower partitions.
func keepSpread(p *Problem, start []int32, m int32, mine []int32, keep int32, owner, scratch []int32) []int32 {
	// Runs of one topic: [lo, hi) in mine.
	runs := scratch[:0]
	for i := 0; i < len(mine); {
		j := i
		t := topicOf(start, mine[i])
		for j < len(mine) && mine[j] < start[t+1] {
			j++
		}
		runs = append(runs, int32(i), int32(j))
		i = j
	}
	// Largest level L with sum(min(c_t, L)) <= keep.
	kept := func(level int32) int32 {
		s := int32(0)
		for k := 0; k < len(runs); k += 2 {
			s += min(runs[k+1]-runs[k], level)
		}
		return s
	}
	lo, hi := int32(0), int32(len(mine))
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if kept(mid) <= keep {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	extra := keep - kept(lo) // topics with more than lo claims keep one more, this many of them
	nruns := len(runs) / 2
	for k := range nruns {
		// Rotate which topics keep the extra one by member, so that
		// overloaded members do not all keep more of the first topic.
		kk := (k + int(m)) % nruns
		run := mine[runs[2*kk]:runs[2*kk+1]]
		n := min(int32(len(run)), lo)
		if int32(len(run)) > lo && extra > 0 {
			n++
			extra--
		}
		keepBest(p, m, run, n, owner)
	}
	return runs
}

// keepBest gives m the first n pids of run, rack-matching ones first.
func keepBest(p *Problem, m int32, run []int32, n int32, owner []int32) {
	if n == 0 {
		return
	}
	if p.Rack != nil && p.Replicas != nil {
		for _, pid := range run {
			if n > 0 && p.rackMatch(pid, m) {
				owner[pid] = m
				n--
			}
		}
	}
	for _, pid := range run {
		if n > 0 && owner[pid] < 0 {
			owner[pid] = m
			n--
		}
	}
}

func topicOf(start []int32, pid int32) int32 {
	t, found := slices.BinarySearch(start, pid)
	if !found {
		t--
	}
	for start[t+1] == start[t] { // skip empty topics
		t++
	}
	return int32(t)
}

// filler hands pids out round-robin to members below their target,
// preferring members on a rack holding a replica.
type filler struct {
	p       *Problem
	deficit []int32

	// Lists are circular doubly linked lists of members with room: list
	// 0 holds all of them, list 1+r those on rack r. A member is in list
	// 0 and at most one rack list, so two layers of links suffice:
	// next[0]/prev[0] thread list 0, next[1]/prev[1] the rack lists.
	next, prev [2][]int32
	head       []int32 // list => a member in it, or -1
	cursor     []int32 // list => member the next take starts at
	room       []int64 // list => summed deficit of its members
}

func newFiller(p *Problem, deficit []int32) *filler {
	n := len(deficit)
	lists := 1
	if p.Rack != nil && p.Replicas != nil {
		for _, r := range p.Rack {
			lists = max(lists, int(r)+2)
		}
	}
	f := &filler{p: p, deficit: deficit,
		head: make([]int32, lists), cursor: make([]int32, lists), room: make([]int64, lists)}
	for layer := range min(lists, 2) {
		f.next[layer] = make([]int32, n)
		f.prev[layer] = make([]int32, n)
	}
	for l := range lists {
		f.head[l] = -1
	}
	last := make([]int32, lists)
	for l := range last {
		last[l] = -1
	}
	for m := range int32(n) {
		if deficit[m] <= 0 {
			continue
		}
		for _, l := range f.listsOf(m) {
			if l < 0 {
				continue
			}
			if last[l] < 0 {
				f.head[l] = m
			} else {
				f.next[min(l, 1)][last[l]] = m
				f.prev[min(l, 1)][m] = last[l]
			}
			last[l] = m
			f.room[l] += int64(deficit[m])
		}
	}
	for l := range lists {
		if h := f.head[l]; h >= 0 {
			f.next[min(l, 1)][last[l]] = h
			f.prev[min(l, 1)][h] = last[l]
		}
	}
	return f
}

// listsOf returns the lists m belongs to: 0, and its rack's list or -1.
func (f *filler) listsOf(m int32) [2]int32 {
	if len(f.head) > 1 && f.p.Rack[m] >= 0 {
		return [2]int32{0, f.p.Rack[m] + 1}
	}
	return [2]int32{0, -1}
}

// reset restarts every round-robin at the lowest member with room.
func (f *filler) reset() {
	for l, h := range f.head {
		if h < 0 {
			f.cursor[l] = -1
			continue
		}
		low := h
		for m := f.next[min(l, 1)][h]; m != h; m = f.next[min(l, 1)][m] {
			low = min(low, m)
		}
		f.cursor[l] = low
	}
}

// take gives pid to the next member with room, on a rack holding a
// replica when rack preference is on and such a member has room.
func (f *filler) take(pid int32) int32 {
	l := int32(0)
	if len(f.head) > 1 && f.p.Replicas[pid] != nil {
		best := int64(0)
		for _, r := range f.p.Replicas[pid] {
			if int(r)+1 < len(f.head) && f.room[r+1] > best {
				best, l = f.room[r+1], r+1
			}
		}
	}
	m := f.cursor[l]
	if m < 0 {
		return -1 // nobody has room: impossible, and caught by valid
	}
	f.cursor[l] = f.next[min(l, 1)][m]
	f.give(m)
	return m
}

func (f *filler) give(m int32) {
	f.deficit[m]--
	for _, l := range f.listsOf(m) {
		if l < 0 {
			continue
		}
		f.room[l]--
		if f.deficit[m] > 0 {
			continue
		}
		nx, pv := f.next[min(l, 1)][m], f.prev[min(l, 1)][m]
		if nx == m {
			f.head[l], f.cursor[l] = -1, -1
			continue
		}
		f.next[min(l, 1)][pv], f.prev[min(l, 1)][nx] = nx, pv
		if f.head[l] == m {
			f.head[l] = nx
		}
		if f.cursor[l] == m {
			f.cursor[l] = nx
		}
	}
}
