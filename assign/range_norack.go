package assign

// rangeWithoutRacks is Range when rack awareness changes nothing, for any
// subscriptions: the k-th subscriber (in member order) of a topic with n
// partitions and c subscribers gets n/c partitions, one more when k < n%c,
// in one contiguous run after those of the subscribers before it.
//
// One pass over the subscriptions in member order counts each topic's
// subscribers and records the first n of a topic with n partitions, the
// only ones that can get anything, at row[cg.start[t]:][:n]: the rows fill
// one array as large as the partitions, whatever the subscriptions.
// Members next to each other in member order that share one subscription
// slice are taken together, so a group where most members share a
// subscription costs little more than one where all do. Each member's list
// is then written straight into the [Assignment], topics in Go order
// (see [writeOrder]).
//
// It earns its place over the general ranger (the rack-aware path, which
// without rack matching gives the same ranges), everybody on everything,
// members on a few topics each, and uneven topics alike:
// BenchmarkRangePaths/^(common|mixed|uneven)$/members=1000 (figures in
// bench/RESULTS.md). A path for groups whose members all share one
// subscription, as RoundRobin has, did not earn its place on the same
// benchmark.
func rangeWithoutRacks(cg *compiledGroup) Assignment {
	nm := len(cg.g.Members)
	type topicRow struct {
		subscribers int32 // subscribers seen so far, then in all
		parts       int32 // partition count
		start       int32 // where the topic's row starts in row
	}
	topics := make([]topicRow, len(cg.topics))
	for t := range topics {
		topics[t] = topicRow{parts: cg.numParts[t], start: cg.start[t]}
	}
	row := make([]int32, cg.start[len(cg.topics)])
	for i := 0; i < len(cg.kafkaOrder); {
		m := cg.kafkaOrder[i]
		sub, j := cg.subs[m], i+1
		for j < len(cg.kafkaOrder) && sameSlice(cg.subs[cg.kafkaOrder[j]], sub) {
			j++
		}
		if j == i+1 {
			for _, t := range sub {
				tr := &topics[t]
				if k := tr.subscribers; k < tr.parts {
					row[tr.start+k] = m
				}
				tr.subscribers++
			}
		} else {
			run := cg.kafkaOrder[i:j]
			for _, t := range sub {
				tr := &topics[t]
				if k := tr.subscribers; k < tr.parts {
					copy(row[tr.start+k:tr.start+tr.parts], run)
				}
				tr.subscribers += int32(len(run))
			}
		}
		i = j
	}

	// off[m+2] counts member m's partitions; after the prefix sums off[m+1]
	// is where its list starts and serves as its cursor while writing, which
	// leaves it where its list ends: off[:nm+1] are then the offsets of the
	// lists.
	off := make([]int, nm+2)
	for _, tr := range topics {
		n, c := tr.parts, tr.subscribers
		if c == 0 {
			continue // not subscribed: never in cg.topics, but no division by zero
		}
		q, e := n/c, n%c
		for k, m := range row[tr.start : tr.start+min(n, c)] {
			off[m+2] += int(q)
			if int32(k) < e {
				off[m+2]++
			}
		}
	}
	for i := 2; i < len(off); i++ {
		off[i] += off[i-1]
	}

	backing := make([]TopicPartition, off[nm+1])
	order := writeOrder(cg)
	for i := range cg.topics {
		t := int32(i)
		if order != nil {
			t = order[i]
		}
		tr, name := topics[t], cg.topics[t]
		n, c := tr.parts, tr.subscribers
		if c == 0 {
			continue
		}
		q, e := n/c, n%c
		var first int32
		for k, m := range row[tr.start : tr.start+min(n, c)] {
			length := q
			if int32(k) < e {
				length++
			}
			at := off[m+1]
			for p := first; p < first+length; p++ {
				backing[at] = TopicPartition{name, p}
				at++
			}
			off[m+1] = at
			first += length
		}
	}
	return cg.assignmentFrom(off[:nm+1], backing)
}
