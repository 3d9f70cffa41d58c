package timeline

import (
	"cmp"
	"slices"

	"github.com/assigncalc/assigncalc/assign"
)

// ledger records who consumes each partition when. A partition is owned
// from the moment its owner receives it to the moment its owner revokes
// it, loses it, crashes or closes.
//
// A group of a million partitions makes millions of takes and drops, so
// the ledger keeps no map per partition: each partition has a slot, each
// member a number, and a slot's open and closed ownerships are chains
// through two pools (BenchmarkTimelineLedger; ledger_test.go checks it
// against a ledger of maps).
type ledger struct {
	topics map[string]int32 // topic name => index in slots
	names  []string         // topic index => name
	slots  [][]int32        // topic index => partition => slot

	members map[string]int32 // member name => index in ids
	ids     []string

	born   []int64 // slot => when the partition came to exist
	open   []int32 // slot => head of its chain in opens, or -1
	closed []int32 // slot => head of its chain in closes (newest first), or -1

	opens  []opening // open ownerships; spare entries chain from free
	free   int32
	closes []closing

	// The last topic looked up: takes and drops come sorted by topic.
	lastTopic string
	lastSlots []int32
}

type opening struct {
	member int32
	from   int64
	next   int32
}

type closing struct {
	member   int32
	from, to int64
	next     int32
}

func newLedger() *ledger {
	return &ledger{topics: make(map[string]int32), members: make(map[string]int32), free: -1}
}

// exist records that the partitions of topics exist from t on, unless
// they already do.
func (l *ledger) exist(topics map[string]int32, t int64) {
	for _, name := range allTopics(topics) { // sorted: slots never depend on map order
		ti, ok := l.topics[name]
		if !ok {
			ti = int32(len(l.names))
			l.topics[name] = ti
			l.names = append(l.names, name)
			l.slots = append(l.slots, nil)
		}
		for p := int32(len(l.slots[ti])); p < topics[name]; p++ {
			l.slots[ti] = append(l.slots[ti], int32(len(l.born)))
			l.born = append(l.born, t)
			l.open = append(l.open, -1)
			l.closed = append(l.closed, -1)
		}
		if name == l.lastTopic {
			l.lastSlots = l.slots[ti]
		}
	}
}

// slot returns tp's slot, or -1 for a partition that does not exist.
func (l *ledger) slot(tp assign.TopicPartition) int32 {
	if tp.Topic != l.lastTopic || l.lastSlots == nil {
		ti, ok := l.topics[tp.Topic]
		if !ok {
			return -1
		}
		l.lastTopic, l.lastSlots = tp.Topic, l.slots[ti]
	}
	if tp.Partition < 0 || int(tp.Partition) >= len(l.lastSlots) {
		return -1
	}
	return l.lastSlots[tp.Partition]
}

// member returns the number of a member's name.
func (l *ledger) member(name string) int32 {
	m, ok := l.members[name]
	if !ok {
		m = int32(len(l.ids))
		l.members[name] = m
		l.ids = append(l.ids, name)
	}
	return m
}

// take records that member starts consuming tps at t.
func (l *ledger) take(member string, tps []assign.TopicPartition, t int64) {
	m := l.member(member)
	for _, tp := range tps {
		s := l.slot(tp)
		if s < 0 || l.findOpen(s, m) >= 0 {
			continue
		}
		o := opening{member: m, from: t, next: l.open[s]}
		if i := l.free; i >= 0 {
			l.free = l.opens[i].next
			l.opens[i] = o
			l.open[s] = i
		} else {
			l.open[s] = int32(len(l.opens))
			l.opens = append(l.opens, o)
		}
	}
}

// findOpen returns the index in opens of member's open ownership of slot
// s, or -1.
func (l *ledger) findOpen(s, member int32) int32 {
	for i := l.open[s]; i >= 0; i = l.opens[i].next {
		if l.opens[i].member == member {
			return i
		}
	}
	return -1
}

// drop records that member stops consuming tps at t.
func (l *ledger) drop(member string, tps []assign.TopicPartition, t int64) {
	m, ok := l.members[member]
	if !ok {
		return
	}
	for _, tp := range tps {
		s := l.slot(tp)
		if s < 0 {
			continue
		}
		prev := int32(-1)
		i := l.open[s]
		for i >= 0 && l.opens[i].member != m {
			prev, i = i, l.opens[i].next
		}
		if i < 0 {
			continue
		}
		o := l.opens[i]
		if prev < 0 {
			l.open[s] = o.next
		} else {
			l.opens[prev].next = o.next
		}
		l.opens[i].next, l.free = l.free, i
		if o.from < t {
			l.closes = append(l.closes, closing{member: m, from: o.from, to: t, next: l.closed[s]})
			l.closed[s] = int32(len(l.closes) - 1)
		}
	}
}

// partitions closes every open span at end and returns each partition's
// history, with its unowned spans: the gaps, from its birth to end, that
// no ownership covers. The histories share two backing arrays, one of
// owners and one of unowned spans.
func (l *ledger) partitions(end int64) []Partition {
	order := slices.Clone(l.names)
	slices.Sort(order)
	owners := make([]Ownership, 0, len(l.closes)+len(l.opens))
	unowned := make([]Span, 0, len(l.born))
	out := make([]Partition, 0, len(l.born))
	for _, name := range order {
		for p, s := range l.slots[l.topics[name]] {
			first := len(owners)
			for i := l.closed[s]; i >= 0; i = l.closes[i].next {
				c := l.closes[i]
				owners = append(owners, Ownership{Span{c.from, c.to}, l.ids[c.member]})
			}
			for i := l.open[s]; i >= 0; i = l.opens[i].next {
				// An owner that received the partition at end itself is
				// kept, with an empty span, so that the last hand-over
				// shows.
				if o := l.opens[i]; o.from <= end {
					owners = append(owners, Ownership{Span{o.from, end}, l.ids[o.member]})
				}
			}
			own := owners[first:len(owners):len(owners)]
			slices.SortFunc(own, func(a, b Ownership) int {
				return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To), cmp.Compare(a.Member, b.Member))
			})
			firstGap := len(unowned)
			covered := l.born[s]
			for _, o := range own {
				if o.From > covered {
					unowned = append(unowned, Span{covered, o.From})
				}
				covered = max(covered, o.To)
			}
			if covered < end {
				unowned = append(unowned, Span{covered, end})
			}
			part := Partition{TopicPartition: assign.TopicPartition{Topic: name, Partition: int32(p)}}
			if len(own) > 0 {
				part.Owners = own
			}
			if len(unowned) > firstGap {
				part.Unowned = unowned[firstGap:len(unowned):len(unowned)]
			}
			out = append(out, part)
		}
	}
	return out
}

// final returns who consumes what when the ledger closes, each member's
// partitions sorted.
func (l *ledger) final() assign.Assignment {
	order := slices.Clone(l.names)
	slices.Sort(order)
	out := make(assign.Assignment)
	for _, name := range order {
		for p, s := range l.slots[l.topics[name]] {
			for i := l.open[s]; i >= 0; i = l.opens[i].next {
				id := l.ids[l.opens[i].member]
				out[id] = append(out[id], assign.TopicPartition{Topic: name, Partition: int32(p)})
			}
		}
	}
	return out
}
