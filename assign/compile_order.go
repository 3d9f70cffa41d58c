package assign

// This file holds compile's member order: Kafka's, in which the sticky
// assignors number members and break ties (see kafkaOrder).

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// orderMembers sets cg.kafkaOrder, the member indices in Kafka's order.
func (cg *compiledGroup) orderMembers() {
	members := cg.g.Members
	both := make([]int32, 2*len(members)) // kafkaOrder and the room of ranks in one allocation
	cg.kafkaOrder = both[:len(members):len(members)]
	cg.rankOf = both[len(members):]
	for i := range cg.kafkaOrder {
		cg.kafkaOrder[i] = int32(i)
	}
	sortKafkaOrder(members, cg.kafkaOrder)
}

// sortKafkaOrder sorts order, indices into members, into Kafka's member
// order (see compareKafkaMembers).
func sortKafkaOrder(members []Member, order []int32) {
	isASCII := idsASCII(members)
	if isASCII && len(order) <= shortList {
		// By insertion, comparing in line: a small group's sort through
		// compareKafkaMembers was a tenth of its call (BenchmarkAssign/
		// strategy=sticky/impl=ours/shape=uniform-10x100 in bench/). IDs
		// and instance IDs are distinct (checkMembers), so no two
		// members tie and the order is the sort's below.
		for i := 1; i < len(order); i++ {
			for j := i; j > 0 && kafkaLessASCII(&members[order[j]], &members[order[j-1]]); j-- {
				order[j], order[j-1] = order[j-1], order[j]
			}
		}
		return
	}
	compareIDs := strings.Compare // Java's order of ASCII strings
	if !isASCII {
		compareIDs = javaCompare
	}
	slices.SortFunc(order, func(a, b int32) int {
		return compareKafkaMembers(&members[a], &members[b], compareIDs)
	})
}

// compareKafkaMembers orders members as Kafka's MemberInfo.compareTo does:
// members with a group.instance.id first, ordered by it, then the others
// ordered by member.id, all in Java's string order, which compare gives
// (javaCompare, or strings.Compare when every ID is ASCII).
func compareKafkaMembers(a, b *Member, compare func(a, b string) int) int {
	switch {
	case a.InstanceID != "" && b.InstanceID != "":
		return compare(a.InstanceID, b.InstanceID)
	case a.InstanceID != "":
		return -1
	case b.InstanceID != "":
		return 1
	}
	return compare(a.ID, b.ID)
}

// kafkaLessASCII reports whether a comes before b in Kafka's member order
// (see compareKafkaMembers) when their IDs and instance IDs are ASCII,
// where Java's string order is Go's.
func kafkaLessASCII(a, b *Member) bool {
	switch {
	case a.InstanceID != "" && b.InstanceID != "":
		return a.InstanceID < b.InstanceID
	case a.InstanceID != "":
		return true
	case b.InstanceID != "":
		return false
	}
	return a.ID < b.ID
}

// idsASCII reports whether every member's ID and instance ID is ASCII,
// as ascii does, ORing every byte in one pass instead of testing each:
// a small group's check was a tenth of its call (BenchmarkAssign/
// strategy=sticky/impl=ours/shape=uniform-10x100 in bench/).
func idsASCII(members []Member) bool {
	var or byte
	for i := range members {
		m := &members[i]
		for j := range len(m.ID) {
			or |= m.ID[j]
		}
		for j := range len(m.InstanceID) {
			or |= m.InstanceID[j]
		}
	}
	return or < utf8.RuneSelf
}
