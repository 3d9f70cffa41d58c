package assign

import (
	"errors"
	"fmt"
)

// claimTable is the resolution of every claim: rules 2, 3 and 5 per
// partition (numbered as in compiledGroup.start), members by rank in
// Kafka's member order. Rule 4 is the reader's: the sticky strategies
// have the solver apply it (stickyProblem.claims).
//
// Claims are what the members' Owned lists say about who owned what before
// this rebalance. Every reader of Owned goes through this file: the sticky
// strategies' stickiness and KIP-341 preference, CooperativeSticky's
// withholding, and [Owned] (so [Moved] and the command line's counts). The
// rules, stated once:
//
//  1. Member m claims, at gen(m) (its Generation), the partitions of its
//     Owned. Claims of partitions that no longer exist (a deleted topic, a
//     topic that shrank) and of topics nobody subscribes to are dropped:
//     Kafka tolerates such history silently, and so do we. A member that
//     lists one partition twice is refused ([ErrDuplicateOwned]).
//
//  2. The newest generation wins: the owner of p is the member claiming
//     it at the highest generation anyone claims it at,
//
//     newest(p) = { m : p ∈ owned(m), gen(m) = max{ gen(k) : p ∈ owned(k) } }
//     owner(p)  = m when newest(p) = {m}
//
//  3. Ties at the newest generation cancel (KAFKA-12984): when newest(p)
//     holds several members, p has no owner, and every one of them must
//     revoke it before anyone gets it.
//
//  4. An owner that no longer subscribes to p's topic still holds p until
//     it revokes it (CooperativeSticky withholds p from everyone else),
//     but cannot keep it: its claim counts for safety, not stickiness.
//
//  5. The previous owner of p (KIP-341) is the best claim below the newest
//     generation by a member that still subscribes to p's topic: the
//     highest generation, then the first in Kafka's member order. It is
//     preferred when p must go somewhere new, and makes no hand-over safe.
//
//  6. Nothing depends on the order of Group.Members or of any Owned: each
//     rule is a function of the set of (member, generation, partition)
//     claims, and member order enters only as Kafka's order (rule 5).
//
// The common case has one generation: every member that lists anything
// lists it at the same generation, after any ordinary rebalance. Then
// rules 2 and 3 reduce to "the only lister owns it; two listers tie", and
// compile resolves claims as it reads them ([claimTable.note]), with no
// list per member. When furthermore no claim can be lost (see
// [keptClaims]), the sticky strategies need not even resolve claims per
// partition: every member keeps all it lists.
type claimTable struct {
	owner []int32 // pid => rank of owner(p), or -1 (nobody lists it, or newest(p) ties)
	state []uint8 // pid => listed (someone lists it) | tied (newest(p) ties)

	// top holds, while generations differ, the newest generation
	// claiming each listed pid; nil when every claim has one generation.
	top []int32

	// lower reports whether some claim lost to a newer one, so that
	// previousOwners has something to find.
	lower bool

	// prev maps a pid to the rank of its previous owner (rule 5), or -1;
	// nil until previousOwners finds one.
	prev []int32
}

// Bits of claimTable.state.
const (
	listed uint8 = 1 << iota
	tied
)

func newClaimTable(parts int32, mixed bool) *claimTable {
	ct := &claimTable{}
	ct.init(parts, mixed)
	return ct
}

// init makes ct the table of parts partitions nobody lists yet, top
// and owner in one allocation.
func (ct *claimTable) init(parts int32, mixed bool) {
	n := parts
	if mixed {
		n *= 2
	}
	both := make([]int32, n)
	ct.owner, ct.state = both[:parts:parts], make([]uint8, parts)
	for pid := range ct.owner {
		ct.owner[pid] = -1
	}
	if mixed {
		ct.top = both[parts:]
	}
}

// note records that the member of rank r claims pid at generation gen
// (rules 2 and 3). The table it leaves does not depend on the order of
// the calls.
func (ct *claimTable) note(pid int32, r rank, gen int32) {
	if ct.top == nil {
		ct.noteOneGeneration(pid, r)
	} else {
		ct.noteMixed(pid, r, gen)
	}
}

// noteOneGeneration is note when every claim has one generation (top is
// nil): the first claim of pid owns it, a second ties it. compile calls
// it directly for each claim it reads, where it inlines, which pays on
// BenchmarkSticky/heterogeneous/members=1000/topics=2000/leave-join.
func (ct *claimTable) noteOneGeneration(pid int32, r rank) {
	owner, state := int32(r), listed
	if ct.state[pid] != 0 {
		owner, state = -1, listed|tied
	}
	ct.owner[pid], ct.state[pid] = owner, state
}

// noteMixed is note while generations differ (top is set): a newer
// claim replaces the owner (and clears a tie), an equal one ties, an
// older one loses.
func (ct *claimTable) noteMixed(pid int32, r rank, gen int32) {
	switch {
	case ct.state[pid] == 0:
		ct.owner[pid], ct.state[pid], ct.top[pid] = int32(r), listed, gen
	case gen == ct.top[pid]:
		ct.owner[pid], ct.state[pid] = -1, listed|tied
	case gen > ct.top[pid]:
		ct.owner[pid], ct.state[pid], ct.top[pid] = int32(r), listed, gen // no longer tied, if it was
		ct.lower = true
	default:
		ct.lower = true
	}
}

// previousOwners fills prev (rule 5) from the members' claims as compile
// listed them (compiledGroup.owned); subscribes(r, t) reports whether the
// member of rank r subscribes to topic t.
func (ct *claimTable) previousOwners(cg *compiledGroup, subscribes func(r rank, t int32) bool) {
	if !ct.lower {
		return
	}
	ct.prev = make([]int32, len(ct.owner))
	prevGen := make([]int32, len(ct.owner))
	for pid := range ct.prev {
		ct.prev[pid] = -1
	}
	for r, m := range cg.kafkaOrder {
		gen := cg.g.Members[m].Generation
		for _, pid := range cg.owned(m) {
			if gen < ct.top[pid] && (ct.prev[pid] < 0 || gen > prevGen[pid]) && subscribes(rank(r), topicAt(cg.start, pid)) {
				ct.prev[pid], prevGen[pid] = int32(r), gen
			}
		}
	}
}

// resolveListed resolves the claims compile listed per member
// (ownedListed), in Kafka's member order: the same table ownedResolved
// builds as compile reads Owned in input order.
func (cg *compiledGroup) resolveListed() *claimTable {
	if len(cg.ownedPids) == 0 {
		return nil
	}
	gen, mixed, some := int32(0), false, false
	for m := range cg.g.Members {
		if len(cg.owned(int32(m))) > 0 {
			mixed = mixed || some && cg.g.Members[m].Generation != gen
			gen, some = cg.g.Members[m].Generation, true
		}
	}
	ct := newClaimTable(cg.start[len(cg.topics)], mixed)
	for r, m := range cg.kafkaOrder {
		gen := cg.g.Members[m].Generation
		for _, pid := range cg.owned(m) {
			ct.note(pid, rank(r), gen)
		}
	}
	return ct
}

// ownedRead says what compile makes of the members' Owned lists. Every
// use refuses a partition listed twice by one member.
type ownedRead uint8

const (
	// ownedIgnored keeps nothing: Range and RoundRobin ignore ownership.
	ownedIgnored ownedRead = iota

	// ownedListed numbers every member's claims (ownedOff, ownedPids),
	// to be resolved later by resolveListed: the reference the tests hold
	// ownedResolved to.
	ownedListed

	// ownedResolved resolves the claims into claims as compile reads
	// them. When generations differ it also lists them per member, as
	// ownedListed does, for previousOwners.
	ownedResolved

	// ownedKeptIfLossless is ownedResolved, except that when no claim
	// needs settling partition by partition (none can be lost, or the
	// members over target can give up claims by their positions in
	// Owned) it records only what [keptClaims] holds, in kept.
	ownedKeptIfLossless

	// ownedKeptPacked is ownedKeptIfLossless for [AssignPacked]: kept
	// also records the lister of every listed partition, from which
	// keepAndDeal packs the answer without writing partition lists.
	ownedKeptPacked

	// ownedUnread does not look at Owned at all: for the KIP-848
	// assignors, whose Owned is a current target that Uniform reads and
	// checks itself (readTarget, which also refuses a repeat) and
	// ServerRange ignores.
	ownedUnread
)

// compileOwned reads the members' claims for use, from given when it is
// not nil (the members then have no Owned lists: [AssignPackedOwned]),
// otherwise from the members' Owned lists, each turned into runs as it
// is read (ownedClaims): either way every rule below reads the same runs.
//
// Clients list owned partitions topic by topic, partitions ascending, as
// every assignment is sorted: a member whose list has that shape cannot
// repeat a partition, which a stamp per topic and the last partition seen
// prove in O(1) per claim. Only a member whose list has another shape is
// checked with a mark per partition.
func (cg *compiledGroup) compileOwned(use ownedRead, given *OwnedRuns) error {
	if use == ownedUnread {
		return nil
	}
	g := cg.g
	cg.own = ownedClaims{given: given, members: g.Members}
	own := &cg.own
	total := 0
	gen, mixed, some := int32(0), false, false
	most := 0 // claims of one member
	for i := range g.Members {
		if c := own.count(i); c > 0 {
			total += c
			most = max(most, c)
			mixed = mixed || some && g.Members[i].Generation != gen
			gen, some = g.Members[i].Generation, true
		}
	}
	if total == 0 {
		return nil
	}
	if use == ownedKeptIfLossless || use == ownedKeptPacked {
		over := use == ownedKeptIfLossless && given == nil // members over target give up claims by position in Owned
		if ok, mayGiveUp := cg.keepsEveryClaim(over); !mixed && ok && cg.readKept(use == ownedKeptPacked, mayGiveUp) {
			return nil
		}
		use = ownedResolved // settle the claims partition by partition, refusing repeats
	}
	parts := cg.start[len(cg.topics)]
	lists := use == ownedListed || use == ownedResolved && mixed
	// runOf and pids in one allocation, sized for the most pids can
	// hold (allocations are most of what a small group costs:
	// BenchmarkAssign/strategy=sticky/impl=ours/shape=uniform-10x100-join1
	// in bench/).
	if lists {
		most = total
	}
	scratch := make([]int32, len(cg.topics)+most)
	runOf := scratch[:len(cg.topics):len(cg.topics)] // topic => 1 + the last member with a run of it
	pids := scratch[len(cg.topics):len(cg.topics)]   // with lists: every member's; otherwise the current member's
	var rankOf []int32                               // ownedResolved: member index => rank
	if lists {
		cg.ownedOff = make([]int32, len(g.Members)+1)
	}
	var ct *claimTable
	if use == ownedResolved {
		ct = &cg.table
		ct.init(parts, mixed)
		cg.claims = ct
		rankOf = cg.ranks()
	}
	after, _ := cg.goSteps()
	var marks []int32 // pid => 1 + the last member marked listing it; nil until needed
	for i := range g.Members {
		m := &g.Members[i]
		if !lists {
			pids = pids[:0]
		}
		first := len(pids)
		sorted := true // so far: runs of distinct topics, partitions ascending within each
		ti, known := int32(0), false
		guess := ownedGuess{sub: cg.subs[i]}
		if own.given == nil {
			// An Owned list, in one pass: a run's topic is found at its
			// first entry, and the others only compare names with it.
			// Reading it as runs first passed over every entry twice
			// (BenchmarkAssign/strategy=sticky/impl=ours/shape=uniform-100x10000-join1
			// in bench/, where every run is one partition).
			//
			// An entry whose name is the run's very string goes on with
			// the run; any other is first looked for by address among the
			// next topics of the member's subscription (guess.find), and
			// only then compared with the run's name byte by byte. Where
			// members own a few partitions of many topics nearly every
			// entry starts a run, and comparing its bytes with the run
			// before was wasted (BenchmarkAssign/strategy=sticky/impl=ours/
			// shape=hetero-100x200t-leave1 in bench/). A run is still a
			// longest stretch of one topic, however its names are spelt in
			// memory: a topic found again goes on with its run.
			var runName string
			start, np, lastPart := int32(0), int32(0), int32(-1)
			for k := range m.Owned {
				tp := &m.Owned[k]
				if k == 0 || !sameString(tp.Topic, runName) {
					prev, was := ti, known && k > 0
					if t, ok := guess.find(cg.topics, tp.Topic); ok {
						ti, known = t, true
					} else if k == 0 || !sameName(tp.Topic, runName) {
						ti, known = cg.topicAfter(after, ti, known, tp.Topic)
					}
					runName = tp.Topic
					if known && !(was && ti == prev) {
						sorted = sorted && runOf[ti] != int32(i)+1
						runOf[ti] = int32(i) + 1
						start, np, lastPart = cg.start[ti], cg.numParts[ti], -1
					}
				}
				p := tp.Partition
				if !known || uint32(p) >= uint32(np) {
					continue // as below
				}
				sorted = sorted && p > lastPart
				lastPart = p
				pid := start + p
				pids = append(pids, pid)
				if ct != nil {
					if mixed {
						ct.noteMixed(pid, rank(rankOf[i]), m.Generation)
					} else {
						ct.noteOneGeneration(pid, rank(rankOf[i]))
					}
				}
			}
		} else {
			cr := own.member(i)
			for cr.next() {
				if name := cr.topic(); guess.at < len(guess.sub) && sameString(cg.topics[guess.sub[guess.at]], name) {
					ti, known = guess.sub[guess.at], true // ownedTopic's first guess, in line: most runs where members own one partition of each topic
					guess.at, guess.misses = guess.at+1, 0
				} else {
					ti, known = cg.ownedTopic(&guess, after, ti, known, name)
				}
				if !known {
					continue // nobody wants the topic, or it is gone: dropped, as Kafka does
				}
				sorted = sorted && runOf[ti] != int32(i)+1
				runOf[ti] = int32(i) + 1
				start, np, lastPart := cg.start[ti], cg.numParts[ti], int32(-1)
				for k := cr.from; k < cr.to; k++ {
					p := cr.part(k)
					if uint32(p) >= uint32(np) {
						continue // the partition no longer exists: dropped, as Kafka does
					}
					sorted = sorted && p > lastPart
					lastPart = p
					pid := start + p
					pids = append(pids, pid)
					if ct != nil {
						// m listing pid twice looks tied: refused below.
						if mixed {
							ct.noteMixed(pid, rank(rankOf[i]), m.Generation)
						} else {
							ct.noteOneGeneration(pid, rank(rankOf[i]))
						}
					}
				}
			}
		}
		if !sorted {
			if marks == nil {
				marks = make([]int32, parts)
			}
			for _, pid := range pids[first:] {
				if marks[pid] == int32(i)+1 {
					t := topicAt(cg.start, pid)
					e := memberError(i, m, ErrDuplicateOwned)
					e.Topic, e.Partition = cg.topics[t], pid-cg.start[t]
					return e
				}
				marks[pid] = int32(i) + 1
			}
		}
		if lists {
			cg.ownedOff[i+1] = int32(len(pids))
		}
	}
	if lists {
		cg.ownedPids = pids
	}
	return nil
}

// find returns the topic among the next ownedGuesses of the member's
// subscription, from g.at, whose name is name's very string, and moves
// g.at past it: ownedTopic's guess. After two misses in a row it stops
// guessing (a member whose names are not the metadata's strings).
func (g *ownedGuess) find(topics []string, name string) (int32, bool) {
	end := min(g.at+ownedGuesses, len(g.sub))
	for k := g.at; k < end; k++ {
		if t := g.sub[k]; sameString(topics[t], name) {
			g.at, g.misses = k+1, 0
			return t, true
		}
	}
	if g.sub != nil {
		if g.misses++; g.misses >= 2 {
			g.sub = nil
		}
	}
	return -1, false
}

// owned returns the partitions member m claims (see compiledGroup.ownedPids).
func (cg *compiledGroup) owned(m int32) []int32 {
	if cg.ownedOff == nil {
		return nil
	}
	return cg.ownedPids[cg.ownedOff[m]:cg.ownedOff[m+1]]
}

// OwnedRuns is every member's Owned list of a group in one slab, in the
// form a group leader decodes it from the wire (topic, then its
// partitions): member i's runs are Runs[RunOff[i]:RunOff[i+1]], and run
// k's partitions are Parts[Runs[k-1].End:Runs[k].End] (from 0 for the
// first run). Read in order, member i's runs list exactly what an Owned
// list of the same topics and partitions, in the same order, lists; the
// claims it makes are the same ([AssignPackedOwned]). It holds 4 bytes
// per owned partition and one run per topic of a member, where Owned
// takes 24 bytes per partition.
//
// It may also carry every member's subscription, as indices into Names
// (Subs), in place of the members' Topics, which must then be empty:
// member i subscribes to Names[k] for each k of Subs[i], in order,
// exactly as if its Topics listed those names. A leader that interned
// the names as it decoded them (package wire) passes them so, with 4
// bytes per name per member where Topics takes a 16-byte string header
// that the garbage collector scans, and compile finds each of Names in
// the metadata once instead of once per member.
type OwnedRuns struct {
	RunOff []int32    // member index => its first run; len(Members)+1 entries
	Runs   []OwnedRun // every member's runs, member by member
	Parts  []int32    // every run's partitions, run by run

	Names []string  // with Subs: the names its indices refer to
	Subs  [][]int32 // nil, or member index => its subscription as indices into Names; members may share a slice
}

// OwnedRun is one topic of a member's Owned: its partitions end at
// Parts[End] (see [OwnedRuns]).
type OwnedRun struct {
	Topic string
	End   int32
}

// ErrOwnedRuns reports an [OwnedRuns] whose offsets do not describe its
// arrays, or one given with a group whose members also have Owned lists.
var ErrOwnedRuns = errors.New("malformed owned runs")

// member returns member i's runs and where its partitions start in Parts.
// o may be nil: nobody owns anything.
func (o *OwnedRuns) member(i int) ([]OwnedRun, int32) {
	if o == nil {
		return nil, 0
	}
	first := o.RunOff[i]
	base := int32(0)
	if first > 0 {
		base = o.Runs[first-1].End
	}
	return o.Runs[first:o.RunOff[i+1]], base
}

// count returns how many partitions member i lists.
func (o *OwnedRuns) count(i int) int {
	runs, base := o.member(i)
	if len(runs) == 0 {
		return 0
	}
	return int(runs[len(runs)-1].End - base)
}

// check reports whether o describes its arrays for a group of n members.
func (o *OwnedRuns) check(n int) error {
	if len(o.RunOff) != n+1 {
		return fmt.Errorf("%w: %d run offsets for %d members", ErrOwnedRuns, len(o.RunOff), n)
	}
	if o.RunOff[0] != 0 || o.RunOff[n] != int32(len(o.Runs)) {
		return fmt.Errorf("%w: run offsets span [%d, %d), not the %d runs", ErrOwnedRuns, o.RunOff[0], o.RunOff[n], len(o.Runs))
	}
	for i := range n {
		if o.RunOff[i+1] < o.RunOff[i] {
			return fmt.Errorf("%w: member %d's runs end at %d, before they start at %d", ErrOwnedRuns, i, o.RunOff[i+1], o.RunOff[i])
		}
	}
	end := int32(0)
	for k, r := range o.Runs {
		if r.End < end {
			return fmt.Errorf("%w: run %d ends at %d, before run %d's end %d", ErrOwnedRuns, k, r.End, k-1, end)
		}
		end = r.End
	}
	if end != int32(len(o.Parts)) {
		return fmt.Errorf("%w: the runs end at %d, not at the %d partitions' end", ErrOwnedRuns, end, len(o.Parts))
	}
	if o.Subs == nil {
		return nil
	}
	if len(o.Subs) != n {
		return fmt.Errorf("%w: %d subscriptions for %d members", ErrOwnedRuns, len(o.Subs), n)
	}
	for i, sub := range o.Subs {
		for _, k := range sub {
			if uint32(k) >= uint32(len(o.Names)) {
				return fmt.Errorf("%w: member %d subscribes to name %d of %d", ErrOwnedRuns, i, k, len(o.Names))
			}
		}
	}
	return nil
}

// checkGiven checks owned, when not nil, for g: it must describe its
// arrays, and the members must not also list what it gives (Owned, and
// Topics when it gives subscriptions).
func (o *OwnedRuns) checkGiven(members []Member) error {
	if o == nil {
		return nil
	}
	if err := o.check(len(members)); err != nil {
		return err
	}
	for i := range members {
		if len(members[i].Owned) > 0 {
			return fmt.Errorf("%w: member %d has an Owned list besides its runs", ErrOwnedRuns, i)
		}
		if o.Subs != nil && len(members[i].Topics) > 0 {
			return fmt.Errorf("%w: member %d has Topics besides its subscription's indices", ErrOwnedRuns, i)
		}
	}
	return nil
}

// topics returns member i's subscription as names, as its Topics would
// list them.
func (o *OwnedRuns) topics(i int) []string {
	sub := o.Subs[i]
	if len(sub) == 0 {
		return nil
	}
	names := make([]string, len(sub))
	for j, k := range sub {
		names[j] = o.Names[k]
	}
	return names
}

// ownedClaims reads the members' claims, whichever way they come: from
// the runs given to [AssignPackedOwned] (a run: a stretch of one topic,
// as in [OwnedRuns]), or from the members' Owned lists, read in place
// (compileOwned reads those itself, in one pass). Nothing is copied:
// turning every Owned list into one slab of runs first cost a run (24
// bytes) per owned partition wherever members own one partition of each
// of many topics, several times that as the slab grew, and the time to
// fill it, more than everything else Assign does for a churned group
// (issue 30; TestAssignBytesPerOwnedPartition holds the budget).
type ownedClaims struct {
	given   *OwnedRuns // nil: read the members' Owned lists
	members []Member
}

// count returns how many partitions member i lists.
func (o *ownedClaims) count(i int) int {
	if o.given == nil {
		return len(o.members[i].Owned)
	}
	return o.given.count(i)
}

// member returns a reader of member i's given runs, before its first
// run; o.given is not nil.
func (o *ownedClaims) member(i int) claimRuns {
	runs, base := o.given.member(i)
	return claimRuns{from: base, to: base, runs: runs, parts: o.given.Parts}
}

// claimRuns reads one member's given runs: after next reports a run, its
// topic is topic() and its partitions part(k) for k in [from, to). Its
// methods are small enough to inline: this is the loop of the leader's
// round on a churned group.
type claimRuns struct {
	from, to int32
	runs     []OwnedRun // the member's given runs
	parts    []int32    // every member's given partitions ([OwnedRuns.Parts])
	r        int        // 1 + the current run in runs
}

// next moves to the member's next run and reports whether there is one.
func (c *claimRuns) next() bool {
	c.from = c.to
	if c.r >= len(c.runs) {
		return false
	}
	c.to = c.runs[c.r].End
	c.r++
	return true
}

// topic returns the current run's topic.
func (c *claimRuns) topic() string { return c.runs[c.r-1].Topic }

// part returns the partition at position k of the given partitions.
func (c *claimRuns) part(k int32) int32 { return c.parts[k] }

// ownedLists returns o's lists as Owned lists, member by member: what a
// strategy that does not read OwnedRuns is given.
func (o *OwnedRuns) ownedLists(n int) [][]TopicPartition {
	lists := make([][]TopicPartition, n)
	if o == nil {
		return lists
	}
	backing := make([]TopicPartition, len(o.Parts))
	for i := range n {
		runs, from := o.member(i)
		first := from
		for _, r := range runs {
			for at := from; at < r.End; at++ {
				backing[at] = TopicPartition{r.Topic, o.Parts[at]}
			}
			from = r.End
		}
		if from > first {
			lists[i] = backing[first:from:from]
		}
	}
	return lists
}
