package describe

import (
	"encoding/csv"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// line is a line of the input that is neither noise nor a notice.
type line struct {
	n    int // from 1
	text string
}

// notice is a line a tool printed about a group, and the group it names
// ("" when none).
type notice struct {
	group, text string
}

// promptLine matches a shell prompt and what follows it: "$ cmd",
// "bash-5.1# cmd", "> cmd", "user@host:~$ cmd", "[root@host ~]# cmd".
var promptLine = regexp.MustCompile(`^(\S*[$#>%]|\[[^\]]*\][$#%])(\s|$)`)

// quotedGroup finds the group a tool's message names.
var quotedGroup = regexp.MustCompile(`[Gg]roup '([^']*)'`)

// classify splits the input into the lines to read and the tools'
// notices, dropping noise: blank lines, prompts and the commands typed,
// Kafka's notes and kubectl's messages. Lines are cut from data, not
// copied; notices, which a snapshot keeps, are copies.
func classify(data string) ([]line, []notice) {
	// Sized for the paste's lines, but never more than a line per 64 bytes
	// (a row of Kafka's tables is longer), so a paste of blank lines
	// cannot ask for more than a share of its own size.
	lines := make([]line, 0, min(strings.Count(data, "\n")+1, len(data)/64+1))
	var notices []notice
	for n, rest := 1, data; rest != ""; n++ {
		var text string
		text, rest, _ = strings.Cut(rest, "\n")
		text = strings.TrimRight(text, " \t\r")
		trimmed := strings.TrimSpace(text)
		switch {
		case trimmed == "" || isNoise(trimmed):
		case isNotice(trimmed):
			nt := notice{text: strings.Clone(trimmed)}
			if m := quotedGroup.FindStringSubmatch(nt.text); m != nil {
				nt.group = m[1]
			}
			notices = append(notices, nt)
		default:
			lines = append(lines, line{n, text})
		}
	}
	return lines, notices
}

// isNoise reports a line that says nothing about any group.
func isNoise(s string) bool {
	switch {
	case isPrompt(s),
		strings.Contains(s, "kafka-consumer-groups"), // the command, without a prompt
		strings.HasPrefix(s, "rpk "),
		strings.HasPrefix(s, "kubectl "),
		strings.HasPrefix(s, "docker "),
		strings.HasPrefix(s, "Note: "), // "Note: This will only show information about consumers that use ..."
		strings.HasPrefix(s, "If you don't see a command prompt"),
		strings.HasPrefix(s, "Defaulted container "),
		strings.HasPrefix(s, "pod \"") && strings.HasSuffix(s, "\" deleted"):
		return true
	}
	return false
}

// isPrompt reports a line promptLine matches. Every prompt it matches
// holds one of $ # > %: rows seldom do, so most lines skip the regular
// expression.
func isPrompt(s string) bool {
	return strings.ContainsAny(s, "$#>%") && promptLine.MatchString(s)
}

// isNotice reports the lines kafka-consumer-groups.sh and rpk print about
// a group's state or their own failure (on stderr, but often captured
// with 2>&1).
func isNotice(s string) bool {
	for _, p := range []string{"Warning:", "WARNING:", "Error:", "ERROR:", "Consumer group '"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

func isCSV(first string) bool {
	if strings.ContainsAny(first, " \t") && !strings.Contains(first, ",") {
		return false
	}
	f := strings.Split(first, ",")
	if len(f) < 3 || len(f) > 4 {
		return false
	}
	if strings.EqualFold(strings.TrimSpace(f[0]), "member") {
		return true
	}
	_, err := strconv.ParseInt(strings.TrimSpace(f[2]), 10, 32)
	return err == nil
}

func parseCSV(c *collector, lines []line) error {
	b := c.group("", lines[0].n)
	b.owning(CSVView)
	for i, l := range lines {
		rec, err := csvRecord(l.text)
		if err != nil {
			return &Error{Line: l.n, Err: fmt.Errorf("%w: %v", ErrSyntax, err)}
		}
		if i == 0 && strings.EqualFold(strings.TrimSpace(rec[0]), "member") {
			continue // the header
		}
		if len(rec) < 3 || len(rec) > 4 {
			return &Error{Line: l.n, Err: fmt.Errorf("%w: want member,topic,partition[,lag], found %d fields", ErrSyntax, len(rec))}
		}
		for k := range rec {
			rec[k] = strings.TrimSpace(rec[k])
		}
		tp, err := b.names.partition(rec[1], rec[2])
		if err != nil {
			return &Error{Line: l.n, Err: err}
		}
		if rec[0] == "" || rec[0] == missingValue {
			b.s.Unowned = append(b.s.Unowned, tp)
		} else {
			m := b.member(rec[0])
			m.Owned = append(m.Owned, tp)
		}
		if len(rec) == 4 && rec[3] != "" && rec[3] != missingValue {
			lag, err := strconv.ParseInt(rec[3], 10, 64)
			if err != nil {
				return &Error{Line: l.n, Err: fmt.Errorf("%w: lag %q is not a whole number", ErrSyntax, rec[3])}
			}
			b.s.Lag[tp] = lag
		}
	}
	return nil
}

// csvRecord reads a line of CSV. A line without quotes or carriage
// returns is what encoding/csv reads as the line cut at its commas, and is
// cut here without a reader per line (BenchmarkParseCSV); other lines go
// to encoding/csv.
func csvRecord(text string) ([]string, error) {
	if !strings.ContainsAny(text, "\"\r") {
		return strings.Split(text, ","), nil
	}
	return csv.NewReader(strings.NewReader(text)).Read()
}
