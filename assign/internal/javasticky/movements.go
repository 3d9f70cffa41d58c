package javasticky

import "github.com/assigncalc/assigncalc/assign/internal/jvm"

// pair is ConsumerPair: a partition moved from src to dst.
type pair struct{ src, dst int }

// movements is AbstractStickyAssignor.PartitionMovements: where each
// partition moved during the balancing, by partition and by topic and
// pair, so that moving a partition back along a pair moves the one that
// came that way, the first of its HashSet.
type movements struct {
	byPartition map[tp]pair
	byTopic     map[string]map[pair]*jvm.ChurnSet[tp]
	s           *leader
	treeBin     bool
}

func (m *movements) removeRecord(p tp) pair {
	pr := m.byPartition[p]
	delete(m.byPartition, p)
	topic := m.byTopic[p.Topic]
	set := topic[pr]
	set.Remove(p)
	if set.Len() == 0 {
		delete(topic, pr)
	}
	if len(topic) == 0 {
		delete(m.byTopic, p.Topic)
	}
	return pr
}

func (m *movements) addRecord(p tp, pr pair) {
	m.byPartition[p] = pr
	topic := m.byTopic[p.Topic]
	if topic == nil {
		topic = map[pair]*jvm.ChurnSet[tp]{}
		m.byTopic[p.Topic] = topic
	}
	set := topic[pr]
	if set == nil {
		set = &jvm.ChurnSet[tp]{}
		topic[pr] = set
	}
	set.Add(p, jvm.TopicPartitionHash(jvm.StringHash(p.Topic), p.Partition))
	if set.Treeified {
		m.treeBin = true
	}
}

func (m *movements) move(p tp, old, newConsumer int) {
	if _, ok := m.byPartition[p]; ok {
		existing := m.removeRecord(p)
		if existing.src != newConsumer {
			m.addRecord(p, pair{existing.src, newConsumer})
		}
		return
	}
	m.addRecord(p, pair{old, newConsumer})
}

func (m *movements) actualPartitionToMove(p tp, old, newConsumer int) tp {
	topic, ok := m.byTopic[p.Topic]
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
	first, _ := set.First()
	return first
}
