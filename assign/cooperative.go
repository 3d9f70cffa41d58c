package assign

import (
	"slices"
)

// CooperativeSticky is Kafka's CooperativeStickyAssignor (KIP-429): the
// target of [Sticky], reached in two rounds so that no partition is ever
// owned by two members at once.
//
// # Algorithm
//
// Claims come from each member's Owned and Generation, which cooperative
// members send in their subscription. The target is exactly the one
// Sticky computes for the same group. Then this round hands out the
// target minus the partitions that would pass from one owner to another.
// A partition is owned by its newest-generation claimants,
//
//	newest(p) = { m : p ∈ owned(m), gen(m) = max{ gen(k) : p ∈ owned(k) } }
//
// and is withheld this round unless nobody claims it or the target gives
// it to its one newest claimant:
//
//	withheld(p) ⇔ newest(p) ≠ ∅ and newest(p) ≠ { target(p) }
//
// So a partition claimed by several members at its newest generation goes
// to nobody this round (KAFKA-12984), and a claim below the newest
// generation never makes a hand-over safe: a member that missed
// rebalances and still lists what it had does not own it, and the
// member that does keeps consuming it until it has revoked it. Lower
// claims only name the previous owner preferred when the partition moves
// (KIP-341). Kafka's consumer checks less ([CheckCooperative] accepts a
// partition handed to any member that lists it); the leader's rule is
// [VerifyCooperative]. Members revoke what they owned but do not get
// this round, and rejoin; the follow-up round, whose claims are this
// round's assignment, hands out the withheld partitions, which nobody
// owns any longer. [CooperativePlan] shows both rounds.
//
// # Invariants
//
// With owned(m) the partitions m lists and a(m) what it gets this round:
//
//	p ∈ a(m) ⇒ newest(p) ∈ { ∅, {m} }                    (safety, [VerifyCooperative])
//	(∪ₘ a(m) \ owned(m)) ∩ (∪ₘ owned(m) \ a(m)) = ∅     (Kafka's check, [CheckCooperative])
//	a(m) = target(m) \ { p : withheld(p) } for every m, and target passes [VerifyBalanced]
//
// A round's assignment leaves the withheld partitions unassigned, so
// [Verify] fails on it by design; verify [CooperativePlan.Target] instead.
// When the group does not change between the two rounds, the follow-up
// round withholds nothing and lands exactly on the first round's target:
// the target is chosen as a fixed point of "solve again with this round's
// assignment as the claims", which is the follow-up round's input.
//
// Complexity: that of Sticky, plus O(P) for the withholding.
//
// # Worked example
//
// Members C0 and C1 own t0p0, t0p2, t1p1 and t0p1, t1p0, t1p2 at
// generation 1 when C2 joins. The target is that of [Sticky]: C0 gives up
// t0p2 and C1 gives up t1p2, both for C2. This round C0 gets t0p0, t1p1;
// C1 gets t0p1, t1p0; C2 gets nothing yet. Once C0 and C1 have revoked
// t0p2 and t1p2 and rejoined, the follow-up round gives them to C2.
type CooperativeSticky struct{}

// Name returns "cooperative-sticky".
func (CooperativeSticky) Name() string { return "cooperative-sticky" }

// Protocol returns [Cooperative].
func (CooperativeSticky) Protocol() RebalanceProtocol { return Cooperative }

// Traits says that CooperativeSticky is balanced and sticky, and stands
// for Kafka's CooperativeStickyAssignor.
func (CooperativeSticky) Traits() Traits {
	return Traits{Balanced: true, Sticky: true, JavaClass: "CooperativeStickyAssignor"}
}

func (s CooperativeSticky) compiled() (Strategy, ownedRead, func(*compiledGroup) (Assignment, error)) {
	return s, ownedKeptPacked, cooperativeOf
}

// Assign returns this round's assignment: [CooperativePlan.Assignment].
// It does not pass [Verify] while partitions are withheld.
func (CooperativeSticky) Assign(g Group) (Assignment, error) {
	var sg smallGroup // a small shared group where nothing is withheld: Sticky's answer, without compiling (sticky_fresh.go)
	if a, ok := sg.sticky(&g, true); ok {
		return a, nil
	}
	return cooperativeAssign(g, ownedKeptIfLossless)
}

// cooperativeAssign is CooperativeSticky.Assign with compile's use of
// Owned chosen: ownedKeptIfLossless but in tests.
func cooperativeAssign(g Group, use ownedRead) (Assignment, error) {
	cg, err := compile(g, use)
	if err != nil {
		return nil, err
	}
	return cooperativeOf(cg)
}

// cooperativeOf is CooperativeSticky.Assign on a compiled group.
func cooperativeOf(cg *compiledGroup) (Assignment, error) {
	if cg.kept != nil {
		return cg.keepAndDeal(true) // the round settledTarget gives (see keepAndDeal)
	}
	if a, ok := cg.freshDealt(); ok {
		return a, nil
	}
	_, owner, withheld, err := cooperativeRound(cg)
	if err != nil {
		return nil, err
	}
	return cg.assignmentOf(owner, withheld, cg.kafkaOrder), nil
}

// cooperativeRound computes the target's owners (by rank in Kafka's
// member order) and the partitions withheld this round (nil when none
// can be).
func cooperativeRound(cg *compiledGroup) (*stickyProblem, []int32, []bool, error) {
	sp := newStickyProblem(cg)
	owner, withheld, err := sp.settledTarget()
	if err != nil {
		return nil, nil, nil, err
	}
	return sp, owner, withheld, nil
}

// CooperativePlan is one cooperative rebalance seen whole.
type CooperativePlan struct {
	// Assignment is what each member gets this round: Target without the
	// partitions still owned by another member.
	Assignment Assignment

	// Target is where the group is heading: the assignment [Sticky]
	// computes for the same group. It passes [VerifyBalanced].
	Target Assignment

	// Revoked lists, for each member, the partitions of its Owned that it
	// does not get this round (including those that no longer exist): what
	// its onPartitionsRevoked callback sees. Sorted; nil when none.
	Revoked Assignment

	// Pending lists, for each member, the partitions it will get in the
	// follow-up round: Target minus Assignment. Sorted; nil when none.
	Pending Assignment
}

// Plan computes this round's assignment of g, the target, and what moves
// in between.
func (CooperativeSticky) Plan(g Group) (*CooperativePlan, error) {
	return plan(g, ownedResolved)
}

// plan is Plan with compile's use of Owned chosen: ownedResolved but in
// tests.
func plan(g Group, use ownedRead) (*CooperativePlan, error) {
	cg, err := compile(g, use)
	if err != nil {
		return nil, err
	}
	sp, owner, withheld, err := cooperativeRound(cg)
	if err != nil {
		return nil, err
	}
	owner = sp.byMember(owner)
	total := sp.start[len(cg.numParts)]
	if withheld == nil {
		withheld = make([]bool, total)
	}
	plan := &CooperativePlan{
		Assignment: cg.assignmentOf(owner, withheld, nil),
		Target:     cg.assignmentOf(owner, nil, nil),
		Revoked:    make(Assignment, len(g.Members)),
		Pending:    make(Assignment, len(g.Members)),
	}
	for i := range cg.g.Members {
		m := &cg.g.Members[i]
		plan.Revoked[m.ID] = nil
		plan.Pending[m.ID] = nil
		for _, tp := range m.Owned {
			if t, ok := cg.topicIndex(tp.Topic); ok && tp.Partition >= 0 && tp.Partition < cg.numParts[t] {
				pid := sp.start[t] + tp.Partition
				if owner[pid] == int32(i) && !withheld[pid] {
					continue // kept
				}
			}
			plan.Revoked[m.ID] = append(plan.Revoked[m.ID], tp)
		}
		slices.SortFunc(plan.Revoked[m.ID], TopicPartition.Compare)
	}
	for t := range cg.numParts {
		for pid := sp.start[t]; pid < sp.start[t+1]; pid++ {
			if withheld[pid] {
				id := cg.g.Members[owner[pid]].ID
				plan.Pending[id] = append(plan.Pending[id], TopicPartition{cg.topics[t], pid - sp.start[t]})
			}
		}
	}
	for id := range plan.Pending {
		slices.SortFunc(plan.Pending[id], TopicPartition.Compare)
	}
	return plan, nil
}
