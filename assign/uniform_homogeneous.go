package assign

import (
	"errors"
	"fmt"

	"github.com/assigncalc/assigncalc/assign/internal/jvm"
)

// ErrPartitionAssignor is what Kafka's assignors throw as a
// PartitionAssignorException. The inputs that would make them throw are
// refused before as [*InputError]s, so it is returned only if this
// package's reproduction is wrong.
var ErrPartitionAssignor = errors.New("assign: the assignor failed (Kafka's PartitionAssignorException)")

// uniformHomogeneous is UniformHomogeneousAssignmentBuilder: quotas, each
// member in turn keeping what it holds up to its quota, then the free and
// released partitions dealt in chunks to the members below quota.
func (sg *serverGroup) uniformHomogeneous(v KafkaVersion) error {
	cg := sg.cg
	members := int32(len(sg.byPos))
	if members == 0 {
		return nil
	}
	topics, err := sg.subscriptionOrder(sg.byPos[0])
	if err != nil || len(topics) == 0 {
		return err // nothing subscribed exists: every target is empty
	}

	// The partitions nobody holds, in the subscription set's topic order,
	// then room for those members release. Every member starts from what
	// it holds (owner); keepUpTo releases, and leaves what it releases in
	// owner until dealt. (Uniform deals a group that holds nothing on
	// runs, uniform_runs.go; here, the general path, it is every
	// partition.)
	total := int32(0)
	for _, t := range topics {
		total += cg.numParts[t]
	}
	held := int32(0)
	if sg.anyHeld() {
		held = sumHeld(sg.heldIn)
	}
	free := make([]int32, 0, max(0, total-held))
	for _, t := range topics {
		// A topic wholly held has nothing free: on BenchmarkKIP848's
		// uniform-2000x1000000 leave1, before uniform_runs.go took that
		// group, skipping those took the scan from 6M instructions to
		// 0.2M (callgrind); the oracle tests check the free list's order
		// through the answers.
		if sg.anyHeld() && sg.heldIn[t] == cg.numParts[t] {
			continue
		}
		start := cg.start[t]
		for p, h := range sg.owner[start : start+cg.numParts[t]] {
			if h < 0 {
				free = append(free, start+int32(p))
			}
		}
	}

	below, free := sg.quotas(v, total, free)
	next := 0
	for _, u := range below {
		for i := int32(0); i < u.quota && next < len(free); i++ {
			sg.owner[free[next]] = u.pos
			next++
		}
	}
	if next < len(free) {
		return errUnassigned
	}
	return nil
}

// errUnassigned is what the homogeneous builders return should they
// deal fewer partitions than there are.
var errUnassigned = fmt.Errorf("%w: partitions were left unassigned", ErrPartitionAssignor)

// quotas visits the members in order, each keeping what it holds up to
// its quota (keepUpTo), and returns the members left below their quota,
// with what they may take, and free with what the members released
// appended; total is the partitions to share.
func (sg *serverGroup) quotas(v KafkaVersion, total int32, free []int32) ([]unfilled, []int32) {
	members := int32(len(sg.byPos))
	var below []unfilled
	minQuota, extra := total/members, total%members
	for pos := range members {
		m := sg.byPos[pos]
		quota, plusOne := minQuota, extra > 0
		if plusOne {
			quota++
			if v == Kafka40 {
				extra--
			}
		}
		quota, free = sg.keepUpTo(m, quota, free)
		// KAFKA-18688: give the +1 back unless the members left, this
		// one included, are no more than the +1s left.
		if v == Kafka41 && quota > 0 && plusOne && members-pos > extra {
			quota--
			plusOne = false
		}
		if quota > 0 {
			below = append(below, unfilled{pos, quota})
		}
		if v == Kafka41 && plusOne {
			extra--
		}
	}
	return below, free
}

// unfilled is a member, by position, and how many more partitions its
// quota lets it take.
type unfilled struct{ pos, quota int32 }

// keepUpTo keeps up to quota of what member m holds, visiting
// its current target in iteration order, appends what it releases to
// free, and returns the quota left and free. owner already gives m
// everything it holds (it starts as the current targets), so only
// a member holding more than its quota has work to do: the partitions
// it releases stay in owner until they are dealt, as every partition of
// free is.
func (sg *serverGroup) keepUpTo(m, quota int32, free []int32) (int32, []int32) {
	cg := sg.cg
	var held int32 // nil heldBy: nobody holds anything
	if sg.heldBy != nil {
		held = sg.heldBy[m]
	}
	if held <= quota {
		return quota - held, free // everything stays, whatever the order
	}
	topics, parts := sg.targetTopics(m)
	for k, t := range topics {
		if t < 0 {
			continue // not subscribed: dropped
		}
		ps := parts[k]
		if int32(len(ps)) <= quota {
			quota -= int32(len(ps))
			continue
		}
		start := cg.start[t]
		for _, p := range ps[quota:] {
			free = append(free, start+p)
		}
		quota = 0
	}
	return quota, free
}

// subscriptionOrder returns the topics member m subscribes to in the
// order Kafka's homogeneous builders iterate them: new HashSet<Uuid> of
// the member's TopicIds view, itself iterating new HashSet<String>(Topics)
// and dropping names missing from the metadata (conventions 2). Topics
// with no partitions take their place in the set but are left out of the
// result.
func (sg *serverGroup) subscriptionOrder(m int32) ([]int32, error) {
	cg := sg.cg
	g := cg.g
	names := g.Members[m].Topics
	var nameOrder []int
	if cg.distinctNames[m] {
		nameOrder = jvm.StringSetOrderDistinct(names)
	} else {
		nameOrder = jvm.StringSetOrder(names)
	}
	// The names' positions in the metadata, found in the order listed,
	// which is mostly sorted, rather than in the set's.
	positions := cg.meta.Positions(names, make([]int32, 0, len(names)))
	uuids := make([]jvm.Uuid, 0, len(nameOrder))
	topics := make([]int32, 0, len(nameOrder)) // parallel to uuids; -1 for a topic without partitions
	for _, i := range nameOrder {
		k := positions[i]
		if k < 0 {
			continue // not in the metadata: the view skips it
		}
		if t := cg.metaTopic[k]; t >= 0 {
			uuids = append(uuids, sg.ids[t])
			topics = append(topics, t)
			continue
		}
		id, ok := g.TopicIDs[names[i]]
		if !ok {
			return nil, topicError(names[i], ErrNoTopicID)
		}
		uuids = append(uuids, jvm.Uuid(id))
		topics = append(topics, -1)
	}
	out := make([]int32, 0, len(topics))
	// The names are distinct, and so are their ids (CheckTopicIDs).
	for _, k := range jvm.UuidSetOrderDistinct(len(nameOrder), uuids) {
		if topics[k] >= 0 {
			out = append(out, topics[k])
		}
	}
	return out, nil
}

// sumHeld returns the partitions held in all, from heldIn.
func sumHeld(heldIn []int32) int32 {
	var n int32
	for _, c := range heldIn {
		n += c
	}
	return n
}
