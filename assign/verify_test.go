package assign

import (
	"errors"
	"strings"
	"testing"
)

func TestVerify(t *testing.T) {
	g := Group{
		Topics: map[string]int32{"t": 2, "u": 1, "lonely": 4},
		Members: []Member{
			{ID: "a", Topics: []string{"t", "u"}},
			{ID: "b", Topics: []string{"t"}},
		},
	}
	tests := []struct {
		name string
		a    Assignment
		want string // substring of the error; "" for valid
	}{
		{"valid", Assignment{"a": {{"t", 0}, {"u", 0}}, "b": {{"t", 1}}}, ""},
		{"missing member", Assignment{"a": {{"t", 0}, {"t", 1}, {"u", 0}}}, `member "b" is missing`},
		{"stranger", Assignment{"a": {{"t", 0}, {"t", 1}, {"u", 0}}, "b": nil, "x": nil}, `member "x" is not in the group`},
		{"unassigned", Assignment{"a": {{"u", 0}}, "b": {{"t", 1}}}, "t-0 is not assigned"},
		{"twice", Assignment{"a": {{"t", 0}, {"u", 0}}, "b": {{"t", 0}, {"t", 1}}}, `t-0 assigned to both "a" and "b"`},
		{"not subscribed", Assignment{"a": {{"t", 0}}, "b": {{"t", 1}, {"u", 0}}}, `member "b": u-0 of a topic it does not subscribe to`},
		{"nonexistent", Assignment{"a": {{"t", 0}, {"t", 5}, {"u", 0}}, "b": {{"t", 1}}}, "t-5 does not exist"},
		{"unsubscribed topic", Assignment{"a": {{"lonely", 0}, {"t", 0}, {"u", 0}}, "b": {{"t", 1}}}, "lonely-0 does not exist or nobody subscribes"},
		{"unsorted", Assignment{"a": {{"u", 0}, {"t", 0}}, "b": {{"t", 1}}}, "t-0 listed after u-0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Verify(g, tc.a)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("Verify = %v, want nil", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("Verify = %v, want an error containing %q", err, tc.want)
			case tc.want != "" && !errors.Is(err, ErrInvalidAssignment):
				t.Fatalf("Verify = %v, want it to wrap ErrInvalidAssignment", err)
			}
		})
	}
}

func TestVerifyBalanced(t *testing.T) {
	// Members 1: {t1}, 2: {t1, t2}, 3: {t2}.
	subs := []Member{
		{ID: "1", Topics: []string{"t1"}},
		{ID: "2", Topics: []string{"t1", "t2"}},
		{ID: "3", Topics: []string{"t2"}},
	}
	tests := []struct {
		name   string
		topics map[string]int32
		a      Assignment
		want   string
	}{
		{
			// t1 and t2 with two partitions each: counts 2, 1, 1.
			name:   "balanced",
			topics: map[string]int32{"t1": 2, "t2": 2},
			a:      Assignment{"1": {{"t1", 0}, {"t1", 1}}, "2": {{"t2", 0}}, "3": {{"t2", 1}}},
		},
		{
			// Counts 0, 3, 1: 2 holds t1, which 1 subscribes to.
			name:   "direct pair",
			topics: map[string]int32{"t1": 2, "t2": 2},
			a:      Assignment{"1": nil, "2": {{"t1", 0}, {"t1", 1}, {"t2", 0}}, "3": {{"t2", 1}}},
			want:   `along ["2" "1"], from 3 partitions to 0`,
		},
		{
			// t1 with two partitions, t2 with one: counts 2, 1, 0. No pair
			// differs by two where a partition could pass (1 -> 2 is 2 to
			// 1; 2 -> 3 is 1 to 0), but 1 can pass a t1 partition to 2 while
			// 2 passes t2-0 to 3, ending 1, 1, 1. Kafka's pairwise check
			// would stop here.
			name:   "chain",
			topics: map[string]int32{"t1": 2, "t2": 1},
			a:      Assignment{"1": {{"t1", 0}, {"t1", 1}}, "2": {{"t2", 0}}, "3": nil},
			want:   `along ["1" "2" "3"], from 2 partitions to 0`,
		},
		{
			// Counts 2, 2, 0, yet balanced: 3 subscribes only to t2, which
			// has no partitions, so nothing can reach it.
			name:   "uneven but nothing can move",
			topics: map[string]int32{"t1": 4, "t2": 0},
			a:      Assignment{"1": {{"t1", 0}, {"t1", 1}}, "2": {{"t1", 2}, {"t1", 3}}, "3": nil},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := VerifyBalanced(Group{Topics: tc.topics, Members: subs}, tc.a)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("VerifyBalanced = %v, want nil", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("VerifyBalanced = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
