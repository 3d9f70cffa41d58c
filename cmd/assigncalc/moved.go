package main

import "github.com/assigncalc/assigncalc/assign"

// moved counts the partitions of next whose owner differs from their owner
// in prev, as [assign.Moved] does, with slices per topic instead of a map
// per partition: on a million partitions it is an order of magnitude
// faster, which keeps the preview of large groups within seconds.
func moved(prev, next assign.Assignment) int {
	type owners struct {
		by []int32 // partition => member number + 1, 0 when unowned
	}
	members := make(map[string]int32, len(prev))
	topics := make(map[string]*owners)
	for id, tps := range prev {
		m, ok := members[id]
		if !ok {
			m = int32(len(members)) + 1
			members[id] = m
		}
		var cur *owners
		curTopic := ""
		for _, tp := range tps {
			if cur == nil || tp.Topic != curTopic {
				curTopic = tp.Topic
				if cur = topics[tp.Topic]; cur == nil {
					cur = &owners{}
					topics[tp.Topic] = cur
				}
			}
			if tp.Partition < 0 {
				continue
			}
			for int(tp.Partition) >= len(cur.by) {
				cur.by = append(cur.by, 0)
			}
			cur.by[tp.Partition] = m
		}
	}
	n := 0
	for id, tps := range next {
		m := members[id] // 0 when id owned nothing before: differs from any owner
		var cur *owners
		curTopic := ""
		for _, tp := range tps {
			if tp.Topic != curTopic || cur == nil {
				curTopic = tp.Topic
				cur = topics[tp.Topic]
			}
			if cur == nil || tp.Partition < 0 || int(tp.Partition) >= len(cur.by) {
				continue
			}
			if was := cur.by[tp.Partition]; was != 0 && was != m {
				n++
			}
		}
	}
	return n
}
