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
				return nil, &usageError{fmt.Errorf("--%s: %w", flag, err)}
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

// assignChecked runs s on g and checks the result, so that a bug shows as
// an error rather than a wrong answer. The error is the strategy's
// [*assign.InputError], or an [*internalError].
func assignChecked(s assign.Strategy, g assign.Group) (a assign.Assignment, err error) {
	defer func() {
		if p := recover(); p != nil {
			a, err = nil, &internalError{fmt.Errorf("%s panicked: %v", s.Name(), p)}
		}
	}()
	a, err = s.Assign(g)
	if err != nil {
		var ie *assign.InputError
		if errors.As(err, &ie) {
			return nil, err
		}
		return nil, &internalError{err}
	}
	if err := assign.Verify(g, a); err != nil {
		return nil, &internalError{fmt.Errorf("%s: %w", s.Name(), err)}
	}
	return a, nil
}
