package assign

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"github.com/assigncalc/assigncalc/assign/internal/balance"
)

// keptClaims is what the sticky strategies need of a group in which no
// claim can be lost, the usual state of a group after a member leaves or
// restarts: every member subscribes to the same topics, rack preference is
// off, every claimant lists at one generation, no partition is listed by
// two members, and no member lists more than its target (see
// [compiledGroup.keepsEveryClaim]). Every member then keeps what it lists, and the
// partitions nobody lists are dealt to the members below their target:
// the assignment follows from which partitions are listed and how many
// each member lists, with no claim per partition to settle.
type keptClaims struct {
	listed   []uint64 // bit pid: some member lists partition number pid
	count    []int32  // member index => partitions it lists that exist
	copyable []bool   // member index => its Owned lists only partitions that exist, in [TopicPartition.Compare] order
}

// keepsEveryClaim reports whether no claim can be lost, as far as the
// group's shape tells before the claims are read: subscriptions are
// identical, rack preference is off, and no member lists more than its
// target can be. (Ties are found while reading the claims.)
//
// Targets are as [balance.Targets] sets them: with P partitions and
// n members, the P mod n members with the most claims get ⌈P/n⌉, the
// others ⌊P/n⌋. When nobody lists more than ⌈P/n⌉ and at most P mod n
// members list that many (and it exceeds ⌊P/n⌋), those members are among
// the P mod n with the most claims, so every member's target covers its
// list. Counting len(Owned) errs on the safe side: partitions that no
// longer exist only shorten a list.
func (cg *compiledGroup) keepsEveryClaim() bool {
	n := int32(len(cg.subs))
	parts := cg.start[len(cg.topics)]
	if n == 0 || parts == 0 || cg.stickyRackAware() {
		return false
	}
	for _, sub := range cg.subs[1:] {
		if !sameTopics(sub, cg.subs[0]) {
			return false
		}
	}
	q, r := parts/n, parts%n
	atCeiling := int32(0)
	for i := range cg.g.Members {
		switch c := int32(min(len(cg.g.Members[i].Owned), int(parts)+1)); {
		case c > q+1 || c == q+1 && r == 0:
			return false
		case c == q+1:
			atCeiling++
		}
	}
	return atCeiling <= r
}

// readKept reads the claims into kept, and reports whether no partition
// is listed twice; when one is, kept is left nil (compile then settles
// the claims partition by partition, which also refuses a member listing
// a partition twice).
func (cg *compiledGroup) readKept() bool {
	g := cg.g
	parts := uint32(cg.start[len(cg.topics)])
	kc := &keptClaims{
		listed:   make([]uint64, (parts+63)/64),
		count:    make([]int32, len(g.Members)),
		copyable: make([]bool, len(g.Members)),
	}
	listed := kc.listed
	after, goRank := cg.goSteps()
	twice := uint64(0) // nonzero when some partition is listed twice
	for i := range g.Members {
		m := &g.Members[i]
		inOrder := true                             // so far: topics ascending in Go order, partitions ascending within each, none dropped
		lastTopic, ti, known := "", int32(0), false // "" is never a known topic
		lastRank, lastPart, count := int32(-1), int32(-1), int32(0)
		for _, tp := range m.Owned {
			if tp.Topic != lastTopic {
				ti, known = cg.topicAfter(after, ti, known, tp.Topic)
				lastTopic, lastPart = tp.Topic, -1
				inOrder = inOrder && known && goRank[ti] > lastRank
				if known {
					lastRank = goRank[ti]
				}
			}
			if !known || uint32(tp.Partition) >= uint32(cg.numParts[ti]) {
				inOrder = false
				continue // the partition no longer exists, or nobody wants it: dropped, as Kafka does
			}
			inOrder = inOrder && tp.Partition > lastPart
			lastPart = tp.Partition
			pid := uint32(cg.start[ti] + tp.Partition)
			w, bit := pid/64, uint64(1)<<(pid%64)
			twice |= listed[w] & bit
			listed[w] |= bit
			count++
		}
		kc.count[i], kc.copyable[i] = count, inOrder
	}
	if twice != 0 {
		return false
	}
	cg.kept = kc
	return true
}

// keepAndDeal assigns a group described by kept: every member keeps what
// it lists, and the partitions nobody lists are dealt in partition order,
// round-robin, to the members below their target, from the lowest rank in
// Kafka's member order: the answer of the solver's fast path, reached
// without a claim or an owner per partition. Members whose Owned is
// already in order have it copied whole.
func (cg *compiledGroup) keepAndDeal() (Assignment, error) {
	kc := cg.kept
	n := len(cg.kafkaOrder)
	parts := cg.start[len(cg.topics)]

	// Targets as the solver's fast path sets them.
	claims := make([]int32, n) // rank => partitions it lists
	for rk, m := range cg.kafkaOrder {
		claims[rk] = kc.count[m]
	}
	target := balance.Targets(claims, int(parts))

	// Deal the partitions nobody lists, round by round: each round gives
	// one to every member still below target, in rank order.
	dealtOff := make([]int32, n+1) // rank => where its dealt partitions start in dealt
	var active []int32             // ranks below target
	for rk, m := range cg.kafkaOrder {
		deficit := target[rk] - claims[rk]
		if deficit < 0 {
			return nil, fmt.Errorf("%w: member %d lists more than its target", balance.ErrInternal, m)
		}
		dealtOff[rk+1] = dealtOff[rk] + deficit
		if deficit > 0 {
			active = append(active, int32(rk))
		}
	}
	dealt := make([]int32, dealtOff[n])
	next := slices.Clone(dealtOff[:n]) // rank => where its next dealt partition goes
	turn := 0
	for w, word := range kc.listed {
		for free := ^word; free != 0; free &= free - 1 {
			pid := int32(w*64 + bits.TrailingZeros64(free))
			if pid >= parts {
				break
			}
			if len(active) == 0 {
				return nil, fmt.Errorf("%w: more partitions than room", balance.ErrInternal)
			}
			rk := active[turn]
			dealt[next[rk]] = pid
			next[rk]++
			if turn++; turn == len(active) {
				active = slices.DeleteFunc(active, func(rk int32) bool { return next[rk] == dealtOff[rk+1] })
				turn = 0
			}
		}
	}
	if len(active) > 0 {
		return nil, fmt.Errorf("%w: fewer partitions than room", balance.ErrInternal)
	}

	// Each member's list: what it keeps, merged with what it is dealt.
	var goRank []int32 // topic => position in Go order; nil when that is Java's
	if order := cg.goOrder(); !slices.IsSorted(order) {
		goRank = make([]int32, len(order))
		for k, t := range order {
			goRank[t] = int32(k)
		}
	}
	backing := make([]TopicPartition, parts)
	out := make(Assignment, n)
	at := int32(0)
	for rk, m := range cg.kafkaOrder {
		mem := &cg.g.Members[m]
		got := dealt[dealtOff[rk]:dealtOff[rk+1]]
		size := kc.count[m] + int32(len(got))
		if size == 0 {
			out[mem.ID] = nil
			continue
		}
		list := backing[at : at+size : at+size]
		at += size
		// The kept partitions go last, so that merging the dealt ones in
		// front never overwrites a kept one not yet read.
		keep := list[len(got):]
		if kc.copyable[m] {
			copy(keep, mem.Owned)
		} else {
			cg.validOwned(mem, keep)
		}
		if len(got) > 0 {
			cg.mergeDealt(list, got, goRank)
		}
		out[mem.ID] = list
	}
	return out, nil
}

// validOwned writes into keep the partitions of m.Owned that exist,
// sorted by [TopicPartition.Compare]; keep has room for exactly those.
func (cg *compiledGroup) validOwned(m *Member, keep []TopicPartition) {
	k := 0
	for _, tp := range m.Owned {
		if t, ok := cg.topicIndex(tp.Topic); ok && tp.Partition >= 0 && tp.Partition < cg.numParts[t] {
			keep[k] = TopicPartition{cg.topics[t], tp.Partition}
			k++
		}
	}
	slices.SortFunc(keep, TopicPartition.Compare)
}

// mergeDealt fills list with the partitions numbered got (ascending) and
// the kept partitions already at its end (len(list)-len(got) of them,
// sorted), in [TopicPartition.Compare] order. goRank maps a topic to its
// position in Go order, or is nil when that is Java's order, which numbers
// the partitions; got is then reordered.
func (cg *compiledGroup) mergeDealt(list []TopicPartition, got []int32, goRank []int32) {
	topicOf := func(pid int32) int32 { return topicAt(cg.start, pid) }
	if goRank != nil {
		slices.SortFunc(got, func(a, b int32) int {
			if c := cmp.Compare(goRank[topicOf(a)], goRank[topicOf(b)]); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
	}
	keepAt := len(got) // next kept partition to merge
	t := int32(-1)
	for w, j := 0, 0; j < len(got); w++ {
		pid := got[j]
		if t < 0 || pid < cg.start[t] || pid >= cg.start[t+1] {
			t = topicOf(pid)
		}
		tp := TopicPartition{cg.topics[t], pid - cg.start[t]}
		if keepAt < len(list) && keptFirst(list[keepAt], tp) {
			list[w] = list[keepAt]
			keepAt++
			continue
		}
		list[w] = tp
		j++
	}
}

// keptFirst reports whether kept sorts before dealt; they are never equal.
func keptFirst(kept, dealt TopicPartition) bool {
	if c := strings.Compare(kept.Topic, dealt.Topic); c != 0 {
		return c < 0
	}
	return kept.Partition < dealt.Partition
}
