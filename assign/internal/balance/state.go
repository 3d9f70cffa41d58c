// The general path's state (see general.go for its phases): the solver,
// what every phase reads and writes, and the bookkeeping that keeps it
// consistent when a pid moves (move, and the held lists that the
// searches and tight walk along).

package balance

import (
	"math"
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

	// claim is Claim, read in its place. When Claim is reusable, owner
	// is Claim's array: place then writes the unclaimed pids' owners
	// over it, and unclaimed marks them (pid => 1 bit), so that claim is
	// made again only if a later phase reads it (ownClaims). Most churned
	// groups need no phase after place (BenchmarkAssign/strategy=sticky/
	// impl=ours/shape=hetero-100x200t-replace10 in bench/, where a second
	// array per partition cost bytes and time; TestClaimReusable).
	claim     []int32
	unclaimed []uint64 // nil once claim is Claim or a copy of it

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

	// spare is the solver of the last solve of a problem with the same
	// Parts and Subs (see Problem.Scratch), whose arrays this one takes
	// instead of allocating its own; nil when there is none.
	spare *solver

	byLoad bool // place puts unclaimed pids by the members' whole loads (refill in every.go)

	certs *certs // phase 1's certificates, nil outside it (certs.go)

	// The arc index (arcs.go) and each topic's number of subscribers:
	// built at the first search, nil until then.
	arcs        *arcIndex
	subCount    []int32
	foreignHeld []int32 // member => pids it holds that another member claims

	// The pids each member holds, as doubly linked lists (heldNext and
	// heldPrev are by pid, -1 at the ends), built for the arcs out of
	// members when first needed (a forward search, or tight after a
	// backward one), and the topic of every pid, built at the first
	// search; nil until then.
	heldHead, heldNext, heldPrev []int32
	topic                        []int32

	// choose's indexes (choose.go), nil until first needed: the
	// foreign lists (only with the arc index), and ownRun and ownTop by
	// member.
	foreignHead, foreignTail, foreignNext, foreignPrev []int32
	ownRun, ownTop                                     []int32

	// The last search. Forward, it runs from the sources and link leads
	// from a node back towards them; backward, it runs from the targets
	// and link leads from a node on towards them.
	forward     bool
	everyLast   bool    // the last search ran from every member at once (every.go)
	top, band   int32   // its labels: see every.go
	dist        []int32 // node => cost of a cheapest path from a source, or to a target
	link        []int32 // node => the neighbour on that path, -1 at its end
	linkPid     []int32 // member node => the pid of the -1 arc to or from link, or -1
	layered     bool    // hop is set for the last search
	roots       []int32 // the members the last search started from; those still at distance 0 with no link are its roots
	rootLoad    int32   // the most (forward) or least load of a root of the last search, -1 when not counted
	rootStale   bool    // a shift since rootLoad was counted
	hop         []int32 // node => fewest arcs on a tight path from a root, -1 when none
	dead        []int32 // node => see tight
	blocked     int     // refusals of the tight walks that a lesser need might pass (see markDead)
	skip        []int32 // member => its subscriptions before this one are dead for good (forward)
	ownOff      []int32 // member => where its own path starts in ownSteps, when ownStamp is searches
	ownLen      []int32 // member => that path's length, -1 when not cached
	ownEnd      []int32 // member => the other end of that path
	ownStamp    []int
	ownBroken   []int32 // member => the search in which its own path was found broken (markBroken)
	ownSteps    []step  // the own paths built since the last search (ownPath), at most ownCap steps a node
	ownSince    int     // the search ownSteps holds the paths of
	pathScratch []step  // an own path when ownSteps is full
	inQueue     []bool
	visits      []int32
	queue       []int32
	searches    int // searches run, for tests
	skipped     int // searches skipped on phase 1's certificates, for tests
	pops        int // nodes taken off the searches' queues, for tests
}

func newSolver(p *Problem, start []int32, total int, o options) *solver {
	n := len(p.Subs)
	s := &solver{p: p, n: int32(n), start: start, claim: p.Claim, load: make([]int32, n), options: o}
	if p.ClaimReusable && p.Claim != nil {
		s.owner = p.Claim
		s.unclaimed = make([]uint64, (total+63)/64)
	} else {
		s.owner = make([]int32, total)
	}
	return s
}

// ownClaims makes claim Claim again, as a copy, when owner took Claim's
// array (see claim): every pid not marked unclaimed still has its
// claimant as owner, as long as nothing but place has run.
func (s *solver) ownClaims() {
	if s.unclaimed == nil {
		return
	}
	s.claim = make([]int32, len(s.owner))
	for pid, m := range s.owner {
		if s.unclaimed[pid>>6]&(1<<(pid&63)) != 0 {
			m = -1
		}
		s.claim[pid] = m
	}
	s.unclaimed = nil
}

// prepareSearch allocates what searches need, at the first: most
// problems need none. Nothing has moved yet then, so no claim is away.
func (s *solver) prepareSearch() {
	if s.dist != nil {
		return
	}
	s.ownClaims() // in case: generalOpts makes them before any phase that reads them
	n := int(s.n)
	V := n + len(s.p.Parts)
	sp := s.spare // its arrays, cleared, where it has them
	if sp == nil {
		sp = &solver{}
	}
	s.dist, s.link, s.linkPid = reuse(sp.dist, V), reuse(sp.link, V), reuse(sp.linkPid, V)
	s.dead, s.hop, s.skip = reuse(sp.dead, V), reuse(sp.hop, V), reuse(sp.skip, n)
	s.ownOff, s.ownLen, s.ownEnd, s.ownStamp = reuse(sp.ownOff, n), reuse(sp.ownLen, n), reuse(sp.ownEnd, n), reuse(sp.ownStamp, n)
	s.ownBroken = reuse(sp.ownBroken, n)
	s.inQueue, s.visits = reuse(sp.inQueue, V), reuse(sp.visits, V)
	s.buildTopics()
	if s.subCount = sp.subCount; s.subCount == nil || sp.sc != s.sc { // counts of the same classes
		s.subCount = make([]int32, len(s.p.Parts))
		for t := range s.subCount {
			s.subCount[t] = s.sc.count(int32(t))
		}
	}
	if s.options.arcs > 0 || s.options.arcs == 0 && s.arcsPay() {
		s.buildArcs()
	}
	if s.claim == nil {
		return
	}
	s.away = reuse(sp.away, n)
	s.claimOff = reuse(sp.claimOff, n+1)
	for _, c := range s.claim {
		if c >= 0 {
			s.claimOff[c+1]++
		}
	}
	for m := range n {
		s.claimOff[m+1] += s.claimOff[m]
	}
	s.claimed = reuse(sp.claimed, int(s.claimOff[n]))
	fill := slices.Clone(s.claimOff[:n])
	for pid, c := range s.claim {
		if c >= 0 {
			s.claimed[fill[c]] = int32(pid)
			fill[c]++
		}
	}
}

// move gives pid to member to.
func (s *solver) move(pid, to int32) {
	from := s.owner[pid]
	if c := get(s.claim, pid); c >= 0 {
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
	if s.arcs != nil {
		t := s.topic[pid]
		ef, et := s.entry(from, t), s.entry(to, t)
		s.countArc(pid, ef, from, -1)
		s.countArc(pid, et, to, 1)
		if c := get(s.claim, pid); s.foreignHead != nil {
			if c != from {
				s.unlinkForeign(ef, pid)
			}
			if c != to {
				s.linkForeign(et, pid)
			}
		}
	}
	if s.ownRun != nil && get(s.claim, pid) == to {
		s.cameHome(pid, to)
	}
	if s.heldHead != nil {
		unlink(s.heldHead, s.heldNext, s.heldPrev, from, pid)
		link(s.heldHead, s.heldNext, s.heldPrev, to, pid)
	}
}

// link puts pid first in list k of the doubly linked lists head, next,
// prev (heads by list, next and prev by pid, -1 at the ends).
func link(head, next, prev []int32, k, pid int32) {
	h := head[k]
	next[pid], prev[pid] = h, -1
	if h >= 0 {
		prev[h] = pid
	}
	head[k] = pid
}

// unlink takes pid out of list k of head, next, prev.
func unlink(head, next, prev []int32, k, pid int32) {
	nx, pv := next[pid], prev[pid]
	if pv >= 0 {
		next[pv] = nx
	} else {
		head[k] = nx
	}
	if nx >= 0 {
		prev[nx] = pv
	}
}

// buildTopics builds topic, unless built.
func (s *solver) buildTopics() {
	if s.topic != nil {
		return
	}
	if s.spare != nil && s.spare.topic != nil {
		s.topic = s.spare.topic // of the same Parts
		return
	}
	s.topic = make([]int32, len(s.owner))
	for t := range int32(len(s.p.Parts)) {
		for pid := s.start[t]; pid < s.start[t+1]; pid++ {
			s.topic[pid] = t
		}
	}
}

// buildHeld builds the held lists, and topic.
func (s *solver) buildHeld() {
	total := len(s.owner)
	sp := s.spare
	if sp == nil {
		sp = &solver{}
	}
	s.heldHead = reuse(sp.heldHead, int(s.n))
	s.heldNext, s.heldPrev = reuse(sp.heldNext, total), reuse(sp.heldPrev, total)
	s.buildTopics()
	for m := range s.heldHead {
		s.heldHead[m] = -1
	}
	for pid := int32(total) - 1; pid >= 0; pid-- {
		if m := s.owner[pid]; m >= 0 {
			link(s.heldHead, s.heldNext, s.heldPrev, m, pid)
		}
	}
}
