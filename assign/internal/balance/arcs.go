// The arc index of the general path's searches and shifts (see
// state.go): for every subscription (member m, topic t), how many pids of
// t member m holds, and how many of those are its own claims. The cost
// of the arc m -> t (see arcCost in shift.go) is then one binary search
// in Subs[m] away, the holders of a big topic are found among its
// subscribers rather than by a pass over all its pids, and the arcs out
// of a member holding many pids are read per subscription.
//
// It is built at the first search, which most problems never run, and
// only when there are such big topics or members (arcsPay); move keeps
// it. It takes two int32 per subscription. On bench/cmd/adversary's
// random family, where a few members claim whole topics of up to
// thousands of partitions and every intact check and tight walk passed
// over them, it pays on random(3) at 500 members and random(1) at 125,
// and leaves groups without big topics or members as they were.
// TestArcIndexMatchesScans checks it against the passes.

package balance

import "slices"

// arcIndex counts, per subscription entry, the pids held and the own
// claims among them; entries are numbered off[m]+k for the k-th topic of
// Subs[m].
type arcIndex struct {
	off       []int32 // member => its first entry; len n+1
	held, own []int32 // entry => pids of the topic the member holds, and its own claims among them
}

// buildArcs builds the arc index from owner.
func (s *solver) buildArcs() {
	n := int(s.n)
	ix := &arcIndex{off: make([]int32, n+1)}
	for m, sub := range s.p.Subs {
		ix.off[m+1] = ix.off[m] + int32(len(sub))
	}
	ix.held, ix.own = make([]int32, ix.off[n]), make([]int32, ix.off[n])
	s.arcs, s.foreignHeld = ix, make([]int32, n)
	for t := range int32(len(s.p.Parts)) {
		for pid := s.start[t]; pid < s.start[t+1]; pid++ {
			if m := s.owner[pid]; m >= 0 {
				s.countArc(pid, s.entry(m, t), m, 1)
			}
		}
	}
}

// entry returns the index entry of (m, t), or -1 when m does not
// subscribe to t.
func (s *solver) entry(m, t int32) int32 {
	k, ok := slices.BinarySearch(s.p.Subs[m], t)
	if !ok {
		return -1
	}
	return s.arcs.off[m] + int32(k)
}

// countArc adds d to the counts of member m holding pid, at m's index
// entry e for the topic of pid.
func (s *solver) countArc(pid, e, m, d int32) {
	s.arcs.held[e] += d
	switch c := get(s.claim, pid); {
	case c == m:
		s.arcs.own[e] += d
	case c >= 0:
		s.foreignHeld[m] += d
	}
}

// indexedCost returns the cost of the arc a -> t from the index: 0 when
// a holds a pid of t that is not its own claim, 1 when it holds only its
// own, -1 when it holds none.
func (s *solver) indexedCost(a, t int32) int32 {
	e := s.entry(a, t)
	if e < 0 {
		return -1
	}
	return s.entryCost(e)
}

// entryCost is indexedCost for the index entry e.
func (s *solver) entryCost(e int32) int32 {
	switch {
	case s.arcs.held[e] == 0:
		return -1
	case s.arcs.held[e] > s.arcs.own[e]:
		return 0
	}
	return 1
}

// byEntries reports whether the arcs out of node u are fewer to read
// from the index, one entry per subscription, than from the pids u
// holds (then u is a member). Members holding little keep the pass over
// their pids, whose order decides ties.
func (s *solver) byEntries(u int32) bool {
	if s.arcs == nil || u >= s.n {
		return false
	}
	if s.band > 0 {
		// The every-level search (every.go) breaks ties its own way
		// already: read the index wherever it is the shorter, one entry
		// a subscription rather than one a pid held. On the adversary's
		// random windows that is a sixth of the instructions of a solve
		// (BenchmarkEvery/shape=windows-125x6250/every=1);
		// TestArcIndexMatchesScans checks the index against the pass.
		return int(s.load[u]) > len(s.p.Subs[u])
	}
	return s.options.arcs > 0 || int(s.load[u]) > 2*len(s.p.Subs[u])+64
}

// arcsPay reports whether the index would serve the big cases it is
// for, bySubscribers and byEntries: a topic with many more pids than
// subscribers, or a member holding many more pids than it subscribes to
// topics. Otherwise the passes over pids are short and the index is not
// built: it would more than double the bytes of
// BenchmarkGeneral/shape=hetero-1000x2000t-join1.
func (s *solver) arcsPay() bool {
	for t, c := range s.subCount {
		if int(s.start[t+1]-s.start[t]) > 4*int(c)+64 {
			return true
		}
	}
	for m, sub := range s.p.Subs {
		if int(s.load[m]) > 2*len(sub)+64 {
			return true
		}
	}
	return false
}

// bySubscribers reports whether the holders of topic t are fewer to find
// among its subscribers, through the index, than by a pass over its
// pids. Small topics keep the pass, whose order (by pid) decides ties.
func (s *solver) bySubscribers(t int32) bool {
	if s.arcs == nil {
		return false
	}
	if s.band > 0 {
		// The every-level search: ties are its own, as in byEntries
		// (BenchmarkEvery/shape=windows-125x6250/every=1;
		// TestArcIndexMatchesScans).
		return int(s.start[t+1]-s.start[t]) > int(s.subCount[t])
	}
	return s.options.arcs > 0 || int(s.start[t+1]-s.start[t]) > 4*int(s.subCount[t])+64
}
