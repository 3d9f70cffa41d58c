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
// claim needs settling partition by partition, the usual state of a group
// after a member leaves, restarts or joins: every member subscribes to the
// same topics, rack preference is off, every claimant lists at one
// generation and no partition is listed by two members (see
// [compiledGroup.keepsEveryClaim]). Every member then keeps what it lists
// up to its target; a member listing more gives up claims chosen by their
// positions in its list (see giveUp in keep_join.go); and the partitions
// nobody keeps are dealt to the members below their target: the
// assignment follows from which partitions are listed and how many each
// member lists, with no claim per partition to settle.
type keptClaims struct {
	listed []uint64 // bit pid: some member lists partition number pid
	count  []int32  // member index => partitions it lists that exist
	shape  []uint8  // member index => the shape of its Owned: inOrder, inRuns or scattered

	// claims and target map a rank to the partitions its member lists
	// and its target ([balance.Targets]); over says that some member
	// lists more than its target. keptTargets sets them.
	claims, target []int32
	over           bool

	// byRank is room for three arrays by rank: claims, target and
	// scratch (TargetsIn's order for keptTargets,
	// dealKept's members below target in between).
	byRank []int32

	// runs[runOff[m]:runOff[m+1]] are the runs of a member whose Owned
	// is inRuns: where each run of one topic lies in Owned, and that
	// topic's position in Go order. runOff is nil when no member is
	// inRuns.
	runs   []keptRun
	runOff []int32

	// lister holds, for the partitions listed by a scattered member,
	// 1 + that member's index (0 elsewhere), so that one pass over the
	// partitions writes every such member's list in order. It is nil
	// when no member is scattered.
	lister []int32

	// every says that lister holds the lister of every listed
	// partition, whatever the shape of its Owned (ownedKeptPacked).
	every bool
}

// Shapes of a member's Owned, from the cheapest to write out sorted to
// the dearest. Each costs O(len(Owned)) but for the sort of runs.
const (
	// inOrder: only partitions that exist, topics ascending in Go order,
	// each topic's partitions ascending: Owned is copied whole.
	inOrder uint8 = iota
	// inRuns: only partitions that exist, in runs of distinct topics,
	// each run's partitions ascending, the topics in another order (what
	// a caller building Owned from a map gives): the runs are sorted, then
	// copied.
	inRuns
	// scattered: anything else (a topic in several runs, partitions out
	// of order or gone): written by one pass over the partitions shared
	// by every scattered member (see lister).
	scattered
)

// keptRun is a run of one topic in a member's Owned: Owned[from:to], of
// the topic at position rank in Go order.
type keptRun struct{ rank, from, to int32 }

// keepsEveryClaim reports whether keptClaims can describe the group, as
// far as its shape tells before the claims are read: subscriptions are
// identical, rack preference is off, and, unless over allows members
// over their target, no member lists more than its target can be. (Ties,
// and the shapes of the lists of members over target, are found while
// reading the claims.) mayGiveUp says that some member may list more
// than its target (over allowed it).
//
// Targets are as [balance.Targets] sets them: with P partitions and
// n members, the P mod n members with the most claims get ⌈P/n⌉, the
// others ⌊P/n⌋. When nobody lists more than ⌈P/n⌉ and at most P mod n
// members list that many (and it exceeds ⌊P/n⌋), those members are among
// the P mod n with the most claims, so every member's target covers its
// list. Counting len(Owned) errs on the safe side: partitions that no
// longer exist only shorten a list.
func (cg *compiledGroup) keepsEveryClaim(over bool) (ok, mayGiveUp bool) {
	n := int32(len(cg.subs))
	parts := cg.start[len(cg.topics)]
	if parts == 0 || cg.stickyRackAware() { // no partitions, as when no members subscribe to any
		return false, false
	}
	for _, sub := range cg.subs[1:] {
		if !sameTopics(sub, cg.subs[0]) {
			return false, false
		}
	}
	q, r := parts/n, parts%n
	atCeiling := int32(0)
	for i := range cg.g.Members {
		switch c := int32(min(cg.own.count(i), int(parts)+1)); {
		case c > q+1:
			return over, over
		case c == q+1:
			atCeiling++
		}
	}
	if atCeiling > r {
		return over, over
	}
	return true, false
}

// readKept reads the claims into kept, and reports whether no partition
// is listed twice and, when over allows members over their target, each
// of them can give up claims by position (keptTargets; never with every).
// Otherwise kept is left nil: compile then settles the claims partition
// by partition, which also refuses a member listing a partition twice.
//
// With over, it stops at the first list that is not in order (inOrder):
// a group where members may list more than their target was settled
// partition by partition before keepAndDeal answered joins, and one whose
// lists come in another order (runs of topics as from a map) still is,
// having read no further than that list (TestKeepAndDealOverTarget's
// groups with runs reversed).
//
// With every set, lister records the lister of every listed partition,
// whatever the shape of its Owned (see [ownedKeptPacked]).
func (cg *compiledGroup) readKept(every, over bool) bool {
	return cg.readKeptWith(every, readFast, over && !every) && cg.keptTargets()
}

// How readKeptWith reads Owned lists.
type keptRead uint8

const (
	// readFast: through listed's fast path, with inOrder's table of
	// guesses when the group has tablePartitions partitions or more.
	readFast keptRead = iota
	// readTable: readFast with the table whatever the group's size.
	readTable
	// readGeneral: every list by listedFrom from its start, without the
	// fast path; the reference TestKeptFastPathMatchesGeneral holds the
	// others to.
	readGeneral
)

// readKeptWith is readKept, reading the lists as read says. With
// inOrderOnly, it reports false at the first Owned list that is not in
// order.
func (cg *compiledGroup) readKeptWith(every bool, read keptRead, inOrderOnly bool) bool {
	general := read == readGeneral
	g := cg.g
	parts := uint32(cg.start[len(cg.topics)])
	// count, keptTargets' arrays by rank and runOf in one allocation
	// (allocations are much of a small group's cost: BenchmarkAssign/
	// strategy=cooperative-sticky/impl=ours/shape=uniform-10x100-join1
	// in bench/).
	n, nt := len(g.Members), len(cg.topics)
	ints := make([]int32, 4*n+nt)
	kc := &keptClaims{
		listed: make([]uint64, (parts+63)/64),
		count:  ints[:n:n],
		byRank: ints[n : 4*n : 4*n],
		shape:  make([]uint8, n),
		every:  every,
	}
	var lister []int32 // with every: kc.lister, written as the claims are read
	if every {
		lister = make([]int32, parts)
		kc.lister = lister
	}
	after, goRank := cg.goSteps()
	r := &keptReader{
		cg: cg, kc: kc, after: after, goRank: goRank,
		runOf:  ints[4*n : 4*n+nt : 4*n+nt],
		lister: lister,
	}
	// The table costs an allocation, which a small group feels more
	// than reading its few lists through inOrder's lookups (BenchmarkAssign/
	// strategy=cooperative-sticky/impl=ours/shape=uniform-10x100-join1 in
	// bench/). Every member's subscription equals the first's, and
	// there is one (keepsEveryClaim, which readKept follows).
	if cg.own.given == nil && (read == readTable || read == readFast && parts >= tablePartitions) {
		sub := cg.subs[0]
		r.tab = make([]inTopic, len(sub))
		for at, t := range sub {
			r.tab[at] = inTopic{name: cg.topics[t], rank: goRank[t], start: cg.start[t], end: cg.start[t+1]}
		}
	}
	for i := range g.Members {
		firstRun := len(kc.runs)
		r.pids = r.pids[:0]
		var count int32
		var shape uint8
		switch {
		case cg.own.given == nil && general:
			count, shape = r.listedFrom(i, g.Members[i].Owned, 0, 0)
		case cg.own.given == nil && inOrderOnly:
			owned := g.Members[i].Owned
			k, c := r.inOrder(i, owned)
			if k < len(owned) {
				return false
			}
			count, shape = c, inOrder
			r.firstRun = len(kc.runs)
		case cg.own.given == nil:
			count, shape = r.listed(i, g.Members[i].Owned)
		default:
			count, shape = r.runs(i)
		}
		kc.count[i], kc.shape[i] = count, shape
		switch shape {
		case inOrder, scattered:
			kc.runs = kc.runs[:firstRun]
		case inRuns:
			if kc.runOff == nil {
				kc.runOff = make([]int32, len(g.Members)+1)
			}
		}
		if kc.runOff != nil {
			kc.runOff[i+1] = int32(len(kc.runs))
		}
		if shape == scattered && !every {
			if kc.lister == nil {
				kc.lister = make([]int32, parts)
			}
			for _, pid := range r.pids {
				kc.lister[pid] = int32(i) + 1
			}
		}
	}
	// A partition listed twice sets its bit twice: fewer bits than
	// claims (cheaper than testing the bit at every claim).
	claims, set := 0, 0
	for _, c := range kc.count {
		claims += int(c)
	}
	for _, w := range kc.listed {
		set += bits.OnesCount64(w)
	}
	if set != claims {
		return false
	}
	cg.kept = kc
	return true
}

// tablePartitions is how many partitions a group needs for readKept to
// build inOrder's table of guesses.
const tablePartitions = 1024

// keptReader reads the claims of one member at a time for readKept, in
// one of two loops over the same rules: listed reads an Owned list
// partition by partition, runs reads given runs ([AssignPackedOwned]) run
// by run. Members of a churned group often own one partition of each of
// many topics, where a loop per partition that branches when the topic
// changes costs less than a loop per run (issue 30); differential tests
// hold the two loops to the same answers (lead_test.go).
type keptReader struct {
	cg            *compiledGroup
	kc            *keptClaims
	after, goRank []int32 // goSteps
	runOf         []int32 // topic => 1 + the last member with a run of it
	lister        []int32 // with kc.every: the lister of each partition, written as read
	pids          []int32 // the current member's, in case it is scattered
	firstRun      int     // the current member's first run in kc.runs
	lastRank      int32   // the current member's last known topic's rank in Go order

	// tab holds inOrder's guesses, the topics of the subscription every
	// member's equals (see keepsEveryClaim) in order.
	tab []inTopic
}

// startRun notes that member i's run of the topic named name starts at
// position k of its claims; ti and known are the run before's topic. It
// returns the run's topic, whether it is known, and the shape with the
// run.
func (r *keptReader) startRun(i int, k int32, name string, ti int32, known bool, shape uint8) (int32, bool, uint8) {
	kc := r.kc
	ti, known = r.cg.topicAfter(r.after, ti, known, name)
	switch {
	case !known || r.runOf[ti] == int32(i)+1:
		shape = scattered
	case shape == inOrder && r.goRank[ti] < r.lastRank:
		shape = inRuns
	}
	if shape != scattered && len(kc.runs) > r.firstRun {
		kc.runs[len(kc.runs)-1].to = k // the run before ends here
	}
	if known {
		r.lastRank, r.runOf[ti] = r.goRank[ti], int32(i)+1
		if shape != scattered {
			kc.runs = append(kc.runs, keptRun{rank: r.goRank[ti], from: k})
		}
	}
	return ti, known, shape
}

// claim marks partition pid listed by member i.
func (r *keptReader) claim(i int, pid uint32) {
	r.kc.listed[pid/64] |= 1 << (pid % 64)
	if r.kc.every {
		r.lister[pid] = int32(i) + 1
	} else {
		r.pids = append(r.pids, int32(pid)) // cheaper than finding them again if scattered
	}
}

// listed reads member i's Owned list, owned, and returns how many of its
// partitions exist and its shape. Lists in order (what Carry and every
// client give) are read by inOrder, which keeps no runs and no pids;
// only where a list leaves that order is its prefix read again for them
// (BenchmarkChurnShapes, where members own one partition of each of
// many topics; TestKeptFastPathMatchesGeneral holds the two to one answer).
func (r *keptReader) listed(i int, owned []TopicPartition) (count int32, shape uint8) {
	k, count := r.inOrder(i, owned)
	if k == len(owned) {
		r.firstRun = len(r.kc.runs)
		return count, inOrder
	}
	return r.listedFrom(i, owned, k, count)
}

// listedFrom reads member i's Owned list from position k on, inOrder
// having claimed owned[:k] (count partitions, in order): it first
// records that prefix's runs and pids as startRun and claim would have,
// then reads the rest partition by partition.
func (r *keptReader) listedFrom(i int, owned []TopicPartition, k int, count int32) (int32, uint8) {
	cg := r.cg
	r.firstRun, r.lastRank = len(r.kc.runs), -1
	lastTopic, ti, known := "", int32(0), false // "" is never a known topic
	start, np, lastPart := int32(0), uint32(0), int32(-1)
	shape := inOrder
	for j, tp := range owned[:k] {
		if !sameName(tp.Topic, lastTopic) {
			ti, known, shape = r.startRun(i, int32(j), tp.Topic, ti, known, shape)
			lastTopic, start = tp.Topic, cg.start[ti]
		}
		if !r.kc.every {
			r.pids = append(r.pids, start+tp.Partition)
		}
	}
	if k > 0 {
		lastPart, np = owned[k-1].Partition, uint32(cg.numParts[ti])
	}
	for j, tp := range owned[k:] {
		if !sameName(tp.Topic, lastTopic) {
			ti, known, shape = r.startRun(i, int32(k+j), tp.Topic, ti, known, shape)
			lastTopic, lastPart = tp.Topic, -1
			if known {
				start, np = cg.start[ti], uint32(cg.numParts[ti])
			}
		}
		if !known || uint32(tp.Partition) >= np {
			shape = scattered
			continue // the partition no longer exists, or nobody wants it: dropped, as Kafka does
		}
		if tp.Partition <= lastPart {
			shape = scattered
		}
		lastPart = tp.Partition
		r.claim(i, uint32(start+tp.Partition))
		count++
	}
	if shape != scattered && len(r.kc.runs) > r.firstRun {
		r.kc.runs[len(r.kc.runs)-1].to = int32(len(owned))
	}
	return count, shape
}

// runs reads member i's given runs and returns how many of their
// partitions exist and their shape.
func (r *keptReader) runs(i int) (count int32, shape uint8) {
	cg := r.cg
	r.firstRun, r.lastRank = len(r.kc.runs), -1
	ti, known := int32(0), false
	runs, from := cg.own.given.member(i)
	base := from
	for _, run := range runs {
		ps := cg.own.given.Parts[from:run.End]
		k := from - base // the run's position in the member's claims
		from = run.End
		if ti, known, shape = r.startRun(i, k, run.Topic, ti, known, shape); !known {
			shape = scattered
			continue // nobody wants the topic, or it is gone: dropped, as Kafka does
		}
		start, np, lastPart := cg.start[ti], uint32(cg.numParts[ti]), int32(-1)
		for _, p := range ps {
			if uint32(p) >= np {
				shape = scattered
				continue // the partition no longer exists: dropped, as Kafka does
			}
			if p <= lastPart {
				shape = scattered
			}
			lastPart = p
			r.claim(i, uint32(start+p))
			count++
		}
	}
	if shape != scattered && len(r.kc.runs) > r.firstRun {
		r.kc.runs[len(r.kc.runs)-1].to = from - base
	}
	return count, shape
}

// keepAndDeal assigns a group described by kept: every member keeps what
// it lists up to its target, a member over its target gives up the claims
// giveUp picks, and the partitions nobody keeps are dealt round-robin to
// the members below their target (dealKept): the answer of the solver's
// fast path, reached without a claim or an owner per partition. Members
// whose Owned is already in order have it copied whole.
//
// With withhold (CooperativeSticky) the partitions given up are withheld
// this round, which is the round settledTarget gives. Its first solve is
// keepAndDeal(false)'s target, which hands exactly those partitions to
// members other than their claimant; its next solve has this round's
// answer as the claims, and keeps every one of them: only members whose
// target was ⌈P/n⌉ can hold ⌈P/n⌉, and there are P mod n of those, so no
// new target is below what its member holds. A member over its target is
// full and stays so: at ⌈P/n⌉ it holds ⌈P/n⌉; at ⌊P/n⌋, each of the P mod
// n members at ⌈P/n⌉ listed at least as many claims as it did, more than
// ⌊P/n⌋, so holds ⌈P/n⌉ and keeps that target. The partitions given up
// therefore go to members other than their claimant again, the same ones
// are withheld, settledTarget stops there, and this round is this answer
// whether or not the new targets move the extra partition between
// members below theirs (TestSmallCooperativeUnsettled works one such
// group by hand; TestKeepAndDealOverTarget holds both strategies to
// settling every claim).
func (cg *compiledGroup) keepAndDeal(withhold bool) (Assignment, error) {
	kc := cg.kept
	n := len(cg.kafkaOrder)
	parts := cg.start[len(cg.topics)]

	var late []uint64       // bit pid: given up by a member over its target
	var seg, segOff []int32 // what those members keep (giveUp)
	if kc.over {
		late = make([]uint64, len(kc.listed))
		seg, segOff = cg.giveUp(late)
	}
	d, err := cg.dealKept(late)
	if err != nil {
		return nil, err
	}
	if cg.pack != nil {
		return nil, cg.packKept(d.dealt, d.off)
	}

	// Each member's list: what it keeps, merged with what it is dealt.
	var goRank []int32 // topic => position in Go order; nil when that is Java's
	if order := cg.goOrder(); !slices.IsSorted(order) {
		goRank = make([]int32, len(order))
		for k, t := range order {
			goRank[t] = int32(k)
		}
	}
	gets := d.next // rank => the end of what it gets this round in dealt
	if withhold && late != nil {
		gets = d.first // the partitions given up are withheld
	}
	backing := make([]TopicPartition, parts)
	out := make(Assignment, n)
	var lists [][]TopicPartition // member index => its list, while some member is scattered (fillListed writes it)
	var keepAt []int32           // member index => where its kept partitions start in its list; with lister only
	if kc.lister != nil {
		lists, keepAt = make([][]TopicPartition, n), make([]int32, n)
	}
	at := int32(0)
	var slot []int32 // scratch for copyRuns
	for rk, m := range cg.kafkaOrder {
		got := d.dealt[d.off[rk]:gets[rk]]
		if late != nil && !withhold && d.first[rk] > d.off[rk] && d.next[rk] > d.first[rk] {
			slices.Sort(got) // dealt in two passes; Go's order is Java's (keptTargets)
		}
		size := min(kc.count[m], kc.target[rk]) + int32(len(got))
		list := backing[at : at+size : at+size]
		at += size
		// The kept partitions go last, so that merging the dealt ones in
		// front never overwrites a kept one not yet read.
		switch owned := cg.g.Members[m].Owned; kc.shape[m] {
		case inOrder:
			if kc.count[m] <= kc.target[rk] {
				copy(list[len(got):], owned)
				break
			}
			w := len(got)
			for k := segOff[rk]; k < segOff[rk+1]; k++ {
				w += copy(list[w:], owned[seg[2*k]:seg[2*k+1]])
			}
		case inRuns:
			if slot == nil {
				slot = make([]int32, len(cg.topics))
			}
			cg.copyRuns(list[len(got):], owned, kc.runs[kc.runOff[m]:kc.runOff[m+1]], slot)
		default:
			keepAt[m] = int32(len(got))
		}
		if lists != nil {
			lists[m] = list
			continue
		}
		// Nobody is scattered: the list is done but for the dealt
		// partitions (BenchmarkChurnShapes, one pass as at 3ec48c8).
		if len(list) == 0 {
			list = nil
		} else if len(got) > 0 {
			cg.mergeDealt(list, got, goRank)
		}
		out[cg.g.Members[m].ID] = list
	}
	if lists == nil {
		return out, nil
	}
	cg.fillListed(lists, keepAt)
	for rk, m := range cg.kafkaOrder {
		list := lists[m]
		if len(list) == 0 {
			list = nil
		} else if got := d.dealt[d.off[rk]:gets[rk]]; len(got) > 0 {
			cg.mergeDealt(list, got, goRank)
		}
		out[cg.g.Members[m].ID] = list
	}
	return out, nil
}

// copyRuns writes the runs of an inRuns member's Owned into keep, in
// [TopicPartition.Compare] order. A member with runs of many of the
// topics has them put in order by slot, a position per topic (all 0 on
// entry and on return), in O(topics + partitions); one with runs of few
// topics has them sorted: both beat sorting every member's runs, and
// going through fillListed, on BenchmarkOwnedOrder/strategy=sticky (every
// member's topics shuffled).
func (cg *compiledGroup) copyRuns(keep, owned []TopicPartition, runs []keptRun, slot []int32) {
	if len(runs)*8 >= len(slot) {
		for k, run := range runs {
			slot[run.rank] = int32(k) + 1
		}
		at := 0
		for rank, k := range slot {
			if k > 0 {
				run := runs[k-1]
				at += copy(keep[at:], owned[run.from:run.to])
				slot[rank] = 0
			}
		}
		return
	}
	slices.SortFunc(runs, func(a, b keptRun) int { return cmp.Compare(a.rank, b.rank) })
	at := 0
	for _, run := range runs {
		at += copy(keep[at:], owned[run.from:run.to])
	}
}

// packKept packs keepAndDeal's answer into cg.pack from owners, with no
// partition list: the lister of every listed partition (ownedKeptPacked
// recorded it) keeps it, and the partitions dealt to the member of rank
// rk, dealt[dealtOff[rk]:dealtOff[rk+1]], go to it.
func (cg *compiledGroup) packKept(dealt, dealtOff []int32) error {
	kc := cg.kept
	if !kc.every {
		return fmt.Errorf("%w: packing kept claims that were not all recorded", balance.ErrInternal)
	}
	owner := kc.lister // 1 + member index, or 0: made the owner in place
	if owner == nil {
		owner = make([]int32, cg.start[len(cg.topics)])
	}
	for pid := range owner {
		owner[pid]--
	}
	for rk, m := range cg.kafkaOrder {
		for _, pid := range dealt[dealtOff[rk]:dealtOff[rk+1]] {
			owner[pid] = m
		}
	}
	cg.packOwners(owner, nil, nil)
	return nil
}

// fillListed writes the kept partitions of the scattered members into their lists from next[m] on (where the partitions dealt
// to them end), in [TopicPartition.Compare] order: one pass over the
// partitions, topics in Go order. It uses next as its cursors.
func (cg *compiledGroup) fillListed(lists [][]TopicPartition, next []int32) {
	lister := cg.kept.lister
	for _, t := range cg.goOrder() {
		name, first := cg.topics[t], cg.start[t]
		for pid, l := range lister[first:cg.start[t+1]] {
			if l > 0 && cg.kept.shape[l-1] == scattered {
				m := l - 1
				lists[m][next[m]] = TopicPartition{name, int32(pid)}
				next[m]++
			}
		}
	}
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
