package main

import (
	"bytes"
	"io"
	"strings"
	"unicode/utf8"
)

// helpWidth is the widest line of help, in runes: help fits a terminal
// of 100 columns (issue 28).
const helpWidth = 100

// helpWriter is urfave/cli's Writer, through which only help and the
// version pass (commands write to env.stdout): it folds each line wider
// than helpWidth at spaces. urfave/cli aligns flags and commands itself
// and wraps nothing, so the folding is done on what it prints:
//
//   - an example command (a line indented six spaces that runs
//     assigncalc) is continued with a shell's " \", indented four more,
//     so that it can still be pasted;
//   - a line of a list (a flag or a command, then two or more spaces,
//     then its usage) continues under the usage, or, when the usage
//     column is in the right half, has its usage on lines of its own
//     under the name;
//   - any other line continues at its own indent.
//
// A word wider than the line is left whole.
type helpWriter struct {
	w       io.Writer
	partial []byte // the start of a line not yet ended
}

func (h *helpWriter) Write(p []byte) (int, error) {
	h.partial = append(h.partial, p...)
	for {
		i := bytes.IndexByte(h.partial, '\n')
		if i < 0 {
			return len(p), nil
		}
		if _, err := io.WriteString(h.w, foldHelpLine(string(h.partial[:i]))+"\n"); err != nil {
			return 0, err
		}
		h.partial = h.partial[i+1:]
	}
}

// flush writes a last line that did not end.
func (h *helpWriter) flush() error {
	if len(h.partial) == 0 {
		return nil
	}
	_, err := io.WriteString(h.w, foldHelpLine(string(h.partial)))
	h.partial = nil
	return err
}

// foldHelpLine folds line into lines of at most helpWidth runes, joined
// by newlines (see helpWriter).
func foldHelpLine(line string) string {
	if utf8.RuneCountInString(line) <= helpWidth {
		return line
	}
	text := strings.TrimLeft(line, " ")
	indent := len(line) - len(text)
	cont, suffix := indent, ""
	switch {
	case indent == 6 && (strings.HasPrefix(text, "assigncalc ") || strings.Contains(text, "| assigncalc ")):
		cont, suffix = indent+4, " \\"
	default:
		// The usage column of a list line: after the first run of two
		// or more spaces. Within the first half, the usage continues
		// under itself; further right (urfave/cli aligns every flag
		// with the longest), it goes under the name, as man pages lay
		// options out.
		if gap := strings.Index(text, "  "); gap > 0 {
			rest := strings.TrimLeft(text[gap:], " ")
			col := len(line) - len(rest)
			if col >= helpWidth/2 {
				return line[:indent+gap] + "\n" + foldHelpLine(strings.Repeat(" ", indent+5)+rest)
			}
			cont = col
		}
	}
	var out strings.Builder
	cur := line[:indent]
	width := indent
	words := strings.Split(text, " ")
	start := true // no word on cur yet
	for i, w := range words {
		// Runs of spaces inside the text (the list's gap) are kept as
		// empty words until the line breaks.
		n := utf8.RuneCountInString(w)
		limit := helpWidth - utf8.RuneCountInString(suffix)
		if i == len(words)-1 {
			limit = helpWidth
		}
		if !start && w != "" && width+1+n > limit {
			out.WriteString(strings.TrimRight(cur, " ") + suffix + "\n")
			cur, width, start = strings.Repeat(" ", cont), cont, true
		}
		if !start {
			cur += " "
			width++
		}
		if start && w == "" {
			continue // a gap's spaces at the start of a continued line
		}
		cur += w
		width += n
		start = false
	}
	out.WriteString(strings.TrimRight(cur, " "))
	return out.String()
}
