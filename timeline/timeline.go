package timeline

import (
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
