package workload

import (
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/google/go-cmp/cmp"
)

// The formulas, checked against values worked out by hand from the
// issue's definitions.
func TestHeteroFormula(t *testing.T) {
	g := Spec{Kind: Hetero, C: 3, T: 5}.Group()

	// Topic i has 1 + (i*7919 % 64) partitions: 7919 = 123*64 + 47.
	wantTopics := map[string]int32{
		"topic-00000": 1,
		"topic-00001": 48, // 1 + 47
		"topic-00002": 31, // 15838 = 247*64 + 30
		"topic-00003": 14, // 23757 = 371*64 + 13
		"topic-00004": 61, // 31676 = 494*64 + 60
	}
	if diff := cmp.Diff(wantTopics, g.Topics); diff != "" {
		t.Errorf("hetero(3, 5) topics mismatch (-want +got):\n%s", diff)
	}

	// Member j subscribes to topic i iff (i*31 + j*17) % 5 < 3.
	//   j=0: i*31 % 5 = 0, 1, 2, 3, 4      -> topics 0, 1, 2
	//   j=1: (i*31 + 17) % 5 = 2, 3, 4, 0, 1 -> topics 0, 3, 4
	//   j=2: (i*31 + 34) % 5 = 4, 0, 1, 2, 3 -> topics 1, 2, 3
	want := map[string][]string{
		"consumer-00000": {"topic-00000", "topic-00001", "topic-00002"},
		"consumer-00001": {"topic-00000", "topic-00003", "topic-00004"},
		"consumer-00002": {"topic-00001", "topic-00002", "topic-00003"},
	}
	got := make(map[string][]string)
	for _, m := range g.Members {
		got[m.ID] = m.Topics
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("hetero(3, 5) subscriptions mismatch (-want +got):\n%s", diff)
	}
	if n := (Spec{Kind: Hetero, C: 3, T: 5}).Partitions(); n != 155 {
		t.Errorf("hetero(3, 5).Partitions() = %d, want 1+48+31+14+61 = 155", n)
	}
}

func TestShapeNames(t *testing.T) {
	var got []string
	for _, s := range Specs() {
		got = append(got, s.Name())
	}
	want := []string{
		"uniform-10x100", "uniform-100x10000", "uniform-1000x100000", "uniform-2000x1000000",
		"hetero-100x200t", "hetero-1000x2000t",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("spec names mismatch (-want +got):\n%s", diff)
	}
}

// Churn on uniform(11, 1, 4): eleven members, one topic of four partitions.
// Members 0..3 held one partition each before.
func TestChurned(t *testing.T) {
	spec := Spec{Kind: Uniform, C: 11, T: 1, P: 4}
	fresh := spec.Group()
	prev := assign.Assignment{}
	for j := range 4 {
		prev[MemberID(j)] = []assign.TopicPartition{{Topic: "topic-00000", Partition: int32(j)}}
	}

	type summary struct {
		IDs        []string
		Owned      map[string]int
		Generation map[string]int32
	}
	summarize := func(g assign.Group) summary {
		s := summary{Owned: map[string]int{}, Generation: map[string]int32{}}
		for _, m := range g.Members {
			s.IDs = append(s.IDs, m.ID)
			s.Owned[m.ID] = len(m.Owned)
			s.Generation[m.ID] = m.Generation
		}
		return s
	}
	// Members 0..3 own their partition at generation 1; the others own
	// nothing, at generation -1, as do newcomers.
	gen := func(newcomers ...string) map[string]int32 {
		out := map[string]int32{}
		for j := range 11 {
			out[MemberID(j)] = -1
			if j < 4 {
				out[MemberID(j)] = 1
			}
		}
		for _, id := range newcomers {
			out[id] = -1
		}
		return out
	}
	owned := func(gone ...string) map[string]int {
		out := map[string]int{}
		for j := range 11 {
			out[MemberID(j)] = 0
			if j < 4 {
				out[MemberID(j)] = 1
			}
		}
		for _, id := range gone {
			delete(out, id)
		}
		return out
	}
	ids := func(replace map[int]string, extra ...string) []string {
		var out []string
		for j := range 11 {
			if id, ok := replace[j]; ok {
				out = append(out, id)
			} else {
				out = append(out, MemberID(j))
			}
		}
		return append(out, extra...)
	}

	tests := []struct {
		churn Churn
		want  summary
	}{
		{Leave1, func() summary {
			s := summary{IDs: ids(map[int]string{0: "consumer-new"}), Owned: owned(MemberID(0)), Generation: gen("consumer-new")}
			s.Owned["consumer-new"] = 0
			delete(s.Generation, MemberID(0))
			return s
		}()},
		// Members 0 and 10 are replaced: j % 10 == 0.
		{Replace10, func() summary {
			s := summary{
				IDs:        ids(map[int]string{0: "consumer-new-00000", 10: "consumer-new-00010"}),
				Owned:      owned(MemberID(0), MemberID(10)),
				Generation: gen("consumer-new-00000", "consumer-new-00010"),
			}
			s.Owned["consumer-new-00000"], s.Owned["consumer-new-00010"] = 0, 0
			delete(s.Generation, MemberID(0))
			delete(s.Generation, MemberID(10))
			return s
		}()},
		{Join1, func() summary {
			s := summary{IDs: ids(nil, "consumer-new"), Owned: owned(), Generation: gen("consumer-new")}
			s.Owned["consumer-new"] = 0
			return s
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.churn.String(), func(t *testing.T) {
			g := Churned(fresh, prev, tt.churn)
			if diff := cmp.Diff(tt.want, summarize(g)); diff != "" {
				t.Errorf("Churned(uniform(11,1,4), prev, %s) mismatch (-want +got):\n%s", tt.churn, diff)
			}
			for _, m := range g.Members {
				if len(m.Topics) != 1 || m.Topics[0] != "topic-00000" {
					t.Errorf("member %s subscribes to %v, want [topic-00000]", m.ID, m.Topics)
				}
			}
		})
	}
}

// LowerBound on three members subscribed to one topic of seven
// partitions, claiming 5, 2 and 0 of them.
//
// With a witness of spread 1, every balanced result gives 2, 2 and 3
// partitions; the 3 should go to the member claiming 5, which then gives
// up 2: the bound is 2. A witness of spread 3 (loads 4, 2, 1) only says
// no member needs more than 4: the member claiming 5 gives up at least 1.
func TestLowerBound(t *testing.T) {
	tp := func(p int32) assign.TopicPartition { return assign.TopicPartition{Topic: "t", Partition: p} }
	g := assign.Group{
		Topics: map[string]int32{"t": 7},
		Members: []assign.Member{
			{ID: "a", Topics: []string{"t"}, Owned: []assign.TopicPartition{tp(0), tp(1), tp(2), tp(3), tp(4)}, Generation: 1},
			{ID: "b", Topics: []string{"t"}, Owned: []assign.TopicPartition{tp(5), tp(6)}, Generation: 1},
			{ID: "c", Topics: []string{"t"}, Generation: -1},
		},
	}
	spread1 := assign.Assignment{
		"a": {tp(0), tp(1), tp(2)},
		"b": {tp(5), tp(6)},
		"c": {tp(3), tp(4)},
	}
	spread3 := assign.Assignment{
		"a": {tp(0), tp(1), tp(2), tp(3)},
		"b": {tp(5), tp(6)},
		"c": {tp(4)},
	}
	tests := []struct {
		name      string
		witnesses []assign.Assignment
		want      int
	}{
		{"no witness", nil, 0},
		{"witness of spread 1", []assign.Assignment{spread3, spread1}, 2},
		{"witness of spread 3, max 4", []assign.Assignment{spread3}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := LowerBound(g, tt.witnesses); got != tt.want {
				t.Errorf("LowerBound(g, %d witnesses) = %d, want %d", len(tt.witnesses), got, tt.want)
			}
		})
	}
}
