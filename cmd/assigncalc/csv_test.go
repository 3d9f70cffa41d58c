package main

import (
	"encoding/csv"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// readCSV parses out with encoding/csv, an independent reader, into the
// header and the rows as maps from column to cell.
func readCSV(t *testing.T, out string) ([]string, []map[string]string) {
	t.Helper()
	records, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatalf("not CSV: %v\n%s", err, out)
	}
	if len(records) == 0 {
		t.Fatalf("no header in %q", out)
	}
	var rows []map[string]string
	for _, r := range records[1:] {
		m := make(map[string]string)
		for i, h := range records[0] {
			m[h] = r[i]
		}
		rows = append(rows, m)
	}
	return records[0], rows
}

// ofKind is the rows of a csv whose ROW is kind.
func ofKind(rows []map[string]string, kind string) []map[string]string {
	var out []map[string]string
	for _, r := range rows {
		if r["row"] == kind {
			out = append(out, r)
		}
	}
	return out
}

// racksGroup is a group of four members on racks "rack-a" and "rack-b"
// (the last one with no rack) over t1:5 and t2:2.
const racksGroup = `{"name": "racked", "topics": {"t1": 5, "t2": 2},
 "members": [{"id": "c0", "rack": "rack-a", "topics": ["t1", "t2"]}, {"id": "c1", "rack": "rack-b", "topics": ["t1", "t2"]},
             {"id": "c2", "rack": "rack-a", "topics": ["t1"]}, {"id": "c3", "topics": ["t1"]}]}`

// TestAssignmentCSVPivots checks the one CSV layout of the preview and
// plan: the same header; a pivot of COUNT by member and topic over the
// "assignment" rows gives each member's partitions of each topic; the
// stats rows carry their figure in VALUE; rack names are the bare names
// (no doubled quotes). Range on racksGroup, worked by hand: t1's 5
// partitions over c0..c3 give c0 two (5 = 4+1), the others one; t2's 2
// over c0, c1 give one each. So c0 3, c1 2, c2 1, c3 1: min 1, max 3,
// spread 2, idle 0.
func TestAssignmentCSVPivots(t *testing.T) {
	for _, args := range [][]string{
		{"--in", "-", "--compare", "range", "--format", "csv"},
		{"plan", "--in", "-", "--strategy", "range", "--format", "csv"},
	} {
		stdout, stderr, status := runCase(cliCase{args: args, stdin: racksGroup})
		if status != 0 {
			t.Fatalf("assigncalc %s: exit %d, %s", strings.Join(args, " "), status, stderr)
		}
		header, rows := readCSV(t, stdout)
		if diff := cmp.Diff(assignmentCSVHeader, header); diff != "" {
			t.Errorf("%s: header mismatch (-want +got):\n%s", args[0], diff)
		}
		if strings.Contains(stdout, `""`) {
			t.Errorf("%s: doubled quotes in\n%s", args[0], stdout)
		}
		pivot := make(map[string]map[string]int)
		racks := make(map[string]string)
		stats := make(map[string]string)
		for _, r := range rows {
			if r["row"] == "group" && args[0] == "--in" { // the preview's: where the coordinator lives
				if r["group"] != "racked" || r["strategy"] != "" || !strings.HasPrefix(r["statistic"], "coordinator.") {
					t.Errorf("%s: group row %v: want group racked, no strategy, a coordinator figure", args[0], r)
				}
				continue
			}
			if r["group"] != "racked" || r["strategy"] != "range" {
				t.Errorf("%s: row %v: want group racked, strategy range", args[0], r)
			}
			switch r["row"] {
			case "assignment":
				n, err := strconv.Atoi(r["count"])
				if err != nil {
					t.Fatalf("%s: count %q: %v", args[0], r["count"], err)
				}
				if pivot[r["member"]] == nil {
					pivot[r["member"]] = make(map[string]int)
				}
				pivot[r["member"]][r["topic"]] += n
				racks[r["member"]] = r["rack"]
			case "stats":
				stats[r["statistic"]] = r["value"]
			default:
				t.Errorf("%s: unexpected row %v", args[0], r)
			}
		}
		want := map[string]map[string]int{"c0": {"t1": 2, "t2": 1}, "c1": {"t1": 1, "t2": 1}, "c2": {"t1": 1}, "c3": {"t1": 1}}
		if diff := cmp.Diff(want, pivot); diff != "" {
			t.Errorf("%s: pivot mismatch (-want +got):\n%s", args[0], diff)
		}
		if diff := cmp.Diff(map[string]string{"c0": "rack-a", "c1": "rack-b", "c2": "rack-a", "c3": ""}, racks); diff != "" {
			t.Errorf("%s: racks mismatch (-want +got):\n%s", args[0], diff)
		}
		if diff := cmp.Diff(map[string]string{"min": "1", "max": "3", "spread": "2", "stddev": "0.83", "idle": "0"}, stats); diff != "" {
			t.Errorf("%s: stats mismatch (-want +got):\n%s", args[0], diff)
		}
	}
}

// TestDecodeCSVRack: the rack of a v3 subscription ("a") is its bare
// name in CSV, not the table's quoted "a" quoted again by CSV.
func TestDecodeCSVRack(t *testing.T) {
	stdout, stderr, status := runCase(cliCase{args: []string{"decode", "--format", "csv", "subscription", subV3}})
	if status != 0 {
		t.Fatalf("exit %d, %s", status, stderr)
	}
	_, rows := readCSV(t, stdout)
	found := false
	for _, r := range rows {
		if r["field"] == "rack" {
			found = true
			if r["value"] != "a" {
				t.Errorf("rack cell %q, want a", r["value"])
			}
		}
	}
	if !found {
		t.Errorf("no rack row in\n%s", stdout)
	}
}

// TestPlanCSVError: a group plan cannot assign is one "error" row per
// strategy, the error in VALUE, and the good groups keep their rows.
func TestPlanCSVError(t *testing.T) {
	in := `{"name": "bad", "topics": {"t": -1}, "members": []}` + "\n" + `{"name": "ok", "topics": {"t": 1}, "members": [{"id": "a", "topics": ["t"]}]}`
	stdout, _, status := runCase(cliCase{args: []string{"plan", "--in", "-", "--strategy", "range,sticky", "--format", "csv"}, stdin: in})
	if status != exitInput {
		t.Errorf("exit %d, want %d", status, exitInput)
	}
	_, rows := readCSV(t, stdout)
	var got []string
	for _, r := range rows {
		got = append(got, r["row"]+" "+r["group"]+" "+r["strategy"]+" "+r["member"]+" "+r["count"])
		if r["row"] == "error" && !strings.Contains(r["value"], "negative partition count") {
			t.Errorf("error row %v does not say what is wrong", r)
		}
	}
	want := []string{"error bad range  ", "error bad sticky  "}
	for _, s := range []string{"range", "sticky"} {
		want = append(want, "assignment ok "+s+" a 1")
		for range 5 {
			want = append(want, "stats ok "+s+"  ")
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows mismatch (-want +got):\n%s", diff)
	}
}
