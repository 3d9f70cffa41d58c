package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
)

// TestFitNeverHidesTopics: a member holding 30 topics of 10 partitions
// each, far too many for the cell, is shown as the count of every one
// of the 30 topics, in order, none cut off.
func TestFitNeverHidesTopics(t *testing.T) {
	var tps []assign.TopicPartition
	var want []string
	for i := range 30 {
		topic := fmt.Sprintf("topic-%02d", i)
		for p := range 10 {
			tps = append(tps, assign.TopicPartition{Topic: topic, Partition: int32(2 * p)}) // no runs: long compact form
		}
		want = append(want, topic+": 10")
	}
	if got := fit(tps, partitionsWide); got != strings.Join(want, ", ") {
		t.Errorf("fit = %q, want the count of all 30 topics", got)
	}
}

// TestPreviewCutOffShowsCounts runs the preview on 2 members and nine
// topics a..i of 9 partitions: round robin deals the 81 partitions in
// order, so c0 gets 5 of a (0, 2, 4, 6, 8), 4 of b (1, 3, 5, 7), 5 of c,
// and so on; c1 the rest. The partitions do not fit the cell; the counts
// of all nine topics do.
func TestPreviewCutOffShowsCounts(t *testing.T) {
	stdout, stderr, status := runCase(cliCase{args: []string{"--members", "2", "--topics", "a:9,b:9,c:9,d:9,e:9,f:9,g:9,h:9,i:9", "--strategy", "roundrobin"}})
	if status != 0 {
		t.Fatalf("exit %d: %s", status, stderr)
	}
	for _, want := range []string{
		"c0         41  a: 5, b: 4, c: 5, d: 4, e: 5, f: 4, g: 5, h: 4, i: 5  ",
		"c1         40  a: 4, b: 5, c: 4, d: 5, e: 4, f: 5, g: 4, h: 5, i: 4  ",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no line %q in\n%s", want, stdout)
		}
	}
}
