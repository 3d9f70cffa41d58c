package wire

import (
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/assigncalc/assigncalc/assign"
)

// What a client's group leader checks before it runs a strategy, and while
// it does: the adapters in adapters/ (franz-go, sarama, kafka-go) share
// these, so that each refuses and reports alike.
var (
	// ErrNilStrategy: the leader was given no strategy (nil, or a nil
	// pointer whose methods would dereference it).
	ErrNilStrategy = errors.New("nil strategy")

	// ErrServerAssigned: the strategy is one of the group coordinator's
	// (KIP-848), which a client's leader cannot run: it needs the topics'
	// ids and the members' current targets, which the classic protocol
	// does not carry.
	ErrServerAssigned = errors.New("the strategy is a group coordinator's (KIP-848 server-side), which a classic group's leader cannot run")

	// ErrSharedHistory: two members sent the same sticky history from
	// the same generation, which happens when one client-side object
	// serves several consumers (each sends the history of whichever
	// synced last). Each member then claims the others' partitions and
	// stickiness is lost.
	ErrSharedHistory = errors.New("members sent identical sticky history from the same generation")
)

// CheckLeader reports why a classic group's leader cannot run s: an error
// wrapping [ErrNilStrategy] or [ErrServerAssigned], or nil.
func CheckLeader(s assign.Strategy) error {
	if isNil(s) {
		return ErrNilStrategy
	}
	if s.Protocol() == assign.ServerAssigned {
		return fmt.Errorf("%s: %w", s.Name(), ErrServerAssigned)
	}
	return nil
}

// isNil reports whether s is nil or a nil pointer (or other nil value)
// whose methods would dereference it.
func isNil(s assign.Strategy) bool {
	if s == nil {
		return true
	}
	switch v := reflect.ValueOf(s); v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan, reflect.Interface:
		return v.IsNil()
	}
	return false
}

// SharedHistory returns an error wrapping sentinel when two members of g
// claim the same non-empty partitions from the same known generation:
// sentinel is the caller's own error, which says what to do in its
// client's terms and should wrap [ErrSharedHistory], or nil for
// ErrSharedHistory itself. In one group that happens only when they share their
// history: each partition has one owner per generation. (Members whose
// user data has no generation, StickyAssignor's version 0, may claim
// what they owned in different generations, so they are not compared.)
func SharedHistory(g assign.Group, sentinel error) error {
	if sentinel == nil {
		sentinel = ErrSharedHistory
	}
	// Members are keyed by generation, count and first partition, which
	// no two honest members share; only members that collide are compared
	// whole, so that a large group costs a map entry per member.
	type key struct {
		gen   int32
		n     int
		first assign.TopicPartition
	}
	seen := make(map[key]int, len(g.Members)) // key => index of the first member with it
	for i, m := range g.Members {
		if len(m.Owned) == 0 || m.Generation < 0 {
			continue
		}
		k := key{m.Generation, len(m.Owned), m.Owned[0]}
		j, ok := seen[k]
		if !ok {
			seen[k] = i
			continue
		}
		if slices.Equal(g.Members[j].Owned, m.Owned) {
			return fmt.Errorf("members %q and %q both claim %d partitions from generation %d: %w", g.Members[j].ID, m.ID, len(m.Owned), m.Generation, sentinel)
		}
	}
	return nil
}
