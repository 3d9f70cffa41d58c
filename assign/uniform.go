package assign

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/assigncalc/assigncalc/assign/internal/jvm"
	"github.com/assigncalc/assigncalc/assign/internal/keys"
)

// Uniform is the group coordinator's "uniform" assignor of the KIP-848
// consumer group protocol (group.protocol=consumer), the default of
// group.consumer.assignors: the broker, not a client, computes every
// member's target assignment with it. Uniform returns exactly the target
// Kafka's UniformAssignor returns for the version in Kafka, under the
// conventions below.
//
// # Input
//
// Kafka's assignors work on topic ids, so [Group.TopicIDs] must give one
// for every topic of the metadata that a member subscribes to or holds,
// and for every deleted topic (absent from Group.Topics) a member's
// current target still holds. [Member.Owned] carries each member's current
// target assignment (rack, generation and the other fields are not read:
// neither assignor is rack-aware in Kafka 4.0 or 4.1, whose topic
// describer reports no racks).
//
// # Algorithm
//
// Kafka picks one of two builders by the group's subscription type.
//
// Homogeneous (every member subscribes to the same topics): the P
// partitions of the subscribed topics are shared out as quotas of P/M
// with P%M members taking one more. Members are visited in the order of
// the member map (see Conventions below); each keeps its current
// partitions of subscribed topics, in its target's iteration order, up to
// its quota, and releases the rest. The partitions nobody holds (topic by topic in the order of
// the first member's subscription set, partitions ascending), then the
// released ones, are dealt in contiguous chunks to the members below
// quota, in the same member order. Who takes a +1 differs:
//
//   - Kafka 4.0.0: the first P%M members visited.
//   - Kafka 4.1 (KAFKA-18688, also in 4.0.1 and later 4.0.x): a member
//     that keeps fewer partitions than quota+1 gives its +1 back, unless
//     it is among the last members visited that must take the remaining
//     +1s; so a balanced group stays as it is, and in a fresh group the
//     +1s go to the last members visited.
//
// Heterogeneous: each member keeps its current partitions of topics it
// still subscribes to. Topics are sorted by partitions per subscriber
// descending, then subscriber count ascending, then topic id (Uuid
// order); each topic's unassigned partitions, ascending, go one by one to
// its least-loaded subscriber (total partitions held, ties to the member
// visited first). Then, for up to 16 passes over the topics with two
// subscribers or more, each topic moves its highest partitions from its
// most-loaded subscribers to its least-loaded ones until their loads
// differ by at most one, stopping after a pass that moved nothing. The
// result balances each topic among its subscribers only as far as this
// heuristic reaches.
//
// Complexity, for M members, P partitions and S subscriptions (member,
// topic): homogeneous O(M + P + S); heterogeneous O(S + T·M) per
// balancing pass over T topics, plus O(P log P) for each topic that is
// rebalanced, at most 16 passes and typically one or two.
//
// # Conventions
//
// Kafka's answer depends on the iteration order of Java collections that
// the coordinator builds from its records. Uniform reproduces them for a
// coordinator that received the members in the order of Group.Members (so,
// unlike the classic strategies, the result can depend on that order when
// member IDs share a hash bucket):
//
//  1. The members are a java.util.HashMap<String, ...> filled in the
//     order of Group.Members (String.hashCode over UTF-16).
//  2. A member's subscription is new HashSet<String>(Topics), resolved to
//     topic ids in that set's iteration order, names missing from the
//     metadata dropped (Kafka's TopicIds view, whose size counts them).
//  3. The subscription type is homogeneous when every member names the
//     same set of topic names, missing ones included.
//  4. A member's current target is a HashMap<Uuid, Set<Integer>> with its
//     topics put in the order they first appear in Owned, each set a new
//     HashSet<Integer> of the topic's partitions in the order listed.
//  5. A partition is assigned when some member's current target holds it.
//  6. A topic id that names no topic of the metadata is a deleted topic.
//
// Kafka itself never gives a partition to two members' targets and never
// shrinks a topic, so Uniform refuses a current target that does either
// ([ErrTargetConflict], [ErrTargetOutOfRange]); see [CheckTopicIDs] for the
// topic ids it refuses.
//
// # Example
//
// Members C0 and C1 subscribe to t0 and t1, three partitions each, and
// hold nothing. With the topic ids of the Example, the first member
// visited is C0 (bucket 13 of the member map, C1 is in 14); t1's id
// iterates first in the subscription set, so the six partitions are dealt
// t1-0, t1-1, t1-2, t0-0, t0-1, t0-2 and each member takes a chunk of
// three:
//
//	C0: t1-0 t1-1 t1-2
//	C1: t0-0 t0-1 t0-2
//
// Unlike the client's range or round-robin assignors, uniform does not
// spread each topic over the members: it balances the number of
// partitions, and keeps whatever a member already holds.
//
// The target is where members go, not what they hold at once: package
// coordinator's Reconcile plays the coordinator's reconciliation towards
// it, and its PreviewMigration what moving a classic group to the
// consumer protocol costs.
type Uniform struct {
	// Kafka is the version whose assignor to reproduce; the zero value is
	// the newest, Kafka44.
	Kafka KafkaVersion
}

// Name is the assignor's name in group.consumer.assignors and
// group.remote.assignor: "uniform".
func (Uniform) Name() string { return "uniform" }

// Protocol is [ServerAssigned]: the coordinator assigns and reconciles.
func (Uniform) Protocol() RebalanceProtocol { return ServerAssigned }

// Traits says that Uniform is sticky up to each member's quota, without
// the promise of [Traits.Balanced].
func (Uniform) Traits() Traits { return Traits{Sticky: true} }

// KafkaVersion returns u.Kafka.
func (u Uniform) KafkaVersion() KafkaVersion { return u.Kafka }

// WithKafkaVersion returns Uniform for Kafka v.
func (Uniform) WithKafkaVersion(v KafkaVersion) KafkaVersioned { return Uniform{Kafka: v} }

// Assign returns each member's new target assignment, or an
// [*InputError] for a group Kafka could not hold (see the type's doc).
//
// A member whose new target is exactly its Owned list, sorted as
// [TopicPartition.Compare] sorts, is given that list itself, as Kafka's
// coordinator hands a member back its own set: after one member of a
// large group leaves, that is nearly every member, and nothing is
// copied for them. In a homogeneous group, a member whose Owned list is
// one stretch of partitions of one topic, in order, and that gives up
// partitions at the list's end only, is given the rest of that list, as
// members that each hold a whole topic are when one member joins. Such
// a list is capped, so append copies it, but writing into its elements
// writes into g's Owned list: treat the answer as read-only, or clone
// what you change.
func (u Uniform) Assign(g Group) (Assignment, error) {
	sg, err := u.solve(g)
	if err != nil {
		return nil, err
	}
	return sg.assignment(), nil
}

// AssignRanges returns the answer of [Uniform.Assign] as ranges: each run
// of consecutive partitions of a topic that the target gives one member
// is one [TopicRange], for callers that encode the answer or count it and
// need no TopicPartition per partition. Uniform deals contiguous chunks,
// so there are few runs: about one per member and topic it touches.
//
// It skips what Assign does for the members whose target is new, writing
// a TopicPartition (a string and an int) per partition into memory the
// garbage collector must scan: compare
// BenchmarkKIP848/shape=uniform-2000x1000000/strategy=uniform-ranges/churn=fresh
// with .../strategy=uniform/churn=fresh, where every list is new.
// TestUniformAssignRanges checks it against Assign.
func (u Uniform) AssignRanges(g Group) (RangeAssignment, error) {
	sg, err := u.solve(g)
	if err != nil {
		return RangeAssignment{}, err
	}
	return sg.ranges(), nil
}

// solve computes g's new targets: into sg.final, as runs, for a
// homogeneous group, into sg.owner for a heterogeneous one.
func (u Uniform) solve(g Group) (*serverGroup, error) {
	if err := u.Kafka.check(); err != nil {
		return nil, err
	}
	sg, err := compileServer(g)
	if err != nil {
		return nil, err
	}
	if !sg.homogeneous {
		sg.uniformHeterogeneous()
		return sg, nil
	}
	if err := sg.uniformHomogeneous(u.Kafka); err != nil {
		return nil, err
	}
	return sg, nil
}

// KafkaVersion selects the Kafka release whose group-coordinator
// assignors [Uniform] and [ServerRange] reproduce. The zero value is the
// newest, [Kafka44].
//
// What changes between versions, read from the history of the builders
// (UniformHomogeneousAssignmentBuilder, UniformHeterogeneousAssignmentBuilder,
// RangeAssignor, AssignorHelpers) on the 4.0 to 4.4 branches of Apache
// Kafka: only 4.0.0's uniform homogeneous builder differs (KAFKA-18688,
// commit c16c240bd1, in 4.1.0 and backported to 4.0.1). After it the
// builders' code is the same: 4.2 brought cleanups (fd9b5514ad: a
// private class became a record, held in a list and never hashed; a
// local lost its initializer) and helpers only the share assignor calls
// (KAFKA-19362), 4.3 a Javadoc fix to RangeAssignor (aaca67ceed). Kafka
// 4.2, 4.3 and 4.4's own classes answer the goldens of
// testdata/kip848 byte for byte as 4.1's do, so Kafka41 to Kafka44 share
// one implementation. 4.2 is the first release with share groups'
// [Simple] assignor (KIP-932), the same in 4.2, 4.3 and 4.4.
type KafkaVersion int8

const (
	// Kafka44 is Apache Kafka 4.4, the newest release.
	Kafka44 KafkaVersion = iota
	// Kafka43 is Apache Kafka 4.3: the assignors of 4.4.
	Kafka43
	// Kafka42 is Apache Kafka 4.2: the assignors of 4.4.
	Kafka42
	// Kafka41 is Apache Kafka 4.1.0, and 4.0.1 and later 4.0.x releases,
	// which carry the same uniform assignor (KAFKA-18688): the assignors
	// of 4.4.
	Kafka41
	// Kafka40 is Apache Kafka 4.0.0.
	Kafka40
)

// ErrUnknownKafkaVersion is returned for a [KafkaVersion] this package
// does not reproduce.
var ErrUnknownKafkaVersion = errors.New("unknown Kafka version")

// String returns the release: "4.4", "4.3", "4.2", "4.1" or "4.0".
func (v KafkaVersion) String() string {
	if v.check() != nil {
		return fmt.Sprintf("KafkaVersion(%d)", int8(v))
	}
	return "4." + strconv.Itoa(int(4-v))
}

// ParseKafkaVersion reads a Kafka release, "4.0" to "4.4" or with a
// patch number: "4.0.0" is Kafka40, and 4.0.1 and later 4.0 patches, which
// ship 4.1's uniform assignor (KAFKA-18688), are Kafka41; any 4.N.x is
// 4.N otherwise.
func ParseKafkaVersion(s string) (KafkaVersion, error) {
	s = strings.TrimSpace(s)
	major, patch, hasPatch := s, "", false
	if i := strings.LastIndexByte(s, '.'); i > 0 && strings.Count(s, ".") == 2 {
		major, patch, hasPatch = s[:i], s[i+1:], true
	}
	if hasPatch {
		if _, err := strconv.ParseUint(patch, 10, 16); err != nil {
			major = ""
		}
	}
	switch major {
	case "4.4":
		return Kafka44, nil
	case "4.3":
		return Kafka43, nil
	case "4.2":
		return Kafka42, nil
	case "4.1":
		return Kafka41, nil
	case "4.0":
		if hasPatch && strings.TrimLeft(patch, "0") != "" {
			return Kafka41, nil
		}
		return Kafka40, nil
	}
	return Kafka44, fmt.Errorf("assign: %w %q: want 4.0, 4.1, 4.2, 4.3 or 4.4", ErrUnknownKafkaVersion, s)
}

func (v KafkaVersion) check() error {
	if v < Kafka44 || v > Kafka40 {
		return &InputError{Index: -1, Partition: -1, Err: fmt.Errorf("%w %d", ErrUnknownKafkaVersion, int8(v))}
	}
	return nil
}

// TopicID is a Kafka topic id (KIP-516): 16 bytes, written as the
// 22-character URL-safe base64 string kafka-topics.sh --describe prints
// as TopicId.
type TopicID [16]byte

// ParseTopicID reads the 22-character form of a topic id.
func ParseTopicID(s string) (TopicID, error) {
	u, err := jvm.ParseUuid(s)
	if err != nil {
		return TopicID{}, fmt.Errorf("assign: topic id %q: %w", s, err)
	}
	return TopicID(u), nil
}

// String returns the 22-character form Kafka prints.
func (id TopicID) String() string { return jvm.Uuid(id).String() }

// Errors of the KIP-848 assignors, wrapped in an [*InputError].
var (
	ErrNoTopicID        = errors.New("no topic id")
	ErrReservedTopicID  = errors.New("reserved topic id (Uuid.ZERO_UUID or METADATA_TOPIC_ID)")
	ErrDuplicateTopicID = errors.New("topic id already names another topic")
	ErrTargetOutOfRange = errors.New("current target holds a partition the topic does not have")
	ErrTargetConflict   = errors.New("partition in the current targets of two members")
)

// CheckTopicIDs reports the first topic id of g.TopicIDs, in name order,
// that Kafka could not have given: the zero Uuid or the metadata topic's
// (both reserved), or an id already given to another name.
func CheckTopicIDs(g Group) error {
	// A pass in map order finds whether anything may be wrong; only then
	// are the names sorted, to report the first fault whatever the map
	// order, or none: keys.Seen may take two ids for one, and costs less
	// than numbering them, once per call of the KIP-848 assignors
	// (BenchmarkKIP848/shape=uniform-1000x100000/strategy=uniform/churn=leave1).
	seen := keys.NewSeen(len(g.TopicIDs))
	for _, id := range g.TopicIDs {
		if seen.Add(id) || id == (TopicID{}) || id == (TopicID{15: 1}) {
			return firstBadTopicID(g)
		}
	}
	return nil
}

func firstBadTopicID(g Group) error {
	names := slices.Sorted(maps.Keys(g.TopicIDs))
	seen := make(map[TopicID]string, len(names))
	for _, name := range names {
		id := g.TopicIDs[name]
		if id == (TopicID{}) || id == (TopicID{15: 1}) {
			return topicError(name, fmt.Errorf("%w: %s", ErrReservedTopicID, id))
		}
		if other, ok := seen[id]; ok {
			return topicError(name, fmt.Errorf("%w %q: %s", ErrDuplicateTopicID, other, id))
		}
		seen[id] = name
	}
	return nil
}
