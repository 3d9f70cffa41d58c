package javasticky

import (
	"slices"
	"strings"
	"unsafe"

	"github.com/assigncalc/assigncalc/assign"
)

// pid is a partition known by a dense number rather than its topic's name:
// the partitions of partitionsPerTopic are numbered 0..total-1, topics in
// String.compareTo order and each topic's partitions in order, so that
// sorting numbers sorts by (topic, partition) as Java's comparators do
// and a partition's facts live in slices instead of maps keyed by
// strings. A claim of a partition its topic no longer has, which Java
// keeps, gets a number past total.
type pid = int32

// pindex numbers the partitions (see pid).
type pindex struct {
	names []string         // topics of partitionsPerTopic, String.compareTo order
	rank  map[string]int32 // name => place in names
	base  []int32          // topic => its first pid; base[len(names)] is total
	// topicOf is pid => topic for the pids below total: members own a
	// partition or two of many topics, so looking a topic up by
	// searching base, once per owned partition, was a tenth of Assign
	// on a churned homogeneous group of 1000 members of 100 topics.
	topicOf []int32
	goRank  []int32 // topic => place in Go's string order, for the output
	byGo    []int32 // place in Go's string order => topic
	// byData finds a topic by its name's data pointer (see lookup):
	// an open-addressed table of 1 + topic, a power of two long.
	byData []int32
	total  int
	// Past total: the claims of partitions their topic does not have.
	extraTopic, extraPart []int32
	extra                 map[uint64]pid
}

// newPindex numbers the partitions of topics names, in String.compareTo
// order, of counts[i] partitions each.
func newPindex(names []string, counts []int32) *pindex {
	x := &pindex{names: names, rank: make(map[string]int32, len(names))}
	x.base = make([]int32, len(names)+1)
	for r, t := range names {
		x.rank[t] = int32(r)
		x.base[r+1] = x.base[r] + counts[r]
	}
	x.total = int(x.base[len(names)])
	x.topicOf = make([]int32, x.total)
	for r := range names {
		t := x.topicOf[x.base[r]:x.base[r+1]]
		for k := range t {
			t[k] = int32(r)
		}
	}
	x.goRank = make([]int32, len(names))
	byGo := make([]int32, len(names))
	for r := range byGo {
		byGo[r] = int32(r)
	}
	slices.SortFunc(byGo, func(a, b int32) int { return strings.Compare(names[a], names[b]) })
	for k, r := range byGo {
		x.goRank[r] = int32(k)
	}
	x.byGo = byGo
	size := 1
	for size < 2*len(names) {
		size <<= 1
	}
	x.byData = make([]int32, size)
	for r, t := range names {
		if len(t) == 0 {
			continue
		}
		k := dataSlot(t, size)
		for x.byData[k] != 0 {
			k = (k + 1) & (size - 1)
		}
		x.byData[k] = int32(r) + 1
	}
	return x
}

// dataSlot is where byData, size long, first looks for a name.
func dataSlot(t string, size int) int {
	return int(uint64(uintptr(unsafe.Pointer(unsafe.StringData(t)))) * 0x9e3779b97f4a7c15 >> 32 & uint64(size-1))
}

// lookup returns the topic named t, if partitionsPerTopic has it. Owned
// lists carried from an answer name topics by the very strings of the
// subscriptions, so the name's data pointer usually finds it without
// hashing its bytes (the map's lookups were a twelfth of Assign on
// homogeneous-1000x100x100 join1); other strings go to the map.
func (x *pindex) lookup(t string) (int32, bool) {
	if len(t) > 0 {
		size := len(x.byData)
		data := unsafe.StringData(t)
		for k := dataSlot(t, size); x.byData[k] != 0; k = (k + 1) & (size - 1) {
			if r := x.byData[k] - 1; unsafe.StringData(x.names[r]) == data && len(x.names[r]) == len(t) {
				return r, true
			}
		}
	}
	r, ok := x.rank[t]
	return r, ok
}

// count is the number of partitions of topic r.
func (x *pindex) count(r int32) int32 { return x.base[r+1] - x.base[r] }

// id numbers partition p of topic r.
func (x *pindex) id(r, p int32) pid {
	if p >= 0 && p < x.count(r) {
		return x.base[r] + p
	}
	k := uint64(r)<<32 | uint64(p)
	if i, ok := x.extra[k]; ok {
		return i
	}
	if x.extra == nil {
		x.extra = map[uint64]pid{}
	}
	i := pid(x.total + len(x.extraTopic))
	x.extra[k] = i
	x.extraTopic = append(x.extraTopic, r)
	x.extraPart = append(x.extraPart, p)
	return i
}

// size is the number of partitions numbered, claims past a topic's end
// included: the length of a slice indexed by pid.
func (x *pindex) size() int { return x.total + len(x.extraTopic) }

// topicPart returns the topic (rank) and number of partition i.
func (x *pindex) topicPart(i pid) (int32, int32) {
	if int(i) >= x.total {
		e := int(i) - x.total
		return x.extraTopic[e], x.extraPart[e]
	}
	r := x.topicOf[i]
	return r, i - x.base[r]
}

// tp is partition i as a TopicPartition.
func (x *pindex) tp(i pid) tp {
	r, p := x.topicPart(i)
	return tp{Topic: x.names[r], Partition: p}
}

// key orders partitions by (topic, partition), as Java compares them: a
// claim of a negative partition before its topic's first, one past the
// topic's end after its last (topics have partitions), in number order.
func (x *pindex) key(i pid) uint64 {
	const mid = 1 << 31
	if int(i) < x.total {
		return uint64(i)<<32 | mid
	}
	r, p := x.topicPart(i)
	if p < 0 {
		return uint64(x.base[r])<<32 | uint64(mid+int64(p))
	}
	return uint64(x.base[r+1]-1)<<32 | uint64(mid+int64(p-x.count(r)+1))
}

// sortByTopic sorts ids by (topic, partition); ids are distinct, so an
// unstable sort leaves what Java's stable one does.
func (x *pindex) sortByTopic(ids []pid) {
	if len(x.extraTopic) == 0 {
		slices.Sort(ids)
		return
	}
	slices.SortFunc(ids, func(a, b pid) int {
		ka, kb := x.key(a), x.key(b)
		switch {
		case ka < kb:
			return -1
		case ka > kb:
			return 1
		}
		return 0
	})
}

// output returns each member's partitions sorted by
// assign.TopicPartition.Compare, in one allocation.
func (x *pindex) output(lists [][]pid) [][]tp {
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	slab := make([]tp, n)
	javaOrderIsGoOrder := true
	for r, g := range x.goRank {
		if g != int32(r) {
			javaOrderIsGoOrder = false
			break
		}
	}
	out := make([][]tp, len(lists))
	for c, l := range lists {
		if len(l) == 0 {
			continue
		}
		dst := slab[:len(l):len(l)]
		slab = slab[len(l):]
		x.sortByTopic(l) // Java's (topic, partition) order
		for k, i := range l {
			r, n := x.topicPart(i)
			dst[k] = tp{Topic: x.names[r], Partition: n}
		}
		if !javaOrderIsGoOrder {
			slices.SortFunc(dst, assign.TopicPartition.Compare)
		}
		out[c] = dst
	}
	return out
}
