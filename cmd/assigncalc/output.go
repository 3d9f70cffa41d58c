package main

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"strings"

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
