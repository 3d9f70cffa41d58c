// The fast path's last step (see fast.go): the round-robin that deal
// hands the pids nobody kept out with, rack-aware.

package balance

// filler hands pids out round-robin to members below their target,
// preferring members on a rack holding a replica.
type filler struct {
	p       *Problem
	deficit []int32

	// Lists are circular doubly linked lists of members with room: list
	// 0 holds all of them, list 1+r those on rack r. A member is in list
	// 0 and at most one rack list, so two layers of links suffice:
	// next[0]/prev[0] thread list 0, next[1]/prev[1] the rack lists.
	next, prev [2][]int32
	head       []int32 // list => a member in it, or -1
	cursor     []int32 // list => member the next take starts at
	room       []int64 // list => summed deficit of its members
}

func newFiller(p *Problem, deficit []int32) *filler {
	n := len(deficit)
	lists := 1
	if p.Rack != nil && p.Replicas != nil {
		for _, r := range p.Rack {
			lists = max(lists, int(r)+2)
		}
	}
	// The int32 arrays share one allocation: on a small group the
	// allocations, not the work, are deal's cost
	// (BenchmarkAssign/strategy=sticky/impl=ours/shape=uniform-10x100-join1
	// in bench/).
	layers := min(lists, 2)
	buf := make([]int32, 3*lists+2*layers*n)
	take := func(k int) []int32 {
		s := buf[:k:k]
		buf = buf[k:]
		return s
	}
	f := &filler{p: p, deficit: deficit,
		head: take(lists), cursor: take(lists), room: make([]int64, lists)}
	for layer := range layers {
		f.next[layer] = take(n)
		f.prev[layer] = take(n)
	}
	for l := range lists {
		f.head[l] = -1
	}
	last := take(lists)
	for l := range last {
		last[l] = -1
	}
	for m := range int32(n) {
		if deficit[m] <= 0 {
			continue
		}
		for _, l := range f.listsOf(m) {
			if l < 0 {
				continue
			}
			if last[l] < 0 {
				f.head[l] = m
			} else {
				f.next[min(l, 1)][last[l]] = m
				f.prev[min(l, 1)][m] = last[l]
			}
			last[l] = m
			f.room[l] += int64(deficit[m])
		}
	}
	for l := range lists {
		if h := f.head[l]; h >= 0 {
			f.next[min(l, 1)][last[l]] = h
			f.prev[min(l, 1)][h] = last[l]
		}
	}
	return f
}

// listsOf returns the lists m belongs to: 0, and its rack's list or -1.
func (f *filler) listsOf(m int32) [2]int32 {
	if len(f.head) > 1 && f.p.Rack[m] >= 0 {
		return [2]int32{0, f.p.Rack[m] + 1}
	}
	return [2]int32{0, -1}
}

// reset restarts every round-robin at the lowest member with room.
func (f *filler) reset() {
	for l, h := range f.head {
		if h < 0 {
			f.cursor[l] = -1
			continue
		}
		low := h
		for m := f.next[min(l, 1)][h]; m != h; m = f.next[min(l, 1)][m] {
			low = min(low, m)
		}
		f.cursor[l] = low
	}
}

// take gives pid to the next member with room, on a rack holding a
// replica when rack preference is on and such a member has room.
func (f *filler) take(pid int32) int32 {
	l := int32(0)
	if len(f.head) > 1 && f.p.Replicas[pid] != nil {
		best := int64(0)
		for _, r := range f.p.Replicas[pid] {
			if int(r)+1 < len(f.head) && f.room[r+1] > best {
				best, l = f.room[r+1], r+1
			}
		}
	}
	m := f.cursor[l]
	if m < 0 {
		return -1 // nobody has room: impossible, and caught by valid
	}
	f.cursor[l] = f.next[min(l, 1)][m]
	f.give(m)
	return m
}

func (f *filler) give(m int32) {
	f.deficit[m]--
	for _, l := range f.listsOf(m) {
		if l < 0 {
			continue
		}
		f.room[l]--
		if f.deficit[m] > 0 {
			continue
		}
		nx, pv := f.next[min(l, 1)][m], f.prev[min(l, 1)][m]
		if nx == m {
			f.head[l], f.cursor[l] = -1, -1
			continue
		}
		f.next[min(l, 1)][pv], f.prev[min(l, 1)][nx] = nx, pv
		if f.head[l] == m {
			f.head[l] = nx
		}
		if f.cursor[l] == m {
			f.cursor[l] = nx
		}
	}
}
