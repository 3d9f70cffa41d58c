// Certificates of phase 1 (balance in general.go): sets of search nodes
// that a fruitless search proved can reach no target, kept so that a
// later level whose sources all lie in them skips its search, which
// would find nothing either. They change no answer: a skipped search is
// one that would have shifted nothing.
//
// A search that finds no end leaves a set R of nodes that is closed
// under the arcs of the move graph (every arc out of R ends in R) and
// holds no target: forward, the nodes it reached from the sources;
// backward, those it did not reach from the targets (a node that
// reaches no target only leads to nodes that reach none). Two kinds are
// kept, by the targets of the call that proved them:
//
//   - done, from a level's last call (targets: load <= level-2). Such an
//     R stays valid for the rest of phase 1, untouched: see balance's
//     proof that no later shift passes through it. Its members are
//     sources of no later call that can shift.
//   - fair, from a level's first call (targets: load <= fair-1, the
//     average rounded up, less one). A later shift may end inside such
//     an R, so it stays valid only while every shift either stays out
//     of it or starts in it: a shift from a source in R runs inside R
//     (R is closed), gives only to members of load >= fair, and leaves
//     its source above fair, so R stays closed and without a target of
//     any first call; a shift that starts outside and enters R drops
//     every fair certificate (fairSeen).
//
// On bench/cmd/adversary's random(1) at 2,000 members, where a few
// members holding far more than their share drain one load level at a
// time, about 475 of 885 searches of phase 1 find nothing; see the
// package documentation for what skipping them saves.

package balance

// certs are phase 1's certificates, by search node.
type certs struct {
	done      []bool  // node => in a done certificate
	fair      []int32 // node => in a fair certificate when equal to fairEpoch
	fairEpoch int32
}

func newCerts(nodes int) *certs {
	return &certs{done: make([]bool, nodes), fair: make([]int32, nodes), fairEpoch: 1}
}

// inFair reports whether node v is in a fair certificate.
func (c *certs) inFair(v int32) bool { return c.fair[v] == c.fairEpoch }

// The kinds of certificate a call of shiftAll proves when its last
// search finds nothing (goal.learn).
const (
	learnNone int8 = iota
	learnFair
	learnDone
)

// certified reports whether every source of g lies in a certificate
// that holds no target of g: done for either call, fair for a first
// call.
func (s *solver) certified(g goal) bool {
	c := s.certs
	if c == nil || g.learn == learnNone {
		return false
	}
	for m := range s.n {
		if g.source(s.load[m]) && !c.done[m] && (g.learn != learnFair || !c.inFair(m)) {
			return false
		}
	}
	return true
}

// learn records the closed set without targets that the last search,
// which found no end, leaves (see the file's comment), as a certificate
// of the kind of g.
func (s *solver) learn(g goal) {
	c := s.certs
	if c == nil || g.learn == learnNone {
		return
	}
	for v, d := range s.dist {
		if s.forward != (d < inf) {
			continue
		}
		if g.learn == learnDone {
			c.done[v] = true
		} else {
			c.fair[v] = c.fairEpoch
		}
	}
}

// fairSeen drops every fair certificate when steps, a shift, starts
// outside them and ends inside one (see the file's comment).
func (s *solver) fairSeen(steps []step) {
	c := s.certs
	if c == nil || len(steps) == 0 || c.inFair(steps[0].from) {
		return
	}
	for _, st := range steps {
		if c.inFair(st.to) {
			c.fairEpoch++
			return
		}
	}
}
