package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/client"
	"github.com/urfave/cli/v2"
)

// clientFlag is --client, whose default is def.
func clientFlag(def string) cli.Flag {
	return &cli.StringFlag{Name: "client", Usage: "compute strategies as the group leader of client library `NAME` computes them: " +
		strings.Join(client.Names(), ", ") + " (default: " + def + "); java is exact, the other libraries' answers are ours and marked approximate; " +
		"java@RELEASE is the Java client of Kafka RELEASE, 3.5.0 or later (java@3.6.1; java@3.6 is 3.6.0), whose sticky assignors differ before 3.7.1"}
}

// parseClient reads --client, def when not given.
func parseClient(c *cli.Context, def string) (*client.Profile, error) {
	name := c.String("client")
	if name == "" {
		name = def
	}
	p, err := client.Lookup(name)
	if err != nil {
		return nil, &usageError{fmt.Errorf("--client: %w", err)}
	}
	return p, nil
}

// parseClientName looks up a client named in the JSON contract.
func parseClientName(name string) (*client.Profile, error) {
	return client.Lookup(name)
}

// forClient returns strategies as p's leader computes them, refusing a
// strategy p does not offer with p named, and noting on stderr each one
// that is only approximated.
func forClient(e *env, p *client.Profile, strategies []assign.Strategy) ([]assign.Strategy, map[string]client.Fidelity, error) {
	out := make([]assign.Strategy, 0, len(strategies))
	fidelity := make(map[string]client.Fidelity)
	for _, s := range strategies {
		if s.Protocol() == assign.ServerAssigned || s.Protocol() == assign.Share {
			out = append(out, s) // the broker's, whatever the client; keeps --kafka
			continue
		}
		cs, f, err := p.Strategy(s.Name())
		if err != nil {
			return nil, nil, &usageError{fmt.Errorf("--client %s: %w", p.Name, err)}
		}
		if f == client.Approximate {
			e.notef("--client %s: %s is assigncalc's own, not shown to equal %s's (approximate)", p.Name, s.Name(), p.Name)
		}
		fidelity[s.Name()] = f
		out = append(out, cs)
	}
	return out, fidelity, nil
}

// checkFleet refuses a group whose members need what their client lacks:
// static membership, or a strategy list the client refuses at startup.
// clients gives each member's client ("" for def), as the contract's
// per-member "client" does; nil for all def.
func checkFleet(def *client.Profile, g assign.Group, clients []string, protocols [][]string) error {
	for i, m := range g.Members {
		p := def
		if i < len(clients) && clients[i] != "" {
			var err error
			if p, err = client.Lookup(clients[i]); err != nil {
				return &usageError{fmt.Errorf("member %q: %w", m.ID, err)}
			}
		}
		if err := p.CheckMember(m); err != nil {
			return &usageError{err}
		}
		if i < len(protocols) && protocols[i] != nil {
			if err := p.CheckStrategies(protocols[i]); err != nil {
				return &usageError{fmt.Errorf("member %q: %w", m.ID, err)}
			}
		}
	}
	return nil
}

// leaderClient is the client whose leader assigns g: the first member's
// (the coordinator makes the first member to join the leader, and the
// contract lists members in join order), def when it names none.
func leaderClient(def *client.Profile, clients []string) (*client.Profile, error) {
	if len(clients) == 0 || clients[0] == "" {
		return def, nil
	}
	p, err := client.Lookup(clients[0])
	if err != nil {
		return nil, &usageError{fmt.Errorf("members[0].client: %w", err)}
	}
	return p, nil
}

// isClientEmulation reports whether s reproduces a client's own answers,
// faults included: its answers are reported, not refused, when a checker
// fails.
func isClientEmulation(s assign.Strategy) bool {
	_, ok := s.(client.JavaSticky)
	return ok
}

// assignEmulated runs s, a client's emulation, on g and returns its
// answer with the checkers' findings as faults: Java may answer with an
// unbalanced or invalid assignment, which is what its leader hands out.
// Java throwing is an error (a *client.JavaError).
func assignEmulated(s assign.Strategy, g assign.Group) (outcome, []string, error) {
	a, err := s.Assign(g)
	if err != nil {
		return outcome{}, nil, err
	}
	var faults []string
	if err := assign.Check(s, g, a, nil); err != nil {
		var ie *assign.InputError
		if errors.As(err, &ie) {
			return outcome{}, nil, err
		}
		for _, f := range splitJoined(err) {
			faults = append(faults, f.Error())
		}
	}
	if s.Protocol() == assign.Eager {
		// Check judged validity only for an eager answer; add balance,
		// which JavaSticky does not promise but ours does.
		if err := assign.VerifyBalanced(g, g.WithEveryMember(a)); err != nil && assign.Verify(g, g.WithEveryMember(a)) == nil {
			faults = append(faults, err.Error())
		}
	}
	return outcome{strategy: s, assignment: g.WithEveryMember(a)}, faults, nil
}

// splitJoined returns the errors errors.Join joined in err, or err alone.
func splitJoined(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// previewEmulated runs s, client p's own strategy, for the preview, and
// warns beside it where the client's answer is worse than ours: it
// throws, is invalid or unbalanced, or moves more partitions from their
// owners. Java throwing is the command's error (exit 2).
func previewEmulated(e *env, p *client.Profile, s assign.Strategy, g assign.Group) (outcome, error) {
	theirs, faults, err := assignEmulated(s, g)
	ours, ourErr := assign.Lookup(s.Name())
	if ourErr != nil {
		return outcome{}, &internalError{ourErr}
	}
	mine, ourErr := assignChecked(ours, g)
	if err != nil {
		if ourErr == nil {
			return outcome{}, fmt.Errorf("%w; assigncalc's %s assigns the group", err, s.Name())
		}
		return outcome{}, err
	}
	if ourErr == nil {
		for _, f := range faults {
			e.warnf("%s's %s: %s; assigncalc's %s is valid and balanced", p.Name, s.Name(), f, s.Name())
		}
		if owned, err := assign.Owned(g); err == nil && len(owned) > 0 {
			if a, b := assign.Moved(owned, theirs.target()), assign.Moved(owned, mine.target()); a > b {
				e.warnf("%s's %s moves %d partitions from their owners; assigncalc's %s moves %d", p.Name, s.Name(), a, s.Name(), b)
			}
		}
		if a, b := assign.Summarize(g, theirs.assignment).Spread, assign.Summarize(g, mine.target()).Spread; s.Protocol() == assign.Eager && a > b {
			e.warnf("%s's %s leaves a spread of %d; assigncalc's %s, %d", p.Name, s.Name(), a, s.Name(), b)
		}
	}
	return theirs, nil
}
