package assign

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
)

// Move is one partition that changed hands between two assignments: the
// one type every reader of "what moved" shares ([Moves], the churn model's
// steps, a migration to the consumer protocol, a check against a plan).
type Move struct {
	Partition TopicPartition

	// From and To are the members holding the partition before and after;
	// "" for nobody (a new or unowned partition, or one given to nobody).
	From, To string

	// Reason says why the partition moved, where the caller knows; the
	// zero MoveReason where it does not ([Moves] does not).
	Reason MoveReason

	// Deferred reports that the new owner got the partition a round or
	// more after the old one gave it up: a cooperative round withheld it,
	// or the consumer protocol's reconciliation held it until its owner
	// released it.
	Deferred bool
}

// MoveReason says why a partition changed owner.
type MoveReason int8

// The reasons for a [Move].
const (
	ReasonOwnerLeft      MoveReason = iota + 1 // its owner left the group
	ReasonOwnerRestarted                       // its owner restarted and rejoined with a new member.id
	ReasonUnsubscribed                         // its owner no longer subscribes to its topic
	ReasonStaticReturned                       // a static member came back and took it
	ReasonBalance                              // a sticky strategy ([Traits.Sticky]) needed it elsewhere to even the counts
	ReasonLayout                               // the layout of a strategy that is not sticky put it elsewhere
	ReasonStrategy                             // the group switched strategies
)

// String explains the reason in a few words.
func (r MoveReason) String() string {
	switch r {
	case ReasonOwnerLeft:
		return "its owner left"
	case ReasonOwnerRestarted:
		return "its owner restarted with a new member.id"
	case ReasonUnsubscribed:
		return "its owner unsubscribed"
	case ReasonStaticReturned:
		return "a static member returned"
	case ReasonBalance:
		return "balance required it"
	case ReasonLayout:
		return "the strategy's layout moved it"
	case ReasonStrategy:
		return "the group switched strategies"
	}
	return fmt.Sprintf("MoveReason(%d)", int8(r))
}

// Moves lists the partitions whose holder differs between before and
// after, sorted by partition, without reasons: a partition only one of
// them assigns has From or To "". Members with empty lists and members
// missing from an assignment are alike. An invalid assignment that gives
// a partition to two members counts it as its holder's whose ID sorts
// last.
func Moves(before, after Assignment) []Move {
	if out, ok := movesInOrder(before, after); ok {
		return out
	}
	n := 0 // counted first: growing a million moves by append cost more than a second walk
	changedHands(before, after, true, func(TopicPartition, string, string) { n++ })
	if n == 0 {
		return nil
	}
	out := make([]Move, 0, n)
	changedHands(before, after, true, func(tp TopicPartition, from, to string) {
		out = append(out, Move{Partition: tp, From: from, To: to})
	})
	return sortMoves(out)
}

// sortMoves returns moves in the order [Moves] promises: by partition,
// then To, then From. It sorts integer keys (a topic's rank among the
// topics moved, then the partition) and compares strings only among moves
// of one partition, which a valid assignment never has: a million moves
// sorted by their strings cost most of simulate's time (issue 30;
// TestMovesOrder holds it to the comparison of Moves' doc).
func sortMoves(moves []Move) []Move {
	if len(moves) < 2 {
		return moves
	}
	rank := make(map[string]uint64)
	var names []string
	last := ""
	for k, m := range moves {
		if k == 0 || m.Partition.Topic != last {
			last = m.Partition.Topic
			if _, ok := rank[last]; !ok {
				rank[last] = 0
				names = append(names, last)
			}
		}
	}
	slices.Sort(names)
	for r, name := range names {
		rank[name] = uint64(r)
	}
	type keyed struct {
		key uint64 // the topic's rank, then the partition, both in order
		at  int32  // index in moves
	}
	keys := make([]keyed, len(moves))
	var r uint64
	for k, m := range moves {
		if k == 0 || m.Partition.Topic != last {
			last, r = m.Partition.Topic, rank[m.Partition.Topic]
		}
		keys[k] = keyed{r<<32 | uint64(uint32(m.Partition.Partition)^1<<31), int32(k)}
	}
	slices.SortFunc(keys, func(a, b keyed) int { return cmp.Compare(a.key, b.key) })
	// Put moves in the order of keys in place, cycle by cycle, rather
	// than into a second slice of moves.
	for k := range keys {
		if keys[k].at < 0 {
			continue
		}
		held := moves[k]
		for j := k; ; {
			from := keys[j].at
			keys[j].at = -1
			if int(from) == k {
				moves[j] = held
				break
			}
			moves[j] = moves[from]
			j = int(from)
		}
	}
	out := moves
	for i := 0; i < len(keys); {
		j := i + 1
		for j < len(keys) && keys[j].key == keys[i].key {
			j++
		}
		if j-i > 1 { // one partition moved to several members: an invalid assignment
			slices.SortFunc(out[i:j], func(a, b Move) int { return cmp.Or(cmp.Compare(a.To, b.To), cmp.Compare(a.From, b.From)) })
		}
		i = j
	}
	return out
}

// Moved counts the partitions of next whose owner differs from their
// owner in prev: the [Moves] with both a From and a To, without listing
// them. Partitions absent from prev (new, or unowned before) do not
// count, nor do partitions next gives to nobody.
func Moved(prev, next Assignment) int {
	moved := 0
	changedHands(prev, next, false, func(_ TopicPartition, from, _ string) {
		if from != "" {
			moved++
		}
	})
	return moved
}

// changedHands calls moved for each partition of after whose holder in
// before differs (from is "" when before assigns it to nobody) and, when
// orphans is set, for each partition of before that after assigns to
// nobody (to is ""). Its memory follows the partitions before holds, not
// the largest partition number (see slots).
func changedHands(before, after Assignment, orphans bool, moved func(tp TopicPartition, from, to string)) {
	ids := slices.Sorted(maps.Keys(before))
	// owner holds 1 + the index in ids of each partition's holder in
	// before, negated once after assigns the partition.
	owner := newSlots[int32](func(yield func(TopicPartition)) {
		for _, id := range ids {
			for _, tp := range before[id] {
				yield(tp)
			}
		}
	})
	for i, id := range ids {
		for _, tp := range before[id] {
			*owner.at(tp) = int32(i) + 1
		}
	}
	for id, tps := range after {
		for _, tp := range tps {
			from := ""
			if was := owner.at(tp); was != nil && *was != 0 {
				if *was > 0 && orphans {
					*was = -*was
				}
				from = ids[abs32(*was)-1]
			}
			if from != id {
				moved(tp, from, id)
			}
		}
	}
	if !orphans {
		return
	}
	for i, id := range ids {
		for _, tp := range before[id] {
			if *owner.at(tp) == int32(i)+1 {
				moved(tp, id, "")
			}
		}
	}
}

func abs32(x int32) int32 {
	if x < 0 {
		return -x
	}
	return x
}

// movesInOrder is Moves for an after that gives no partition to two
// members: a slot per partition holds its holders before and after, and
// one walk over the partitions in order lists the moves already sorted,
// with no sort of a million moves (simulate on 2,000 members x 1,000,000
// partitions, issue 30). It reports false, having listed nothing, when
// after gives a partition twice; TestMovesReference and TestMovesOrder
// cover both paths.
func movesInOrder(before, after Assignment) ([]Move, bool) {
	from := slices.Sorted(maps.Keys(before))
	to := slices.Sorted(maps.Keys(after))
	type holders struct{ from, to int32 } // 1 + index in from and to; 0 for nobody
	slot := newSlots[holders](func(yield func(TopicPartition)) {
		for _, a := range []Assignment{before, after} {
			for _, tps := range a {
				for _, tp := range tps {
					yield(tp)
				}
			}
		}
	})
	for i, id := range from { // a partition listed twice stays with the ID sorting last
		for _, tp := range before[id] {
			slot.at(tp).from = int32(i) + 1
		}
	}
	n := 0
	for i, id := range to {
		for _, tp := range after[id] {
			h := slot.at(tp)
			if h.to != 0 {
				return nil, false
			}
			h.to = int32(i) + 1
			if h.from == 0 || from[h.from-1] != id {
				n++
			}
		}
	}
	for _, h := range slot.all() {
		if h.from != 0 && h.to == 0 {
			n++
		}
	}
	if n == 0 {
		return nil, true
	}
	out := make([]Move, 0, n)
	slot.inOrder(func(tp TopicPartition, h holders) {
		var f, t string
		if h.from != 0 {
			f = from[h.from-1]
		}
		if h.to != 0 {
			t = to[h.to-1]
		}
		if f != t {
			out = append(out, Move{Partition: tp, From: f, To: t})
		}
	})
	return out, true
}
