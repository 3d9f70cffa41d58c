package jvm

// TopicPartitionHash is org.apache.kafka.common.TopicPartition.hashCode
// (Kafka 0.9 to 4.x): 31 * (31 + partition) + topic.hashCode(), given the
// topic's [StringHash].
func TopicPartitionHash(topicHash int32, partition int32) int32 {
	return 31*(31+partition) + topicHash
}

// ChurnSet follows a java.util.HashSet made by new HashSet<>() through
// adds and removes, far enough to say which element its iterator returns
// first: Kafka's sticky assignor moves "partitionMovementsForThisTopic
// .get(reversePair).iterator().next()", a set it adds to and removes from.
//
// Without tree bins a HashSet iterates bucket by bucket, each bucket in
// the order its entries were added (a removal keeps the others' order, an
// entry added again goes last, a resize keeps the relative order of the
// entries it splits). So the first element is the one in the lowest
// bucket of the current table, first added among those. The table starts
// at 16 buckets at the first add, never shrinks, and doubles when the set
// holds more than 3/4 of its capacity, or when an add makes a bucket of a
// table of fewer than 64 buckets reach nine entries. When an add makes a
// bucket of a larger table reach nine entries, Java turns that bucket into
// a red-black tree whose iteration order this type does not follow: it
// records that in [ChurnSet.Treeified] for the caller to report.
//
// Sets in the sticky assignor hold few elements; each operation costs
// O(len) and the type favours being obviously right.
type ChurnSet[K comparable] struct {
	entries  map[K]churnEntry
	capacity int // 0 before the first add
	seq      uint64
	// Treeified is set once an add has made Java treeify a bucket.
	Treeified bool
}

type churnEntry struct {
	hash int32 // spread hash, h ^ (h >>> 16)
	seq  uint64
}

// Len is the number of elements.
func (s *ChurnSet[K]) Len() int { return len(s.entries) }

// Contains reports whether k is in the set.
func (s *ChurnSet[K]) Contains(k K) bool { _, ok := s.entries[k]; return ok }

// Add adds k, whose hashCode is hashCode, as HashSet.add does; adding an
// element the set holds changes nothing.
func (s *ChurnSet[K]) Add(k K, hashCode int32) {
	if _, ok := s.entries[k]; ok {
		return
	}
	if s.entries == nil {
		s.entries = map[K]churnEntry{}
		s.capacity = defaultCapacity
	}
	h := Spread(hashCode)
	mask := int32(s.capacity - 1)
	inBucket := 0
	for _, e := range s.entries {
		if e.hash&mask == h&mask {
			inBucket++
		}
	}
	s.seq++
	s.entries[k] = churnEntry{h, s.seq}
	if inBucket >= treeifyThreshold { // the new entry is the ninth or later
		if s.capacity < minTreeifyCapacity {
			s.capacity <<= 1
		} else {
			s.Treeified = true
		}
	}
	if len(s.entries) > s.capacity*3/4 {
		s.capacity <<= 1
	}
}

// Remove removes k, as HashSet.remove does.
func (s *ChurnSet[K]) Remove(k K) { delete(s.entries, k) }

// First returns the element iterator().next() returns, and false when the
// set is empty.
func (s *ChurnSet[K]) First() (K, bool) {
	var best K
	found := false
	var bb int32
	var bs uint64
	mask := int32(s.capacity - 1)
	for k, e := range s.entries {
		b := e.hash & mask
		if !found || b < bb || b == bb && e.seq < bs {
			best, bb, bs, found = k, b, e.seq, true
		}
	}
	return best, found
}
