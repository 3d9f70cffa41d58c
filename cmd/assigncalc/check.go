package main

import (
	"fmt"
	"maps"
	"slices"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/internal/groupfile"
	"github.com/urfave/cli/v2"
)

func checkCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "check assignments computed elsewhere against the invariants, and compare them with ours",
		UsageText: "assigncalc check --in GROUPS --results RESULTS [--format table|json|jsonl|csv]",
		Description: "Reads groups (the JSON contract, each with a unique \"name\") and result lines in the output\n" +
			"contract (from assigncalc plan, or from any other implementation), matches them by name, and\n" +
			"checks each assignment with assign.Verify: every partition of a subscribed topic assigned once,\n" +
			"to a subscriber, nothing else. For sticky and cooperative-sticky it also checks balance\n" +
			"(assign.VerifyBalanced); for cooperative-sticky the round must be safe (assign.VerifyCooperative)\n" +
			"and the \"target\", when given, valid and balanced. OURS says whether our strategy of that\n" +
			"name gives the same assignment. Exit status 2 if any assignment fails.\n\n" +
			"Example:\n" +
			"   assigncalc check --in testdata/groups.jsonl --results testdata/kafka-java-range-roundrobin.jsonl",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "in", Usage: "read the groups from `FILE` (- for stdin)"},
			&cli.StringFlag{Name: "results", Usage: "read the results to check from `FILE` (- for stdin)"},
			&cli.StringFlag{Name: "format", Usage: "print results in `FORMAT`: table, json, jsonl, csv (default: table)"},
		},
		Action: func(c *cli.Context) error { return check(e, c) },
	}
}

// checked is the verdict on one result line.
type checked struct {
	Name     string `json:"name"`
	Strategy string `json:"strategy"`
	Valid    bool   `json:"valid"`
	Problem  string `json:"problem,omitempty"`
	Ours     string `json:"ours"` // same, differs, or - when not compared
}

func check(e *env, c *cli.Context) error {
	if c.Args().Present() {
		return usagef("check: unexpected argument %q", c.Args().First())
	}
	format, err := parseFormat(c.String("format"), formatTable, formatTable, formatJSON, formatJSONL, formatCSV)
	if err != nil {
		return err
	}
	groupsPath, resultsPath := c.String("in"), c.String("results")
	if groupsPath == "" || resultsPath == "" {
		return usagef("check: --in GROUPS and --results RESULTS are both required")
	}
	if groupsPath == "-" && resultsPath == "-" {
		return usagef("check: --in and --results cannot both be stdin")
	}
	src, done, err := openInput(e, groupsPath)
	if err != nil {
		return err
	}
	entries, err := groupfile.ReadAll(src)
	done()
	if err != nil {
		return err
	}
	groups := make(map[string]groupfile.Entry, len(entries))
	for _, en := range entries {
		if _, dup := groups[en.Name]; dup {
			return usagef("--in %s: group name %q appears twice; check matches results to groups by name", groupsPath, en.Name)
		}
		groups[en.Name] = en
	}
	src, done, err = openInput(e, resultsPath)
	if err != nil {
		return err
	}
	results, err := groupfile.ReadResults(src)
	done()
	if err != nil {
		return err
	}

	var verdicts []checked
	bad := 0
	for _, r := range results {
		v := checkResult(groups, r)
		if !v.Valid {
			bad++
		}
		verdicts = append(verdicts, v)
	}
	if err := writeChecks(e, format, verdicts); err != nil {
		return err
	}
	if bad > 0 {
		return &statusError{code: exitInput, msg: fmt.Sprintf("%d of %d assignments fail the checks", bad, len(verdicts))}
	}
	return nil
}

// checkResult judges one result against its group.
func checkResult(groups map[string]groupfile.Entry, r groupfile.Result) checked {
	v := checked{Name: r.Name, Strategy: r.Strategy, Ours: "-"}
	fail := func(format string, args ...any) checked {
		v.Problem = fmt.Sprintf(format, args...)
		return v
	}
	en, ok := groups[r.Name]
	if !ok {
		return fail("no group named %q in --in", r.Name)
	}
	if r.Err != nil {
		return fail("the result is an error: %s", oneLine(r.Err.Error()))
	}
	g := en.Group
	if err := g.Validate(); err != nil {
		return fail("the group is invalid: %v", err)
	}
	s, lookupErr := assign.Lookup(r.Strategy)
	cooperative := lookupErr == nil && s.Protocol() == assign.Cooperative
	balancing := lookupErr == nil && (s.Name() == "sticky" || s.Name() == "cooperative-sticky")

	final := r.Assignment
	if cooperative {
		if err := assign.VerifyCooperative(g, r.Assignment); err != nil {
			return fail("%v", err)
		}
		if r.Cooperative == nil {
			// Without the target, the round may withhold partitions: only
			// its safety and membership can be checked.
			final = nil
			for _, id := range slices.Sorted(maps.Keys(r.Assignment)) {
				if !slices.ContainsFunc(g.Members, func(m assign.Member) bool { return m.ID == id }) {
					return fail("member %q is not in the group", id)
				}
			}
		} else {
			final = r.Cooperative.Target
		}
	}
	if final != nil {
		if err := assign.Verify(g, final); err != nil {
			return fail("%v", err)
		}
		if balancing {
			if err := assign.VerifyBalanced(g, final); err != nil {
				return fail("%v", err)
			}
		}
	}
	v.Valid = true
	if lookupErr == nil {
		if o, err := assignChecked(s, g); err == nil {
			v.Ours = "differs"
			if sameAssignment(o.assignment, r.Assignment) {
				v.Ours = "same"
			}
		}
	}
	return v
}

// sameAssignment compares two assignments, nil and empty lists alike.
func sameAssignment(a, b assign.Assignment) bool {
	if len(a) != len(b) {
		return false
	}
	for id, ps := range a {
		qs, ok := b[id]
		if !ok || !slices.Equal(ps, qs) {
			return false
		}
	}
	return true
}

func writeChecks(e *env, format string, vs []checked) error {
	verdict := func(v checked) string {
		if v.Valid {
			return "valid"
		}
		return "FAILS: " + v.Problem
	}
	switch format {
	case formatJSON:
		if vs == nil {
			vs = []checked{}
		}
		return writeJSONValue(e, format, vs)
	case formatJSONL:
		for _, v := range vs {
			if err := writeJSONValue(e, format, v); err != nil {
				return err
			}
		}
		return nil
	case formatCSV:
		var rows [][]string
		for _, v := range vs {
			rows = append(rows, []string{v.Name, v.Strategy, fmt.Sprint(v.Valid), v.Problem, v.Ours})
		}
		return writeCSV(e.stdout, []string{"name", "strategy", "valid", "problem", "ours"}, rows)
	}
	t := &table{header: []string{"GROUP", "STRATEGY", "OURS", "CHECK"}}
	for _, v := range vs {
		t.add(v.Name, v.Strategy, v.Ours, verdict(v))
	}
	return t.render(e.stdout)
}
