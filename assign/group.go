package assign

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unsafe"
)

// TopicPartition names one partition of one topic.
type TopicPartition struct {
	Topic     string
	Partition int32
}

// String formats tp as Kafka does: "topic-3".
func (tp TopicPartition) String() string {
	return tp.Topic + "-" + strconv.FormatInt(int64(tp.Partition), 10)
}

// Compare orders partitions by topic (Go string order), then by partition
// number. It is the order of every partition list this package returns.
func (tp TopicPartition) Compare(other TopicPartition) int {
	if c := strings.Compare(tp.Topic, other.Topic); c != 0 {
		return c
	}
	return cmp.Compare(tp.Partition, other.Partition)
}

// Member is one consumer of a group as the group leader sees it in the
// JoinGroup response: its identity, its subscription, and what it owned
// before this rebalance.
type Member struct {
	// ID is the member.id the coordinator gave the member. It must be
	// non-empty and unique within the group.
	ID string

	// InstanceID is the group.instance.id of a static member (KIP-345), or
	// "" for a dynamic member. Static members sort before dynamic ones in
	// Range and RoundRobin, as in Kafka. It must be unique when set.
	InstanceID string

	// Rack is the member's client.rack (KIP-881), or "" when unknown.
	Rack string

	// Topics is the subscription. Topics missing from Group.Topics, or with
	// zero partitions, are skipped, as Kafka skips them; a topic listed twice
	// counts once.
	Topics []string

	// TopicRegex is a subscription by pattern, as a consumer-protocol
	// member sends SubscribedTopicRegex (KIP-848), or "" for none. The
	// coordinator's assignors, [Uniform] and [ServerRange], subscribe the
	// member to Topics and every topic the pattern matches in full (see
	// [ResolveTopicRegex]); every other strategy, and [Group.Validate],
	// refuse it with [ErrTopicRegex].
	TopicRegex string

	// Owned lists the partitions the member owned in generation Generation.
	// Only the sticky strategies read it. Partitions that no longer exist
	// (the topic was deleted or shrank) are dropped silently, as Kafka does;
	// a partition listed twice by one member is refused.
	Owned []TopicPartition

	// Generation is the group generation in which the member owned Owned.
	// Of several claims on one partition the highest generation wins. Use -1
	// (Kafka's DEFAULT_GENERATION) when unknown; any value lower than another
	// claimant's loses to it.
	Generation int32
}

// Group is the input of an assignment: the members and the cluster metadata
// of the topics they subscribe to.
type Group struct {
	// Members in any order. The results of Range, RoundRobin, Sticky and
	// CooperativeSticky never depend on this order. [Uniform] follows
	// Kafka's coordinator, whose answer does depend on the order in which
	// members reached it: it takes this order as that one (see its doc).
	Members []Member

	// Topics maps each topic in the cluster metadata to its partition count.
	Topics map[string]int32

	// PartitionRacks optionally maps a topic to the racks of each of its
	// partitions' replicas: PartitionRacks[t][p] lists the racks of the
	// replicas of partition p. Rack-aware assignment (KIP-881) uses it when
	// members also declare racks. When a topic is present, its list must
	// have exactly Topics[t] entries.
	PartitionRacks map[string][][]string

	// TopicIDs optionally maps topic names to their Kafka topic ids
	// (KIP-516). Only the KIP-848 server-side assignors, [Uniform] and
	// [ServerRange], read it: they need an id for every topic of Topics a
	// member subscribes to or holds, and for every deleted topic (a name
	// absent from Topics) that a member's current target still holds.
	TopicIDs map[string]TopicID
}

// Assignment maps each member ID to the partitions it is assigned, sorted by
// [TopicPartition.Compare]. Every member of the group appears, with a nil
// slice when it gets nothing.
type Assignment map[string][]TopicPartition

// MaxPartitions bounds the total number of partitions of the topics a group
// subscribes to. It is far above any real cluster (Kafka's KRaft clusters
// aim at a few million partitions) and keeps a hostile input from making
// the library allocate without bound.
const MaxPartitions = 1 << 25

// Errors wrapped in an [*InputError] to say what is wrong with a [Group].
var (
	ErrEmptyMemberID       = errors.New("empty member ID")
	ErrDuplicateMemberID   = errors.New("duplicate member ID")
	ErrDuplicateInstanceID = errors.New("duplicate group.instance.id")
	ErrEmptyTopicName      = errors.New("empty topic name")
	ErrNegativePartitions  = errors.New("negative partition count")
	ErrTooManyPartitions   = errors.New("too many partitions")
	ErrRackCount           = errors.New("number of partition rack lists differs from the partition count")
	ErrRacksUnknownTopic   = errors.New("partition racks given for a topic missing from the metadata")
	ErrDuplicateOwned      = errors.New("partition owned twice by one member")
	ErrUnknownMember       = errors.New("member not in the group") // a change or a rollout names a member the group does not have
	ErrTopicRegex          = errors.New("topic regex")             // a TopicRegex that does not compile, or one a strategy cannot resolve
)

// InputError reports what is wrong with a [Group] and where. Err is one of
// the Err* sentinels of this package; use [errors.Is] to branch on it and
// [errors.As] to read the location.
type InputError struct {
	Member    string // ID of the member at fault, "" when not about a member
	Index     int    // position of that member in Group.Members, -1 when not about a member
	Topic     string // topic at fault, "" when not about a topic
	Partition int32  // partition at fault, -1 when not about a partition
	Err       error
}

func (e *InputError) Error() string {
	var b strings.Builder
	b.WriteString("assign: ")
	if e.Index >= 0 {
		fmt.Fprintf(&b, "member %q (at index %d): ", e.Member, e.Index)
	}
	if e.Topic != "" {
		fmt.Fprintf(&b, "topic %q: ", e.Topic)
		if e.Partition >= 0 {
			fmt.Fprintf(&b, "partition %d: ", e.Partition)
		}
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *InputError) Unwrap() error { return e.Err }

func memberError(i int, m *Member, err error) *InputError {
	return &InputError{Member: m.ID, Index: i, Partition: -1, Err: err}
}

func topicError(topic string, err error) *InputError {
	return &InputError{Index: -1, Topic: topic, Partition: -1, Err: err}
}

// Validate reports the first problem that makes g impossible to assign, as
// an [*InputError], or nil. Every strategy calls it; callers need not.
//
// What Kafka tolerates is tolerated here too: a subscription to a topic
// missing from the metadata or with zero partitions (skipped), an empty
// subscription (the member gets nothing), a topic listed twice in one
// subscription (counted once), and owned partitions that no longer exist
// (dropped). What no Kafka client can send is refused: an empty or repeated
// member ID, a repeated group.instance.id, a negative partition count, a
// rack list whose length differs from its topic's partition count, and a
// partition listed twice in one member's Owned. A member subscribed by
// pattern is refused with [ErrTopicRegex]: resolve the group with
// [ResolveTopicRegex] first.
func (g Group) Validate() error {
	// Most groups are settled without interning a subscription: only
	// the subscribed topics' total can then be refused (the metadata's
	// total bounds it), and only a repeat in an Owned list, which a list
	// in strictly ascending order, as every Assignment is, cannot hold.
	// Interning the subscriptions was 40% of javasticky's Assign on a
	// group of 1000 members of 100 topics (issue 26). Otherwise the
	// whole compile finds the first problem, in its order.
	if err := checkMembers(g.Members); err != nil {
		return err
	}
	_, metaParts, err := checkMetadata(&g)
	if err != nil {
		return err
	}
	total := int64(0)
	for _, n := range metaParts {
		total += int64(n)
	}
	if total <= MaxPartitions && everyOwnedAscending(g.Members) {
		return nil
	}
	_, err = compileUnordered(g, ownedIgnored)
	return err
}

// everyOwnedAscending reports whether every member lists its Owned in
// strictly ascending [TopicPartition.Compare] order, and so names no
// partition twice. Names equal by their data pointer, as a member's
// partitions of one topic usually are, are not compared byte by byte.
func everyOwnedAscending(members []Member) bool {
	for i := range members {
		owned := members[i].Owned
		for k := 1; k < len(owned); k++ {
			a, b := &owned[k-1], &owned[k]
			if len(a.Topic) == len(b.Topic) && unsafe.StringData(a.Topic) == unsafe.StringData(b.Topic) {
				if a.Partition >= b.Partition {
					return false
				}
				continue
			}
			if c := strings.Compare(a.Topic, b.Topic); c > 0 || c == 0 && a.Partition >= b.Partition {
				return false
			}
		}
	}
	return true
}

// Carry returns g with every member owning what a gives it, at
// generation gen: the group the leader sees when the members rejoin
// after a round that gave them a, each reporting what it owns (its
// ownedPartitions, or its sticky user data). Members a does not know
// (new ones), or gives nothing, own nothing, at generation -1. g itself
// is not modified; Owned lists are copies.
//
// The churn model (package churn) carries every round forward with it;
// bench/ and the tests that feed rounds back build their next rounds
// with it too.
func Carry(g Group, a Assignment, gen int32) Group {
	out := g
	out.Members = slices.Clone(g.Members)
	for i := range out.Members {
		m := &out.Members[i]
		m.Owned, m.Generation = nil, -1
		if ps := a[m.ID]; len(ps) > 0 {
			m.Owned, m.Generation = slices.Clone(ps), gen
		}
	}
	return out
}
