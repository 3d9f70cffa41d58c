package timeline

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"

	"github.com/assigncalc/assigncalc/assign"
)

// mapLedger is the ledger as it was first written, a map per partition:
// the reference the slot ledger is checked against.
type mapLedger struct {
	born   map[assign.TopicPartition]int64
	open   map[assign.TopicPartition]map[string]int64
	closed map[assign.TopicPartition][]Ownership
}

func (l *mapLedger) exist(topics map[string]int32, t int64) {
	for name, n := range topics {
		for p := range n {
			tp := assign.TopicPartition{Topic: name, Partition: p}
			if _, ok := l.born[tp]; !ok {
				l.born[tp] = t
			}
		}
	}
}

func (l *mapLedger) take(member string, tps []assign.TopicPartition, t int64) {
	for _, tp := range tps {
		if l.open[tp] == nil {
			l.open[tp] = make(map[string]int64)
		}
		if _, ok := l.open[tp][member]; !ok {
			l.open[tp][member] = t
		}
	}
}

func (l *mapLedger) drop(member string, tps []assign.TopicPartition, t int64) {
	for _, tp := range tps {
		from, ok := l.open[tp][member]
		if !ok {
			continue
		}
		delete(l.open[tp], member)
		if from < t {
			l.closed[tp] = append(l.closed[tp], Ownership{Span{from, t}, member})
		}
	}
}

func (l *mapLedger) partitions(end int64) []Partition {
	var out []Partition
	for _, tp := range slices.SortedFunc(maps.Keys(l.born), assign.TopicPartition.Compare) {
		owners := slices.Clone(l.closed[tp])
		for _, m := range slices.Sorted(maps.Keys(l.open[tp])) {
			if from := l.open[tp][m]; from <= end {
				owners = append(owners, Ownership{Span{from, end}, m})
			}
		}
		slices.SortFunc(owners, func(a, b Ownership) int {
			return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To), cmp.Compare(a.Member, b.Member))
		})
		p := Partition{TopicPartition: tp, Owners: owners}
		covered := l.born[tp]
		for _, o := range owners {
			if o.From > covered {
				p.Unowned = append(p.Unowned, Span{covered, o.From})
			}
			covered = max(covered, o.To)
		}
		if covered < end {
			p.Unowned = append(p.Unowned, Span{covered, end})
		}
		out = append(out, p)
	}
	return out
}

func (l *mapLedger) final() assign.Assignment {
	out := make(assign.Assignment)
	for _, tp := range slices.SortedFunc(maps.Keys(l.open), assign.TopicPartition.Compare) {
		for m := range l.open[tp] {
			out[m] = append(out[m], tp)
		}
	}
	return out
}

// TestLedgerAgainstMaps plays random takes, drops and growths on the slot
// ledger and on the map ledger and compares what they record, at random
// ends (before, at and after the last action).
func TestLedgerAgainstMaps(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		topicNames := []string{"a", "b", "c"}
		memberNames := []string{"m0", "m1", "m2", "m3"}
		fast := newLedger()
		ref := &mapLedger{born: map[assign.TopicPartition]int64{}, open: map[assign.TopicPartition]map[string]int64{}, closed: map[assign.TopicPartition][]Ownership{}}
		topics := map[string]int32{}
		now := int64(0)
		grow := func() {
			name := rapid.SampledFrom(topicNames).Draw(t, "topic")
			topics[name] = max(topics[name], rapid.Int32Range(1, 6).Draw(t, "partitions"))
			fast.exist(topics, now)
			ref.exist(topics, now)
		}
		grow()
		for range rapid.IntRange(0, 60).Draw(t, "actions") {
			now += rapid.Int64Range(0, 3).Draw(t, "advance")
			switch rapid.IntRange(0, 4).Draw(t, "kind") {
			case 0:
				grow()
				continue
			}
			member := rapid.SampledFrom(memberNames).Draw(t, "member")
			var tps []assign.TopicPartition
			for _, name := range allTopics(topics) {
				for p := range topics[name] {
					if rapid.Bool().Draw(t, fmt.Sprintf("%s-%d", name, p)) {
						tps = append(tps, assign.TopicPartition{Topic: name, Partition: p})
					}
				}
			}
			if rapid.Bool().Draw(t, "take") {
				fast.take(member, tps, now)
				ref.take(member, tps, now)
			} else {
				fast.drop(member, tps, now)
				ref.drop(member, tps, now)
			}
		}
		end := now + rapid.Int64Range(-2, 2).Draw(t, "end")
		if diff := gocmp.Diff(ref.partitions(end), fast.partitions(end), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("partitions(%d) differ (-maps +slots):\n%s", end, diff)
		}
		if diff := gocmp.Diff(ref.final(), fast.final(), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("final differs (-maps +slots):\n%s", diff)
		}
	})
}
