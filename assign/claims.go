package assign

// claimTable is the resolution of every claim: rules 2, 3 and 5 per
// partition (numbered as in compiledGroup.start), members by rank in
// Kafka's member order. Rule 4 is the reader's: the sticky strategies
// apply it in stickyProblem.keepable.
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
	ct := &claimTable{owner: make([]int32, parts), state: make([]uint8, parts)}
	for pid := range ct.owner {
		ct.owner[pid] = -1
	}
	if mixed {
		ct.top = make([]int32, parts)
	}
	return ct
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
// it directly for each claim it reads, where it inlines; that saves 1.5%
// of a sticky round on 1,000 heterogeneous members, counted in
// instructions (BenchmarkSticky/heterogeneous/members=1000/topics=2000/leave-join).
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

	// ownedKeptIfLossless is ownedResolved, except that when no claim can
	// be lost it records only what [keptClaims] holds, in kept.
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

// compileOwned reads the members' claims for use.
//
// Clients list owned partitions topic by topic, partitions ascending, as
// every assignment is sorted: a member whose list has that shape cannot
// repeat a partition, which a stamp per topic and the last partition seen
// prove in O(1) per claim. Only a member whose list has another shape is
// checked with a mark per partition.
func (cg *compiledGroup) compileOwned(use ownedRead) error {
	if use == ownedUnread {
		return nil
	}
	g := cg.g
	total := 0
	gen, mixed, some := int32(0), false, false
	for i := range g.Members {
		m := &g.Members[i]
		if len(m.Owned) > 0 {
			total += len(m.Owned)
			mixed = mixed || some && m.Generation != gen
			gen, some = m.Generation, true
		}
	}
	if total == 0 {
		return nil
	}
	if use == ownedKeptIfLossless || use == ownedKeptPacked {
		if !mixed && cg.keepsEveryClaim() && cg.readKept(use == ownedKeptPacked) {
			return nil
		}
		use = ownedResolved // settle the claims partition by partition, refusing repeats
	}
	parts := cg.start[len(cg.topics)]
	lists := use == ownedListed || use == ownedResolved && mixed
	var pids []int32  // with lists: every member's; otherwise the current member's
	var rankOf []rank // ownedResolved: member index => rank
	if lists {
		cg.ownedOff = make([]int32, len(g.Members)+1)
		pids = make([]int32, 0, total)
	}
	var ct *claimTable
	if use == ownedResolved {
		ct = newClaimTable(parts, mixed)
		cg.claims = ct
		rankOf = cg.ranks()
	}
	after, _ := cg.goSteps()
	runOf := make([]int32, len(cg.topics)) // topic => 1 + the last member with a run of it
	var marks []int32                      // pid => 1 + the last member marked listing it; nil until needed
	for i := range g.Members {
		m := &g.Members[i]
		if !lists {
			pids = pids[:0]
		}
		first := len(pids)
		sorted := true                                                   // so far: runs of distinct topics, partitions ascending within each
		lastTopic, ti, known, lastPart := "", int32(0), false, int32(-1) // "" is never a known topic
		for _, tp := range m.Owned {
			if tp.Topic != lastTopic {
				ti, known = cg.topicAfter(after, ti, known, tp.Topic)
				lastTopic, lastPart = tp.Topic, -1
				if known {
					sorted = sorted && runOf[ti] != int32(i)+1
					runOf[ti] = int32(i) + 1
				}
			}
			if !known || tp.Partition < 0 || tp.Partition >= cg.numParts[ti] {
				continue // the partition no longer exists, or nobody wants it: dropped, as Kafka does
			}
			sorted = sorted && tp.Partition > lastPart
			lastPart = tp.Partition
			pid := cg.start[ti] + tp.Partition
			pids = append(pids, pid)
			if ct != nil {
				// m listing pid twice looks tied: refused below.
				if mixed {
					ct.noteMixed(pid, rankOf[i], m.Generation)
				} else {
					ct.noteOneGeneration(pid, rankOf[i])
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

// owned returns the partitions member m claims (see compiledGroup.ownedPids).
func (cg *compiledGroup) owned(m int32) []int32 {
	if cg.ownedOff == nil {
		return nil
	}
	return cg.ownedPids[cg.ownedOff[m]:cg.ownedOff[m+1]]
}
