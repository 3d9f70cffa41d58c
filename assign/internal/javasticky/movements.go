package javasticky

import "github.com/assigncalc/assigncalc/assign/internal/jvm"

// pair is ConsumerPair: a partition moved from src to dst.
type pair struct{ src, dst int }

// churnSet is a HashSet<TopicPartition> of partitions known by pid.
type churnSet = jvm.ChurnSet[pid]

// movements is AbstractStickyAssignor.PartitionMovements: where each
// partition moved during the balancing, by partition and by topic and
// pair, so that moving a partition back along a pair moves the one that
// came that way, the first of its HashSet.
type movements struct {
	byPartition map[pid]pair
	byTopic     map[int32]map[pair]*churnSet // by topic rank
	x           *pindex
	topicHash   []int32 // String.hashCode by topic rank, filled at the first record
	trees       treeUse
}

// treeUse says whether a set has had a tree bucket, and whether a set that
// has had one was read: the tests count the groups that reach them.
type treeUse struct{ made, read bool }

func (m *movements) removeRecord(p pid) pair {
	pr := m.byPartition[p]
	delete(m.byPartition, p)
	r, _ := m.x.topicPart(p)
	topic := m.byTopic[r]
	set := topic[pr]
	set.Remove(p)
	if set.Len() == 0 {
		delete(topic, pr)
	}
	if len(topic) == 0 {
		delete(m.byTopic, r)
	}
	return pr
}

func (m *movements) addRecord(p pid, pr pair) {
	m.byPartition[p] = pr
	r, n := m.x.topicPart(p)
	topic := m.byTopic[r]
	if topic == nil {
		topic = map[pair]*churnSet{}
		m.byTopic[r] = topic
	}
	set := topic[pr]
	if set == nil {
		set = &churnSet{}
		topic[pr] = set
	}
	if m.topicHash == nil {
		m.topicHash = make([]int32, len(m.x.names))
		for k, t := range m.x.names {
			m.topicHash[k] = jvm.StringHash(t)
		}
	}
	// A set holds partitions of one topic, whose hash codes 31 * (31 + n)
	// + topic.hashCode() are distinct for distinct n (31 is odd, so
	// multiplying by it is a bijection of int32): a tree bucket never
	// meets two equal hashes, so set.IdentityHash cannot be set and Java's
	// order is always its own deterministic one.
	set.Add(p, jvm.TopicPartitionHash(m.topicHash[r], n))
	m.trees.made = m.trees.made || set.Treeified
}

func (m *movements) move(p pid, old, newConsumer int) {
	if _, ok := m.byPartition[p]; ok {
		existing := m.removeRecord(p)
		if existing.src != newConsumer {
			m.addRecord(p, pair{existing.src, newConsumer})
		}
		return
	}
	m.addRecord(p, pair{old, newConsumer})
}

func (m *movements) actualPartitionToMove(p pid, old, newConsumer int) pid {
	r, _ := m.x.topicPart(p)
	topic, ok := m.byTopic[r]
	if !ok {
		return p
	}
	if pr, ok := m.byPartition[p]; ok {
		old = pr.src
	}
	set, ok := topic[pair{newConsumer, old}]
	if !ok {
		return p
	}
	m.trees.read = m.trees.read || set.Treeified
	first, _ := set.First()
	return first
}
