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
// JoinGroup members as [GroupFromJoin] does for strategy s, but with their
// owned partitions in one [assign.OwnedRuns] slab rather than Owned
// lists, and their subscriptions as indices of names interned once
// ([assign.OwnedRuns.Subs]) rather than Topics, assigns them with [assign.AssignPackedOwned], and encodes the
// result with [SyncGroupPacked] at MaxAssignmentVersion, as Kafka's Java
// leader does: the same bytes, and the same errors, as
// [SyncGroupAssignments] of s.Assign of GroupFromJoin's group, without
// building an [assign.TopicPartition] per owned or assigned partition or
// a string per topic per member. The result maps every member ID to its SyncGroup
// assignment bytes, which share one array.
func Lead(s assign.Strategy, members []JoinMember, partitions map[string]int32, partitionRacks map[string][][]string) (map[string][]byte, error) {
	g, owned, err := groupAndRunsFromJoin(s.Name(), members, partitions, partitionRacks)
	if err != nil {
		return nil, err
	}
	p, err := assign.AssignPackedOwned(s, g, owned)
	if err != nil {
		return nil, err
	}
	enc, err := SyncGroupPacked(p, MaxAssignmentVersion)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]byte, len(enc))
	for i, b := range enc {
		out[p.MemberID(i)] = b
	}
	return out, nil
}
