package coordinator

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/internal/jvm"
)

// ConsumerProtocolType is the protocol type every Kafka consumer sends in
// its JoinGroup request (Kafka's ConsumerProtocol.PROTOCOL_TYPE).
const ConsumerProtocolType = "consumer"

// Coordinator selects whose group coordinator [Vote] reproduces. The two
// count votes in different hash maps and so break ties differently.
type Coordinator int8

const (
	// JavaCoordinator is the group coordinator written in Java
	// (group-coordinator module, ClassicGroup.selectProtocol): optional on
	// KRaft brokers of Kafka 3.x and the only one from Kafka 4.0. It counts
	// ballots in a java.util.HashMap and takes the first maximum in the
	// map's iteration order.
	JavaCoordinator Coordinator = iota

	// ScalaCoordinator is the classic coordinator written in Scala
	// (GroupMetadata.selectProtocol), used by every broker before Kafka 4.0
	// unless the new coordinator was enabled, and by every broker on
	// ZooKeeper. It groups ballots with Scala 2.13's groupBy, whose result is
	// an immutable CHAMP HashMap, and takes its first maximum with maxBy.
	// Kafka's Scala 2.12 builds used a different map and are not
	// reproduced.
	ScalaCoordinator
)

func (c Coordinator) String() string {
	switch c {
	case JavaCoordinator:
		return "java"
	case ScalaCoordinator:
		return "scala"
	}
	return fmt.Sprintf("Coordinator(%d)", int8(c))
}

// ParseCoordinator returns the coordinator named "java" or "scala".
func ParseCoordinator(name string) (Coordinator, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "java":
		return JavaCoordinator, nil
	case "scala":
		return ScalaCoordinator, nil
	}
	return 0, fmt.Errorf("assign: unknown coordinator %q: want java or scala", name)
}

// GroupKind says which kind of group the members join.
type GroupKind int8

const (
	// ClassicGroup is a group of the classic rebalance protocol
	// (JoinGroup/SyncGroup): the coordinator holds the vote.
	ClassicGroup GroupKind = iota

	// ConsumerGroup is a group of the KIP-848 consumer protocol that the
	// members join with the classic protocol. There is no vote: the Java
	// coordinator gives each classic member the first strategy of its own
	// list (GroupMetadataManager.classicGroupJoinToConsumerGroup) and
	// computes the assignment itself.
	ConsumerGroup
)

func (k GroupKind) String() string {
	switch k {
	case ClassicGroup:
		return "classic"
	case ConsumerGroup:
		return "consumer"
	}
	return fmt.Sprintf("GroupKind(%d)", int8(k))
}

// VoteMember is one member as the coordinator sees its JoinGroup request.
type VoteMember struct {
	// ID is the member.id. It must be non-empty and unique. On the Java
	// coordinator it also decides the order in which members cast their
	// ballots (see [Vote]).
	ID string

	// ProtocolType is the JoinGroup protocol type; "" stands for
	// [ConsumerProtocolType], which every Kafka consumer sends.
	ProtocolType string

	// Protocols lists the strategy names the member supports, most
	// preferred first: its partition.assignment.strategy. Names are
	// compared exactly, as the coordinator compares them. An empty list is
	// not an input error; the coordinator refuses such a member.
	Protocols []string
}

func (m VoteMember) protocolType() string {
	if m.ProtocolType == "" {
		return ConsumerProtocolType
	}
	return m.ProtocolType
}

// Errors of the vote. ErrProtocolTypeMismatch, ErrNoCommonProtocol and
// ErrNoProtocols all wrap ErrInconsistentProtocol, the error Kafka sends
// for each of them, so errors.Is(err, ErrInconsistentProtocol) holds for
// every refusal.
var (
	// ErrInconsistentProtocol is Kafka's INCONSISTENT_GROUP_PROTOCOL (error
	// code 23).
	ErrInconsistentProtocol = errors.New("inconsistent group protocol")

	// ErrProtocolTypeMismatch: the member's protocol type differs from the
	// group's (set by the first member to join).
	ErrProtocolTypeMismatch = fmt.Errorf("%w: protocol type differs from the group's", ErrInconsistentProtocol)

	// ErrNoCommonProtocol: none of the member's strategies is supported by
	// every member already in the group.
	ErrNoCommonProtocol = fmt.Errorf("%w: no strategy in common with every member of the group", ErrInconsistentProtocol)

	// ErrNoProtocols: the member offers no strategy at all.
	ErrNoProtocols = fmt.Errorf("%w: member offers no strategy", ErrInconsistentProtocol)

	// Input errors, wrapped in an [*InputError].
	ErrNoMembers          = errors.New("no members")
	ErrEmptyStrategyName  = errors.New("empty strategy name")
	ErrDuplicateStrategy  = errors.New("strategy listed twice by one member")
	ErrUnknownCoordinator = errors.New("unknown coordinator")
	ErrScalaConsumerGroup = errors.New("the Scala coordinator has no KIP-848 consumer groups")
)

// ProtocolError is the coordinator's refusal of one member's JoinGroup.
// Err is ErrProtocolTypeMismatch, ErrNoCommonProtocol or ErrNoProtocols,
// each of which wraps ErrInconsistentProtocol.
type ProtocolError struct {
	Member string // the member's ID
	Index  int    // its position in the members given to Vote
	Err    error
}

func (e *ProtocolError) Error() string {
	return fmt.Sprintf("assign: member %q (at index %d): %v", e.Member, e.Index, e.Err)
}

func (e *ProtocolError) Unwrap() error { return e.Err }

// Ballot is one accepted member's vote: the strategy it will use.
type Ballot struct {
	Member   string
	Strategy string
}

// Tally is the number of ballots one strategy received.
type Tally struct {
	Strategy string
	Votes    int
}

// VoteResult is what the coordinator computes for a group.
type VoteResult struct {
	Coordinator Coordinator
	Kind        GroupKind

	// ProtocolType is the group's protocol type: that of the first member
	// accepted. "" when every member was refused.
	ProtocolType string

	// Candidates are the strategies every accepted member supports, in
	// Java's string order. For a ConsumerGroup: the strategies every
	// accepted classic member supports.
	Candidates []string

	// Ballots holds one entry per accepted member, in the order of the
	// members given to Vote. For a ConsumerGroup each member's "ballot" is
	// the strategy it is told to use: the first of its own list.
	Ballots []Ballot

	// Tally counts the ballots per strategy, in the order the coordinator's
	// map iterates them: the order in which it breaks ties, first wins.
	Tally []Tally

	// Winner is the strategy the group uses; "" when every member was
	// refused, and always "" for a ConsumerGroup, where each member uses
	// its own ballot.
	Winner string

	// Refused lists the members the coordinator refused, in input order.
	// They take no part in the vote.
	Refused []*ProtocolError

	// OrderDependent reports that the winner is one of several strategies
	// tied for the most votes whose relative order in the coordinator's
	// map is decided by which was counted first, and so by the order in
	// which the broker iterates its members: on the Java coordinator two
	// tied strategies share a bucket of the tally's table, on the Scala
	// coordinator two have equal hash codes. See [Vote] for the order
	// assumed.
	OrderDependent bool
}

// Votes returns the tally as a map from strategy to its number of ballots.
func (r VoteResult) Votes() map[string]int {
	votes := make(map[string]int, len(r.Tally))
	for _, t := range r.Tally {
		votes[t.Strategy] = t.Votes
	}
	return votes
}

// Vote computes what Kafka's group coordinator c decides for members
// joining a group of the given kind.
//
// # Joins
//
// Members join in the order given; the members already in the group decide
// whether the next one is accepted, as the coordinator checks each JoinGroup
// against the members it holds (supportsProtocols). The first member with a
// non-empty list sets the group's protocol type. A later member is refused
// with a [*ProtocolError] when its protocol type differs, when it lists no
// strategy, or when none of its strategies is supported by every member
// accepted so far; it then takes no part in the vote, and the following
// members are checked against the accepted ones only. For a
// [ConsumerGroup] the checks are those of the Java coordinator for classic
// members of a KIP-848 group: the protocol type must be "consumer" and one
// strategy must be shared with every classic member accepted so far.
//
// # The vote
//
// Each accepted member votes for the first strategy of its own list that
// every accepted member supports, and the strategy with the most ballots
// wins:
//
//	candidates = the strategies every member supports
//	ballot(m)  = the first strategy in m's list that is a candidate
//	winner     = the strategy with the most ballots; ties go to whichever
//	             the coordinator's hash map iterates first
//
// The tie-break is not a rule anyone chose: it falls out of the hash map the
// coordinator counts in, and the two coordinators in the field count in
// different maps. Vote emulates both maps exactly for any strategy name, so
// that for the built-in names a tie goes to sticky > range > roundrobin >
// cooperative-sticky on the Java coordinator and to cooperative-sticky >
// roundrobin > range > sticky on the Scala one:
//
//   - [JavaCoordinator]: a java.util.HashMap<String,Integer>. Its iteration
//     order is the order of the buckets, hash(name) & (capacity-1) with
//     hash = h ^ (h >>> 16) of String.hashCode, and within a bucket the
//     order of insertion. The table starts at 16 buckets and doubles when
//     it holds more than 3/4 of its capacity or when a bucket reaches nine
//     entries while the table has fewer than 64 buckets. In a larger table
//     such a bucket becomes a red-black tree whose list order the tree's
//     rotations rearrange; that is emulated too (see jvm.HashMap), although
//     it takes dozens of strategy names to happen. Stream.max keeps the
//     first of equal maxima.
//   - [ScalaCoordinator]: an immutable.HashMap (CHAMP) of Scala 2.13. Its
//     iteration order walks the trie depth-first: in each node the entries
//     stored inline come first, by their 5-bit digit of the improved hash
//     (level 0 takes the lowest five bits), then the sub-nodes by digit.
//     Names with equal hash codes share a collision node, in insertion
//     order. maxBy keeps the first of equal maxima.
//
// # Order of the members
//
// Insertion order matters only within a bucket (Java) or among names with
// equal hash codes (Scala), and the insertion order is the order in which
// the broker iterates its members: a hash map by member ID
// (java.util.HashMap on the Java coordinator, Scala 2.13's
// mutable.HashMap on the Scala one) that the inputs describe only in part.
// Vote assumes a map holding just the accepted members, inserted in the
// order given; a broker's map keeps the capacity it once grew to and the
// insertion history of members that left and rejoined, which can change
// the order of members whose IDs share a bucket.
// [VoteResult.OrderDependent] reports when the order of members decides
// the winner; otherwise the result does not depend on the order of members
// at all, except through which members are refused.
//
// Vote returns an [*InputError] when a member ID is empty or repeated, a
// strategy name is empty or listed twice by one member, members is empty,
// or a ConsumerGroup is asked of the Scala coordinator, which never had
// them; refusals are not errors but part of the result.
func Vote(members []VoteMember, c Coordinator, kind GroupKind) (VoteResult, error) {
	if err := validateVoteMembers(members); err != nil {
		return VoteResult{}, err
	}
	if c != JavaCoordinator && c != ScalaCoordinator {
		return VoteResult{}, &assign.InputError{Index: -1, Partition: -1, Err: ErrUnknownCoordinator}
	}
	switch {
	case kind != ClassicGroup && kind != ConsumerGroup:
		return VoteResult{}, &assign.InputError{Index: -1, Partition: -1, Err: fmt.Errorf("unknown group kind %d", kind)}
	case kind == ConsumerGroup && c == ScalaCoordinator:
		return VoteResult{}, &assign.InputError{Index: -1, Partition: -1, Err: ErrScalaConsumerGroup}
	}

	res := VoteResult{Coordinator: c, Kind: kind}
	accepted := res.join(members)
	if len(accepted) == 0 {
		return res, nil
	}

	// Candidates: supported by every accepted member.
	supporters := make(map[string]int)
	for _, i := range accepted {
		for _, p := range members[i].Protocols {
			supporters[p]++
		}
	}
	isCandidate := func(p string) bool { return supporters[p] == len(accepted) }
	for _, p := range members[accepted[0]].Protocols {
		if isCandidate(p) {
			res.Candidates = append(res.Candidates, p)
		}
	}
	slices.SortFunc(res.Candidates, jvm.CompareStrings)

	for _, i := range accepted {
		m := members[i]
		b := Ballot{Member: m.ID}
		if kind == ConsumerGroup {
			b.Strategy = m.Protocols[0]
		} else {
			for _, p := range m.Protocols {
				if isCandidate(p) {
					b.Strategy = p
					break
				}
			}
		}
		res.Ballots = append(res.Ballots, b)
	}
	if kind == ConsumerGroup {
		return res, nil
	}

	// The order in which the broker's member map hands out the ballots.
	ids := make([]string, len(res.Ballots))
	for k, b := range res.Ballots {
		ids[k] = b.Member
	}
	var castOrder []int // indices into res.Ballots
	switch c {
	case JavaCoordinator:
		castOrder = jvm.StringMapOrder(ids)
	case ScalaCoordinator:
		castOrder = jvm.ScalaMutableOrder(ids)
	}

	// Count in first-cast order; keys[k] was first cast before keys[k+1].
	var keys []string
	counts := make(map[string]int)
	for _, k := range castOrder {
		s := res.Ballots[k].Strategy
		if counts[s] == 0 {
			keys = append(keys, s)
		}
		counts[s]++
	}

	var order []int // indices into keys, in the map's iteration order
	var sameSlot func(a, b int) bool
	switch c {
	case JavaCoordinator:
		// The tally puts its keys in the same first-cast order as keys.
		tally := jvm.NewHashMap(0, func(a, b int) int { return jvm.CompareStrings(keys[a], keys[b]) })
		for _, s := range keys {
			tally.Add(jvm.StringHash(s))
		}
		order = tally.Order()
		sameSlot = func(a, b int) bool { return tally.Bucket(a) == tally.Bucket(b) }
	case ScalaCoordinator:
		hashes := make([]int32, len(keys))
		for k, s := range keys {
			hashes[k] = jvm.StringHash(s)
		}
		order = jvm.ChampOrder(hashes)
		sameSlot = func(a, b int) bool { return hashes[a] == hashes[b] }
	}

	best := -1
	for _, k := range order {
		res.Tally = append(res.Tally, Tally{Strategy: keys[k], Votes: counts[keys[k]]})
		if best < 0 || counts[keys[k]] > counts[keys[best]] {
			best = k
		}
	}
	res.Winner = keys[best]
	for k := range keys {
		if k != best && counts[keys[k]] == counts[keys[best]] && sameSlot(k, best) {
			res.OrderDependent = true
		}
	}
	return res, nil
}

// join admits members in order, recording refusals in r, and returns the
// indices of the accepted members.
func (r *VoteResult) join(members []VoteMember) []int {
	var accepted []int
	supporters := make(map[string]int)
	for i, m := range members {
		var err error
		switch {
		case len(m.Protocols) == 0:
			err = ErrNoProtocols
		case r.Kind == ConsumerGroup && m.protocolType() != ConsumerProtocolType:
			err = ErrProtocolTypeMismatch
		case len(accepted) == 0:
			r.ProtocolType = m.protocolType()
		case m.protocolType() != r.ProtocolType:
			err = ErrProtocolTypeMismatch
		case !slices.ContainsFunc(m.Protocols, func(p string) bool { return supporters[p] == len(accepted) }):
			err = ErrNoCommonProtocol
		}
		if err != nil {
			r.Refused = append(r.Refused, &ProtocolError{Member: m.ID, Index: i, Err: err})
			continue
		}
		if r.Kind == ConsumerGroup {
			r.ProtocolType = ConsumerProtocolType
		}
		accepted = append(accepted, i)
		for _, p := range m.Protocols {
			supporters[p]++
		}
	}
	return accepted
}

func validateVoteMembers(members []VoteMember) error {
	if len(members) == 0 {
		return &assign.InputError{Index: -1, Partition: -1, Err: ErrNoMembers}
	}
	ids := make(map[string]bool, len(members))
	for i, m := range members {
		fail := func(err error) error { return &assign.InputError{Member: m.ID, Index: i, Partition: -1, Err: err} }
		if m.ID == "" {
			return fail(assign.ErrEmptyMemberID)
		}
		if ids[m.ID] {
			return fail(assign.ErrDuplicateMemberID)
		}
		ids[m.ID] = true
		for j, p := range m.Protocols {
			if p == "" {
				return fail(ErrEmptyStrategyName)
			}
			if slices.Contains(m.Protocols[:j], p) {
				return fail(fmt.Errorf("%w: %q", ErrDuplicateStrategy, p))
			}
		}
	}
	return nil
}

// ClientProtocol returns the rebalance protocol a Java consumer configured
// with the given partition.assignment.strategy uses: the highest protocol
// that every one of its strategies supports (ConsumerCoordinator), so
// [range, cooperative-sticky] rebalances eagerly and [cooperative-sticky]
// cooperatively. Kafka's built-in assignors are known by protocol name and
// by Java class name; strategies this package implements answer through
// [Lookup]. Any other name is a custom assignor and is taken to support
// only [Eager], the default of ConsumerPartitionAssignor.supportedProtocols;
// so are the server-side assignors' names ("uniform", "server-range"),
// which name no client strategy.
//
// An empty list is an error: the Java consumer refuses to subscribe
// without an assignor.
//
// Members of one group may differ. The coordinator does not look at
// rebalance protocols: it picks one strategy for the whole group (see
// [Vote]) and each member keeps its own protocol, so members on Eager revoke
// every partition at each rebalance while members on [Cooperative] revoke
// only what moves. The group is fully cooperative only once every member
// is.
func ClientProtocol(strategies []string) (assign.RebalanceProtocol, error) {
	if len(strategies) == 0 {
		return assign.Eager, errors.New("assign: no strategy configured: the consumer needs at least one")
	}
	best := assign.Cooperative
	for _, name := range strategies {
		if p := strategyProtocol(name); p < best {
			best = p
		}
	}
	return best, nil
}

// strategyProtocol is the highest rebalance protocol a consumer
// configured with the named strategy can run: Cooperative for a
// cooperative client strategy, by its Kafka name or Java class name
// ([Lookup]); Eager for the others, for custom assignors, and for the
// names of server-side assignors, which are no client strategy. Every
// strategy that supports Cooperative also supports Eager.
func strategyProtocol(name string) assign.RebalanceProtocol {
	if s, err := assign.Lookup(name); err == nil && s.Protocol() == assign.Cooperative {
		return assign.Cooperative
	}
	return assign.Eager
}
