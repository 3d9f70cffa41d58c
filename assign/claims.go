package assign

// ownedRead says what compile makes of the members' Owned lists. Every use
// refuses a partition listed twice by one member.
type ownedRead uint8

const (
	// ownedIgnored keeps nothing: Range and RoundRobin ignore ownership.
	ownedIgnored ownedRead = iota

	// ownedListed numbers every member's claims (ownedOff, ownedPids).
	ownedListed

	// ownedResolved resolves the claims straight into claim and claimState
	// when every member that lists something does so at one generation,
	// as after any ordinary rebalance: the claim on a partition then
	// goes to its only claimant whatever the order. Otherwise (the
	// generations differ, so the order of claimants matters) it works
	// as ownedListed.
	ownedResolved

	// ownedKeptIfLossless is ownedResolved, except that when no claim can be lost
	// it records only what [keptClaims] holds, in kept.
	ownedKeptIfLossless
)

// compileOwned reads the members' claims for use.
//
// Clients list owned partitions topic by topic, partitions ascending, as
// every assignment is sorted: a member whose list has that shape cannot
// repeat a partition, which a stamp per topic and the last partition seen
// prove in O(1) per claim. Only a member whose list has another shape is
// checked with a mark per partition.
func (cg *compiledGroup) compileOwned(use ownedRead) error {
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
	if use == ownedKeptIfLossless {
		if !mixed && cg.keepsEveryClaim() && cg.readKept() {
			return nil
		}
		use = ownedResolved // settle the claims partition by partition, refusing repeats
	}
	if use == ownedResolved && mixed {
		use = ownedListed
	}
	parts := cg.start[len(cg.topics)]
	var pids []int32 // ownedListed: every member's; otherwise the current member's
	var rank []int32 // ownedResolved: member index => position in Kafka's member order
	switch use {
	case ownedListed:
		cg.ownedOff = make([]int32, len(g.Members)+1)
		pids = make([]int32, 0, total)
	case ownedResolved:
		cg.claim = make([]int32, parts)
		for pid := range cg.claim {
			cg.claim[pid] = -1
		}
		cg.claimState = make([]uint8, parts)
		rank = make([]int32, len(g.Members))
		for r, m := range cg.kafkaOrder {
			rank[m] = int32(r)
		}
	}
	claim, state := cg.claim, cg.claimState
	after, _ := cg.goSteps()
	runOf := make([]int32, len(cg.topics)) // topic => 1 + the last member with a run of it
	var marks []int32                      // pid => 1 + the last member marked listing it; nil until needed
	for i := range g.Members {
		m := &g.Members[i]
		if use != ownedListed {
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
			if use == ownedResolved {
				if state[pid] == 0 {
					claim[pid], state[pid] = rank[i], listed
				} else {
					claim[pid], state[pid] = -1, listed|tied // or listed twice by m: refused below
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
		if use == ownedListed {
			cg.ownedOff[i+1] = int32(len(pids))
		}
	}
	if use == ownedListed {
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
