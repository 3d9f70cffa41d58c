// The fast path: identical subscriptions, solved in closed form (see the
// package documentation for why it is optimal). fastWith runs as
//
//	claimCounts  claims per member
//	Targets      q+1 for the r members with the most claims, q for the rest
//	keepClaims   each member keeps min(claims, target) of its claims,
//	             spread across topics (keepSpread), rack matches first
//	deal         the rest to members below target: previous owners
//	             first, then round-robin (filler.go)

package balance

import (
	"cmp"
	"slices"
)

// Targets returns each member's share of total partitions when every
// member subscribes to every topic: total/n each, and one more for the
// total%n members with the most claims (claims[m], by member), the lower
// member first among equals. Such targets keep the most claims a balanced
// assignment can keep.
func Targets(claims []int32, total int) []int32 {
	return TargetsIn(claims, total, make([]int32, len(claims)), nil)
}

// TargetsIn is Targets with the targets written in target, and order, of
// len(claims) when not nil, as scratch.
func TargetsIn(claims []int32, total int, target, order []int32) []int32 {
	n := len(claims)
	q, r := total/n, total%n
	for m := range target {
		target[m] = int32(q)
	}
	if r > 0 {
		if order == nil {
			order = make([]int32, n)
		}
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
	if shortcut && p.Claim == nil && p.Prev == nil && p.Late == nil && (p.Rack == nil || p.Replicas == nil) {
		return dealFresh(len(p.Subs), total)
	}
	if len(p.Subs[0]) == 0 {
		// Nobody subscribes to anything: total is 0 here in practice.
		owner := make([]int32, total)
		for pid := range owner {
			owner[pid] = -1
		}
		return owner
	}
	// Claims, targets, TargetsIn's order and keepClaims's offsets in one
	// allocation (allocations are much of a small group's cost:
	// BenchmarkAssign/strategy=cooperative-sticky/impl=ours/shape=uniform-10x100-join1
	// in bench/, which solves twice).
	n := len(p.Subs)
	room := make([]int32, 4*n+1)
	claims := claimCounts(p, room[:n:n])
	target := TargetsIn(claims, total, room[n:2*n:2*n], room[2*n:3*n:3*n])
	owner, deficit, kept := keepClaims(p, start, claims, target, room[3*n:])
	deal(p, owner, deficit, total-kept)
	return owner
}

// dealFresh is the closed form of a group where nothing is claimed and
// nothing prefers anyone: deal deals pid i to member i mod n (the first
// total mod n members, which get the extra partitions, are the lowest).
func dealFresh(n, total int) []int32 {
	owner := make([]int32, total)
	for pid := range owner {
		owner[pid] = int32(pid % n)
	}
	return owner
}

// claimCounts returns the number of pids each member claims, in claims
// (zeroed, one entry per member).
func claimCounts(p *Problem, claims []int32) []int32 {
	if p.Claim != nil {
		for _, m := range p.Claim {
			if m >= 0 {
				claims[m]++
			}
		}
	}
	return claims
}

// keepClaims gives each member min(claims, target) of its claims and
// leaves every other pid unowned (-1). It returns the owners, what each
// member still lacks of its target (in target's storage), and the number
// of pids kept. over is zeroed room for one entry per member and one
// more.
func keepClaims(p *Problem, start, claims, target, over []int32) (owner, deficit []int32, kept int) {
	if p.ClaimReusable && p.Claim != nil {
		owner = p.Claim // each entry is read before it is written below
	} else {
		owner = make([]int32, start[len(p.Parts)])
	}
	if keepSingles(p, start, claims, target, over, owner) {
		deficit, kept = keptOf(claims, target)
		return owner, deficit, kept
	}
	return keepListed(p, start, claims, target, over, owner)
}

// keepListed is keepClaims when some member over its target claims two
// pids of one topic (keepSingles declines): it lists each such member's
// claims and spreads what it keeps across topics (keepSpread).
func keepListed(p *Problem, start, claims, target, over, owner []int32) ([]int32, []int32, int) {
	n := len(claims)
	over[0] = 0 // keepSingles may have used it
	// A member with no more claims than its target keeps them all; the
	// claims of the others are listed per member (a CSR in pid order, so
	// grouped by topic) to choose which to keep. over: member => its
	// first slot in byMember, for members over target.
	for m := range n {
		over[m+1] = over[m]
		if claims[m] > target[m] {
			over[m+1] += claims[m]
		}
	}
	// byMember and keepSpread's runs (two entries per topic at most) in
	// one allocation, none when every member keeps all its claims.
	runs := int32(0)
	if over[n] > 0 {
		runs = int32(2 * len(p.Parts))
	}
	room := make([]int32, over[n]+runs)
	byMember, scratch := room[:over[n]:over[n]], room[over[n]:over[n]]
	fill := over // reused: over[m] becomes the next free slot, then the end of m's list
	for pid := range owner {
		m := int32(-1)
		if p.Claim != nil {
			m = p.Claim[pid]
		}
		if m >= 0 && claims[m] > target[m] {
			byMember[fill[m]] = int32(pid)
			fill[m]++
		}
		owner[pid] = m // kept for now: keepSpread frees what m gives up
	}
	// Keep claims up to target, spreading what is kept across topics.
	end := int32(0)
	for m := range int32(n) {
		first := end // fill[m-1]: where m's list starts
		end = fill[m]
		if claims[m] > target[m] {
			scratch = keepSpread(p, start, m, byMember[first:end], target[m], owner, scratch)
		}
	}
	deficit, kept := keptOf(claims, target)
	return owner, deficit, kept
}

// keptOf returns, once each member keeps min(claims, target) of its
// claims, what each still lacks of its target (in target's storage) and
// how many claims are kept.
func keptOf(claims, target []int32) (deficit []int32, kept int) {
	deficit = target // reused: target minus what the member holds
	for m, c := range claims {
		k := min(c, target[m])
		deficit[m] -= k
		kept += int(k)
	}
	return deficit, kept
}

// keepSingles is keepClaims when no member over its target claims two
// pids of one topic, as when one member joins a group a fresh round dealt
// (BenchmarkAssign/strategy=sticky/impl=ours/shape=uniform-100x10000-join1
// in bench/): every run of keepSpread then holds one claim, and which
// ones a member frees follows from its claims' positions in pid order
// alone, so it needs no list of them per member. It reports false, having
// written nothing to owner, when some member over its target claims two
// pids of one topic. TestKeepSinglesIsKeepListed holds it to keepListed.
func keepSingles(p *Problem, start, claims, target, over, owner []int32) bool {
	if p.Claim == nil {
		return false
	}
	n := len(claims)
	anyOver := false
	for m, c := range claims {
		anyOver = anyOver || c > target[m]
	}
	// With nobody over target (a member left) everyone keeps all: no
	// pass to check (BenchmarkAssign/strategy=cooperative-sticky/
	// impl=ours/shape=uniform-100x10000-leave1 in bench/).
	if anyOver {
		last := over[:n] // member over target => 1 + the topic of its last claim so far
		clear(last)
		for t := range len(start) - 1 {
			for _, m := range p.Claim[start[t]:start[t+1]] {
				if m >= 0 && claims[m] > target[m] {
					if last[m] == int32(t)+1 {
						return false
					}
					last[m] = int32(t) + 1
				}
			}
		}
	}
	// keepSpread with runs of one claim keeps the target[m] claims of
	// m's claims (i = 0..c-1 in pid order, c = claims[m]) that its
	// rotation from m mod c reaches first, and frees those it reaches
	// from (m + target[m]) mod c on: claim i is freed when
	// (i - (m+target[m])) mod c < c - target[m]. pos[m] is that distance
	// for m's next claim, counted up rather than divided per claim.
	pos := over[:n]
	for m := range n {
		if c := claims[m]; c > target[m] {
			pos[m] = (c - (int32(m)+target[m])%c) % c
		}
	}
	for pid, m := range p.Claim {
		if m >= 0 && claims[m] > target[m] {
			c := claims[m]
			if pos[m] < c-target[m] {
				owner[pid] = -1
			} else {
				owner[pid] = m
			}
			if pos[m]++; pos[m] == c {
				pos[m] = 0
			}
			continue
		}
		owner[pid] = m
	}
	return true
}

// deal hands the free pids nobody kept to the members below target
// (deficit), pass by pass: one pass, or with p.Late the
// pids it does not mark and then those it marks. In each pass a pid goes
// to its previous owner if that has room (KIP-341, so that a partition
// returns home whatever its number), and then round-robin from the
// lowest member with room (filler).
func deal(p *Problem, owner, deficit []int32, free int) {
	pids := make([]int32, 0, free) // pids nobody keeps, ascending
	for pid, m := range owner {
		if m < 0 {
			pids = append(pids, int32(pid))
		}
	}
	if len(pids) == 0 {
		return
	}
	passes := 1
	if p.Late != nil {
		passes = 2
	}
	f := newFiller(p, deficit)
	for pass := range passes {
		inPass := func(pid int32) bool { return p.Late == nil || (p.Late[pid] != 0) == (pass == 1) }
		if p.Prev != nil {
			for _, pid := range pids {
				if owner[pid] < 0 && inPass(pid) {
					if pr := p.Prev[pid]; pr >= 0 && f.deficit[pr] > 0 {
						f.give(pr)
						owner[pid] = pr
					}
				}
			}
		}
		f.reset()
		for _, pid := range pids {
			if owner[pid] < 0 && inPass(pid) {
				owner[pid] = f.take(pid)
			}
		}
	}
}

// keepSpread keeps keep of m's claims mine (ascending pids, so grouped by
// topic), which owner gives to m, and frees the others (-1). It keeps as
// evenly across topics as it can (water-filling), preferring claims on a
// rack holding a replica and then lower partitions.
//
// Only what m gives up is written: without racks the tail of each run
// past what it keeps, and with racks the runs that give up anything
// (keepBest). On a group where one member joins, each member over target
// gives up one claim of a hundred
// (BenchmarkAssign/strategy=sticky/impl=ours/shape=uniform-100x10000-join1
// in bench/; keepSingles now answers that group without keepSpread when
// no member over target has a run of two); TestKeepSpreadMatchesReference
// holds it to freeing every claim and writing back those kept.
func keepSpread(p *Problem, start []int32, m int32, mine []int32, keep int32, owner, scratch []int32) []int32 {
	// Runs of one topic: [lo, hi) in mine. mine ascends, so each run's
	// topic is found from the last one's (topicFrom).
	runs := scratch[:0]
	longest := int32(0)
	t := int32(0)
	for i := 0; i < len(mine); {
		t = topicFrom(start, t, mine[i])
		j, end := i+1, start[t+1]
		for j < len(mine) && mine[j] < end {
			j++
		}
		runs = append(runs, int32(i), int32(j))
		longest = max(longest, int32(j-i))
		i = j
	}
	nruns := len(runs) / 2
	if longest == 1 {
		// Every run holds one claim (m got one partition of each topic,
		// as a fresh round deals them): the level is 0, and the first
		// keep runs of the rotation below keep theirs, racks or not. Only
		// the others are visited.
		for kk, k := (int(m)+int(keep))%nruns, int(keep); k < nruns; k++ {
			owner[mine[kk]] = -1
			if kk++; kk == nruns {
				kk = 0
			}
		}
		return runs
	}
	lo, extra := spreadLevel(runs, longest, keep)
	racks := p.Rack != nil && p.Replicas != nil
	// Rotate which topics keep the extra one by member, so that
	// overloaded members do not all keep more of the first topic.
	kk := int(m) % nruns
	for range nruns {
		run := mine[runs[2*kk]:runs[2*kk+1]]
		n := min(int32(len(run)), lo)
		if int32(len(run)) > lo && extra > 0 {
			n++
			extra--
		}
		if n < int32(len(run)) {
			if racks {
				keepBest(p, m, run, n, owner)
			} else {
				for _, pid := range run[n:] {
					owner[pid] = -1
				}
			}
		}
		if kk++; kk == nruns {
			kk = 0
		}
	}
	return runs
}

// KeptOfRuns writes in kept[k] how many claims of run k (its lowest)
// member m keeps when it keeps keep of its claims and rack preference is
// off: keepSpread's rule, for a caller that holds a member's claims in
// pid order as runs of one topic (pairs of bounds, the longest longest
// long) rather than as pids, as assign does for a member listing more
// than its target when nothing else needs settling. TestKeptOfRuns holds
// it to keepSpread.
func KeptOfRuns(m int32, runs []int32, longest, keep int32, kept []int32) {
	nruns := len(runs) / 2
	if nruns == 0 {
		return
	}
	lo, extra := spreadLevel(runs, longest, keep)
	kk := int(m) % nruns
	for range nruns {
		n := min(runs[2*kk+1]-runs[2*kk], lo)
		if runs[2*kk+1]-runs[2*kk] > lo && extra > 0 {
			n++
			extra--
		}
		kept[kk] = n
		if kk++; kk == nruns {
			kk = 0
		}
	}
}

// spreadLevel returns the largest level L with sum(min(c_t, L)) <= keep
// over the runs' lengths c_t (runs as pairs of bounds, the longest
// longest), and how many runs longer than L keep one more to make up
// keep. The sum stops growing at L = longest, so the search ends there
// rather than at the member's claims: one step when every run has one
// pid, as after a fresh sticky round dealt partitions round-robin
// (BenchmarkAssign/strategy=sticky/impl=ours/shape=uniform-100x10000-join1
// in bench/). TestSpreadLevel checks it against a linear scan of every
// level.
func spreadLevel(runs []int32, longest, keep int32) (level, extra int32) {
	kept := func(level int32) int32 {
		s := int32(0)
		for k := 0; k < len(runs); k += 2 {
			s += min(runs[k+1]-runs[k], level)
		}
		return s
	}
	lo, hi := int32(0), longest
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if kept(mid) <= keep {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo, keep - kept(lo)
}

// keepBest gives m n of run's pids, rack-matching ones first and then
// the lowest, and frees the others.
func keepBest(p *Problem, m int32, run []int32, n int32, owner []int32) {
	for _, pid := range run {
		owner[pid] = -1
	}
	if n == 0 {
		return
	}
	for _, pid := range run {
		if n > 0 && p.rackMatch(pid, m) {
			owner[pid] = m
			n--
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

// topicFrom is topicOf for a pid in topic t or after it: it tries the
// topics after t one by one for a few steps, as the runs of one member's
// claims do when it holds a partition of most topics, and searches the
// rest otherwise.
func topicFrom(start []int32, t, pid int32) int32 {
	for range 4 {
		if pid < start[t+1] {
			return t // pid >= start[t]: t is not empty
		}
		t++
	}
	return t + topicOf(start[t:], pid)
}
