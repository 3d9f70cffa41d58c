package assign_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"unicode/utf16"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/assigntest"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
)

// javaOrder compares valid UTF-8 strings as Java's String.compareTo does:
// by UTF-16 code units, literally.
func javaOrder(a, b string) int {
	return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
}

// javaMemberOrder orders members as Kafka's MemberInfo does: static members
// first by group.instance.id, then dynamic members by member ID, both in
// Java's order.
func javaMemberOrder(a, b assign.Member) int {
	switch {
	case a.InstanceID != "" && b.InstanceID != "":
		return javaOrder(a.InstanceID, b.InstanceID)
	case a.InstanceID != "":
		return -1
	case b.InstanceID != "":
		return 1
	}
	return javaOrder(a.ID, b.ID)
}

// rangeReference is an obviously-correct, slow statement of Kafka's range
// rules (see [assign.Range]) on strings, for differential testing of the
// indexed implementation. It orders names as Java does (see javaOrder), so
// it is valid for any valid UTF-8 names.
func rangeReference(g assign.Group) assign.Assignment {
	type topicState struct {
		name         string
		subs         []string // member order
		quota, extra int
		count        map[string]int
		owner        []string // partition => member, "" if unassigned
	}
	rackOf := make(map[string]string)
	out := make(assign.Assignment)
	members := slices.Clone(g.Members)
	slices.SortFunc(members, javaMemberOrder)
	var states []*topicState
	for _, topic := range slices.SortedFunc(maps.Keys(g.Topics), javaOrder) {
		n := int(g.Topics[topic])
		st := &topicState{name: topic, count: make(map[string]int), owner: make([]string, n)}
		for _, m := range members {
			if slices.Contains(m.Topics, topic) {
				st.subs = append(st.subs, m.ID)
			}
		}
		if n == 0 || len(st.subs) == 0 {
			continue
		}
		st.quota, st.extra = n/len(st.subs), n%len(st.subs)
		states = append(states, st)
	}
	for _, m := range members {
		rackOf[m.ID] = m.Rack
		out[m.ID] = nil
	}
	onRack := func(st *topicState, p int, rack string) bool {
		lists := g.PartitionRacks[st.name]
		return rack != "" && lists != nil && slices.Contains(lists[p], rack)
	}
	matches := func(st *topicState, p int, member string) bool {
		return rackOf[member] == "" || onRack(st, p, rackOf[member])
	}
	room := func(st *topicState, member string) int {
		limit := st.quota
		if st.extra > 0 {
			limit++
		}
		return max(0, limit-st.count[member])
	}
	give := func(st *topicState, p int, member string) {
		st.owner[p] = member
		st.count[member]++
		if st.count[member] == st.quota+1 {
			st.extra--
		}
		out[member] = append(out[member], assign.TopicPartition{Topic: st.name, Partition: int32(p)})
	}
	// ranges gives each subscriber, in order, the lowest unassigned
	// partitions it may take, up to its room.
	ranges := func(st *topicState, may func(p int, member string) bool) {
		for _, member := range st.subs {
			k := room(st, member)
			for p := range st.owner {
				if k > 0 && st.owner[p] == "" && may(p, member) {
					give(st, p, member)
					k--
				}
			}
		}
	}
	racked := func(st *topicState) bool {
		return slices.ContainsFunc(st.subs, func(m string) bool { return rackOf[m] != "" })
	}
	needs := func(st *topicState) bool {
		union := make(map[string]bool)
		for _, racks := range g.PartitionRacks[st.name] {
			for _, r := range racks {
				if r != "" {
					union[r] = true
				}
			}
		}
		if !slices.ContainsFunc(st.subs, func(m string) bool { return union[rackOf[m]] }) {
			return false // no member rack (or none holding a replica)
		}
		for p := range st.owner {
			for r := range union {
				if !onRack(st, p, r) {
					return true
				}
			}
		}
		return false
	}

	if slices.ContainsFunc(states, needs) {
		groups := make(map[string][]*topicState)
		var keys []string
		for _, st := range states {
			if !racked(st) {
				continue
			}
			key := fmt.Sprint(len(st.owner), st.subs)
			if groups[key] == nil {
				keys = append(keys, key)
			}
			groups[key] = append(groups[key], st)
		}
		for _, key := range keys {
			group := groups[key]
			if len(group) == 1 {
				if st := group[0]; needs(st) {
					ranges(st, func(p int, member string) bool { return matches(st, p, member) })
				}
				continue
			}
			for p := range group[0].owner {
				for _, member := range group[0].subs {
					if room(group[0], member) > 0 && !slices.ContainsFunc(group, func(st *topicState) bool { return !matches(st, p, member) }) {
						for _, st := range group {
							give(st, p, member)
						}
						break
					}
				}
			}
		}
	}
	for _, st := range states {
		ranges(st, func(int, string) bool { return true })
	}
	for id := range out {
		slices.SortFunc(out[id], assign.TopicPartition.Compare)
	}
	return out
}

// TestRangeMatchesReference checks the indexed Range against
// rangeReference on random racked groups, small enough
// that co-partitioned topics and mixed racked and rackless members are
// common.
func TestRangeMatchesReference(t *testing.T) {
	shapes := map[string]assigntest.Shape{
		"few partitions": {MaxMembers: 5, MaxTopics: 4, MaxPartitions: 3, Static: true, Racks: true},
		"more":           {MaxMembers: 7, MaxTopics: 5, MaxPartitions: 9, Static: true, Racks: true},
		"identical":      {MaxMembers: 5, MaxTopics: 4, MaxPartitions: 4, Racks: true, Identical: true},
		"odd":            {MaxMembers: 7, MaxTopics: 5, MaxPartitions: 9, Static: true, Racks: true, Odd: true},
		"identical, odd": {MaxMembers: 9, MaxTopics: 5, MaxPartitions: 12, Static: true, Identical: true, Odd: true},
	}
	for _, name := range slices.Sorted(maps.Keys(shapes)) {
		t.Run(name, rapid.MakeCheck(func(t *rapid.T) {
			g := assigntest.GroupOf(shapes[name]).Draw(t, "group")
			got, err := assign.Range{}.Assign(g)
			if err != nil {
				t.Fatalf("Range.Assign: %v", err)
			}
			if diff := cmp.Diff(rangeReference(g), got, cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("Range(g) mismatch (-reference +got):\n%s", diff)
			}
		}))
	}
}
