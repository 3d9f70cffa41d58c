package main

import (
	"fmt"
	"time"
)

// progressAfter is how long work runs before progress is shown: shorter
// work finishes before anyone wonders.
const progressAfter = time.Second

// progress reports on stderr, when stderr is a terminal, how far a long
// piece of work has gone: which strategy it is at and how many of the
// steps are done, on one line that is rewritten as the work goes on and
// cleared at the end. Nothing is written before progressAfter has passed,
// nor ever when stderr is not a terminal (a file, a pipe, CI's log), so
// that stderr keeps only the diagnostics there.
type progress struct {
	e     *env
	what  string // the work, "simulate"
	total int    // steps in all; 0 when unknown
	start time.Time
	shown bool // a progress line is on the terminal
}

// startProgress begins reporting total steps of what.
func (e *env) startProgress(what string, total int) *progress {
	return &progress{e: e, what: what, total: total, start: e.clock()}
}

// clock is e.now, or the time of day.
func (e *env) clock() time.Time {
	if e.now != nil {
		return e.now()
	}
	return time.Now()
}

// step says that step done of the total is under way, at detail (the
// strategy, say).
func (p *progress) step(done int, detail string) {
	if !p.e.stderrTerminal || p.e.clock().Sub(p.start) < progressAfter {
		return
	}
	p.shown = true
	of := fmt.Sprintf("%d/%d", done, p.total)
	if p.total <= 0 { // a stream of unknown length
		of = fmt.Sprint(done)
	}
	// \r and "erase to the end of the line" rewrite the line in place.
	fmt.Fprintf(p.e.stderr, "\r\x1b[Kassigncalc: %s: %s (%s)", p.what, detail, of)
}

// end clears the progress line, if one was shown.
func (p *progress) end() {
	if p.shown {
		fmt.Fprint(p.e.stderr, "\r\x1b[K")
		p.shown = false
	}
}
