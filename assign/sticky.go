package assign

import "github.com/assigncalc/assigncalc/assign/internal/balance"

// Sticky is Kafka's StickyAssignor (KIP-54, KIP-341): the most balanced
// assignment possible, and among those the one that moves the fewest
// partitions away from the members that owned them.
//
// # Claims
//
// A member's Owned, at its Generation, claims those partitions. Of several
// claims on one partition the highest generation wins; several claims at
// that same highest generation cancel each other, so nobody keeps the
// partition (KAFKA-12984), whatever the order in which members are
// listed. A winning claim by a member that no longer subscribes to the
// topic is dropped, as are claims of partitions that no longer exist:
// Kafka tolerates such history silently, and so do we. The best claim of
// a lower generation by a member that still subscribes names the previous
// owner, preferred when the partition goes somewhere new (KIP-341).
//
// # What the result satisfies
//
// Write load(m) for the number of partitions member m gets and
// claim(p) for the surviving claimant of p. The result is, in this order
// of priority:
//
//  1. balanced: no chain of members m0, m1, ..., mk with
//     load(m0) >= load(mk) + 2 in which each m(i) holds a partition of a
//     topic m(i+1) subscribes to ([VerifyBalanced]). With identical
//     subscriptions, loads differ by at most one. Such an assignment
//     minimises sum(load(m)^2) over all valid assignments; Kafka's Java
//     assignor only looks at pairs (k = 1), which leaves some
//     heterogeneous groups lopsided (KAFKA-8767, KAFKA-15106);
//  2. sticky: among balanced assignments, #{p : claim(p) kept} is the
//     largest possible. When counts do not divide evenly, the members
//     that keep an extra partition are chosen to keep the most claims
//     (KAFKA-18688);
//  3. then, never at the cost of 1 or 2: a partition that must move goes
//     to its previous owner, else (KIP-881) to a member on a rack holding
//     a replica, else to the member with the fewest partitions of its
//     topic, so topics spread evenly. Kafka moves a kept claim to fix a
//     rack mismatch; we keep it, since a move costs more than a remote
//     read.
//  4. Remaining ties go to the member first in Kafka's member order
//     (static members by group.instance.id, then the others by member ID),
//     so the result never depends on the order of Group.Members.
//
// # Algorithm
//
// With identical subscriptions (the common case) the result has a closed
// form: P partitions over n members give q = P/n each and one more to
// the r = P mod n members with the most claims; each member keeps
// min(claims, target) of its claims, its lowest partitions, spread across
// topics (rack-matching ones first), and the rest go first to their
// previous owners, then round-robin in member order to the members below
// target (preferring a member on a replica's rack), partitions nobody
// lists before those some member must revoke. Moves are then
//
//	moves = sum over m of max(0, claims(m) - target(m))
//
// which no balanced assignment can beat: a member with target q keeps at
// most q claims, and the r larger targets go to the largest claim counts.
// Time O(P + n log n). When no member lists more than its target and no
// partition is listed twice, as after a member leaves or restarts, every
// claim is kept: the result then follows from which partitions are listed
// and how many each member lists, with no claim per partition to settle,
// and a member's Owned already in order is copied whole. So it does when
// members list more than their target, as after a member joins, if each
// of them lists its claims in order: which ones it gives up follows from
// their positions in its list.
//
// Otherwise it is a min-cost flow with the convex cost
// BIG*sum(load^2) + moves, solved by successive shortest paths over a
// graph of members and topics, starting from "every claim kept" (unclaimed
// partitions spread evenly over each topic's subscribers) and ending when
// the residual graph has no negative cycle, which is the exact optimality
// condition; the package assign/internal/balance states the invariants
// and proves them. Time: a few shortest-path searches, each close to
// linear in sum(len(subscriptions)), per load level; one search serves
// many shifted partitions.
//
// [CooperativeSticky] starts from this same answer; where its first round
// must withhold partitions it settles them as its follow-up round will
// (see there), which may change tie-breaks but never balance or moves.
//
// # Worked example
//
// Members C0 and C1 subscribe to t0 and t1, three partitions each, and
// own nothing: each gets three, one topic's partitions dealt in turn
//
//	C0: t0p0, t0p2, t1p1
//	C1: t0p1, t1p0, t1p2
//
// When C2 joins, owning nothing, each keeps two: C0 gives up the claim
// it keeps least evenly (t0p2), C1 gives up t1p2, and C2 takes those two.
// Only two partitions move, the fewest any balanced result can.
type Sticky struct{}

// Name returns "sticky".
func (Sticky) Name() string { return "sticky" }

// Protocol returns [Eager].
func (Sticky) Protocol() RebalanceProtocol { return Eager }

// Traits says that Sticky is balanced and sticky, and stands for
// Kafka's StickyAssignor.
func (Sticky) Traits() Traits {
	return Traits{Balanced: true, Sticky: true, JavaClass: "StickyAssignor"}
}

func (s Sticky) compiled() (Strategy, ownedRead, func(*compiledGroup) (Assignment, error)) {
	return s, ownedKeptPacked, stickyOf
}

// Assign computes the sticky assignment of g.
func (Sticky) Assign(g Group) (Assignment, error) {
	var sg smallGroup // a small shared group: freshDealt's or keepAndDeal's answer, without compiling (sticky_fresh.go)
	if a, ok := sg.sticky(&g, false); ok {
		return a, nil
	}
	return stickyAssign(g, ownedKeptIfLossless)
}

// stickyAssign is Sticky.Assign with compile's use of Owned chosen:
// ownedKeptIfLossless but in tests.
func stickyAssign(g Group, use ownedRead) (Assignment, error) {
	cg, err := compile(g, use)
	if err != nil {
		return nil, err
	}
	return stickyOf(cg)
}

// stickyOf is Sticky on a compiled group.
func stickyOf(cg *compiledGroup) (Assignment, error) {
	if cg.kept != nil {
		return cg.keepAndDeal(false)
	}
	if a, ok := cg.freshDealt(); ok {
		return a, nil
	}
	sp := newStickyProblem(cg)
	sp.prob.ClaimReusable = true // the claims are not read again
	owner, err := balance.Solve(&sp.prob)
	if err != nil {
		return nil, err
	}
	return cg.assignmentOf(owner, nil, cg.kafkaOrder), nil // owners by rank
}

// settledTarget returns the owner (by rank) of every partition in
// CooperativeSticky's target. It solves, then settles where the
// partitions this round withholds go: it solves again with this round's
// kept partitions as the only claims and the withheld ones unclaimed,
// which is exactly the follow-up round's input, until that withholds no
// fewer. Every solve keeps all those claims (keeping them is balanced and
// moves nothing), so each result is as balanced and keeps as many of the
// original claims as the first, and the follow-up round of a group that
// does not change lands on this target. It also returns what the target
// withholds (see withheld), which it had to find anyway.
func (sp *stickyProblem) settledTarget() ([]int32, []bool, error) {
	// The general path's solves share their working arrays: each after
	// the first has the first's partitions and subscriptions
	// (BenchmarkAssign/strategy=cooperative-sticky/impl=ours/shape=
	// hetero-100x200t-join1 in bench/).
	if !sp.identical {
		sp.prob.Scratch = new(balance.Scratch)
	}
	owner, err := balance.Solve(&sp.prob)
	if err != nil {
		return nil, nil, err
	}
	withheld, n := sp.withheld(owner, nil)
	for n > 0 {
		claim := owner // reused: the next claims are this target less what it withholds
		for pid, w := range withheld {
			if w {
				claim[pid] = -1
			}
		}
		next := sp.prob
		next.Claim, next.Prev, next.Late = claim, nil, nil
		// claim is the last solve's answer, never sp.prob.Claim (which
		// withheld reads) and not read after this solve: Solve may write
		// its answer there and allocate none (BenchmarkAssign/strategy=
		// cooperative-sticky/impl=ours/shape=uniform-10x100-join1 in
		// bench/; balance's TestClaimReusable holds the answer to the
		// one with a fresh array).
		next.ClaimReusable = true
		if owner, err = balance.Solve(&next); err != nil {
			return nil, nil, err
		}
		var m int
		withheld, m = sp.withheld(owner, withheld)
		if m == n {
			break // the follow-up round's input gives this same answer
		}
		n = m
	}
	return owner, withheld, nil
}

// withheld marks the partitions CooperativeSticky holds back this round
// when owner (by rank) is the target: every partition some member lists
// that the target does not give to its one newest-generation claimant
// (see [CooperativeSticky]). It is nil when it would mark nothing.
//
// Claim holds that claimant, or -1 when the newest claims tie or the
// claimant no longer subscribes to the topic (it still owns the partition
// until it revokes it, and cannot keep it), so one pass over the
// partitions decides: a lower-generation listing by the target's owner
// changes nothing.
//
// It also returns how many it marks, and marks them in room, when not
// nil, instead of a new slice: settledTarget marks each target's, one
// after the other.
func (sp *stickyProblem) withheld(owner []int32, room []bool) ([]bool, int) {
	if sp.state == nil {
		return nil, 0
	}
	var withheld []bool
	n := 0
	for pid, st := range sp.state {
		if st == 0 || st&tied == 0 && sp.prob.Claim[pid] == owner[pid] {
			continue // nobody lists it, or its newest claimant keeps it
		}
		if withheld == nil {
			if withheld = room; withheld == nil {
				withheld = make([]bool, len(owner))
			} else {
				clear(withheld)
			}
		}
		withheld[pid] = true
		n++
	}
	return withheld, n
}

// stickyProblem is a group turned into a [balance.Problem]: members in
// Kafka's member order, topics in Java's order, partitions numbered
// topic by topic.
type stickyProblem struct {
	cg    *compiledGroup
	prob  balance.Problem
	start []int32 // compiledGroup.start: topic => first partition number; the last entry is the total

	// identical is set when every member subscribes to the same topics,
	// which are then all the topics of the compiled group.
	identical bool

	// state marks, per partition, whether some member lists it in Owned
	// (listed) and whether several do at the newest generation (tied). It
	// is nil when nobody owns anything.
	state []uint8
}

func newStickyProblem(cg *compiledGroup) *stickyProblem {
	n := len(cg.g.Members)
	sp := &stickyProblem{cg: cg, start: cg.start}
	subs := make([][]int32, n)
	sp.identical = true
	for r, m := range cg.kafkaOrder {
		subs[r] = cg.subs[m]
		if r > 0 && sameElems(subs[r], subs[0]) { // compile shares one slice between equal subscriptions: O(1) then
			subs[r] = subs[0] // one slice: the solver then compares them in O(1)
		} else if r > 0 {
			sp.identical = false
		}
	}
	sp.prob = balance.Problem{Parts: cg.numParts, Subs: subs}
	if !sp.identical {
		sp.prob.Sets = balance.NewTopicSets(subs, len(cg.numParts))
	}
	sp.claims()
	sp.racks()
	return sp
}

// claims fills prob.Claim, prob.Prev and prob.Late, and state, from the
// group's resolved claims (see claims.go): each partition's owner keeps
// it only while it subscribes to its topic (rule 4), and a previous owner
// is looked for only when some claim lost to a newer one.
func (sp *stickyProblem) claims() {
	cg := sp.cg
	ct := cg.claims
	if ct == nil {
		if ct = cg.resolveListed(); ct == nil {
			return // nobody owns anything
		}
	}
	ct.previousOwners(cg, sp.subscribes)
	// Rule 4: Solve drops, in ct.owner, the claims of owners that no
	// longer subscribe to their partition's topic, so that it then names
	// the claim each partition may keep; ct.state still says such a
	// partition is held. (With identical subscriptions every owner still
	// subscribes.) Its check reads every claim's subscription anyway: a
	// pass of the adapter's own doing so was BenchmarkAssign/
	// strategy=sticky/impl=ours/shape=hetero-100x200t-replace10 in bench/.
	sp.prob.Claim, sp.prob.Prev = ct.owner, ct.prev
	sp.prob.DropUnsubscribed = true
	sp.state = ct.state
	// Partitions nobody lists are handed out first; those someone lists
	// (which a cooperative member must revoke before they move) after,
	// with a fresh round-robin, as the follow-up round of
	// CooperativeSticky deals them once revoked: the fixed-point step of
	// settledTarget then usually confirms the first answer. Sticky deals
	// them the same way, so that the two answers agree whenever
	// CooperativeSticky has nothing to withhold.
	sp.prob.Late = ct.state
}

// subscribes reports whether the member of rank r subscribes to topic t.
func (sp *stickyProblem) subscribes(r rank, t int32) bool {
	return sp.identical || sp.prob.Sets.Has(int32(r), t)
}

// racks turns rack preference on when [compiledGroup.stickyRackAware] says so.
func (sp *stickyProblem) racks() {
	cg := sp.cg
	if !cg.stickyRackAware() {
		return
	}
	rack := make([]int32, len(cg.kafkaOrder))
	for r, m := range cg.kafkaOrder {
		rack[r] = cg.memberRack[m]
	}
	replicas := make([][]int32, sp.start[len(cg.numParts)])
	for t, parts := range cg.partRacks {
		for p, rs := range parts {
			replicas[sp.start[t]+int32(p)] = rs
		}
	}
	sp.prob.Rack, sp.prob.Replicas = rack, replicas
}

// stickyRackAware reports whether Kafka's sticky assignor would prefer
// racks (AbstractPartitionAssignor.useRackAwareAssignment): some member
// declares a rack, some partition has a replica on a member's rack, and
// not every partition has replicas on the same set of racks. Topics whose
// replica racks are unknown take no part in the test.
func (cg *compiledGroup) stickyRackAware() bool {
	memberRacks := make([]bool, len(cg.rackNames))
	anyMember := false
	for _, r := range cg.memberRack {
		if r >= 0 {
			memberRacks[r], anyMember = true, true
		}
	}
	if !anyMember {
		return false
	}
	all := make([]bool, len(cg.rackNames)) // union of replica racks
	for _, parts := range cg.partRacks {
		for _, rs := range parts {
			for _, r := range rs {
				all[r] = true
			}
		}
	}
	overlap, uneven := false, false
	nAll := 0
	for r := range all {
		overlap = overlap || all[r] && memberRacks[r]
		if all[r] {
			nAll++
		}
	}
	for _, parts := range cg.partRacks {
		for _, rs := range parts {
			uneven = uneven || len(rs) != nAll // rs is a set of the racks in all
		}
	}
	return overlap && uneven
}

// byMember turns owners by rank, as [balance.Solve] returns them, into
// owners by member index, in place, and returns owner.
func (sp *stickyProblem) byMember(owner []int32) []int32 {
	for pid, r := range owner {
		owner[pid] = sp.cg.kafkaOrder[r]
	}
	return owner
}
