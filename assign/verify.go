package assign

import (
	"errors"
	"fmt"
	"maps"
	"slices"
)

// ErrInvalidAssignment is wrapped by every error [Verify],
// [VerifyBalanced], [VerifyCooperative] and [CheckCooperative] return.
var ErrInvalidAssignment = errors.New("invalid assignment")

// Verify checks that a is a valid assignment of g:
//
//   - every member of g appears in a, and nobody else does;
//   - every partition of every topic some member subscribes to (and that
//     exists in g.Topics) is assigned exactly once, to a member subscribed
//     to its topic;
//   - nothing else is assigned;
//   - each member's list is sorted by [TopicPartition.Compare].
//
// A round of [CooperativeSticky] is not a whole assignment: it withholds
// the partitions that must first be revoked, so Verify refuses it by
// design. Verify the cooperative target instead ([CooperativeSticky.Plan]).
//
// It returns nil or an error wrapping [ErrInvalidAssignment] that names the
// first fault found, looking at members in the order of g.Members and at
// partitions in list order. g must be valid (see [Group.Validate]).
func Verify(g Group, a Assignment) error {
	var first error
	if err := verifyEach(g, a, ownedIgnored, func(fault error) bool { first = fault; return false }); err != nil {
		return err
	}
	return first
}

// verifyEach checks a as [Verify] does, calling fault with each fault in
// the order Verify looks, until fault returns false. Its error is
// compile's, for an invalid g.
//
// use is ownedIgnored, or ownedUnread where g was validated just before
// (Check), so as not to read every Owned list again.
func verifyEach(g Group, a Assignment, use ownedRead, fault func(error) bool) error {
	cg, err := compileUnordered(g, use)
	if err != nil {
		return err
	}
	if len(a) != len(g.Members) {
		members := make(map[string]bool, len(g.Members)) // a look-up per member of a, not a scan of g
		for _, m := range g.Members {
			members[m.ID] = true
		}
		for _, id := range slices.Sorted(maps.Keys(a)) {
			if !members[id] {
				if !fault(invalidf("member %q is not in the group", id)) {
					return nil
				}
			}
		}
	}
	owner := make([][]int32, len(cg.topics)) // topic => partition => member index + 1
	for t, n := range cg.numParts {
		owner[t] = make([]int32, n)
	}
	for i, m := range g.Members {
		list, ok := a[m.ID]
		if !ok {
			if !fault(invalidf("member %q is missing", m.ID)) {
				return nil
			}
			continue
		}
		lastTopic, t, known, subscribed := "", int32(0), false, false
		for k, tp := range list {
			if k > 0 && list[k-1].Compare(tp) >= 0 {
				if !fault(invalidf("member %q: %s listed after %s: not sorted, or repeated", m.ID, tp, list[k-1])) {
					return nil
				}
				if list[k-1] == tp {
					continue // a repeat, not a second owner
				}
			}
			if k == 0 || tp.Topic != lastTopic { // lists come topic by topic: one look-up per run
				lastTopic = tp.Topic
				t, known = cg.topicIndex(tp.Topic)
				if known {
					_, subscribed = slices.BinarySearch(cg.subs[i], t)
				}
			}
			if !known || tp.Partition < 0 || tp.Partition >= cg.numParts[t] {
				if !fault(invalidf("member %q: %s does not exist or nobody subscribes to its topic", m.ID, tp)) {
					return nil
				}
				continue
			}
			if !subscribed {
				if !fault(invalidf("member %q: %s of a topic it does not subscribe to", m.ID, tp)) {
					return nil
				}
			}
			if prev := owner[t][tp.Partition]; prev != 0 {
				if !fault(invalidf("%s assigned to both %q and %q", tp, g.Members[prev-1].ID, m.ID)) {
					return nil
				}
				continue
			}
			owner[t][tp.Partition] = int32(i) + 1
		}
	}
	for t, parts := range owner {
		for p, o := range parts {
			if o == 0 {
				if !fault(invalidf("%s is not assigned", TopicPartition{cg.topics[t], int32(p)})) {
					return nil
				}
			}
		}
	}
	return nil
}

// VerifyBalanced checks, after [Verify], that no partition could be shifted
// to even out the load: there is no chain of members m0, m1, ..., mk with
// count(m0) >= count(mk) + 2 in which each m(i) holds a partition of a topic
// that m(i+1) subscribes to. Moving one partition along every link of such a
// chain would lower m0's count and raise mk's, leaving the others unchanged.
// With identical subscriptions this means totals differ by at most one. An
// assignment with no such chain minimises every convex measure of
// imbalance (the sum of squared counts, the maximum, ...) at once.
func VerifyBalanced(g Group, a Assignment) error {
	if err := Verify(g, a); err != nil {
		return err
	}
	return verifyBalancedOnly(g, a)
}

// verifyBalancedOnly is VerifyBalanced for an a that [Verify] has
// passed: [Check] verifies first and need not verify twice. g is valid,
// so its Owned lists are not read again.
func verifyBalancedOnly(g Group, a Assignment) error {
	cg, _ := compileUnordered(g, ownedUnread)
	n := len(g.Members)
	count := make([]int, n)
	holders := make([][]int32, len(cg.topics)) // topic => members holding one of its partitions
	for i, m := range g.Members {
		count[i] = len(a[m.ID])
		seen := -1
		for _, tp := range a[m.ID] {
			ti, _ := cg.topicIndex(tp.Topic) // Verify found it
			t := int(ti)
			if t != seen {
				holders[t] = append(holders[t], int32(i))
				seen = t
			}
		}
	}
	subscribers := make([][]int32, len(cg.topics))
	for i, sub := range cg.subs {
		for _, t := range sub {
			subscribers[t] = append(subscribers[t], int32(i))
		}
	}
	// heldTopics[m] lists topics m holds; from m a partition can go to any
	// subscriber of those topics.
	heldTopics := make([][]int32, n)
	for t, hs := range holders {
		for _, m := range hs {
			heldTopics[m] = append(heldTopics[m], int32(t))
		}
	}
	// A chain from a member with count c to one with count <= c-2 exists
	// if and only if, for the level L = c, a search from every member with
	// count >= L reaches a member with count <= L-2. So one search per
	// distinct count, highest first, each visiting every topic once:
	// O(levels * (members + sum of subscriptions)).
	levels := slices.Clone(count)
	slices.Sort(levels)
	levels = slices.Compact(levels)
	slices.Reverse(levels)
	prev := make([]int32, n)
	topicSeen := make([]bool, len(cg.topics))
	for _, level := range levels {
		if level < levels[len(levels)-1]+2 {
			break // nobody is low enough for this level or any below
		}
		clear(topicSeen)
		var queue []int32
		for m := range n {
			prev[m] = -2 // unvisited
			if count[m] >= level {
				prev[m] = -1 // a source
				queue = append(queue, int32(m))
			}
		}
		for len(queue) > 0 {
			m := queue[0]
			queue = queue[1:]
			if count[m] <= level-2 {
				chain := []string{g.Members[m].ID}
				src := m
				for p := prev[m]; p >= 0; p = prev[p] {
					chain = append(chain, g.Members[p].ID)
					src = p
				}
				slices.Reverse(chain)
				return invalidf("unbalanced: partitions can shift along %q, from %d partitions to %d",
					chain, count[src], count[m])
			}
			for _, t := range heldTopics[m] {
				if topicSeen[t] {
					continue
				}
				topicSeen[t] = true
				for _, next := range subscribers[t] {
					if prev[next] == -2 {
						prev[next] = m
						queue = append(queue, next)
					}
				}
			}
		}
	}
	return nil
}

func invalidf(format string, args ...any) error {
	return fmt.Errorf("assign: %w: %s", ErrInvalidAssignment, fmt.Sprintf(format, args...))
}

// VerifyCooperative checks that a, one round of a cooperative rebalance of
// g, is safe as the group leader must make it: a partition goes this round
// only to its newest-generation claimant, and to nobody while that claim
// is tied. With owned(m) and gen(m) member m's Owned and Generation, and
// a(m) what it gets this round,
//
//	newest(p) = { m : p ∈ owned(m), gen(m) = max{ gen(k) : p ∈ owned(k) } }
//	p ∈ a(m)  ⇒  newest(p) = ∅ or newest(p) = {m}
//
// and no partition is in two members' a(m). A claim below the newest
// generation never makes a hand-over safe: a member that missed
// rebalances and lists what it had (a consumer kicked out while paused, a
// stale client) does not own it any longer; the newest claimant does,
// and keeps consuming it until it revokes it.
//
// This is stronger than [CheckCooperative], Kafka's consumer-side check,
// which accepts a partition handed to any member that lists it, at
// whatever generation. [CooperativeSticky] satisfies both.
//
// The rule is computed here directly from g, independently of the claims
// resolution the strategies use, so that it can check them. Members of g
// missing from a get nothing; members of a missing from g are ignored
// (see [Verify]). It returns nil or an error wrapping
// [ErrInvalidAssignment] naming the first offending partition in
// [TopicPartition.Compare] order.
func VerifyCooperative(g Group, a Assignment) error {
	return verifyCooperative(g, a, ownedIgnored)
}

// verifyCooperative is VerifyCooperative; use is ownedIgnored, which
// validates g's Owned lists, or ownedUnread where g was validated just
// before ([Check]).
func verifyCooperative(g Group, a Assignment, use ownedRead) error {
	cg, err := compileUnordered(g, use) // validates g; only its partition numbers are used
	if err != nil {
		return err
	}
	// The partitions of subscribed topics are looked up by number, in
	// arrays; any other a partition of Owned or a names (of a topic
	// nobody subscribes to, or that does not exist), in maps. Maps for
	// all cost most of the preview's time on a million partitions
	// (TestPreviewScales in cmd/assigncalc bounds its allocations).
	parts := cg.start[len(cg.topics)]
	gen := make([]int32, parts)      // pid => the newest generation claiming it
	claimant := make([]int32, parts) // pid => 1 + the member claiming it at gen; 0 for nobody, -1 for several
	type claim struct {
		gen      int32
		claimant int32
	}
	others := make(map[TopicPartition]*claim)
	cur := pidCursor{cg: cg}
	newest := func(tp TopicPartition) (*int32, *int32) {
		if pid, ok := cur.pid(tp); ok {
			return &gen[pid], &claimant[pid]
		}
		c := others[tp]
		if c == nil {
			c = &claim{}
			others[tp] = c
		}
		return &c.gen, &c.claimant
	}
	for i, m := range g.Members {
		for _, tp := range m.Owned {
			gen, c := newest(tp)
			switch {
			case *c == 0 || m.Generation > *gen:
				*gen, *c = m.Generation, int32(i)+1
			case m.Generation == *gen:
				*c = -1 // compile refused a member listing a partition twice
			}
		}
	}
	type fault struct {
		tp          TopicPartition
		m, other    int32 // member indices: the one getting tp, the one getting it before (-1 if none)
		gen, holder int32 // tp's newest claim
	}
	var faults []fault
	given := make([]int32, parts) // pid => 1 + the member getting it
	givenOthers := make(map[TopicPartition]int32)
	for i, m := range g.Members {
		for _, tp := range a[m.ID] {
			var to *int32
			if pid, ok := cur.pid(tp); ok {
				to = &given[pid]
			} else {
				v := givenOthers[tp]
				to = &v
				givenOthers[tp] = int32(i) + 1
			}
			if *to != 0 {
				faults = append(faults, fault{tp: tp, m: int32(i), other: *to - 1})
				continue
			}
			*to = int32(i) + 1
			gen, c := newest(tp)
			if *c != 0 && *c != int32(i)+1 {
				faults = append(faults, fault{tp: tp, m: int32(i), other: -1, gen: *gen, holder: *c})
			}
		}
	}
	if len(faults) == 0 {
		return nil
	}
	f := slices.MinFunc(faults, func(a, b fault) int { return a.tp.Compare(b.tp) })
	id := g.Members[f.m].ID
	switch {
	case f.other >= 0:
		return invalidf("not cooperative: %s is assigned to both %q and %q", f.tp, g.Members[f.other].ID, id)
	case f.holder < 0:
		var tied []string // the members claiming f.tp at its newest generation, in g's order
		for _, m := range g.Members {
			if m.Generation == f.gen && slices.Contains(m.Owned, f.tp) {
				tied = append(tied, m.ID)
			}
		}
		return invalidf("not cooperative: %s is assigned to %q while %q claim it at generation %d, its newest", f.tp, id, tied, f.gen)
	default:
		return invalidf("not cooperative: %s is assigned to %q while %q still owns it at generation %d, its newest", f.tp, id, g.Members[f.holder-1].ID, f.gen)
	}
}

// pidCursor numbers the partitions of a list sorted by topic, as
// compiledGroup.start does, looking a topic's name up only when it
// changes.
type pidCursor struct {
	cg    *compiledGroup
	topic string
	t     int32
	known bool
}

// pid returns tp's number, and false when its topic is not a subscribed
// one or it has no such partition.
func (c *pidCursor) pid(tp TopicPartition) (int32, bool) {
	if tp.Topic != c.topic || c.topic == "" {
		c.topic = tp.Topic
		c.t, c.known = c.cg.topicIndex(tp.Topic)
	}
	if !c.known || tp.Partition < 0 || tp.Partition >= c.cg.numParts[c.t] {
		return 0, false
	}
	return c.cg.start[c.t] + tp.Partition, true
}

// CheckCooperative applies the check Kafka's consumer applies to a
// leader's cooperative assignment (ConsumerCoordinator's
// validateCooperativeAssignment): no partition may be added to one member
// while it is revoked from another in the same round, that is
//
//	(∪ₘ a(m) \ owned(m)) ∩ (∪ₘ owned(m) \ a(m)) = ∅
//
// where owned(m) is member m's Owned. It ignores generations, so it
// accepts a partition handed from its owner to a member that lists it
// from an older generation; the leader's rule, [VerifyCooperative], does
// not. Members of g missing from a get nothing. It returns nil or an error
// wrapping [ErrInvalidAssignment] naming the first offending partition in
// [TopicPartition.Compare] order.
func CheckCooperative(g Group, a Assignment) error {
	if err := g.Validate(); err != nil {
		return err
	}
	type change struct{ addedTo, revokedFrom string }
	owners := make(map[TopicPartition][]int) // partition => members listing it
	for i := range g.Members {
		for _, tp := range g.Members[i].Owned {
			owners[tp] = append(owners[tp], i)
		}
	}
	assigned := make(map[TopicPartition]int) // partition => member getting it
	changes := make(map[TopicPartition]*change)
	for i := range g.Members {
		for _, tp := range a[g.Members[i].ID] {
			assigned[tp] = i
			if !slices.Contains(owners[tp], i) {
				changes[tp] = &change{addedTo: g.Members[i].ID}
			}
		}
	}
	for tp, listers := range owners {
		c := changes[tp]
		if c == nil {
			continue // not added to anyone: revoking it is safe
		}
		for _, i := range listers {
			if got, ok := assigned[tp]; !ok || got != i {
				c.revokedFrom = g.Members[i].ID
				break
			}
		}
	}
	var bad []TopicPartition
	for tp, c := range changes {
		if c.addedTo != "" && c.revokedFrom != "" {
			bad = append(bad, tp)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	tp := slices.MinFunc(bad, TopicPartition.Compare)
	return invalidf("not cooperative: %s is assigned to %q while %q still owns it", tp, changes[tp].addedTo, changes[tp].revokedFrom)
}
