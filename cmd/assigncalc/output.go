package main

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"strings"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/internal/groupfile"
)

// Output formats.
const (
	formatTable = "table"
	formatJSON  = "json"
	formatJSONL = "jsonl"
	formatCSV   = "csv"
)

// parseFormat validates a --format value against the formats a command
// offers; "" gives def.
func parseFormat(value, def string, offered ...string) (string, error) {
	if value == "" {
		return def, nil
	}
	for _, f := range offered {
		if value == f {
			return f, nil
		}
	}
	return "", usagef("--format: unknown format %q: want one of %s", value, strings.Join(offered, ", "))
}

// resultWriter writes results in json (one indented array) or jsonl (one
// compact object per line) as they come.
type resultWriter struct {
	w      io.Writer
	format string
	n      int
}

func (rw *resultWriter) write(r groupfile.Result) error {
	line, err := groupfile.AppendResult(nil, r)
	if err != nil {
		return err
	}
	return rw.writeRaw(line)
}

// writeRaw writes one compact JSON object.
func (rw *resultWriter) writeRaw(line []byte) error {
	if rw.format == formatJSONL {
		rw.n++
		_, err := rw.w.Write(append(line, '\n'))
		return err
	}
	var buf bytes.Buffer
	sep := ",\n  "
	if rw.n == 0 {
		sep = "[\n  "
	}
	rw.n++
	buf.WriteString(sep)
	if err := json.Indent(&buf, line, "  ", "  "); err != nil {
		return err
	}
	_, err := rw.w.Write(buf.Bytes())
	return err
}

// close ends the json array.
func (rw *resultWriter) close() error {
	if rw.format != formatJSON {
		return nil
	}
	end := "\n]\n"
	if rw.n == 0 {
		end = "[]\n"
	}
	_, err := io.WriteString(rw.w, end)
	return err
}

func itoa(n int) string { return strconv.Itoa(n) }

// assignmentCSVHeader is the one CSV layout of assignments (the preview's
// and plan's): a spreadsheet pivots COUNT by member and topic over the
// "assignment" rows, and filters the others out by ROW.
//
//   - "assignment": a row per strategy, member and topic the member
//     holds, with its count and partitions; a member holding nothing gets
//     one row with no topic and count 0;
//   - "stats": a row per strategy and statistic (min, max, spread, stddev,
//     idle), its name in STATISTIC and its figure in VALUE;
//   - "error": a group the strategy could not assign, the error in VALUE.
var assignmentCSVHeader = []string{"row", "group", "strategy", "member", "rack", "topic", "count", "partitions", "statistic", "value"}

// assignmentCSV appends the rows of a, strategy's assignment of group g
// (named group), to rows, in g's member order.
func assignmentCSV(rows [][]string, group, strategy string, g assign.Group, a assign.Assignment) [][]string {
	for _, m := range g.Members {
		tps := a[m.ID]
		if len(tps) == 0 {
			rows = append(rows, []string{"assignment", group, strategy, m.ID, m.Rack, "", "0", "", "", ""})
		}
		for i := 0; i < len(tps); {
			j := i
			for j < len(tps) && tps[j].Topic == tps[i].Topic {
				j++
			}
			rows = append(rows, []string{"assignment", group, strategy, m.ID, m.Rack, tps[i].Topic, itoa(j - i), compact(tps[i:j]), "", ""})
			i = j
		}
	}
	st := assign.Summarize(g, a)
	for _, kv := range [][2]string{{"min", itoa(st.Min)}, {"max", itoa(st.Max)}, {"spread", itoa(st.Spread)}, {"stddev", formatStdDev(st.StdDev)}, {"idle", itoa(st.Idle)}} {
		rows = append(rows, []string{"stats", group, strategy, "", "", "", "", "", kv[0], kv[1]})
	}
	return rows
}

// errorCSV is the row of a group strategy could not assign.
func errorCSV(group, strategy string, err error) []string {
	return []string{"error", group, strategy, "", "", "", "", "", "", oneLine(err.Error())}
}
