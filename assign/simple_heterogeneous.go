package assign

import "github.com/assigncalc/assigncalc/assign/internal/jvm"

// heterogeneousBuild is Kafka's SimpleHeterogeneousAssignmentBuilder.build:
// the homogeneous builder's steps, topic by topic, among the topic's
// subscribers; see [Simple]. Topics do not interact, so their order (a
// HashSet<Uuid>) does not matter.
func (sg *simpleGroup) heterogeneousBuild() error {
	cg := sg.cg
	g := cg.g
	any := false // some member subscribes to a topic of the metadata
	for _, m := range g.Members {
		for _, t := range m.Topics {
			if _, ok := g.Topics[t]; ok {
				any = true
			}
		}
	}
	for j := range sg.m {
		sg.clear[j] = !any // Kafka's Map.of(): nobody gets anything
		sg.keep[j] = any   // topics nobody subscribes to stay as they are
	}
	if !any {
		return nil
	}
	members := intOrder(sg.m)
	b := newPartitionTable(sg, int(cg.start[len(cg.topics)]))
	for t := range cg.topics {
		var subs []int32 // in index order
		for j, mi := range sg.byPos {
			if sg.subscribes(mi, int32(t)) {
				subs = append(subs, int32(j))
			}
		}
		if err := sg.topicBuild(b, int32(t), subs, members); err != nil {
			return err
		}
	}
	return nil
}

// topicBuild is TopicAssignmentPartialBuilder.build for topic t, whose
// subscribers are subs.
func (sg *simpleGroup) topicBuild(b *partitionTable, t int32, subs, members []int32) error {
	cg := sg.cg
	base := cg.start[t]
	b.topic = t
	sharing, counts := desiredCounts(len(subs), int(cg.numParts[t]))
	desired := make([]int, sg.m)
	for k, j := range subs {
		desired[j] = counts[k]
	}

	// revokeUnassignablePartitions: who holds what of t, members in the
	// order of the map of old assignments.
	var holders []int32             // in insertion order into finalAssignmentByMember
	mine := make(map[int32][]int32) // member => partitions of t in its set, insertion order
	count := make([]int, sg.m)
	for _, j := range members {
		for _, h := range sg.held[j] {
			if h.t != t {
				continue
			}
			holders = append(holders, j)
			for _, part := range h.parts {
				b.hold(base+part, j)
				mine[j] = append(mine[j], part)
				count[j]++
			}
		}
	}

	// revokeOverfilledMembers, in the order of finalAssignmentByMember, a
	// HashMap<Integer, Set<Integer>> made by newHashMap(subscribers) and
	// filled by computeIfAbsent.
	for _, k := range jvm.ComputeOrder(newHashMapCapacity(len(subs)), holders, nil) {
		j := holders[k]
		if count[j] <= desired[j] {
			continue
		}
		for _, x := range jvm.Order(0, mine[j], nil) {
			if count[j] <= desired[j] {
				break
			}
			b.release(base+mine[j][x], j)
			count[j]--
		}
	}

	// revokeOversharedPartitions.
	for _, e := range b.order() {
		live := b.live(e)
		for _, j := range b.holderOrder(e) {
			if live <= sharing {
				break
			}
			b.release(b.pids[e], j)
			count[j]--
			live--
		}
	}

	for part := range cg.numParts[t] {
		b.key(base + part)
	}
	unfilled := make([]bool, sg.m)
	for _, j := range subs {
		unfilled[j] = count[j] < desired[j]
	}
	return b.deal(sharing, unfilled, members, func(pid, j int32) bool {
		count[j]++
		return count[j] >= desired[j]
	})
}
