package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/assigncalc/assigncalc/internal/groupfile"
	"github.com/urfave/cli/v2"
)

// planShare is plan --protocol share: every group assigned as a share
// group by simple, each result with its sharing (groupfile.Share). Exit
// status and error lines as plan's.
func planShare(e *env, c *cli.Context, path, described string) error {
	s, v, err := shareFlags(c, []string{"strategy"}, "client")
	if err != nil {
		return err
	}
	out, next, done, err := openPlan(e, c, path, described)
	if err != nil {
		return err
	}
	defer done()
	var t planTally
	for {
		entry, err := next()
		if err == io.EOF {
			break
		}
		t.groups++
		if err == nil {
			entry.Group = derivedTopicIDs(e, t.groups, entry)
		}
		var o outcome
		if err == nil {
			o, err = assignChecked(s, entry.Group)
		}
		var ie *internalError
		switch {
		case err == nil:
		case errors.As(err, &ie):
			t.internal++
		case errors.Is(err, groupfile.ErrSyntax) || !isInputError(err):
			t.stop = err
		default:
			t.bad++
		}
		if t.stop != nil {
			break
		}
		if err != nil {
			if werr := out.result(t.groups, entry.Group, groupfile.Result{Name: entry.Name, Strategy: s.Name(), Err: err}); werr != nil {
				return werr
			}
			continue
		}
		if werr := out.share(t.groups, entry, o, groupfile.ShareOf(entry.Group, o.assignment, v.String())); werr != nil {
			return werr
		}
	}
	if err := out.close(); err != nil {
		return err
	}
	return t.status()
}

// share writes o, a share group's answer for entry, the n-th group read,
// with its sharing sh.
func (p *planWriter) share(n int, entry groupfile.Entry, o outcome, sh groupfile.Share) error {
	r := resultOf(entry, o)
	switch p.format {
	case formatJSON, formatJSONL:
		return p.json.writeEncoded(groupfile.AppendShare(nil, r, sh))
	case formatCSV:
		p.csv = shareCSV(assignmentCSV(p.csv, r.Name, r.Strategy, entry.Group, r.Assignment), r.Name, r.Strategy, sh)
		return nil
	}
	if _, err := fmt.Fprintf(p.w, "%s: share group, simple assignor of Kafka %s, max sharing %d\n", groupLabel(n, r.Name), sh.Kafka, sh.MaxSharing); err != nil {
		return err
	}
	if err := p.result(n, entry.Group, r); err != nil {
		return err
	}
	if err := sharingTable(p.w, sh, true); err != nil {
		return err
	}
	_, err := io.WriteString(p.w, "\n")
	return err
}
