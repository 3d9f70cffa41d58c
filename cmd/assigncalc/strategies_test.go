package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/internal/groupfile"
)

// fake is a strategy that misbehaves on purpose.
type fake struct {
	name   string
	assign func(assign.Group) (assign.Assignment, error)
}

func (f fake) Name() string                                     { return f.name }
func (f fake) Protocol() assign.RebalanceProtocol               { return assign.Eager }
func (f fake) Traits() assign.Traits                            { return assign.Traits{} }
func (f fake) Assign(g assign.Group) (assign.Assignment, error) { return f.assign(g) }

// TestAssignCheckedCatchesBugs: a strategy that panics, fails for no
// reason of the input's, or returns an assignment that loses a partition
// is an internal failure (exit status 1), never a silently wrong answer;
// the strategy's own *assign.InputError stays bad input (exit status 2).
func TestAssignCheckedCatchesBugs(t *testing.T) {
	g := assign.Group{
		Topics:  map[string]int32{"t": 2},
		Members: []assign.Member{{ID: "a", Topics: []string{"t"}}},
	}
	tests := []struct {
		s        fake
		status   int
		contains string
	}{
		{fake{"panics", func(assign.Group) (assign.Assignment, error) { panic("boom") }}, exitInternal, "panics panicked: boom"},
		{fake{"fails", func(assign.Group) (assign.Assignment, error) { return nil, errors.New("out of cheese") }}, exitInternal, "out of cheese"},
		{fake{"loses", func(assign.Group) (assign.Assignment, error) {
			return assign.Assignment{"a": {{Topic: "t", Partition: 0}}}, nil
		}}, exitInternal, "t-1"},
		{fake{"refuses", func(g assign.Group) (assign.Assignment, error) {
			return nil, &assign.InputError{Index: -1, Partition: -1, Topic: "t", Err: assign.ErrNegativePartitions}
		}}, exitInput, "negative partition count"},
	}
	for _, tt := range tests {
		t.Run(tt.s.name, func(t *testing.T) {
			_, err := assignChecked(tt.s, g)
			if err == nil {
				t.Fatal("assignChecked: no error")
			}
			if got := statusOf(err); got != tt.status {
				t.Errorf("statusOf(%v) = %d, want %d", err, got, tt.status)
			}
			if !strings.Contains(err.Error(), tt.contains) {
				t.Errorf("error %q does not contain %q", err, tt.contains)
			}
		})
	}
}

func TestStatusOf(t *testing.T) {
	tests := []struct {
		err  error
		want int
	}{
		{nil, exitOK},
		{usagef("bad flag"), exitInput},
		{fmt.Errorf("wrapped: %w", &groupfile.Error{Line: 1, Column: 1, Err: groupfile.ErrSyntax}), exitInput},
		{&assign.InputError{Index: -1, Partition: -1, Err: assign.ErrEmptyTopicName}, exitInput},
		{fmt.Errorf("x: %w", assign.ErrUnknownStrategy), exitInput},
		{&statusError{code: 7}, 7},
		{errors.New("disk on fire"), exitInternal},
		{&internalError{errors.New("bug")}, exitInternal},
	}
	for _, tt := range tests {
		if got := statusOf(tt.err); got != tt.want {
			t.Errorf("statusOf(%v) = %d, want %d", tt.err, got, tt.want)
		}
	}
}
