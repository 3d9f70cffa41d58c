package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Issue 28, item 5: what a table shows, json and csv carry. These tests
// run a command twice, as a table and as json (and csv), read the table
// the way an operator's script would (columns split on runs of two or
// more spaces), and compare figure by figure. The figures are not
// recomputed here: a figure the table shows but json lacks, or shows
// otherwise, fails.

// tableSection returns the rows of the table whose header line starts
// with first, as maps from column to cell, up to the first blank line.
func tableSection(t *testing.T, out, first string) []map[string]string {
	t.Helper()
	lines := strings.Split(out, "\n")
	sep := regexp.MustCompile(`\s{2,}`)
	note := regexp.MustCompile(`^[A-Z][A-Z -]*: `) // "UNSPREAD: ..." under a table
	for i, l := range lines {
		if !strings.HasPrefix(l, first+" ") {
			continue
		}
		header := sep.Split(strings.TrimSpace(l), -1)
		var rows []map[string]string
		for _, r := range lines[i+1:] {
			if strings.TrimSpace(r) == "" || note.MatchString(r) {
				break
			}
			cells := sep.Split(strings.TrimSpace(r), -1)
			if len(cells) < len(header) && strings.HasPrefix(r, " ") && len(rows) > 0 {
				// Leading cells left blank repeat the row above's
				// (simulate's STEP and CHANGE).
				lead := make([]string, 0, len(header))
				for _, h := range header[:len(header)-len(cells)] {
					lead = append(lead, rows[len(rows)-1][h])
				}
				cells = append(lead, cells...)
			}
			row := make(map[string]string)
			for k, h := range header {
				if k < len(cells) {
					row[h] = cells[k]
				}
			}
			rows = append(rows, row)
		}
		return rows
	}
	t.Fatalf("no table headed %s in:\n%s", first, out)
	return nil
}

// runOK runs args and fails the test unless the status is 0.
func runOK(t *testing.T, args ...string) (stdout, stderr string) {
	t.Helper()
	stdout, stderr, status := runCase(cliCase{args: args})
	if status != 0 {
		t.Fatalf("assigncalc %s: exit status %d\n%s", strings.Join(args, " "), status, stderr)
	}
	return stdout, stderr
}

// jsonLines decodes jsonl output into one generic object per line.
func jsonLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var objs []map[string]any
	for l := range strings.Lines(out) {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not a JSON line: %v\n%s", err, l)
		}
		objs = append(objs, m)
	}
	return objs
}

// num writes a JSON number as the table writes a count.
func num(v any) string {
	f, ok := v.(float64)
	if !ok {
		return "absent"
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// assumedLines are the "assumed:" lines of stderr, without the prefix.
func assumedLines(stderr string) []string {
	var out []string
	for l := range strings.Lines(stderr) {
		if s, ok := strings.CutPrefix(strings.TrimSuffix(l, "\n"), "assigncalc: assumed: "); ok {
			out = append(out, s)
		}
	}
	return out
}

func strs(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, x := range list {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

func sameStrings(a, b []string) bool {
	return strings.Join(a, "\x00") == strings.Join(b, "\x00") && len(a) == len(b)
}

// TestPreviewTableEqualsJSON compares the preview's tables with its json
// and csv on three groups: a paste with lag, owners and a server-side
// strategy beside (MOVED, UNSPREAD, the move bound, LAG, MAX LAG, the
// coordinator, what was assumed); a rack-aware group (CROSS-RACK, RACK);
// and an rpk paste (Redpanda's coordinator).
func TestPreviewTableEqualsJSON(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"paste", []string{"--from-describe", "../../internal/describe/testdata/offsets_4x.txt", "--compare", "range,cooperative-sticky,uniform", "--strategy", "range"}},
		{"paste-sticky", []string{"--from-describe", "../../internal/describe/testdata/offsets_4x.txt", "--compare", "range,sticky,uniform", "--strategy", "sticky"}},
		{"racks", []string{"--members", "3", "--topics", "t1:5,t2:2", "--racks", "rack-a,rack-b", "--compare", "range,sticky", "--strategy", "sticky"}},
		{"rpk", []string{"--from-describe", "../../internal/describe/testdata/rpk_one.txt", "--strategy", "cooperative-sticky"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			table, stderr := runOK(t, tc.args...)
			out, _ := runOK(t, append(tc.args, "--format", "jsonl")...)
			csvOut, _ := runOK(t, append(tc.args, "--format", "csv")...)
			lines := jsonLines(t, out)
			byStrategy := make(map[string]map[string]any)
			for _, l := range lines {
				byStrategy[l["strategy"].(string)] = l
			}
			_, csvRows := readCSV(t, csvOut)
			csvStat := make(map[[2]string]string)   // strategy, statistic => value
			csvMember := make(map[[3]string]string) // strategy, member, statistic => value
			csvGroup := make(map[string]string)
			var csvAssumed []string
			for _, r := range csvRows {
				switch r["row"] {
				case "stats":
					csvStat[[2]string{r["strategy"], r["statistic"]}] = r["value"]
				case "member":
					csvMember[[3]string{r["strategy"], r["member"], r["statistic"]}] = r["value"]
				case "group":
					csvGroup[r["statistic"]] = r["value"]
				case "assumed":
					csvAssumed = append(csvAssumed, r["value"])
				}
			}

			// The comparison table, figure by figure.
			cmpRows := tableSection(t, table, "STRATEGY")
			if len(cmpRows) != len(lines) {
				t.Fatalf("%d strategies in the table, %d json lines", len(cmpRows), len(lines))
			}
			columns := map[string]string{"MIN": "min", "MAX": "max", "SPREAD": "spread", "IDLE": "idle", "MOVED": "moved", "CROSS-RACK": "crossRack"}
			for _, row := range cmpRows {
				l := byStrategy[row["STRATEGY"]]
				if l == nil {
					t.Fatalf("strategy %s: no json line", row["STRATEGY"])
				}
				stats, _ := l["targetStats"].(map[string]any)
				if stats == nil {
					stats = l["stats"].(map[string]any)
				}
				for col, key := range columns {
					cell, shown := row[col]
					var got any
					switch key {
					case "moved", "crossRack":
						got = l[key]
					default:
						got = stats[key]
					}
					if !shown {
						if key == "moved" || key == "crossRack" {
							if _, ok := l[key]; ok {
								t.Errorf("%s: json has %s, the table no %s column", row["STRATEGY"], key, col)
							}
						}
						continue
					}
					if num(got) != cell {
						t.Errorf("%s %s: table %s, json %s", row["STRATEGY"], col, cell, num(got))
					}
					if v := csvStat[[2]string{row["STRATEGY"], key}]; v != cell {
						t.Errorf("%s %s: table %s, csv %q", row["STRATEGY"], col, cell, v)
					}
				}
				if sd := strconv.FormatFloat(stats["stddev"].(float64), 'f', 2, 64); sd != row["STDDEV"] {
					t.Errorf("%s STDDEV: table %s, json %s", row["STRATEGY"], row["STDDEV"], sd)
				}
				if cell, shown := row["UNSPREAD"]; shown {
					got := strconv.Itoa(len(strs(l["unspread"])))
					if _, ok := l["unspread"]; !ok || got != cell {
						t.Errorf("%s UNSPREAD: table %s, json %v", row["STRATEGY"], cell, l["unspread"])
					}
					if v := csvStat[[2]string{row["STRATEGY"], "unspread"}]; v != cell {
						t.Errorf("%s UNSPREAD: table %s, csv %q", row["STRATEGY"], cell, v)
					}
				} else if _, ok := l["unspread"]; ok {
					t.Errorf("%s: json has unspread, the table no UNSPREAD column", row["STRATEGY"])
				}
			}

			// The move bound, from its line under the table.
			if m := regexp.MustCompile(`MOVED: at least (\d+) `).FindStringSubmatch(table); m != nil {
				for s, l := range byStrategy {
					if num(l["moveBound"]) != m[1] {
						t.Errorf("%s: move bound: table %s, json %s", s, m[1], num(l["moveBound"]))
					}
					if v := csvStat[[2]string{s, "moveBound"}]; v != m[1] {
						t.Errorf("%s: move bound: table %s, csv %q", s, m[1], v)
					}
				}
			} else {
				for s, l := range byStrategy {
					if _, ok := l["moveBound"]; ok {
						t.Errorf("%s: json has moveBound, the table none", s)
					}
				}
			}

			// The coordinator line.
			m := regexp.MustCompile(`coordinator: partition (\d+) of __consumer_offsets \((Redpanda: )?of (\d+)`).FindStringSubmatch(table)
			for s, l := range byStrategy {
				co, _ := l["coordinator"].(map[string]any)
				if m == nil {
					if co != nil {
						t.Errorf("%s: json has a coordinator, the table none", s)
					}
					continue
				}
				broker := "kafka"
				if m[2] != "" {
					broker = "redpanda"
				}
				if co == nil || num(co["partition"]) != m[1] || num(co["partitions"]) != m[3] || co["broker"] != broker {
					t.Errorf("%s: coordinator: table partition %s of %s (%s), json %v", s, m[1], m[3], broker, co)
				}
			}
			if m != nil && (csvGroup["coordinator.partition"] != m[1] || csvGroup["coordinator.partitions"] != m[3]) {
				t.Errorf("coordinator: table partition %s of %s, csv %v", m[1], m[3], csvGroup)
			}

			// The ownership the figures come from: what the group command
			// reads from the same input.
			if path := flagValue(tc.args, "--from-describe"); path != "" {
				for s, l := range byStrategy {
					checkOwned(t, path, l["owned"], "preview "+s)
				}
			}
			for s, l := range byStrategy {
				sameOwned(t, "preview "+s, l["owned"], ofKind(csvRows, "owned"))
			}

			// What was assumed: stderr's lines, in json and csv.
			want := assumedLines(stderr)
			for s, l := range byStrategy {
				if got := strs(l["assumed"]); !sameStrings(got, want) {
					t.Errorf("%s: assumed: stderr %q, json %q", s, want, got)
				}
			}
			if !sameStrings(csvAssumed, want) {
				t.Errorf("assumed: stderr %q, csv %q", want, csvAssumed)
			}

			// The member table of the detailed strategy.
			detail := strings.TrimSuffix(regexp.MustCompile(`(?m)^([a-z-]+):$`).FindString(table), ":")
			l := byStrategy[detail]
			figures, _ := l["memberFigures"].([]any)
			memberRows := tableSection(t, table, "MEMBER")
			for i, row := range memberRows {
				if _, lagShown := row["LAG"]; !lagShown && row["RACK"] == "" && row["CROSS-RACK"] == "" {
					if figures != nil {
						t.Errorf("json has memberFigures, the member table only counts")
					}
					break
				}
				if i >= len(figures) {
					t.Fatalf("%d members in the table, %d in memberFigures", len(memberRows), len(figures))
				}
				f := figures[i].(map[string]any)
				if f["id"] != row["MEMBER"] || num(f["count"]) != row["COUNT"] {
					t.Errorf("member %d: table %s %s, json %v %v", i, row["MEMBER"], row["COUNT"], f["id"], f["count"])
				}
				for col, key := range map[string]string{"LAG": "lag", "MAX LAG": "maxLag", "CROSS-RACK": "crossRack"} {
					cell, shown := row[col]
					if !shown {
						continue
					}
					got := num(f[key])
					if cell == "-" && got == "absent" {
						continue
					}
					if got != cell {
						t.Errorf("member %s %s: table %s, json %s", row["MEMBER"], col, cell, got)
					}
					if v := csvMember[[3]string{detail, row["MEMBER"], key}]; v != cell {
						t.Errorf("member %s %s: table %s, csv %q", row["MEMBER"], col, cell, v)
					}
				}
				if rack, shown := row["RACK"]; shown && rack != "-" && f["rack"] != rack {
					t.Errorf("member %s RACK: table %s, json %v", row["MEMBER"], rack, f["rack"])
				}
			}
		})
	}
}

// flagValue is the value after name in args, "" if none.
func flagValue(args []string, name string) string {
	for i, a := range args[:len(args)-1] {
		if a == name {
			return args[i+1]
		}
	}
	return ""
}

// partitionSet expands the tables' partition notation, "t(0-2,5) u(1)",
// into "t-0", "t-1", ... in order.
func partitionSet(t *testing.T, s string) []string {
	t.Helper()
	var out []string
	for _, m := range regexp.MustCompile(`(\S+?)\(([0-9,-]+)\)`).FindAllStringSubmatch(s, -1) {
		for item := range strings.SplitSeq(m[2], ",") {
			lo, hi, isRange := strings.Cut(item, "-")
			a, err1 := strconv.Atoi(lo)
			b, err2 := a, error(nil)
			if isRange {
				b, err2 = strconv.Atoi(hi)
			}
			if err1 != nil || err2 != nil {
				t.Fatalf("bad partition list %q", s)
			}
			for p := a; p <= b; p++ {
				out = append(out, m[1]+"-"+strconv.Itoa(p))
			}
		}
	}
	return out
}

// TestSimulateTableEqualsJSON compares simulate's table (MOVED,
// AFFECTED, REVOKED, ROUNDS, SPREAD per step and strategy; the stopped
// partitions under it; the "assumed:" notes) with its json and csv, and
// the ownership and assumptions a paste brings with step 0's json.
func TestSimulateTableEqualsJSON(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"flags", []string{"simulate", "--member", "c0#i0", "--member", "c1", "--topics", "t:4", "--join", "c2", "--restart", "i0", "--restart", "c1", "--protocol", "consumer", "--compare", "cooperative-sticky,uniform,range"}},
		{"paste", []string{"simulate", "--from-describe", "../../internal/describe/testdata/offsets_4x.txt", "--leave", "consumer-orders-1", "--compare", "range,sticky"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			table, stderr := runOK(t, tc.args...)
			out, _ := runOK(t, append(tc.args, "--format", "jsonl")...)
			csvOut, _ := runOK(t, append(tc.args, "--format", "csv")...)
			lines := jsonLines(t, out)
			_, all := readCSV(t, csvOut)
			csvRows := ofKind(all, "step")
			rows := tableSection(t, table, "STEP")
			if len(rows) != len(lines) || len(rows) != len(csvRows) {
				t.Fatalf("%d table rows, %d json lines, %d csv rows", len(rows), len(lines), len(csvRows))
			}
			stops := make(map[string][]string) // "step strategy revoked received" => partitions
			notes := make(map[string][]string) // step => notes
			for i, row := range rows {
				l, c := lines[i], csvRows[i]
				if num(l["step"]) != row["STEP"] || l["change"] != row["CHANGE"] || l["strategy"] != row["STRATEGY"] {
					t.Fatalf("row %d: table %v, json step %v %v %v", i, row, l["step"], l["change"], l["strategy"])
				}
				for col, key := range map[string]string{"MOVED": "moved", "AFFECTED": "affected", "REVOKED": "revoked", "ROUNDS": "rounds", "SPREAD": "spread"} {
					if num(l[key]) != row[col] {
						t.Errorf("row %d %s: table %s, json %s", i, col, row[col], num(l[key]))
					}
					if c[key] != row[col] {
						t.Errorf("row %d %s: table %s, csv %s", i, col, row[col], c[key])
					}
				}
				list, _ := l["stops"].([]any)
				if c["stops"] != strconv.Itoa(len(list)) {
					t.Errorf("row %d: %d stops in json, csv says %s", i, len(list), c["stops"])
				}
				for _, x := range list {
					st := x.(map[string]any)
					key := row["STEP"] + " " + row["STRATEGY"] + " " + num(st["revoked"]) + " " + num(st["received"])
					stops[key] = append(stops[key], st["topic"].(string)+"-"+num(st["partition"]))
				}
				notes[row["STEP"]] = strs(l["notes"])
				if got := strings.Join(notes[row["STEP"]], "\n"); c["notes"] != got {
					t.Errorf("row %d: notes: json %q, csv %q", i, got, c["notes"])
				}
				want := assumedLines(stderr)
				if row["STEP"] != "0" {
					want = nil
				}
				if got := strs(l["assumed"]); !sameStrings(got, want) {
					t.Errorf("row %d: assumed: stderr %q, json %q", i, want, got)
				}
				if c["assumed"] != strings.Join(want, "\n") {
					t.Errorf("row %d: assumed: stderr %q, csv %q", i, want, c["assumed"])
				}
			}
			// The stopped partitions under the table.
			shown := make(map[string][]string)
			for _, m := range regexp.MustCompile(`(?m)^  step (\d+) \([^)]*\), (\S+): (.*) revoked in round (\d+), received in round (\d+)$`).FindAllStringSubmatch(table, -1) {
				key := m[1] + " " + m[2] + " " + m[4] + " " + m[5]
				shown[key] = append(shown[key], partitionSet(t, m[3])...)
			}
			if fmt.Sprint(shown) != fmt.Sprint(stops) {
				t.Errorf("stopped partitions: table %v, json %v", shown, stops)
			}
			// The "assumed:" notes of the model, per step.
			tableNotes := make(map[string][]string)
			for _, m := range regexp.MustCompile(`(?m)^  step (\d+) \([^)]*\): (.*)$`).FindAllStringSubmatch(table, -1) {
				tableNotes[m[1]] = append(tableNotes[m[1]], m[2])
			}
			for step, ns := range notes {
				if !sameStrings(ns, tableNotes[step]) {
					t.Errorf("step %s: notes: table %q, json %q", step, tableNotes[step], ns)
				}
			}
			if tc.name == "flags" && (len(stops) == 0 || len(tableNotes) < 2) {
				t.Errorf("the flags case shows stops and notes of two steps; got %v and %v", stops, tableNotes)
			}
			// What step 0 started from.
			first := lines[0]
			owned, hasOwned := first["owned"].(map[string]any)
			if tc.name == "paste" {
				checkOwned(t, flagValue(tc.args, "--from-describe"), owned, "simulate")
			} else if hasOwned {
				t.Errorf("members of flags own nothing; json says %v", owned)
			}
			sameOwned(t, "simulate", first["owned"], ofKind(all, "owned"))
		})
	}
}

// TestMigrateTableEqualsJSON compares migrate's tables (the headline, per
// member what it holds, its target, what it revokes and receives; per
// heartbeat round the members' states; per move the rounds it waits)
// with its json and csv, and the ownership and assumptions with stderr
// and the group command.
func TestMigrateTableEqualsJSON(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"flags", []string{"migrate", "--members", "3", "--topics", "t1:4,t2:4", "--from", "range", "--moves", "--topic-id", "t1=Yp0cT2sWQ7ChA0qyU5Ckdg", "--topic-id", "t2=Zp0cT2sWQ7ChA0qyU5Ckdg"}},
		{"paste", []string{"migrate", "--from-describe", "../../internal/describe/testdata/offsets_4x.txt", "--moves", "--to", "server-range"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			table, stderr := runOK(t, tc.args...)
			out, _ := runOK(t, append(tc.args, "--format", "jsonl")...)
			csvOut, _ := runOK(t, append(tc.args, "--format", "csv")...)
			lines := jsonLines(t, out)
			if len(lines) != 1 {
				t.Fatalf("%d json lines, want 1", len(lines))
			}
			l := lines[0]
			_, csvRows := readCSV(t, csvOut)
			summary := make(map[string]string)
			csvByKind := make(map[string][]map[string]string)
			for _, r := range csvRows {
				if r["row"] == "summary" {
					summary[r["statistic"]] = r["value"]
				}
				csvByKind[r["row"]] = append(csvByKind[r["row"]], r)
			}

			// The headline.
			m := regexp.MustCompile(`\): (\d+) of (\d+) partitions change owner, (\d+) of them after a revocation; (\d+) heartbeat rounds?`).FindStringSubmatch(table)
			if m == nil {
				t.Fatalf("no headline in\n%s", table)
			}
			moves, _ := l["moves"].([]any)
			revocations := 0
			for _, x := range moves {
				if _, ok := x.(map[string]any)["revoked"]; ok {
					revocations++
				}
			}
			partitions := 0
			for _, ps := range l["assignment"].(map[string]any) {
				for _, list := range ps.(map[string]any) {
					partitions += len(list.([]any))
				}
			}
			if num(l["moved"]) != m[1] || strconv.Itoa(partitions) != m[2] || strconv.Itoa(revocations) != m[3] || num(l["rounds"]) != m[4] {
				t.Errorf("headline %q: json moved %s of %d, %d revocations, %s rounds", m[0], num(l["moved"]), partitions, revocations, num(l["rounds"]))
			}
			if summary["moved"] != m[1] || summary["partitions"] != m[2] || summary["revocations"] != m[3] || summary["rounds"] != m[4] {
				t.Errorf("headline %q: csv %v", m[0], summary)
			}

			// The member table.
			owned, _ := l["owned"].(map[string]any)
			target := l["assignment"].(map[string]any)
			count := func(v any) string {
				n := 0
				obj, _ := v.(map[string]any)
				for _, list := range obj {
					n += len(list.([]any))
				}
				return strconv.Itoa(n)
			}
			members := tableSection(t, table, "MEMBER")
			if len(members) != len(csvByKind["member"]) {
				t.Fatalf("%d members in the table, %d in csv", len(members), len(csvByKind["member"]))
			}
			revokes, receives := make(map[string][]string), make(map[string][]string)
			for _, x := range moves {
				mv := x.(map[string]any)
				p := mv["topic"].(string) + "-" + num(mv["partition"])
				if f := mv["from"].(string); f != "" {
					revokes[f] = append(revokes[f], p)
				}
				if to := mv["to"].(string); to != "" {
					receives[to] = append(receives[to], p)
				}
			}
			held := "CLASSIC"
			if _, ok := members[0]["OWNED"]; ok {
				held = "OWNED"
			}
			for i, row := range members {
				id, c := row["MEMBER"], csvByKind["member"][i]
				if count(owned[id]) != row[held] || count(target[id]) != row["TARGET"] {
					t.Errorf("member %s: table %s %s, json owned %v target %v", id, row[held], row["TARGET"], owned[id], target[id])
				}
				if c["member"] != id || c["held"] != row[held] || c["target"] != row["TARGET"] {
					t.Errorf("member %s: table %v, csv %v", id, row, c)
				}
				for col, want := range map[string][]string{"REVOKES": revokes[id], "RECEIVES": receives[id]} {
					got := partitionSet(t, row[col])
					if !sameStrings(got, want) {
						t.Errorf("member %s %s: table %v, json %v", id, col, got, want)
					}
					if csvGot := partitionSet(t, c[strings.ToLower(col)]); !sameStrings(csvGot, want) {
						t.Errorf("member %s %s: csv %v, json %v", id, col, csvGot, want)
					}
				}
			}

			// The heartbeat rounds.
			rounds := tableSection(t, table, "ROUND")
			beats, _ := l["heartbeats"].([]any)
			if len(rounds) != len(beats) || len(rounds) != len(csvByKind["round"]) {
				t.Fatalf("%d rounds in the table, %d in json, %d in csv", len(rounds), len(beats), len(csvByKind["round"]))
			}
			for i, row := range rounds {
				b, c := beats[i].(map[string]any), csvByKind["round"][i]
				for col, key := range map[string]string{"ROUND": "round", "STABLE": "stable", "UNREVOKED": "unrevoked", "UNRELEASED": "unreleased", "IDLE": "idle"} {
					if num(b[key]) != row[col] || c[key] != row[col] {
						t.Errorf("round %d %s: table %s, json %s, csv %s", i+1, col, row[col], num(b[key]), c[key])
					}
				}
			}

			// The moves, with the rounds they wait.
			handovers := tableSection(t, table, "PARTITION")
			if len(moves) > 0 && len(handovers) != len(moves) {
				t.Fatalf("%d moves in the table, %d in json", len(handovers), len(moves))
			}
			for i, x := range moves {
				mv, row, c := x.(map[string]any), handovers[i], csvByKind["move"][i]
				p := mv["topic"].(string) + "-" + num(mv["partition"])
				idle := "-"
				if r, ok := mv["revoked"]; ok {
					idle = "round " + num(r)
					if rec := mv["received"].(float64) - 1; rec != r.(float64) {
						idle = "rounds " + num(r) + "-" + num(rec)
					}
				}
				if row["PARTITION"] != p || row["FROM"] != orNone(mv["from"].(string)) || row["TO"] != orNone(mv["to"].(string)) || row["IDLE"] != idle {
					t.Errorf("move %d: table %v, json %v", i, row, mv)
				}
				if c["partition"] != p || c["from"] != mv["from"] || c["to"] != mv["to"] {
					t.Errorf("move %d: csv %v, json %v", i, c, mv)
				}
			}

			// What was assumed, and what the members owned.
			want := assumedLines(stderr)
			if got := strs(l["assumed"]); !sameStrings(got, want) {
				t.Errorf("assumed: stderr %q, json %q", want, got)
			}
			var csvAssumed []string
			for _, r := range csvByKind["assumed"] {
				csvAssumed = append(csvAssumed, r["value"])
			}
			if !sameStrings(csvAssumed, want) {
				t.Errorf("assumed: stderr %q, csv %q", want, csvAssumed)
			}
			if path := flagValue(tc.args, "--from-describe"); path != "" {
				checkOwned(t, path, owned, "migrate")
			}
		})
	}
}

// checkOwned compares owned, the "owned" of a command's json, with what
// the group command reads from the paste at path.
func checkOwned(t *testing.T, path string, owned any, what string) {
	t.Helper()
	groupOut, _ := runOK(t, "group", "--from-describe", path, "--format", "jsonl")
	var grp struct {
		Members []struct {
			ID    string
			Owned map[string][]int
		}
	}
	if err := json.Unmarshal([]byte(groupOut), &grp); err != nil {
		t.Fatal(err)
	}
	byMember, _ := owned.(map[string]any)
	if len(byMember) != len(grp.Members) {
		t.Errorf("%s: owned lists %d members, the group %d", what, len(byMember), len(grp.Members))
	}
	for _, m := range grp.Members {
		got, _ := json.Marshal(byMember[m.ID])
		want, _ := json.Marshal(m.Owned)
		if len(m.Owned) == 0 {
			want = []byte("{}")
		}
		if string(got) != string(want) {
			t.Errorf("%s: owned of %s: group %s, json %s", what, m.ID, want, got)
		}
	}
}

// sameOwned compares the "owned" rows of a command's csv with owned, the
// "owned" of its json (nil: no rows): the same members, each with the
// same partitions; the order is TestOwnedCSV's.
func sameOwned(t *testing.T, what string, owned any, rows []map[string]string) {
	t.Helper()
	fromCSV := make(map[string][]string)
	for _, r := range rows {
		ps := partitionSet(t, r["partitions"])
		if n, _ := strconv.Atoi(r["count"]); len(ps) != n {
			t.Errorf("%s: owned row %v: count %s, partitions %q", what, r, r["count"], r["partitions"])
		}
		fromCSV[r["member"]] = append(fromCSV[r["member"]], ps...)
	}
	fromJSON := make(map[string][]string)
	byMember, _ := owned.(map[string]any)
	for id, v := range byMember {
		fromJSON[id] = []string{}
		for topic, list := range v.(map[string]any) {
			for _, p := range list.([]any) {
				fromJSON[id] = append(fromJSON[id], topic+"-"+num(p))
			}
		}
	}
	for _, m := range []map[string][]string{fromCSV, fromJSON} {
		for id := range m {
			slices.Sort(m[id])
		}
	}
	if fmt.Sprint(fromCSV) != fmt.Sprint(fromJSON) {
		t.Errorf("%s: owned: csv %v, json %v", what, fromCSV, fromJSON)
	}
}

// TestCheckTableEqualsJSON compares check's table (OURS with the number
// of differences, CHECK, and the differences listed under it) with its
// json and csv, on Kafka's answers and on a paste, whose json also says
// what the members own and what was assumed.
func TestCheckTableEqualsJSON(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		stdin string
	}{
		{"results", []string{"check", "--in", "testdata/check_groups.jsonl", "--results", "-"}, checkResults},
		{"paste", []string{"check", "--from-describe", "../../internal/describe/testdata/members_scala_static.txt", "--topics", "orders:3", "--strategy", "range,roundrobin,sticky"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			table, stderr, status := runCase(cliCase{args: tc.args, stdin: tc.stdin})
			out, _, jsonStatus := runCase(cliCase{args: append(tc.args, "--format", "jsonl"), stdin: tc.stdin})
			csvOut, _, csvStatus := runCase(cliCase{args: append(tc.args, "--format", "csv"), stdin: tc.stdin})
			if status > exitFailed || status == exitInput || status != jsonStatus || status != csvStatus {
				t.Fatalf("exit statuses %d (table), %d (json), %d (csv)\n%s", status, jsonStatus, csvStatus, stderr)
			}
			lines := jsonLines(t, out)
			_, all := readCSV(t, csvOut)
			csvRows := ofKind(all, "verdict")
			rows := tableSection(t, table, "GROUP")
			if len(rows) != len(lines) || len(rows) != len(csvRows) {
				t.Fatalf("%d table rows, %d json lines, %d csv rows", len(rows), len(lines), len(csvRows))
			}
			want := assumedLines(stderr)
			for i, row := range rows {
				l, c := lines[i], csvRows[i]
				diffs, _ := l["differences"].([]any)
				ours := l["ours"].(string)
				if len(diffs) > 0 {
					ours = fmt.Sprintf("differs (%d)", len(diffs))
				}
				verdict := "valid"
				if l["valid"] != true {
					verdict = "FAILS: " + l["problem"].(string)
				}
				if row["GROUP"] != l["name"] || row["STRATEGY"] != l["strategy"] || row["OURS"] != ours || row["CHECK"] != verdict {
					t.Errorf("row %d: table %v, json %s %s %s %s", i, row, l["name"], l["strategy"], ours, verdict)
				}
				if c["group"] != row["GROUP"] || c["strategy"] != row["STRATEGY"] || c["differences"] != strconv.Itoa(len(diffs)) || c["valid"] != strconv.FormatBool(l["valid"] == true) {
					t.Errorf("row %d: table %v, csv %v", i, row, c)
				}
				// The differences listed under the table, up to five.
				for k, x := range diffs[:min(len(diffs), shownDifferences)] {
					d := x.(map[string]any)
					shown := fmt.Sprintf("%s theirs %s, ours %s", d["partition"], orNone(d["theirs"].(string)), orNone(d["ours"].(string)))
					if !strings.Contains(table, shown) {
						t.Errorf("row %d difference %d: json %v, not in the table as %q", i, k, d, shown)
					}
				}
				if got := strs(l["assumed"]); !sameStrings(got, want) {
					t.Errorf("row %d: assumed: stderr %q, json %q", i, want, got)
				}
				if c["assumed"] != strings.Join(want, "\n") {
					t.Errorf("row %d: assumed: stderr %q, csv %q", i, want, c["assumed"])
				}
				switch path := flagValue(tc.args, "--from-describe"); {
				case path != "":
					checkOwned(t, path, l["owned"], "check "+row["STRATEGY"])
				case row["GROUP"] == "join":
					// check_groups.jsonl: a owns t 0-3, b nothing.
					if got, _ := json.Marshal(l["owned"]); string(got) != `{"a":{"t":[0,1,2,3]},"b":{}}` {
						t.Errorf("row %d: group join: json owned %s, want a t 0-3, b nothing", i, got)
					}
				default:
					if _, ok := l["owned"]; ok {
						t.Errorf("row %d: group %s owns nothing; json says %v", i, row["GROUP"], l["owned"])
					}
				}
				var groupOwned []map[string]string
				for _, r := range ofKind(all, "owned") {
					if r["group"] == row["GROUP"] {
						groupOwned = append(groupOwned, r)
					}
				}
				sameOwned(t, "check "+row["GROUP"]+" "+row["STRATEGY"], l["owned"], groupOwned)
			}
		})
	}
}
