package timeline

import (
	"cmp"
	"maps"
	"slices"

	"github.com/assigncalc/assigncalc/assign"
)

// Timeline is what [Simulate] returns: the rebalances, the steps that
// mattered, each partition's owners over time, and a summary.
type Timeline struct {
	Strategy string   // the strategy's Kafka name (under Consumer, the server-side assignor's or its stand-in's)
	Protocol Protocol // the group protocol
	End      int64    // the time the timeline ends; open intervals are closed here

	Rebalances []Rebalance
	Steps      []Step
	Partitions []Partition // sorted by topic, then partition
	Summary    Summary

	// Final is what each live member consumes at End, sorted; members
	// that consume nothing are left out.
	Final assign.Assignment
}

// Rebalance is one rebalance: under Classic, from the coordinator's move
// to PreparingRebalance to the end of the SyncGroup phase; under Consumer,
// from a group epoch bump until every member has reconciled to the target
// (or the next bump).
type Rebalance struct {
	Start, End int64
	Reason     string
	Generation int32 // the generation (Classic) or group epoch (Consumer) it leads to
}

// Step is one thing a member or the coordinator did that changed the
// course of the timeline.
type Step struct {
	At     int64
	Member string // "" for the coordinator's own steps
	What   string
}

// Partition is the history of one partition.
type Partition struct {
	assign.TopicPartition
	Owners  []Ownership // in time order; the owner at End has a span to End, empty if it received the partition at End
	Unowned []Span      // in time order: the spans no live member consumed it
}

// Ownership is a span during which a member consumed a partition.
type Ownership struct {
	Span
	Member string
}

// Span is the half-open interval [From, To) of milliseconds.
type Span struct {
	From, To int64
}

// Len is To - From.
func (s Span) Len() int64 { return s.To - s.From }

// Summary condenses a timeline.
type Summary struct {
	Rebalances         int   // number of rebalances
	MaxUnownedMs       int64 // the longest span any partition was unowned
	UnownedPartitionMs int64 // the sum over partitions of the time they were unowned
}

// ledger records who consumes each partition when. A partition is owned
// from the moment its owner receives it to the moment its owner revokes
// it, loses it, crashes or closes.
type ledger struct {
	born   map[assign.TopicPartition]int64 // partition => when it came to exist
	open   map[assign.TopicPartition]map[string]int64
	closed map[assign.TopicPartition][]Ownership
}

func newLedger() *ledger {
	return &ledger{
		born:   make(map[assign.TopicPartition]int64),
		open:   make(map[assign.TopicPartition]map[string]int64),
		closed: make(map[assign.TopicPartition][]Ownership),
	}
}

// exist records that the partitions of topics exist from t on, unless
// they already do.
func (l *ledger) exist(topics map[string]int32, t int64) {
	for name, n := range topics {
		for p := range n {
			tp := assign.TopicPartition{Topic: name, Partition: p}
			if _, ok := l.born[tp]; !ok {
				l.born[tp] = t
			}
		}
	}
}

// take records that member starts consuming tps at t.
func (l *ledger) take(member string, tps []assign.TopicPartition, t int64) {
	for _, tp := range tps {
		if l.open[tp] == nil {
			l.open[tp] = make(map[string]int64)
		}
		if _, ok := l.open[tp][member]; !ok {
			l.open[tp][member] = t
		}
	}
}

// drop records that member stops consuming tps at t.
func (l *ledger) drop(member string, tps []assign.TopicPartition, t int64) {
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

// partitions closes every open span at end and returns each partition's
// history, with its unowned spans: the gaps, from its birth to end, that
// no ownership covers.
func (l *ledger) partitions(end int64) []Partition {
	tps := slices.SortedFunc(maps.Keys(l.born), assign.TopicPartition.Compare)
	out := make([]Partition, 0, len(tps))
	for _, tp := range tps {
		owners := slices.Clone(l.closed[tp])
		for _, m := range slices.Sorted(maps.Keys(l.open[tp])) {
			// An owner that received the partition at end itself is kept,
			// with an empty span, so that the last hand-over shows.
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

// final returns who consumes what when the ledger closes.
func (l *ledger) final() assign.Assignment {
	out := make(assign.Assignment)
	for _, tp := range slices.SortedFunc(maps.Keys(l.open), assign.TopicPartition.Compare) {
		for m := range l.open[tp] {
			out[m] = append(out[m], tp)
		}
	}
	return out
}

// summarize computes the summary of tl.
func summarize(tl *Timeline) Summary {
	s := Summary{Rebalances: len(tl.Rebalances)}
	for _, p := range tl.Partitions {
		for _, u := range p.Unowned {
			s.MaxUnownedMs = max(s.MaxUnownedMs, u.Len())
			s.UnownedPartitionMs += u.Len()
		}
	}
	return s
}

// Partition returns the history of tp, and false when tl has none.
func (tl *Timeline) Partition(tp assign.TopicPartition) (Partition, bool) {
	i, ok := slices.BinarySearchFunc(tl.Partitions, tp, func(p Partition, tp assign.TopicPartition) int {
		return p.TopicPartition.Compare(tp)
	})
	if !ok {
		return Partition{}, false
	}
	return tl.Partitions[i], true
}

// OwnerAt returns the members consuming tp at time t (more than one only
// if the protocol let two members consume it at once), sorted.
func (p Partition) OwnerAt(t int64) []string {
	var out []string
	for _, o := range p.Owners {
		if o.From <= t && t < o.To {
			out = append(out, o.Member)
		}
	}
	slices.Sort(out)
	return out
}
