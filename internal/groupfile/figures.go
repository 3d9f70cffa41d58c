package groupfile

import (
	"math"
	"slices"
	"strconv"

	"github.com/assigncalc/assigncalc/assign"
)

// MemberPartitions is an assignment written in a given member order, as
// "assignment" is: {"member": {"topic": [p, ...]}, ...}, members in the
// order of Members, then any others of Assignment in Go string order;
// members it lacks get {}. Outputs use it for "owned", what the members
// held when the figures beside it were computed.
type MemberPartitions struct {
	Members    []string
	Assignment assign.Assignment
}

// MarshalJSON writes p as [AppendResult] writes an assignment.
func (p MemberPartitions) MarshalJSON() ([]byte, error) {
	w := writer{}
	w.assignment(p.Members, p.Assignment)
	return w.buf, w.err
}

// OwnedOf is what g's members own, in g's member order, or nil when no
// member owns anything (the figures then compare with nothing).
func OwnedOf(g assign.Group) *MemberPartitions {
	if !slices.ContainsFunc(g.Members, func(m assign.Member) bool { return len(m.Owned) > 0 }) {
		return nil
	}
	a := make(assign.Assignment, len(g.Members))
	for _, m := range g.Members {
		a[m.ID] = append(a[m.ID], m.Owned...)
	}
	return &MemberPartitions{Members: MemberIDs(g), Assignment: a}
}

// MarshalJSON writes s as "stats" of [AppendResult]: members, partitions,
// min, max, spread, stddev (rounded to four decimals), idle.
func (s Stats) MarshalJSON() ([]byte, error) {
	return appendStats(nil, &s), nil
}

func appendStats(buf []byte, st *Stats) []byte {
	w := writer{buf: buf}
	w.raw(`{"members":`)
	w.buf = strconv.AppendInt(w.buf, int64(st.Members), 10)
	w.raw(`,"partitions":`)
	w.buf = strconv.AppendInt(w.buf, int64(st.Partitions), 10)
	w.raw(`,"min":`)
	w.buf = strconv.AppendInt(w.buf, int64(st.Min), 10)
	w.raw(`,"max":`)
	w.buf = strconv.AppendInt(w.buf, int64(st.Max), 10)
	w.raw(`,"spread":`)
	w.buf = strconv.AppendInt(w.buf, int64(st.Spread), 10)
	w.raw(`,"stddev":`)
	w.buf = strconv.AppendFloat(w.buf, math.Round(st.StdDev*1e4)/1e4, 'f', -1, 64)
	w.raw(`,"idle":`)
	w.buf = strconv.AppendInt(w.buf, int64(st.Idle), 10)
	w.raw("}")
	return w.buf
}

// Preview is what the preview's table shows of one strategy beyond the
// [Result]'s keys, as the preview writes it in json and jsonl after them
// ([AppendPreview]). Its field names are a public contract. The table's
// figures are those of the strategy's target (for cooperative-sticky,
// after the follow-up rebalance); so are these.
//
// A field is absent when the table has no such column: absence is
// meaningful, and a zero is a zero.
type Preview struct {
	// TargetStats are the statistics of the target when this round's
	// assignment withholds partitions (cooperative-sticky); "stats" are
	// this round's.
	TargetStats *Stats `json:"targetStats,omitempty"`

	// Moved is how many partitions the target takes from their owner,
	// when members own partitions (the table's MOVED).
	Moved *int `json:"moved,omitempty"`

	// Unspread lists the topics two of whose subscribers hold numbers of
	// its partitions that differ by more than one ([assign.UnspreadTopics];
	// the table's UNSPREAD counts them), beside a server-side strategy.
	Unspread *[]string `json:"unspread,omitempty"`

	// MoveBound is the fewest moves an assignment as balanced as the best
	// compared one needs ([assign.MoveBound]), beside a server-side
	// strategy when members own partitions.
	MoveBound *int `json:"moveBound,omitempty"`

	// CrossRack is how many partitions of the target have no replica on
	// their member's rack ([assign.CrossRack], the table's CROSS-RACK), in
	// a rack-aware preview.
	CrossRack *int `json:"crossRack,omitempty"`

	// MemberFigures are each member's figures of the member table, in the
	// group's order, when it shows more than counts (lag or racks).
	MemberFigures []MemberFigures `json:"memberFigures,omitempty"`

	// Coordinator is where the group's coordinator lives, for a named
	// group.
	Coordinator *GroupCoordinator `json:"coordinator,omitempty"`

	// Owned is what the members owned, from which Moved and MoveBound
	// are computed.
	Owned *MemberPartitions `json:"owned,omitempty"`

	// Assumed lists what the input did not say and was assumed (describe
	// output shows no subscriptions, for one), as stderr says it.
	Assumed []string `json:"assumed,omitempty"`
}

// MemberFigures are one member's figures of the preview's member table.
type MemberFigures struct {
	ID    string `json:"id"`
	Rack  string `json:"rack,omitempty"`
	Count int    `json:"count"` // partitions of the target

	// CrossRack counts its partitions with no replica on its rack, in a
	// rack-aware preview.
	CrossRack *int `json:"crossRack,omitempty"`

	// Lag and MaxLag sum and top the lag of its partitions whose lag the
	// describe output showed; absent when it showed none of them.
	Lag    *int64 `json:"lag,omitempty"`
	MaxLag *int64 `json:"maxLag,omitempty"`
}

// GroupCoordinator is where a previewed group's coordinator lives: the
// partition of the offsets topic whose leader it is.
type GroupCoordinator struct {
	Broker     string `json:"broker"`     // "kafka" or "redpanda"
	Partition  int32  `json:"partition"`  // of __consumer_offsets
	Partitions int32  `json:"partitions"` // of __consumer_offsets, the default

	// Shown is the partition rpk showed, when it differs from Partition
	// (the cluster sets another partition count).
	Shown *int32 `json:"shown,omitempty"`
}

// AppendPreview appends r with p's fields after its keys, as compact
// JSON without a newline, to buf.
func AppendPreview(buf []byte, r Result, p Preview) ([]byte, error) {
	return appendExtended(buf, r, p)
}
