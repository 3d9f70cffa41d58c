package assign

import (
	"cmp"
	"slices"
)

// heteroMaxPasses is UniformHeterogeneousAssignmentBuilder's
// MAX_ITERATION_COUNT: the balancing passes over the topics.
const heteroMaxPasses = 16

// uniformHeterogeneous is UniformHeterogeneousAssignmentBuilder: members
// keep what they hold of topics they still subscribe to, unassigned
// partitions go to the least-loaded subscribers topic by topic, then
// bounded passes move partitions from the most- to the least-loaded
// subscribers of each topic.
//
// Members are numbered by position, the order of memberIds(); loads count
// every partition of a member's target, all topics together.
func (sg *serverGroup) uniformHeterogeneous() {
	cg := sg.cg
	if len(cg.topics) == 0 {
		return // nothing subscribed exists: every target is empty
	}
	// Subscribers of each topic, by ascending position.
	subscribers := make([][]int32, len(cg.topics))
	for pos, m := range sg.byPos {
		for _, t := range cg.subs[m] {
			subscribers[t] = append(subscribers[t], int32(pos))
		}
	}
	// Keep what members hold of topics they subscribe to: owner starts as
	// the current targets; release the rest.
	for pid, pos := range sg.owner {
		if pos < 0 {
			continue
		}
		if sg.subscribes(sg.byPos[pos], topicAt(cg.start, int32(pid))) {
			sg.load[pos]++
		} else {
			sg.owner[pid] = -1
		}
	}
	h := &heteroBuilder{sg: sg, subscribers: subscribers}
	h.assignUnassigned()
	h.balance()
}

type heteroBuilder struct {
	sg          *serverGroup
	subscribers [][]int32 // topic index => positions, ascending
	bal         loadRanges
}

// before is the topic comparator: partitions per subscriber descending,
// then subscriber count ascending, then topic id ascending (Uuid order).
func (h *heteroBuilder) before(a, b int32) int {
	cg := h.sg.cg
	na, nb := len(h.subscribers[a]), len(h.subscribers[b])
	ra := float64(cg.numParts[a]) / float64(na)
	rb := float64(cg.numParts[b]) / float64(nb)
	if c := cmp.Compare(rb, ra); c != 0 {
		return c
	}
	if c := cmp.Compare(na, nb); c != 0 {
		return c
	}
	return h.sg.ids[a].Compare(h.sg.ids[b])
}

// assignUnassigned gives each topic's unassigned partitions, ascending, to
// its least-loaded subscribers, topic by topic in sorted order.
func (h *heteroBuilder) assignUnassigned() {
	sg, cg := h.sg, h.sg.cg
	var topics []int32
	for t := range cg.topics {
		start := cg.start[t]
		if slices.Contains(sg.owner[start:start+cg.numParts[t]], -1) {
			topics = append(topics, int32(t))
		}
	}
	slices.SortFunc(topics, h.before)
	for _, t := range topics {
		h.bal.reset(h.subscribers[t], sg.load)
		start := cg.start[t]
		for pid := start; pid < start+cg.numParts[t]; pid++ {
			if sg.owner[pid] < 0 {
				sg.give(pid, h.bal.nextLeastLoaded())
			}
		}
	}
}

// balance runs up to heteroMaxPasses passes over the topics with two
// subscribers or more, stopping at the first topic of a pass that is the
// last one to have moved anything (or the first topic, if nothing ever
// moved).
func (h *heteroBuilder) balance() {
	cg := h.sg.cg
	var topics []int32
	for t := range cg.topics {
		if len(h.subscribers[t]) >= 2 {
			topics = append(topics, int32(t))
		}
	}
	if len(topics) == 0 {
		return
	}
	slices.SortFunc(topics, h.before)
	last := -1
	var scratch topicScratch
	for range heteroMaxPasses {
		for k, t := range topics {
			if k == last {
				return
			}
			if h.balanceTopic(t, &scratch) > 0 || last == -1 {
				last = k
			}
		}
	}
}

// topicScratch is balanceTopic's working memory, reused across topics.
type topicScratch struct {
	parts      []int32 // the topic's partitions grouped by owner, owners ascending
	start, end []int32 // position => its range in parts; end exclusive
	touched    []int32 // positions whose start and end are set
}

// balanceTopic moves topic t's partitions, the highest of each member's
// first, from its most-loaded subscribers to its least-loaded ones until
// the two ranges' loads differ by one or less, and returns how many it
// moved.
func (h *heteroBuilder) balanceTopic(t int32, s *topicScratch) int {
	sg, cg := h.sg, h.sg.cg
	// The spread decides without sorting whether Kafka's balancer,
	// initialized on these subscribers, would stop at once.
	if lo, hi := loadSpread(h.subscribers[t], sg.load); hi-lo <= 1 {
		return 0
	}
	h.bal.reset(h.subscribers[t], sg.load)
	start, n := cg.start[t], cg.numParts[t]
	owners := sg.owner[start : start+n]
	s.parts = s.parts[:0]
	for p := range n {
		s.parts = append(s.parts, p)
	}
	slices.SortFunc(s.parts, func(a, b int32) int {
		if c := cmp.Compare(owners[a], owners[b]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	if len(s.start) < len(sg.load) {
		s.start = make([]int32, len(sg.load))
		s.end = make([]int32, len(sg.load))
		for i := range s.start {
			s.start[i] = -1
		}
	}
	for _, pos := range s.touched {
		s.start[pos] = -1
	}
	s.touched = s.touched[:0]
	for i, p := range s.parts {
		o := owners[p]
		if s.start[o] < 0 {
			s.start[o] = int32(i)
			s.touched = append(s.touched, o)
		}
		s.end[o] = int32(i + 1)
	}

	moved := 0
	for !h.bal.balanced() {
		from := int32(-1)
		for {
			if from = h.bal.nextMostLoaded(); from < 0 {
				break
			}
			if s.start[from] < 0 || s.end[from]-s.start[from] <= 0 {
				h.bal.excludeMostLoaded()
				continue
			}
			break
		}
		if from < 0 {
			break
		}
		s.end[from]--
		p := s.parts[s.end[from]]
		to := h.bal.nextLeastLoaded()
		if h.bal.balanced() {
			break
		}
		sg.give(start+p, to)
		moved++
	}
	return moved
}

// loadRanges is Kafka's MemberAssignmentBalancer: one topic's subscribers
// sorted by load (ties by position), with a least-loaded range growing
// rightwards from the start and a most-loaded range growing leftwards
// from the end. Loads are read live: the list is not re-sorted as
// partitions move.
type loadRanges struct {
	load   []int32
	sorted []int32
	counts []int32 // reset's counting sort

	leastEnd   int   // exclusive
	leastLevel int32 // partition count of the least-loaded range
	nextLeast  int

	mostStart, mostEnd int   // inclusive, exclusive
	mostLevel          int32 // partition count of the most-loaded range
	nextMost           int
}

// reset sorts the subscribers, given by ascending position, by load and
// then position, and starts both ranges.
func (r *loadRanges) reset(subscribers, load []int32) {
	r.load = load
	lo, hi := loadSpread(subscribers, load)
	n := len(subscribers)
	r.sorted = slices.Grow(r.sorted[:0], n)[:n]
	if span := int(hi-lo) + 1; span <= 4*n+64 {
		// A stable counting sort by load keeps ascending positions
		// within a load: the comparator's order, in O(n + span).
		r.counts = slices.Grow(r.counts[:0], span+1)[:span+1]
		clear(r.counts)
		for _, pos := range subscribers {
			r.counts[load[pos]-lo+1]++
		}
		for k := 1; k <= span; k++ {
			r.counts[k] += r.counts[k-1]
		}
		for _, pos := range subscribers {
			k := load[pos] - lo
			r.sorted[r.counts[k]] = pos
			r.counts[k]++
		}
	} else {
		copy(r.sorted, subscribers)
		slices.SortFunc(r.sorted, func(a, b int32) int {
			if c := cmp.Compare(load[a], load[b]); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
	}
	r.leastEnd, r.leastLevel, r.nextLeast = 0, lo-1, 0
	r.mostStart, r.mostEnd, r.mostLevel, r.nextMost = n, n, hi+1, n-1
}

// loadSpread returns the lowest and highest load of the subscribers.
func loadSpread(subscribers, load []int32) (lo, hi int32) {
	lo, hi = load[subscribers[0]], load[subscribers[0]]
	for _, pos := range subscribers[1:] {
		lo, hi = min(lo, load[pos]), max(hi, load[pos])
	}
	return lo, hi
}

// nextLeastLoaded returns the next member of the least-loaded range,
// raising the range's level and widening it when every member in it has
// had one.
func (r *loadRanges) nextLeastLoaded() int32 {
	if r.nextLeast >= r.leastEnd {
		r.leastLevel++
		for r.leastEnd < len(r.sorted) && r.load[r.sorted[r.leastEnd]] == r.leastLevel {
			r.leastEnd++
		}
		r.nextLeast = 0
	}
	pos := r.sorted[r.nextLeast]
	r.nextLeast++
	return pos
}

// nextMostLoaded returns the next member of the most-loaded range, from
// the end, lowering and widening the range when every member in it has
// given one; -1 when no member is left to give.
func (r *loadRanges) nextMostLoaded() int32 {
	if r.nextMost < r.mostStart {
		if r.mostEnd <= r.mostStart && r.mostStart > 0 {
			// Emptied by exclusions: restart from the member below.
			r.mostLevel = r.load[r.sorted[r.mostStart-1]]
		} else {
			r.mostLevel--
		}
		for r.mostStart > 0 && r.load[r.sorted[r.mostStart-1]] == r.mostLevel {
			r.mostStart--
		}
		r.nextMost = r.mostEnd - 1
	}
	if r.nextMost < 0 {
		return -1
	}
	pos := r.sorted[r.nextMost]
	r.nextMost--
	return pos
}

// excludeMostLoaded drops the member nextMostLoaded last returned from the
// most-loaded range, swapping it with the range's last member.
func (r *loadRanges) excludeMostLoaded() {
	i, j := r.nextMost+1, r.mostEnd-1
	r.sorted[i], r.sorted[j] = r.sorted[j], r.sorted[i]
	r.mostEnd--
}

// balanced reports whether the two ranges' levels differ by one or less.
func (r *loadRanges) balanced() bool { return r.mostLevel-r.leastLevel <= 1 }
