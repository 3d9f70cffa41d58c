package assign

// Members over their target in keptClaims: a group where members list
// more than their share, as when a member joins a balanced group, is
// answered from the members' lists as keepAndDeal answers a group where
// a member left, when nothing else needs settling partition by
// partition. The solver's fast path (balance's keepClaims and deal) picks
// which claims such a member gives up from the positions of its claims in
// pid order alone, and deals the partitions nobody keeps in two passes;
// both follow here from the lists, without a claim table, an owner per
// partition or a pass over the answer's owners
// (BenchmarkAssign/strategy=sticky/impl=ours/shape=uniform-100x10000-join1
// and strategy=cooperative-sticky/impl=ours/shape=uniform-10x100-join1 in
// bench/). TestKeepAndDealOverTarget holds every answer to the one
// settling every claim gives.

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/assigncalc/assigncalc/assign/internal/balance"
)

// keptTargets sets kept's claims and targets by rank, and reports
// whether keepAndDeal can answer: nobody lists more than its target, or
// Go's topic order is Java's, so that the positions in Owned of a member
// that does are its claims in pid order (giveUp). Otherwise it leaves
// kept nil. A member lists more than its target only where readKept let
// it (keepsEveryClaim's mayGiveUp), and then every list was read in
// order (inOrder), or readKept declined.
func (cg *compiledGroup) keptTargets() bool {
	kc := cg.kept
	n := len(cg.kafkaOrder)
	room := kc.byRank
	claims, target := room[:n:n], room[n:2*n:2*n]
	for rk, m := range cg.kafkaOrder {
		claims[rk] = kc.count[m]
	}
	balance.TargetsIn(claims, int(cg.start[len(cg.topics)]), target, room[2*n:3*n])
	kc.claims, kc.target = claims, target
	for rk := range cg.kafkaOrder {
		if claims[rk] > target[rk] {
			kc.over = true
		}
	}
	if kc.over && !slices.IsSorted(cg.goOrder()) {
		cg.kept = nil
		return false
	}
	return true
}

// giveUp marks in late (a bit per pid) the claims that each member over
// its target gives up, and returns where in its Owned lie those it keeps:
// for the member of rank rk, Owned[seg[2k]:seg[2k+1]] for k in
// [segOff[rk], segOff[rk+1]).
//
// The rule is balance's keepSpread without racks (the solver's fast path):
// a member keeps target of its c claims spread evenly across its runs of
// one topic, each run its lowest partitions, the runs that keep one more
// chosen by a rotation from its rank ([balance.KeptOfRuns]). When every
// run is one claim (a member given one partition of each topic, as a
// fresh round deals them), the claims it gives up are the c - target
// from position (rank + target) mod c on, circularly
// (balance.keepSingles): at most two stretches of Owned, found from c,
// target and the rank alone.
func (cg *compiledGroup) giveUp(late []uint64) (seg, segOff []int32) {
	kc := cg.kept
	n := len(cg.kafkaOrder)
	// Runs of one topic of each member over target, counted here rather
	// than while reading every list: a count in inOrder's loop cost the
	// groups where nobody is over target (BenchmarkAssign/strategy=sticky/
	// impl=ours/shape=uniform-100x10000-leave1 in bench/). In
	// keptTargets' scratch, free until dealKept.
	nruns := kc.byRank[2*n : 3*n : 3*n]
	most := 0 // bounds of segments: two for a member whose runs are single claims, one per run otherwise
	for rk, m := range cg.kafkaOrder {
		c := kc.claims[rk]
		if c <= kc.target[rk] {
			continue
		}
		owned := cg.g.Members[m].Owned
		nruns[rk] = 1
		for j := int32(1); j < c; j++ {
			if !sameName(owned[j].Topic, owned[j-1].Topic) {
				nruns[rk]++
			}
		}
		if nruns[rk] == c {
			most += 4
		} else {
			most += 2 * int(nruns[rk])
		}
	}
	room := make([]int32, n+1+most) // segOff and seg in one allocation
	segOff, seg = room[:n+1:n+1], room[n+1:n+1]
	var runs, kept []int32 // scratch for members with longer runs
	for rk, m := range cg.kafkaOrder {
		segOff[rk+1] = segOff[rk]
		c, t := kc.claims[rk], kc.target[rk]
		if c <= t {
			continue
		}
		owned := cg.g.Members[m].Owned
		if nruns[rk] == c {
			s, f := (int32(rk)+t)%c, c-t
			if e := s + f; e <= c {
				seg = appendSeg(seg, 0, s)
				seg = appendSeg(seg, e, c)
			} else {
				seg = appendSeg(seg, e-c, s)
			}
			// The claim at position k is of topic k or a later one (one
			// claim per topic, topics ascending), of topic k when the
			// member holds one of every topic: k is the first guess, and
			// the topic after the last one the next.
			ti := s
			for j := range f {
				k := (s + j) % c
				if k == 0 {
					ti = 0
				}
				ti = cg.markLate(late, &owned[k], ti) + 1
			}
		} else {
			runs = runs[:0]
			longest, from := int32(0), int32(0)
			for j := int32(1); j <= c; j++ {
				if j == c || !sameName(owned[j].Topic, owned[from].Topic) {
					runs = append(runs, from, j)
					longest, from = max(longest, j-from), j
				}
			}
			kept = slices.Grow(kept[:0], len(runs)/2)[:len(runs)/2]
			balance.KeptOfRuns(int32(rk), runs, longest, t, kept)
			ti := int32(0)
			for k, keep := range kept {
				from, to := runs[2*k], runs[2*k+1]
				seg = appendSeg(seg, from, from+keep)
				for j := from + keep; j < to; j++ {
					ti = cg.markLate(late, &owned[j], ti) // the run's topic, after the first
				}
			}
		}
		segOff[rk+1] = int32(len(seg) / 2)
	}
	return seg, segOff
}

// appendSeg appends [from, to) to seg when it is not empty.
func appendSeg(seg []int32, from, to int32) []int32 {
	if from < to {
		seg = append(seg, from, to)
	}
	return seg
}

// markLate sets the bit of tp, a claim of an inOrder list, in late, and
// returns its topic; guess is tried first, and the name looked up when
// it is not tp's topic.
func (cg *compiledGroup) markLate(late []uint64, tp *TopicPartition, guess int32) int32 {
	ti := guess
	if uint(ti) >= uint(len(cg.topics)) || !sameName(cg.topics[ti], tp.Topic) {
		ti, _ = cg.topicIndex(tp.Topic) // known: inOrder lists only partitions that exist
	}
	pid := cg.start[ti] + tp.Partition
	late[pid/64] |= 1 << (pid % 64)
	return ti
}

// keptDeal is where dealKept dealt the partitions nobody keeps: the
// member of rank rk got dealt[off[rk]:next[rk]], of which
// dealt[off[rk]:first[rk]] in the first pass (first is nil without a
// second pass).
type keptDeal struct {
	off, next, first []int32
	dealt            []int32
}

// dealKept deals the partitions nobody keeps to the members below their
// target, as the solver's deal does with the sticky adapter's Late (the
// partitions someone lists): first those nobody lists, then, with the
// round-robin restarted at the lowest member with room, those marked in
// late (given up by their claimant). Each pass goes in partition order,
// round by round, each round giving one to every member still below
// target, in rank order. (No previous owners: every claimant lists at
// one generation.)
func (cg *compiledGroup) dealKept(late []uint64) (keptDeal, error) {
	kc := cg.kept
	n := len(cg.kafkaOrder)
	parts := cg.start[len(cg.topics)]
	total := int32(0)
	for rk := range n {
		total += kc.target[rk] - min(kc.claims[rk], kc.target[rk])
	}
	k := 2*n + 1 // off and next
	if late != nil {
		k += n // first
	}
	room := make([]int32, k+int(total)) // and dealt, in one allocation
	d := keptDeal{off: room[: n+1 : n+1], next: room[n+1 : 2*n+1 : 2*n+1], dealt: room[k:]}
	active := kc.byRank[2*n : 2*n : 3*n] // ranks below target, in keptTargets' order scratch
	for rk := range n {
		deficit := kc.target[rk] - min(kc.claims[rk], kc.target[rk])
		d.off[rk+1] = d.off[rk] + deficit
		if deficit > 0 {
			active = append(active, int32(rk))
		}
	}
	copy(d.next, d.off[:n])
	dl := dealing{keptDeal: d, active: active} // shares d's arrays
	if err := dl.pass(kc.listed, true, parts); err != nil {
		return keptDeal{}, err
	}
	if late != nil {
		d.first = room[2*n+1 : k : k]
		copy(d.first, d.next)
		dl.restart()
		if err := dl.pass(late, false, parts); err != nil {
			return keptDeal{}, err
		}
	}
	if len(dl.active) > 0 {
		return keptDeal{}, fmt.Errorf("%w: fewer partitions than room", balance.ErrInternal)
	}
	return d, nil
}

// dealing is dealKept's round-robin: active lists the ranks below target
// that the round has not passed yet or that may still take more, turn
// the next to take.
type dealing struct {
	keptDeal
	active []int32
	turn   int
}

// pass deals the pids below parts whose bit is set in words (clear, with
// unset) in ascending order.
func (dl *dealing) pass(words []uint64, unset bool, parts int32) error {
	for w, word := range words {
		if unset {
			word = ^word
		}
		for ; word != 0; word &= word - 1 {
			pid := int32(w*64 + bits.TrailingZeros64(word))
			if pid >= parts {
				break
			}
			if len(dl.active) == 0 {
				return fmt.Errorf("%w: more partitions than room", balance.ErrInternal)
			}
			rk := dl.active[dl.turn]
			dl.dealt[dl.next[rk]] = pid
			dl.next[rk]++
			if dl.turn++; dl.turn == len(dl.active) {
				dl.restart()
			}
		}
	}
	return nil
}

// restart drops the members that reached their target and starts a round
// at the lowest member with room.
func (dl *dealing) restart() {
	dl.active = slices.DeleteFunc(dl.active, func(rk int32) bool { return dl.next[rk] == dl.off[rk+1] })
	dl.turn = 0
}
