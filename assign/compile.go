package assign

// This file holds the compiled group, the integer form every strategy
// works on, and compile, the pipeline that makes it. The phases live
// beside it: compile_check.go validates the members and the metadata,
// compile_topics.go interns topics and subscriptions and finds topics
// again, compile_order.go orders the members as Kafka does,
// compile_racks.go interns racks, and claims.go reads what members own.

import "github.com/assigncalc/assigncalc/assign/internal/intern"

// compiledGroup is a validated group with names interned to dense integers. Topic
// indices follow Java's string order of the topic names; member indices
// follow Group.Members. Strategies work on it and turn back to strings only
// when they build the [Assignment].
type compiledGroup struct {
	g     *Group
	group Group // what g points to: the caller's Group, copied, in the same allocation as the compiled group

	topics    []string      // topic index => name; the subscribed topics that exist with >0 partitions, in Java string order
	numParts  []int32       // topic index => partition count
	start     []int32       // topic index => number of its partition 0 when partitions are numbered topic by topic; the last entry is the total
	meta      intern.Sorted // every topic of the metadata, Go order
	metaTopic []int32       // position in meta => topic index, or -1 when not subscribed or empty
	byGoName  []int32       // topic indices in Go string order of the names; see goOrder

	subs [][]int32 // member index => subscribed topic indices, ascending, deduplicated; shared between members, never modify

	// distinctNames[m] reports that member m's Topics names topics of
	// the metadata with partitions, none twice.
	distinctNames []bool

	// own reads the members' claims as runs (see [OwnedRuns]), for
	// compileOwned; zero with ownedUnread.
	own ownedClaims

	// ownedPids[ownedOff[m]:ownedOff[m+1]] lists the partitions member m
	// claims that still exist, numbered as in start, in input order.
	// Claims of topics nobody subscribes to are dropped; claims of topics
	// the member itself no longer subscribes to are kept (cooperative
	// assignment must know the member still holds them). ownedOff is nil
	// when nobody owns anything, and unless ownedRead asks for the lists.
	ownedOff  []int32
	ownedPids []int32

	// With ownedResolved, claims resolves every claim (see claims.go).
	// It is nil when nobody owns anything, and with the other uses.
	claims *claimTable
	table  claimTable // what claims points to, in the compiled group's allocation

	// With ownedKeptIfLossless, kept replaces claims when no claim
	// can be lost; see [keptClaims].
	kept *keptClaims

	// kafkaOrder lists member indices in the order Kafka's MemberInfo
	// sorts them: static members first by group.instance.id, then dynamic
	// members by member.id, both in Java's string order.
	kafkaOrder []int32
	rankOf     []int32 // room for ranks, in kafkaOrder's allocation

	// Racks, interned. memberRack[m] is -1 when the member has no rack.
	// partRacks[t] is nil when the topic's replica racks are unknown;
	// otherwise partRacks[t][p] lists the rack indices of p's replicas.
	// Both are nil when no rack is named at all.
	rackNames  []string
	memberRack []int32
	partRacks  [][][]int32

	// pack, when set, asks for the answer as a [Packed] instead of an
	// [Assignment]: the output functions (output.go, keepAndDeal) then
	// fill it and return a nil Assignment. [AssignPacked] sets it.
	pack *Packed
}

// rank is a member's position in Kafka's member order (see kafkaOrder),
// which numbers the members of the sticky solver and of every array "by
// rank" (claimTable, the solver's owners). A member index, a position in
// Group.Members, is a plain int32: kafkaOrder maps a rank to a member
// index, and ranks the other way.
type rank int32

// ranks returns each member's rank, by member index, in room
// orderMembers made, as int32s.
func (cg *compiledGroup) ranks() []int32 {
	rk := cg.rankOf[:len(cg.kafkaOrder)]
	for r, m := range cg.kafkaOrder {
		rk[m] = int32(r)
	}
	return rk
}

// compile validates g and interns it; use says what to make of Owned.
func compile(g Group, use ownedRead) (*compiledGroup, error) {
	return compileWith(g, use, nil)
}

// compileWith is compile with the members' claims read from owned
// instead of their Owned lists when owned is not nil
// ([AssignPackedOwned]); see compileOwned.
func compileWith(g Group, use ownedRead, owned *OwnedRuns) (*compiledGroup, error) {
	return compileGroup(g, use, owned, true)
}

// compileUnordered is compile without Kafka's member order (kafkaOrder
// is nil), for the checkers that read a group by member index only:
// sorting the members is most of compile's time on a group of many
// members with few partitions, and [Check] compiles several times
// (TestCheckScales in cmd/assigncalc bounds plan's allocations).
func compileUnordered(g Group, use ownedRead) (*compiledGroup, error) {
	return compileGroup(g, use, nil, false)
}

// compileGroup is compileWith, which orders the members only with order.
func compileGroup(g Group, use ownedRead, owned *OwnedRuns, order bool) (*compiledGroup, error) {
	if owned == nil && order {
		var sg smallGroup
		if sg.read(&g, true) && sg.nt == len(g.Topics) {
			return sg.compile(g, use) // see compile_small.go
		}
	}
	return compileAny(g, use, owned, order)
}

// compileAny is compileGroup for any group.
func compileAny(g Group, use ownedRead, owned *OwnedRuns, order bool) (*compiledGroup, error) {
	if err := checkMembers(g.Members); err != nil {
		return nil, err
	}
	meta, metaParts, err := checkMetadata(&g)
	if err != nil {
		return nil, err
	}
	if err := owned.checkGiven(g.Members); err != nil {
		return nil, err
	}
	cg := &compiledGroup{group: g}
	cg.g = &cg.group
	if err := cg.compileSubs(meta, metaParts, owned); err != nil {
		return nil, err
	}
	if order {
		cg.orderMembers()
	}
	cg.internRacks()
	if err := cg.compileOwned(use, owned); err != nil {
		return nil, err
	}
	return cg, nil
}
