package assign

import "slices"

// Range and RoundRobin without racks write their result straight into the
// lists of the [Assignment]: count what each member gets, lay the lists out
// in one backing array, then walk the topics in Go string order and append
// each partition to its member's list. Lists come out sorted by
// [TopicPartition.Compare] with nothing sorted and nothing grown. Only
// RoundRobin with different subscriptions records an owner per partition
// first (see compiledGroup.assignmentOf).
//
// When every member that subscribes to anything subscribes to the same
// topics (the usual group, and the one compile shares one subs slice for),
// every topic has the same subscribers: one list in member order serves all
// topics, and only the subscribers that get something are touched.

// commonSubscribers returns the members that subscribe to some topic, in
// Kafka's member order, and reports whether all of them subscribe to every
// topic of ix. Members with an empty subscription take part in neither
// strategy, so they do not break the pattern. The result may be
// cg.kafkaOrder itself: it is read-only.
func commonSubscribers(cg *compiledGroup) ([]int32, bool) {
	var common []int32
	idle := 0 // members with an empty subscription
	for _, sub := range cg.subs {
		if len(sub) == 0 {
			idle++
			continue
		}
		if common == nil {
			common = sub
		}
		if !sameTopics(sub, common) {
			return nil, false
		}
	}
	// cg.topics holds only subscribed topics, so a shared subscription
	// names them all; checking costs nothing and keeps the fast paths
	// correct should that ever change.
	if len(common) != len(cg.topics) {
		return nil, false
	}
	if idle == 0 {
		return cg.kafkaOrder, true
	}
	subscribers := make([]int32, 0, len(cg.kafkaOrder)-idle)
	for _, m := range cg.kafkaOrder {
		if len(cg.subs[m]) > 0 {
			subscribers = append(subscribers, m)
		}
	}
	return subscribers, true
}

// sameTopics reports whether two subscriptions (sorted, deduplicated topic
// indices) are equal, at once when they share their backing array.
func sameTopics(a, b []int32) bool {
	return sameSlice(a, b) || slices.Equal(a, b)
}

// writeOrder returns the topic indices in Go string order of their names,
// or nil when that is index order (Java's order), as it is unless some name
// holds a supplementary character or invalid UTF-8.
func writeOrder(cg *compiledGroup) []int32 {
	order := cg.goOrder()
	for k, t := range order {
		if t != int32(k) {
			return order
		}
	}
	return nil
}

// rangeWithoutRacks is Range when rack awareness changes nothing: the k-th
// subscriber (in member order) of a topic with n partitions and c
// subscribers gets n/c partitions, one more when k < n%c, in one contiguous
// run after those of the subscribers before it.
func rangeWithoutRacks(cg *compiledGroup) Assignment {
	if subscribers, ok := commonSubscribers(cg); ok {
		return rangeCommon(cg, subscribers)
	}
	return rangeMixed(cg)
}

// rangeCommon is Range when every subscriber subscribes to every topic:
// subscribers[k] is the k-th subscriber of every topic.
//
// Member k gets, summed over topics, n/c partitions plus one for each topic
// whose n%c exceeds k: its total follows from a histogram of n%c, without
// visiting a (topic, subscriber) pair.
func rangeCommon(cg *compiledGroup, subscribers []int32) Assignment {
	nm := len(cg.g.Members)
	c := int32(len(subscribers))
	// off[:nm+1] are the offsets of the lists in backing; cursor, sharing
	// its allocation, is scratch indexed by subscriber.
	off := make([]int, nm+1+int(c))
	off, cursor := off[:nm+1], off[nm+1:]
	if c == 0 {
		return cg.assignmentFrom(off, nil)
	}

	// Topics in Go order, the order of every list, with what each
	// subscriber gets: the k-th gets q partitions from k*q+min(k, e), one
	// more when k < e.
	type split struct {
		name string
		q, e int32 // n/c, n%c
	}
	topics := make([]split, len(cg.topics))
	order := writeOrder(cg)
	// cursor[k] is first a histogram of n%c, then, by suffix sums, the
	// number of topics whose n%c exceeds k.
	quota, most := 0, int32(0) // most: the largest partition count
	for i := range topics {
		t := int32(i)
		if order != nil {
			t = order[i]
		}
		n := cg.numParts[t]
		topics[i] = split{cg.topics[t], n / c, n % c}
		quota += int(n / c)
		cursor[n%c]++
		most = max(most, n)
	}
	above := 0
	for k := c - 1; k >= 0; k-- {
		at := cursor[k]
		cursor[k] = above
		above += at
	}
	for k, m := range subscribers {
		off[m+1] = quota + cursor[k]
	}
	for m := range nm {
		off[m+1] += off[m]
	}

	backing := make([]TopicPartition, off[nm])
	// Only the first min(c, most) subscribers get anything.
	if getters := min(c, most); commonMemberMajor(cg, int(getters)) {
		for k, m := range subscribers[:getters] {
			k := int32(k)
			list := backing[off[m]:off[m+1]]
			w := 0
			for _, sp := range topics {
				first := k*sp.q + min(k, sp.e)
				end := first + sp.q
				if k < sp.e {
					end++
				}
				for p := first; p < end; p++ {
					list[w] = TopicPartition{sp.name, p}
					w++
				}
			}
		}
		return cg.assignmentFrom(off, backing)
	}

	// Topic by topic, visiting only the min(n, c) subscribers that get
	// something; cursor[k] is where the next partition of subscribers[k]
	// goes.
	for k, m := range subscribers {
		cursor[k] = off[m]
	}
	for _, sp := range topics {
		givers := c // min(n, c)
		if sp.q == 0 {
			givers = sp.e
		}
		var first int32
		for k := range givers {
			length := sp.q
			if k < sp.e {
				length++
			}
			at := cursor[k]
			for p := first; p < first+length; p++ {
				backing[at] = TopicPartition{sp.name, p}
				at++
			}
			cursor[k] = at
			first += length
		}
	}
	return cg.assignmentFrom(off, backing)
}

// commonMemberMajor reports whether the lists of members who all subscribe
// to every topic, of which getters get something, should be written one
// member at a time, each list from start to end, rather than one topic at a
// time, scattering every topic's partitions over the lists. Member by
// member costs a step for every (getter, topic) pair but writes memory in
// order; topic by topic pays only for what it writes but jumps from list to
// list, which costs a cache and TLB miss each when lists are large. Member
// by member wins once the pairs are no more than the partitions.
func commonMemberMajor(cg *compiledGroup, getters int) bool {
	return getters*len(cg.topics) <= int(cg.start[len(cg.topics)])
}

// rangeMixed is Range for any subscriptions. One pass over the
// subscriptions in member order counts each topic's subscribers and records
// the first n of a topic with n partitions, the only ones that can get
// anything, at row[cg.start[t]:][:n]: the rows fill one array as large as
// the partitions, whatever the subscriptions. Members next to each other in
// member order that share one subscription slice are taken together, so a
// group where most members share a subscription costs little more than one
// where all do.
func rangeMixed(cg *compiledGroup) Assignment {
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

// sameSlice reports whether a and b are the same slice: same length, and
// same backing array unless empty.
func sameSlice(a, b []int32) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
