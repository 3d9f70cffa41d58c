package main

import (
	"io"
	"slices"
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
	return rw.writeEncoded(groupfile.AppendResult(nil, r))
}

// writeEncoded writes line, what one of groupfile's Append functions
// encoded, or returns the error it gave instead.
func (rw *resultWriter) writeEncoded(line []byte, err error) error {
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
	sep := ",\n  "
	if rw.n == 0 {
		sep = "[\n  "
	}
	rw.n++
	buf := make([]byte, 0, len(line)+len(line)/2+len(sep))
	buf = appendIndented(append(buf, sep...), line, "  ", "  ")
	_, err := rw.w.Write(buf)
	return err
}

// appendIndented appends src, compact JSON as groupfile writes it (no
// space outside strings), indented as json.Indent(dst, src, prefix,
// indent) would: without json.Indent's scanner, which took a third of
// the preview's time on a million partitions (issue 30;
// TestAppendIndentedIsIndent holds the two to the same bytes).
func appendIndented(dst, src []byte, prefix, indent string) []byte {
	depth := 0
	newline := func() {
		dst = append(dst, '\n')
		dst = append(dst, prefix...)
		for range depth {
			dst = append(dst, indent...)
		}
	}
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '"':
			j := i + 1
			for ; j < len(src) && src[j] != '"'; j++ {
				if src[j] == '\\' {
					j++
				}
			}
			j = min(j, len(src)-1)
			dst = append(dst, src[i:j+1]...)
			i = j
		case '{', '[':
			dst = append(dst, c)
			if i+1 < len(src) && (src[i+1] == '}' || src[i+1] == ']') {
				dst = append(dst, src[i+1])
				i++
				continue
			}
			depth++
			newline()
		case '}', ']':
			depth--
			newline()
			dst = append(dst, c)
		case ',':
			dst = append(dst, c)
			newline()
		case ':':
			dst = append(dst, ':', ' ')
		default: // a number, true, false or null: up to the next structural byte
			j := i + 1
			for j < len(src) && !structural(src[j]) {
				j++
			}
			dst = append(dst, src[i:j]...)
			i = j - 1
		}
	}
	return dst
}

// structural reports whether b ends a number or literal in compact JSON.
func structural(b byte) bool {
	switch b {
	case '"', '{', '}', '[', ']', ',', ':':
		return true
	}
	return false
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

// ownedCSV appends to rows, in the layout of header, the "owned" rows of
// owned, what group g's members owned when the figures beside them were
// computed (the "owned" of the command's json; nil: nobody owned
// anything, and no rows): a row per member and topic, with its count and
// partitions, as [assignmentCSV] writes a member's assignment, and one
// with no topic and count 0 for a member that owned nothing. Every
// command's csv writes its "owned" rows here, filling the columns of
// header named row, group, member, rack, topic, count and partitions;
// the others are empty. Members come in the order of owned.Members, then
// any others owned lists in Go string order, as its json has them; a
// member's partitions are sorted, claims repeated across members kept
// (what the members listed, not who wins the claims).
func ownedCSV(rows [][]string, header []string, group string, g assign.Group, owned *groupfile.MemberPartitions) [][]string {
	if owned == nil {
		return rows
	}
	col := make(map[string]int, len(header))
	for i, h := range header {
		col[h] = i
	}
	racks := make(map[string]string, len(g.Members))
	for _, m := range g.Members {
		racks[m.ID] = m.Rack
	}
	row := func(id string, tps []assign.TopicPartition) []string {
		r := make([]string, len(header))
		set := func(name, value string) {
			if i, ok := col[name]; ok {
				r[i] = value
			}
		}
		set("row", "owned")
		set("group", group)
		set("member", id)
		set("rack", racks[id])
		set("count", "0")
		if len(tps) > 0 {
			set("topic", tps[0].Topic)
			set("count", itoa(len(tps)))
			set("partitions", compact(tps))
		}
		return r
	}
	ids := make([]string, 0, len(owned.Assignment))
	seen := make(map[string]bool, len(owned.Members))
	for _, id := range owned.Members {
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	var extra []string
	for id := range owned.Assignment {
		if !seen[id] {
			extra = append(extra, id)
		}
	}
	slices.Sort(extra)
	for _, id := range append(ids, extra...) {
		tps := slices.SortedFunc(slices.Values(owned.Assignment[id]), assign.TopicPartition.Compare)
		if len(tps) == 0 {
			rows = append(rows, row(id, nil))
		}
		for i := 0; i < len(tps); {
			j := i
			for j < len(tps) && tps[j].Topic == tps[i].Topic {
				j++
			}
			rows = append(rows, row(id, tps[i:j]))
			i = j
		}
	}
	return rows
}

// ownedCSVColumns are the columns of an "owned" row besides GROUP, as
// [assignmentCSVHeader] names them.
var ownedCSVColumns = []string{"row", "member", "rack", "topic", "count", "partitions"}

// withOwnedColumns is header with the columns of ownedCSVColumns it
// lacks after its own, for a command whose csv adds "owned" rows to rows
// of another kind: its own columns keep their places, ROW telling the
// kinds apart.
func withOwnedColumns(header []string) []string {
	for _, c := range ownedCSVColumns {
		if !slices.Contains(header, c) {
			header = append(header, c)
		}
	}
	return header
}

// kindRows lays rows, each in the leading columns of header, out in all
// of header's columns, with kind in ROW.
func kindRows(header []string, kind string, rows [][]string) [][]string {
	at := slices.Index(header, "row")
	out := make([][]string, len(rows))
	for i, r := range rows {
		cells := make([]string, len(header))
		copy(cells, r)
		cells[at] = kind
		out[i] = cells
	}
	return out
}

// errorCSV is the row of a group strategy could not assign.
func errorCSV(group, strategy string, err error) []string {
	return []string{"error", group, strategy, "", "", "", "", "", "", oneLine(err.Error())}
}
