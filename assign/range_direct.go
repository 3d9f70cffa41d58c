package assign

import "slices"

// Range and RoundRobin without racks write their result straight into the
// lists of the [Assignment]: count what each member gets, lay the lists out
// in one backing array, then walk the topics in Go string order and append
// each partition to its member's list. Lists come out sorted by
// [TopicPartition.Compare] with nothing sorted and nothing grown, and no
// per-partition owner table is kept.
//
// When every member that subscribes to anything subscribes to the same
// topics (the usual group, and the one compile shares one subs slice for),
// every topic has the same subscribers: one list in member order serves all
// topics, and only the subscribers that get something are touched.

// commonSubscribers returns the members that subscribe to some topic, in
// Kafka's member order, and reports whether all of them subscribe to every
// topic of ix. Members with an empty subscription take part in neither
// strategy, so they do not break the pattern.
func commonSubscribers(ix *index) ([]int32, bool) {
	var common []int32
	for _, sub := range ix.subs {
		if len(sub) == 0 {
			continue
		}
		if common == nil {
			common = sub
		}
		if !sameTopics(sub, common) {
			return nil, false
		}
	}
	// ix.topics holds only subscribed topics, so a shared subscription
	// names them all; checking costs nothing and keeps the fast paths
	// correct should that ever change.
	if len(common) != len(ix.topics) {
		return nil, false
	}
	subscribers := make([]int32, 0, len(ix.kafkaOrder))
	for _, m := range ix.kafkaOrder {
		if len(ix.subs[m]) > 0 {
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
func writeOrder(ix *index) []int32 {
	for i := 1; i < len(ix.topics); i++ {
		if ix.topics[i-1] >= ix.topics[i] {
			return ix.goOrder()
		}
	}
	return nil
}

// rangeWithoutRacks is Range when rack awareness changes nothing: the k-th
// subscriber (in member order) of a topic with n partitions and c
// subscribers gets the contiguous run of [rangeRun].
func rangeWithoutRacks(ix *index) Assignment {
	if subscribers, ok := commonSubscribers(ix); ok {
		return rangeCommon(ix, subscribers)
	}
	return rangeMixed(ix)
}

// rangeRun returns the first partition and the length of the run the k-th
// of c subscribers of a topic with n partitions gets: n/c partitions, one
// more for the first n%c subscribers.
func rangeRun(n, c, k int32) (first, length int32) {
	q, e := n/c, n%c
	first = k*q + min(k, e)
	length = q
	if k < e {
		length++
	}
	return first, length
}

// writeRun writes partitions first..first+len(dst)-1 of topic name to dst.
func writeRun(dst []TopicPartition, name string, first int32) {
	for i := range dst {
		dst[i] = TopicPartition{name, first + int32(i)}
	}
}

// rangeCommon is Range when every subscriber subscribes to every topic:
// subscribers[k] is the k-th subscriber of every topic.
//
// Member k gets, summed over topics, n/c partitions plus one for each topic
// whose n%c exceeds k: its total follows from a histogram of n%c, without
// visiting a (topic, subscriber) pair. Writing visits only the min(n, c)
// subscribers of each topic that get something.
func rangeCommon(ix *index, subscribers []int32) Assignment {
	nm := len(ix.g.Members)
	c := int32(len(subscribers))
	off := make([]int, nm+1)
	if c == 0 {
		return ix.assignmentFrom(off, nil)
	}

	// cursor[k] is first a histogram of n%c, then, by suffix sums, the
	// number of topics whose n%c exceeds k, and finally where the next
	// partition of subscribers[k] goes in backing.
	cursor := make([]int, c)
	quota := 0
	for _, n := range ix.numParts {
		quota += int(n / c)
		cursor[n%c]++
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
	for k, m := range subscribers {
		cursor[k] = off[m]
	}

	backing := make([]TopicPartition, off[nm])
	order := writeOrder(ix)
	for i := range ix.topics {
		t := int32(i)
		if order != nil {
			t = order[i]
		}
		name, n := ix.topics[t], ix.numParts[t]
		for k := range min(n, c) {
			first, length := rangeRun(n, c, k)
			at := cursor[k]
			writeRun(backing[at:at+int(length)], name, first)
			cursor[k] = at + int(length)
		}
	}
	return ix.assignmentFrom(off, backing)
}

// rangeMixed is Range for any subscriptions. One pass over the
// subscriptions in member order counts each topic's subscribers and records
// the first n of a topic with n partitions, the only ones that can get
// anything, at row[ix.start[t]:][:n]: the rows fill one array as large as
// the partitions, whatever the subscriptions.
func rangeMixed(ix *index) Assignment {
	nm := len(ix.g.Members)
	type topicRow struct {
		subscribers int32 // subscribers seen so far, then in all
		parts       int32 // partition count
		start       int32 // where the topic's row starts in row
	}
	topics := make([]topicRow, len(ix.topics))
	for t := range topics {
		topics[t] = topicRow{parts: ix.numParts[t], start: ix.start[t]}
	}
	row := make([]int32, ix.start[len(ix.topics)])
	for _, m := range ix.kafkaOrder {
		for _, t := range ix.subs[m] {
			tr := &topics[t]
			if k := tr.subscribers; k < tr.parts {
				row[tr.start+k] = m
			}
			tr.subscribers++
		}
	}

	// off[m+2] counts member m's partitions; after the prefix sums off[m+1]
	// is where its list starts and serves as its cursor while writing, which
	// leaves it where its list ends: off[:nm+1] are then the offsets of the
	// lists.
	off := make([]int, nm+2)
	for _, tr := range topics {
		n, c := tr.parts, tr.subscribers
		if c == 0 {
			continue // not subscribed: never in ix.topics, but no division by zero
		}
		for k, m := range row[tr.start : tr.start+min(n, c)] {
			_, length := rangeRun(n, c, int32(k))
			off[m+2] += int(length)
		}
	}
	for i := 2; i < len(off); i++ {
		off[i] += off[i-1]
	}

	backing := make([]TopicPartition, off[nm+1])
	order := writeOrder(ix)
	for i := range ix.topics {
		t := int32(i)
		if order != nil {
			t = order[i]
		}
		tr, name := topics[t], ix.topics[t]
		n, c := tr.parts, tr.subscribers
		if c == 0 {
			continue
		}
		for k, m := range row[tr.start : tr.start+min(n, c)] {
			first, length := rangeRun(n, c, int32(k))
			at := off[m+1]
			writeRun(backing[at:at+int(length)], name, first)
			off[m+1] = at + int(length)
		}
	}
	return ix.assignmentFrom(off[:nm+1], backing)
}

// sameSlice reports whether a and b are the same slice: same length, and
// same backing array unless empty.
func sameSlice(a, b []int32) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
