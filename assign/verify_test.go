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
	// Members 1: {t1}, 2: {t1, t2}, 3: {t2}; t1 and t2 have two partitions.
	// Giving 1 both of t1, and 2 and 3 one each of t2, leaves counts
	// 2, 1, 1: balanced. Giving 1 nothing, 2 both t1 and one t2, 3 the
	// other: counts 0, 3, 1, and 2 can pass a t1 partition to 1 directly.
	// Giving 1 both t1 partitions, 2 both t2, 3 nothing: counts 2, 2, 0; no
	// direct pair helps 3 (1 holds no t2), but the chain 1 -> 2 -> 3 does:
	// 1 hands a t1 partition to 2, and 2 a t2 partition to 3, ending 1, 2, 1.
	g := Group{
		Topics: map[string]int32{"t1": 2, "t2": 2},
		Members: []Member{
			{ID: "1", Topics: []string{"t1"}},
			{ID: "2", Topics: []string{"t1", "t2"}},
			{ID: "3", Topics: []string{"t2"}},
		},
	}
	tests := []struct {
		name string
		a    Assignment
		want string
	}{
		{"balanced", Assignment{"1": {{"t1", 0}, {"t1", 1}}, "2": {{"t2", 0}}, "3": {{"t2", 1}}}, ""},
		{"direct pair", Assignment{"1": nil, "2": {{"t1", 0}, {"t1", 1}, {"t2", 0}}, "3": {{"t2", 1}}}, `along ["2" "1"], from 3 partitions to 0`},
		{"chain", Assignment{"1": {{"t1", 0}, {"t1", 1}}, "2": {{"t2", 0}, {"t2", 1}}, "3": nil}, `along ["1" "2" "3"], from 2 partitions to 0`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := VerifyBalanced(g, tc.a)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("VerifyBalanced = %v, want nil", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("VerifyBalanced = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
