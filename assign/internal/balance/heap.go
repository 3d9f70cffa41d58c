// The heaps of placement (place.go): a selection of the k smallest, and
// a min-heap of members whose keys only grow.

package balance

// smallest moves the keep smallest of xs to its front, in no particular
// order, and returns them: a max-heap of the best so far, which most
// values leave after one comparison with its head.
//
// It is memberHeap.smallest again, on keys that pack (load, member) into
// one word, so that a comparison is one instruction and one branch;
// memberHeap's compares (key[m], m), two keys loaded and two branches. A
// single generic version would compare through a function value or a
// type parameter's method, an indirect call per comparison in Go's
// shape-stenciled generics (a generic copy taking less as a func was
// measured, selecting 500 of 20,000 keys, and lost), so the two stay
// apart on purpose, as do the two downMax.
func smallest(xs []uint64, keep int) []uint64 {
	if keep <= 0 {
		return xs[:0]
	}
	if len(xs) <= keep {
		return xs
	}
	best := xs[:keep]
	for i := keep/2 - 1; i >= 0; i-- {
		downMax(best, i)
	}
	for _, x := range xs[keep:] {
		if x < best[0] {
			best[0] = x
			downMax(best, 0)
		}
	}
	return best
}

// downMax sinks xs[i] in the max-heap xs: memberHeap.downMax on packed
// keys, kept apart for speed (see smallest).
func downMax(xs []uint64, i int) {
	n := len(xs)
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if c+1 < n && xs[c] < xs[c+1] {
			c++
		}
		if xs[i] >= xs[c] {
			return
		}
		xs[i], xs[c] = xs[c], xs[i]
		i = c
	}
}

// memberHeap is a binary min-heap of members by (key, member) that knows
// where each member sits, so a member whose key grew can sink.
type memberHeap struct {
	key   []uint64
	items []int32
	pos   []int32 // member => index in items, or -1
}

func (h *memberHeap) less(a, b int32) bool {
	ka, kb := h.key[a], h.key[b]
	return ka < kb || ka == kb && a < b
}

func (h *memberHeap) clear() {
	for _, m := range h.items {
		h.pos[m] = -1
	}
	h.items = h.items[:0]
}

func (h *memberHeap) init() {
	for i, m := range h.items {
		h.pos[m] = int32(i)
	}
	for i := len(h.items)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

// smallest moves the keep smallest of items to its front, in no
// particular order, and returns them: a max-heap of the best so far
// (most members fail one comparison with its head).
//
// The package-level smallest is the same selection on packed keys, kept
// apart for speed; see there.
func (h *memberHeap) smallest(items []int32, keep int) []int32 {
	if keep <= 0 {
		return items[:0]
	}
	if len(items) <= keep {
		return items
	}
	best := items[:keep]
	for i := keep/2 - 1; i >= 0; i-- {
		h.downMax(best, i)
	}
	for _, m := range items[keep:] {
		if h.less(m, best[0]) {
			best[0] = m
			h.downMax(best, 0)
		}
	}
	return best
}

// downMax sinks items[i] in the max-heap items; the package-level
// downMax is its twin on packed keys (see smallest).
func (h *memberHeap) downMax(items []int32, i int) {
	n := len(items)
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if c+1 < n && h.less(items[c], items[c+1]) {
			c++
		}
		if !h.less(items[i], items[c]) {
			return
		}
		items[i], items[c] = items[c], items[i]
		i = c
	}
}

// fix restores the heap after m's key grew.
func (h *memberHeap) fix(m int32) {
	if i := h.pos[m]; i >= 0 {
		h.down(int(i))
	}
}

func (h *memberHeap) down(i int) {
	n := len(h.items)
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if c+1 < n && h.less(h.items[c+1], h.items[c]) {
			c++
		}
		if !h.less(h.items[c], h.items[i]) {
			return
		}
		h.items[i], h.items[c] = h.items[c], h.items[i]
		h.pos[h.items[i]], h.pos[h.items[c]] = int32(i), int32(c)
		i = c
	}
}
