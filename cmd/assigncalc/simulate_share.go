package main

import (
	"fmt"
	"strings"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/churn"
	"github.com/assigncalc/assigncalc/internal/groupfile"
	"github.com/urfave/cli/v2"
)

// simulateShare is simulate --protocol share: the changes played on a
// share group by the churn model, simple computing each target and every
// member taking its own at its next heartbeat. A partition may have
// several holders, so the table counts what members received and revoked
// (RECEIVED, REVOKED) rather than moves, and MAX SHARING is the most
// members holding one partition after the step.
func simulateShare(e *env, c *cli.Context, changes []change, format string) (err error) {
	s, v, err := shareFlags(c, []string{"compare"}, "client", "moves")
	if err != nil {
		return err
	}
	in, err := readGroup(e, c)
	if err != nil {
		return err
	}
	entry, g := in.Entry, in.Group
	if hasPatterns(g, changes) {
		return usagef("simulate --protocol share: share groups subscribe by topic names only (KIP-932); a subscription by pattern is the consumer protocol's")
	}
	if err := g.Validate(); err != nil {
		return err
	}
	if g, err = shareIDs(e, c, g, grownTopics(changes)); err != nil {
		return err
	}
	defer recoverSimulate(&err)
	warned := make(map[[2]string]bool)
	warnUnknownTopics(e, g, warned)
	changesOf := newChangeReader(c, in.clientIDs)

	cn, first, err := churn.NewChurn(s, g)
	if err != nil {
		return strategyError(s, err)
	}
	results := []simStep{{step: 0, change: "start", strategy: s.Name(), protocol: s.Protocol(), label: s.Name(), Step: first}}
	for n, flagged := range changes {
		ch, err := changesOf.change(cn.Group(), flagged)
		if err != nil {
			return err
		}
		step, err := cn.Apply(ch)
		if err != nil {
			if isInputError(err) {
				return fmt.Errorf("--%s %s: %w", flagged.kind, flagged.arg, err)
			}
			return strategyError(s, err)
		}
		results = append(results, simStep{step: n + 1, change: flagged.String(), strategy: s.Name(), protocol: s.Protocol(), label: s.Name(), Step: step})
		warnUnknownTopics(e, cn.Group(), warned)
	}
	start := simStart{group: g, owned: groupfile.OwnedOf(g), assumed: e.assumed}
	kafka := v.String()
	switch format {
	case formatJSON, formatJSONL:
		return writeStepsJSON(e, format, entry.Name, results, start, func(res groupfile.Result, r simStep, from simStart) ([]byte, error) {
			st := groupfile.ShareStepOf(r.step, r.change, r.Step, kafka)
			st.Owned, st.Assumed = from.owned, from.assumed
			return groupfile.AppendShareStep(nil, res, st)
		})
	case formatCSV:
		var steps [][]string
		for _, r := range results {
			st := assign.Summarize(r.Group, r.After)
			steps = append(steps, []string{itoa(r.step), r.change, r.strategy, itoa(r.Received), itoa(r.Revoked), itoa(r.Affected()), itoa(r.Rounds), itoa(st.Spread), itoa(st.MaxSharing), strings.Join(r.Notes, "\n"), strings.Join(start.at(r.step).assumed, "\n")})
		}
		return start.writeCSV(e, []string{"step", "change", "strategy", "received", "revoked", "affected", "rounds", "spread", "maxSharing", "notes", "assumed"}, "step", steps)
	}
	t := &table{
		header: []string{"STEP", "CHANGE", "STRATEGY", "RECEIVED", "REVOKED", "AFFECTED", "ROUNDS", "SPREAD", "MAX SHARING"},
		aligns: []align{right, left, left, right, right, right, right, right, right},
	}
	for _, r := range results {
		st := assign.Summarize(r.Group, r.After)
		t.add(itoa(r.step), r.change, r.label, itoa(r.Received), itoa(r.Revoked), itoa(r.Affected()), itoa(r.Rounds), itoa(st.Spread), itoa(st.MaxSharing))
	}
	if err := t.render(e.stdout); err != nil {
		return err
	}
	if _, err := fmt.Fprintf(e.stdout, "\nshare group (simple, Kafka %s): each member takes its new target at its next heartbeat, with no wait for other holders to revoke; RECEIVED and REVOKED count partitions per member\n", kafka); err != nil {
		return err
	}
	return writeNotes(e, results)
}
