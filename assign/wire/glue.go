package wire

import (
	"slices"
	"strconv"
	"strings"

	"github.com/assigncalc/assigncalc/assign"
)

// JoinMember is one member of a JoinGroup response as the group leader
// receives it.
type JoinMember struct {
	// MemberID is the member.id the coordinator gave the member.
	MemberID string
	// InstanceID is the group.instance.id of a static member, "" when the
	// response has null (a dynamic member).
	InstanceID string
	// Metadata is the member's protocol metadata for the protocol the
	// coordinator chose: a ConsumerProtocolSubscription.
	Metadata []byte
}

// MemberError reports a JoinGroup member whose metadata cannot be decoded.
// Err is the [*DecodeError].
type MemberError struct {
	MemberID string
	Index    int // position of the member in the list given
	Err      error
}

func (e *MemberError) Error() string {
	return "wire: member " + strconv.Quote(e.MemberID) + " (at index " + strconv.Itoa(e.Index) + "): " + strings.TrimPrefix(e.Err.Error(), "wire: ")
}

func (e *MemberError) Unwrap() error { return e.Err }

// GroupFromJoin builds the input of an assignment from what a group leader
// has after JoinGroup: the members with their metadata for the chosen
// protocol (the strategy's name), the partition count of every topic in the
// cluster metadata, and, optionally, the racks of each partition's replicas
// (partitionRacks[topic][partition]; nil when unknown).
//
// What each member owned, and in which generation, is read where Kafka's
// Java assignors read it:
//
//   - "sticky" (eager): from the StickyAssignor user data in the
//     subscription (previous assignment and generation, see
//     [StickyUserData]). Null or empty user data means nothing owned;
//     user data that cannot be read is ignored the same way, and version 0
//     user data has no generation (DefaultGeneration), as in Kafka.
//   - "cooperative-sticky": owned partitions from the subscription (v1+);
//     the generation from the subscription when it carries one (v2+, not
//     negative), otherwise from the CooperativeStickyAssignor user data
//     (DefaultGeneration when that is null or shorter than four bytes).
//   - "range" and "roundrobin": nothing; they do not read ownership.
//   - any other name: owned partitions and generation from the subscription
//     (v1+ and v2+), for custom strategies.
//
// The rack is the subscription's rack_id (v3+); null and "" both mean none.
// A partition claimed twice by one member counts once, as Java's sets
// count it. Metadata that cannot be decoded is a [*MemberError] wrapping a
// [*DecodeError]. GroupFromJoin does not validate the group; the strategy
// does (see [assign.Group.Validate]). The group's Topics and
// PartitionRacks are the maps given, not copies.
func GroupFromJoin(protocol string, members []JoinMember, partitions map[string]int32, partitionRacks map[string][][]string) (assign.Group, error) {
	g := assign.Group{
		Members:        make([]assign.Member, len(members)),
		Topics:         partitions,
		PartitionRacks: partitionRacks,
	}
	for i, jm := range members {
		s, err := DecodeSubscription(jm.Metadata)
		if err != nil {
			return assign.Group{}, &MemberError{MemberID: jm.MemberID, Index: i, Err: err}
		}
		m := assign.Member{
			ID:         jm.MemberID,
			InstanceID: jm.InstanceID,
			Topics:     s.Topics,
			Generation: DefaultGeneration,
		}
		if s.RackID != nil {
			m.Rack = *s.RackID
		}
		switch protocol {
		case "range", "roundrobin":
		case "sticky":
			if len(s.UserData) > 0 {
				if d, err := DecodeStickyUserData(s.UserData); err == nil {
					m.Owned, m.Generation = d.Previous, d.Generation
				}
				// Unreadable user data: Kafka ignores the previous
				// assignment (StickyAssignor.deserializeTopicPartitionAssignment).
			}
		case "cooperative-sticky":
			m.Owned = s.OwnedPartitions
			switch {
			case s.GenerationID >= 0:
				m.Generation = s.GenerationID
			case s.UserData != nil:
				if gen, err := DecodeCooperativeUserData(s.UserData); err == nil {
					m.Generation = gen
				}
			}
		default:
			m.Owned, m.Generation = s.OwnedPartitions, s.GenerationID
		}
		m.Owned = dedupe(m.Owned)
		g.Members[i] = m
	}
	return g, nil
}

// dedupe drops repeated partitions, keeping the first of each.
func dedupe(tps []assign.TopicPartition) []assign.TopicPartition {
	if len(tps) < 2 {
		return tps
	}
	sorted := slices.Clone(tps)
	slices.SortFunc(sorted, assign.TopicPartition.Compare)
	if len(slices.Compact(sorted)) == len(tps) {
		return tps
	}
	seen := make(map[assign.TopicPartition]bool, len(tps))
	out := make([]assign.TopicPartition, 0, len(tps))
	for _, tp := range tps {
		if !seen[tp] {
			seen[tp] = true
			out = append(out, tp)
		}
	}
	return out
}

// SyncGroupAssignments encodes what the leader sends in SyncGroup: one
// ConsumerProtocolAssignment per member of a, at the given version
// (MaxAssignmentVersion is what Kafka's Java leader writes; every version
// has the same layout). The assignments carry no user data: none of
// Kafka's built-in strategies sends any from the leader. What the sticky
// strategies need next round travels the other way, in each member's next
// subscription; see [NextSubscription].
func SyncGroupAssignments(a assign.Assignment, version int16) (map[string][]byte, error) {
	out := make(map[string][]byte, len(a))
	for _, id := range sortedIDs(a) {
		b, err := Assignment{Version: version, Partitions: a[id]}.MarshalBinary()
		if err != nil {
			return nil, err
		}
		out[id] = b
	}
	return out, nil
}

func sortedIDs(a assign.Assignment) []string {
	ids := make([]string, 0, len(a))
	for id := range a {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// NextSubscription returns the subscription a member sends in its next
// JoinGroup, as Kafka's Java consumer builds it (ConsumerCoordinator's
// metadata and the assignor's subscriptionUserData), after it was assigned
// assigned in generation generation:
//
//   - topics sorted, rack_id set when rack is not "", generation_id set,
//     version MaxSubscriptionVersion;
//   - owned_partitions: assigned, sorted, for "cooperative-sticky"; empty
//     for the eager strategies, whose members revoke everything before
//     they rejoin;
//   - user_data: for "sticky", the StickyAssignor user data version 1
//     (assigned and generation), since the eager StickyAssignor reads
//     ownership from the user data, not from owned_partitions (null before
//     the member's first assignment: nothing assigned, generation
//     DefaultGeneration); for
//     "cooperative-sticky", the generation as CooperativeStickyAssignor
//     writes it; null for the others.
//
// This is the member's side of the sticky strategies' state: the leader's
// SyncGroup assignment carries no user data for them (see
// [SyncGroupAssignments]).
func NextSubscription(protocol string, topics []string, assigned []assign.TopicPartition, generation int32, rack string) (Subscription, error) {
	s := Subscription{
		Version:      MaxSubscriptionVersion,
		Topics:       slices.Sorted(slices.Values(topics)),
		GenerationID: generation,
	}
	if rack != "" {
		s.RackID = &rack
	}
	owned := slices.Clone(assigned)
	slices.SortFunc(owned, assign.TopicPartition.Compare)
	switch protocol {
	case "sticky":
		if len(owned) == 0 && generation == DefaultGeneration {
			break // the first JoinGroup: StickyAssignor has no user data yet
		}
		ud, err := StickyUserData{Version: 1, Previous: owned, Generation: generation}.MarshalBinary()
		if err != nil {
			return Subscription{}, err
		}
		s.UserData = ud
	case "cooperative-sticky":
		s.OwnedPartitions = owned
		s.UserData = AppendCooperativeUserData(nil, generation)
	}
	return s, nil
}

// Lead does a group leader's whole round without I/O: it reads the
// JoinGroup members with [GroupFromJoin] for strategy s, assigns them with
// s, and encodes the result with [SyncGroupAssignments] at
// MaxAssignmentVersion, as Kafka's Java leader does. The result maps every
// member ID to its SyncGroup assignment bytes.
func Lead(s assign.Strategy, members []JoinMember, partitions map[string]int32, partitionRacks map[string][][]string) (map[string][]byte, error) {
	g, err := GroupFromJoin(s.Name(), members, partitions, partitionRacks)
	if err != nil {
		return nil, err
	}
	a, err := s.Assign(g)
	if err != nil {
		return nil, err
	}
	return SyncGroupAssignments(a, MaxAssignmentVersion)
}
