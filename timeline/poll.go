package timeline

// pollLoop is a member's application thread: it calls poll(), processes
// the batch it returns for batch ms, and calls poll() again. Every poll
// returns a full batch (the member has a backlog).
//
// It polls at pollBase + k·batch for k ≥ 0; the poll before pollBase was
// at prevPoll (a stall puts more than one batch between the two).
type pollLoop struct {
	batch              int64
	pollBase, prevPoll int64
}

// nextPoll returns the time of the first poll at or after t.
func (l *pollLoop) nextPoll(t int64) int64 {
	switch {
	case t <= l.pollBase:
		return l.pollBase
	case l.batch == 0:
		return t
	}
	return l.pollBase + (t-l.pollBase+l.batch-1)/l.batch*l.batch
}

// lastPoll returns the time of the last poll at or before t.
func (l *pollLoop) lastPoll(t int64) int64 {
	switch {
	case t < l.pollBase:
		return l.prevPoll
	case l.batch == 0:
		return t
	}
	return l.pollBase + (t-l.pollBase)/l.batch*l.batch
}

// stall makes the batch processed at t take extra ms longer: the first
// poll after t comes extra ms later, and the polls after it follow on.
func (l *pollLoop) stall(t, extra int64) {
	last := l.lastPoll(t)
	next := last + l.batch
	if t < l.pollBase {
		next = l.pollBase
	}
	l.prevPoll, l.pollBase = last, next+extra
}

// restart makes the loop poll first at t, having last polled at prev.
func (l *pollLoop) restart(prev, t int64) {
	l.prevPoll, l.pollBase = prev, t
}

// overdue reports whether the gap between the last poll and the next one
// exceeds maxPoll, and when the poll timer then expires.
func (l *pollLoop) overdue(maxPoll int64) (int64, bool) {
	return l.prevPoll + maxPoll, l.pollBase-l.prevPoll > maxPoll
}
