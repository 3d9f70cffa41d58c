package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/assigncalc/assigncalc/assign"
)

// parseStrategies turns --strategy values (repeatable, comma-separated,
// Kafka names or Java class names, or "all") into strategies, in the order
// given, each once.
func parseStrategies(flag string, values []string) ([]assign.Strategy, error) {
	var out []assign.Strategy
	add := func(s assign.Strategy) {
		if !slices.ContainsFunc(out, func(o assign.Strategy) bool { return o.Name() == s.Name() }) {
			out = append(out, s)
		}
	}
	for _, v := range values {
		for name := range strings.SplitSeq(v, ",") {
			name = strings.TrimSpace(name)
			if name == "all" {
				for _, s := range assign.Strategies() {
					add(s)
				}
				continue
			}
			s, err := assign.Lookup(name)
			if err != nil {
				names := append(assign.StrategyNames(), "uniform", "server-range", "all")
				if near := nearest(name, names); near != "" && errors.Is(err, assign.ErrUnknownStrategy) {
					return nil, usagef("--%s: unknown strategy %q (did you mean %s?): want one of %s, or a Java class name", flag, name, near, strings.Join(names, ", "))
				}
				return nil, &usageError{fmt.Errorf("--%s: %w", flag, err)}
			}
			if s.Protocol() == assign.Share {
				return nil, usagef("--%s %q: the assignor of share groups, only with --protocol share; want one of %s", flag, name, strings.Join(append(assign.StrategyNames(), "uniform", "server-range", "all"), ", "))
			}
			add(s)
		}
	}
	return out, nil
}

// internalError is a failure of ours: a strategy that panicked, returned an
// error other than an [*assign.InputError], or returned an assignment
// [assign.Verify] refuses.
type internalError struct{ err error }

func (e *internalError) Error() string { return "internal error: " + e.err.Error() }
func (e *internalError) Unwrap() error { return e.err }

// outcome is what a strategy gives a group.
type outcome struct {
	strategy assign.Strategy

	// assignment is what each member gets this round.
	assignment assign.Assignment

	// plan is the whole cooperative rebalance, nil for eager strategies.
	plan *assign.CooperativePlan
}

// target is where the group ends up: this round's assignment for an eager
// strategy, the cooperative target otherwise.
func (o outcome) target() assign.Assignment {
	if o.plan != nil {
		return o.plan.Target
	}
	return o.assignment
}

// assignChecked runs s on g and checks the result with the checkers
// [assign.Check] chooses for s (validity; balance for the sticky
// strategies; a safe round and a valid target for cooperative-sticky), so
// that a bug shows as an error rather than a wrong answer. The error is
// the strategy's [*assign.InputError], or an [*internalError].
func assignChecked(s assign.Strategy, g assign.Group) (o outcome, err error) {
	defer func() {
		if p := recover(); p != nil {
			o, err = outcome{}, &internalError{fmt.Errorf("%s panicked: %v", s.Name(), p)}
		}
	}()
	o.strategy = s
	if o.assignment, o.plan, err = assign.AssignChecked(s, g); err != nil {
		var ie *assign.InputError
		if errors.As(err, &ie) {
			return outcome{}, err
		}
		return outcome{}, &internalError{err}
	}
	return o, nil
}
