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
	// then room for those members release.
	free := make([]int32, 0, len(sg.owner))
	total := int32(0)
	for _, t := range topics {
		start := cg.start[t]
		for pid := start; pid < start+cg.numParts[t]; pid++ {
			if sg.held == nil || sg.held[pid] < 0 {
				free = append(free, pid)
			}
		}
		total += cg.numParts[t]
	}

	type unfilled struct{ pos, quota int32 }
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
		quota, free = sg.keepUpTo(pos, m, quota, free)
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

	next := 0
	for _, u := range below {
		for i := int32(0); i < u.quota && next < len(free); i++ {
			sg.owner[free[next]] = u.pos
			next++
		}
	}
	if next < len(free) {
		return fmt.Errorf("%w: partitions were left unassigned", ErrPartitionAssignor)
	}
	return nil
}

// keepUpTo keeps up to quota of what member m (at pos) holds, visiting
// its current target in iteration order, appends what it releases to
// free, and returns the quota left and free.
func (sg *serverGroup) keepUpTo(pos, m, quota int32, free []int32) (int32, []int32) {
	cg := sg.cg
	held := sg.heldBy(m)
	if int32(len(held)) <= quota { // everything stays, whatever the order
		for _, pid := range held {
			sg.owner[pid] = pos
		}
		return quota - int32(len(held)), free
	}
	topics, parts := sg.targetTopics(m)
	for k, t := range topics {
		if t < 0 {
			continue // not subscribed: dropped
		}
		start := cg.start[t]
		if int32(len(parts[k])) <= quota {
			for _, p := range parts[k] {
				sg.owner[start+p] = pos
			}
			quota -= int32(len(parts[k]))
			continue
		}
		for _, p := range parts[k] {
			if quota > 0 {
				sg.owner[start+p] = pos
				quota--
			} else {
				free = append(free, start+p)
			}
		}
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
	nameOrder := jvm.StringSetOrder(names)
	var uuids []jvm.Uuid
	var topics []int32 // parallel to uuids; -1 for a topic without partitions
	for _, i := range nameOrder {
		name := names[i]
		if t, ok := cg.topicIndex(name); ok {
			uuids = append(uuids, sg.ids[t])
			topics = append(topics, t)
			continue
		}
		if _, ok := g.Topics[name]; !ok {
			continue // not in the metadata: the view skips it
		}
		id, ok := g.TopicIDs[name]
		if !ok {
			return nil, topicError(name, ErrNoTopicID)
		}
		uuids = append(uuids, jvm.Uuid(id))
		topics = append(topics, -1)
	}
	var out []int32
	for _, k := range jvm.UuidSetOrder(len(nameOrder), uuids) {
		if topics[k] >= 0 {
			out = append(out, topics[k])
		}
	}
	return out, nil
}
