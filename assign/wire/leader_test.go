package wire

import (
	"errors"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
)

// TestCheckLeader: a nil strategy, a nil pointer to one and the
// coordinator's assignors are refused; the client-side strategies pass.
func TestCheckLeader(t *testing.T) {
	for _, tc := range []struct {
		s    assign.Strategy
		want error
	}{
		{nil, ErrNilStrategy},
		{(*assign.Range)(nil), ErrNilStrategy},
		{assign.Uniform{}, ErrServerAssigned},
		{assign.ServerRange{}, ErrServerAssigned},
		{assign.Range{}, nil},
		{&assign.CooperativeSticky{}, nil},
	} {
		if err := CheckLeader(tc.s); !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
			t.Errorf("CheckLeader(%#v) = %v, want %v", tc.s, err, tc.want)
		}
	}
}

// TestSharedHistory: members claiming the same partitions from the same
// generation are reported, wrapping the caller's sentinel; the same
// claims from different generations, or without one, are not.
func TestSharedHistory(t *testing.T) {
	own := []assign.TopicPartition{{Topic: "t", Partition: 0}, {Topic: "t", Partition: 1}}
	group := func(genA, genB int32) assign.Group {
		return assign.Group{Members: []assign.Member{
			{ID: "a", Owned: own, Generation: genA},
			{ID: "b", Owned: own, Generation: genB},
			{ID: "c"},
		}}
	}
	hint := errors.New("use one per client")
	if err := SharedHistory(group(3, 3), hint); !errors.Is(err, hint) {
		t.Errorf("SharedHistory(same generation) = %v, want the caller's sentinel", err)
	}
	if err := SharedHistory(group(3, 3), nil); !errors.Is(err, ErrSharedHistory) {
		t.Errorf("SharedHistory(same generation, nil) = %v, want ErrSharedHistory", err)
	}
	for _, gens := range [][2]int32{{3, 2}, {-1, -1}} {
		if err := SharedHistory(group(gens[0], gens[1]), hint); err != nil {
			t.Errorf("SharedHistory(generations %v) = %v, want nil", gens, err)
		}
	}
}
