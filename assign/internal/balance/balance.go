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
//  3. then, as tie-breaks that never cost 1 or 2, preferences followed
//     wherever the method has a choice (best effort: they are not
//     optimised): a pid that moves prefers its previous owner, then a
//     member on a rack holding a replica; the general path first places
//     a topic's unclaimed pids on the subscribers holding the fewest of
//     it (or, where it then solves every level at once, on those holding
//     the fewest pids in all), and the fast path spreads what a member
//     keeps across topics.
//     Remaining ties go by member number (the adapter numbers members in
//     a canonical order, so input order never matters).
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
// Where members start above the average plus one on pids they do not
// claim, on many distinct loads (everyPays in every.go), both phases run
// as one instead (every.go), from another start: the unclaimed pids
// placed again, each on a subscriber with the least load in all, the
// topics with the most pids per subscriber first (refill), which leaves
// far less to shift than a start that evens out each topic alone
// (TestRefillPays, TestRefillOrderPays). Then one search from every member
// at once, each starting at a label of its own load, finds for every
// member the most
// loaded member that reaches it and the cheapest path from there, so
// that one search serves every load level, and shifts follow it as
// below until a search finds no path of kind (ii) or (iii). The answer
// is optimal the same way but may break ties between optimal answers
// differently (TestEveryMatchesSweeps); it takes a third of the
// searches or fewer on bench/cmd/adversary's random family
// (TestEveryPays). Elsewhere, as on BenchmarkGeneral's churned shapes
// where no member starts above the average plus one, the sweeps are
// faster (BenchmarkEvery) and run as below.
//
// One search serves many shifts. It runs from the smaller side: backward
// from the targets when they are no more than the sources (a joining
// member takes its whole share in one search), forward from the sources
// otherwise (an overloaded member hands out to many targets at once). Its distances are
// a potential under which every arc has a reduced cost >= 0, and shifting
// along a tight path (every arc of reduced cost 0) keeps that true. So
// every end of the search shifts along the search's own path while that
// path is intact, and otherwise along another tight path, found by a
// depth-first walk that goes one hop closer to the roots at each step;
// only when none is left does the solver search again (see shiftAll).
// An own path found broken marks the members whose own paths run
// through the break, so that other ends stop there rather than build
// and read their whole paths (markBroken in shift.go).
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
// # Complexity
//
// Write P for the pids, S = sum(len(Subs[m])) for the subscriptions and
// V = n+T for the nodes of the search graph.
//
// One search is Bellman-Ford with a queue. A pop reads the arcs of one
// node: a member's held pids (or, with the arc index of arcs.go, one
// entry per subscription) and the claims it holds away, a topic's pids
// (or its subscribers). Popping every node once reads O(P + S) entries.
// Arc costs are -1, 0 and 1 and no cycle costs less than 0 (invariant
// (i)), so no node is popped more than V times: a search is
// O(V*(P+S)) at worst. In practice it pops each node about once
// (TestSearchPopsEachNodeAboutOnce: 0.99 and 1.00 pops per node and
// search on the nested family below and on one member claiming all it
// subscribes to), so O(P+S).
//
// Searches: phase 1 visits each load level once (see balance in
// general.go) and runs at most two shiftAll calls there; each call ends
// with one search that finds nothing to shift, and every other search
// shifts at least one partition. So phase 1 runs at most 2*K1 + X
// searches, with K1 the levels it visits (at most the largest load
// minus the average) and X the searches that shift, X <= the shifts <=
// (sum(load^2) at the start - at the end) / 2. A search that finds
// nothing leaves a certificate (certs.go), and a later level whose
// sources all lie in certificates skips its search, as
// TestCertsSaveSearches shows on bench/cmd/adversary's random family at
// 125 members. That lowers the count, not the bound. After a search, a tight walk that met no root at all leaves
// the nodes it failed from dead for every need, so that no later walk
// of the same search passes them again (markDead in shift.go). Phase 2 runs rounds over
// its levels, each round but the last lowering moves, so at most
// (moves + 1) * K2 searches, K2 its levels; in practice one or two
// rounds. Altogether O((K1 + X + K2*R) * V * (P + S)) at worst, R the
// rounds of phase 2, and O((K1 + X + K2) * (P + S)) in practice.
//
// That is not P*sqrt(n). The families of bench/cmd/adversary that come
// closest to the worst case (nested subscriptions, one member claiming
// everything, conflicting claims, random windows over topics of Zipf
// sizes) need a number of searches growing with n at a fixed P/n, and
// their time per partition grows about as n^0.5 to n^1.5 (from 125 to
// 2,000 members, or 500); bench/RESULTS.md ("Adversarial groups") has
// the figures beside franz-go's. On the random family the searches
// that shift are the many: a few members holding far more than their
// share drain one load level at a time into a region of members
// already near their level, a few partitions per search.
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
//
// # Reading the code
//
// Each file holds one phase and says in its first comment where it fits:
// check.go and sets.go serve both paths; fast.go and filler.go are the
// fast path; general.go is the general path's driver, over state.go (the
// solver), place.go and heap.go (the start), search.go (the search),
// shift.go (shifting along tight paths), choose.go (which pid a move
// carries), arcs.go (the arc index),
// certs.go (phase 1's certificates) and every.go (both phases from
// every load level at once).
package balance

import (
	"errors"
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
	// to the pid's topic, unless DropUnsubscribed. nil means no claims.
	Claim []int32

	// DropUnsubscribed makes Solve drop the claims of members that do
	// not subscribe to the pid's topic, writing -1 over them in Claim's
	// array (which the caller may read after), where it would refuse the
	// problem otherwise. The sticky adapter's claims name such a member
	// while it still holds the pid; check finds them in the pass over the
	// claims it makes anyway, where the adapter made a pass of its own
	// (BenchmarkAssign/strategy=sticky/impl=ours/shape=hetero-100x200t-
	// leave1 in bench/; TestDropUnsubscribed).
	DropUnsubscribed bool

	// ClaimReusable lets Solve write its answer into Claim's array, which
	// the caller then no longer reads: the fast path allocates no owner
	// array of its own (BenchmarkAssign/strategy=sticky/impl=ours/shape=
	// uniform-100x10000-join1 in bench/), nor does the general path
	// where place's answer is final (see solver.claim; shape=
	// hetero-100x200t-replace10). TestClaimReusable holds the answer to
	// the one with a fresh array.
	ClaimReusable bool

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

	// Scratch, when set, carries the general path's working arrays from
	// one Solve to the next on a problem of the same Parts and Subs
	// (the same slices), as CooperativeSticky's settling solves are:
	// the second then allocates none of them (BenchmarkAssign/strategy=
	// cooperative-sticky/impl=ours/shape=hetero-100x200t-join1 in bench/;
	// TestScratchReuse holds the answers to fresh solves).
	Scratch *Scratch

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

// Scratch holds the arrays of the last general solve that was given it,
// for the next (see [Problem.Scratch]). Its zero value is empty; it is
// not safe for concurrent use.
type Scratch struct {
	last *solver
}

// take returns the solver of the last solve given sc, when p has its
// Parts and Subs, and empties sc.
func (sc *Scratch) take(p *Problem) *solver {
	if sc == nil || sc.last == nil {
		return nil
	}
	old := sc.last
	sc.last = nil
	if !sameSlice(old.p.Parts, p.Parts) || len(old.p.Subs) != len(p.Subs) || len(p.Subs) > 0 && &old.p.Subs[0] != &p.Subs[0] {
		return nil
	}
	return old
}

// reuse returns old[:n], cleared, when old has room for n elements, and
// a new slice of n otherwise: make's result, without the allocation.
func reuse[T any](old []T, n int) []T {
	if cap(old) < n {
		return make([]T, n)
	}
	old = old[:n]
	clear(old)
	return old
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
// documentation, or an error when the problem is malformed. It checks the
// problem (check), solves it on the fast path when every member
// subscribes to the same topics (fast) and on the general path otherwise
// (general), and vouches for the answer (valid).
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
