package assign

import (
	"iter"
	"maps"
	"slices"
)

// slots holds one value of type T for every partition in a set named by
// TopicPartition: in a dense array per topic where the partition numbers
// are dense enough (Kafka's always are), in a map otherwise, so that
// numbers like 2147483647 never make it allocate beyond the size of its
// input. Lookups of one topic after another cost one map access per run
// of a topic, not one per partition.
type slots[T any] struct {
	dense  map[string][]T
	sparse map[TopicPartition]*T

	lastTopic string
	last      []T
	lastOK    bool
}

// newSlots gives a zero slot to every partition each yields; each is
// called twice.
func newSlots[T any](each func(yield func(TopicPartition))) *slots[T] {
	type span struct{ n, max int32 }
	spans := make(map[string]*span)
	var lastTopic string
	var sp *span
	each(func(tp TopicPartition) {
		if sp == nil || tp.Topic != lastTopic {
			lastTopic, sp = tp.Topic, spans[tp.Topic]
			if sp == nil {
				sp = &span{max: -1}
				spans[tp.Topic] = sp
			}
		}
		sp.n++
		if tp.Partition < 0 {
			sp.max = 1 << 30 // no dense array for this topic
		}
		sp.max = max(sp.max, tp.Partition)
	})
	s := &slots[T]{dense: make(map[string][]T, len(spans))}
	for t, sp := range spans {
		if int64(sp.max) < 2*int64(sp.n)+64 {
			s.dense[t] = make([]T, sp.max+1)
		} else if s.sparse == nil {
			s.sparse = make(map[TopicPartition]*T)
		}
	}
	if s.sparse != nil {
		each(func(tp TopicPartition) {
			if _, ok := s.dense[tp.Topic]; !ok && s.sparse[tp] == nil {
				s.sparse[tp] = new(T)
			}
		})
	}
	return s
}

// at returns the slot of tp, or nil when tp was not given to newSlots.
func (s *slots[T]) at(tp TopicPartition) *T {
	if tp.Topic != s.lastTopic || s.last == nil && !s.lastOK {
		s.lastTopic = tp.Topic
		s.last, s.lastOK = s.dense[tp.Topic]
	}
	if s.lastOK {
		if tp.Partition >= 0 && int(tp.Partition) < len(s.last) {
			return &s.last[tp.Partition]
		}
		return nil
	}
	return s.sparse[tp]
}

// all returns every slot, in no particular order.
func (s *slots[T]) all() iter.Seq2[int, T] {
	return func(yield func(int, T) bool) {
		k := 0
		for _, vs := range s.dense {
			for _, v := range vs {
				if !yield(k, v) {
					return
				}
				k++
			}
		}
		for _, v := range s.sparse {
			if !yield(k, *v) {
				return
			}
			k++
		}
	}
}

// inOrder calls f with every partition and its slot in
// [TopicPartition.Compare] order, including, for a dense topic, the
// partitions below its largest that were not given (with zero slots).
func (s *slots[T]) inOrder(f func(TopicPartition, T)) {
	var byTopic map[string][]TopicPartition // sparse partitions by topic
	for tp := range s.sparse {
		if byTopic == nil {
			byTopic = make(map[string][]TopicPartition)
		}
		byTopic[tp.Topic] = append(byTopic[tp.Topic], tp)
	}
	topics := slices.Sorted(maps.Keys(s.dense))
	for t := range byTopic {
		topics = append(topics, t) // a topic is dense or sparse, never both
	}
	slices.Sort(topics)
	for _, t := range topics {
		if vs, ok := s.dense[t]; ok {
			for p, v := range vs {
				f(TopicPartition{t, int32(p)}, v)
			}
			continue
		}
		tps := byTopic[t]
		slices.SortFunc(tps, TopicPartition.Compare)
		for _, tp := range tps {
			f(tp, *s.sparse[tp])
		}
	}
}
