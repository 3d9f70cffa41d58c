package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/client"
	"github.com/urfave/cli/v2"
)

// --client on the commands that play one group (simulate, timeline,
// check, migrate): the group's leader runs one library, the first
// member's; every member must be able to run its own.

// groupLeader reads --client (default assigncalc), checks each member
// against its own client (the contract's per-member "client", else
// --client's), and returns the client of the group's leader, the first
// member.
func groupLeader(c *cli.Context, g assign.Group, clients []string, protocols [][]string) (*client.Profile, error) {
	def, err := parseClient(c, "assigncalc")
	if err != nil {
		return nil, err
	}
	leader, err := leaderClient(def, clients)
	if err != nil {
		return nil, err
	}
	if err := checkFleet(def, g, clients, protocols); err != nil {
		return nil, err
	}
	return leader, nil
}

// offeredBy keeps the strategies p offers, and those the broker computes:
// a command's default list under --client should not be refused for a
// strategy nobody asked for.
func offeredBy(p *client.Profile, strategies []assign.Strategy) []assign.Strategy {
	var out []assign.Strategy
	for _, s := range strategies {
		if _, _, err := p.Strategy(s.Name()); err == nil {
			out = append(out, s)
		}
	}
	return out
}

// clientLabel is a strategy's name as the tables show it under --client:
// "sticky (java)", "range (librdkafka, approximate)"; the bare name for
// assigncalc and the broker's strategies.
func clientLabel(p *client.Profile, fidelity map[string]client.Fidelity, s assign.Strategy) string {
	f, ok := fidelity[s.Name()]
	switch {
	case p == client.Assigncalc || !ok:
		return s.Name()
	case f == client.Approximate:
		return s.Name() + " (" + p.Name + ", approximate)"
	}
	return s.Name() + " (" + p.Name + ")"
}

// emulationError is err, from a client's emulation s carried through many
// rounds: Java throwing is already bad input; an answer the checkers
// refuse (Java giving a partition twice, say) cannot be carried forward
// as what the members own, and is reported as the client's, not ours.
func emulationError(p *client.Profile, s assign.Strategy, where string, err error) error {
	if isInputError(err) {
		return fmt.Errorf("%s: %s's %s: %w", where, p.Name, s.Name(), err)
	}
	if errors.Is(err, assign.ErrInvalidAssignment) {
		return &usageError{fmt.Errorf("%s: %s's %s hands out an invalid assignment, which no later step can start from: %w", where, p.Name, s.Name(), err)}
	}
	return &internalError{fmt.Errorf("%s: %w", s.Name(), err)}
}

// progressTick is how often a progress line is rewritten while one long
// computation runs (a Java emulation on a large group may take seconds).
const progressTick = 500 * time.Millisecond

// during runs work, step done of p at detail, and while it runs rewrites
// the progress line every tick with the time the step has taken, so that
// one long computation (Java's sticky on a thousand members) still shows
// that it is under way. The ticker's goroutine ends before during returns,
// and only it touches p while work runs.
func (p *progress) during(done int, detail string, work func()) {
	p.step(done, detail)
	if !p.e.stderrTerminal {
		work()
		return
	}
	tick := progressTick
	if p.e.tick > 0 {
		tick = p.e.tick
	}
	began := p.e.clock()
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(tick)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				p.step(done, fmt.Sprintf("%s, %ds", detail, int(p.e.clock().Sub(began)/time.Second)))
			}
		}
	}()
	work()
	close(stop)
	<-stopped
}
