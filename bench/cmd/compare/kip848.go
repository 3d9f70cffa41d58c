package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/bench/workload"
)

// kip848Table prints, for each shape of spec, Kafka's server-side uniform
// assignor (Kafka 4.1) beside our sticky on the same group: the churned
// groups' members hold sticky's fresh answer, which uniform reads as
// their current targets. Moved counts the partitions taken from the
// members that held them, bound is [assign.MoveBound] with both answers
// as witnesses, and unspread counts the topics two of whose subscribers
// hold numbers of its partitions differing by more than one
// ([assign.UnspreadTopics]). Topic ids are derived from the names.
func kip848Table(w io.Writer, spec workload.Spec) error {
	shapes, err := workload.Shapes(spec)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "#### %s: KIP-848 uniform beside sticky\n\n", spec.Name())
	fmt.Fprintln(w, "| shape | strategy | min | max | spread | moved | bound | above bound | unspread topics |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|")
	for _, sh := range shapes {
		g, _ := sh.Group.WithDerivedTopicIDs()
		strategies := []assign.Strategy{assign.Uniform{}, assign.Sticky{}}
		answers := make([]assign.Assignment, len(strategies))
		for i, s := range strategies {
			if answers[i], err = s.Assign(g); err != nil {
				return fmt.Errorf("%s on %s: %w", s.Name(), sh.Name(), err)
			}
			if err := assign.Verify(g, answers[i]); err != nil {
				return fmt.Errorf("%s on %s: %w", s.Name(), sh.Name(), err)
			}
		}
		owned, err := assign.Owned(g)
		if err != nil {
			return err
		}
		bound := -1
		if sh.Churn != workload.Fresh {
			if bound, err = assign.MoveBound(g, answers...); err != nil {
				return err
			}
		}
		for i, s := range strategies {
			lo, hi := workload.Loads(g, answers[i])
			moved, above := -1, -1
			if bound >= 0 {
				moved = assign.Moved(owned, answers[i])
				above = moved - bound
			}
			unspread := assign.UnspreadTopics(g, answers[i])
			fmt.Fprintf(w, "| %s | %s | %d | %d | %d | %s | %s | %s | %s |\n",
				sh.Name(), s.Name(), lo, hi, hi-lo, dash(moved), dash(bound), dash(above), topicsCell(unspread, len(g.Topics)))
		}
	}
	fmt.Fprintln(w)
	return nil
}

// topicsCell counts the unspread topics, naming up to three.
func topicsCell(topics []string, of int) string {
	if len(topics) == 0 {
		return "0"
	}
	names := topics[:min(3, len(topics))]
	more := ""
	if len(topics) > 3 {
		more = ", …"
	}
	return fmt.Sprintf("%d of %d (%s%s)", len(topics), of, strings.Join(names, ", "), more)
}
