package assign

import "slices"

// commonSubscribers returns the members that subscribe to some topic, in
// Kafka's member order, and reports whether all of them subscribe to every
// topic of cg. Members with an empty subscription get nothing from Range
// or RoundRobin, so they do not break the pattern. The result may be
// cg.kafkaOrder itself: it is read-only.
//
// When every member that subscribes to anything subscribes to the same
// topics (the usual group, and the one compile shares one subs slice for),
// every topic has the same subscribers, and RoundRobin's common path
// (roundRobinCommon) writes each member's list straight into the
// [Assignment]: count what each member gets, lay the lists out in one
// backing array, then write them in Go string order of topics (see
// [writeOrder]), so that they come out sorted by [TopicPartition.Compare]
// with nothing sorted and nothing grown.
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
	// names them all; checking costs nothing and keeps the fast path
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

// sameSlice reports whether a and b are the same slice: same length, and
// same backing array unless empty. It is an O(1) shortcut before comparing
// subscriptions, which compile shares between members where it can.
func sameSlice[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
