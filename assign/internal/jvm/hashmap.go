package jvm

// HashMap emulates the iteration order of a java.util.HashMap (and so of a
// HashSet, which is a HashMap's key set) that only grows, as of JDK 8 to
// 21. Keys are known by their insertion index: the i-th call to [HashMap.Add]
// adds key i.
//
// A bucket is a linked list in insertion order. The table is allocated at
// the first insertion with the capacity the constructor asked for (16 by
// default) and doubles when the map holds more than its threshold, 3/4 of
// the capacity; a resize splits bucket i into i and i+oldCapacity, each
// keeping the relative order of its entries. A bucket that reaches nine
// entries makes a table of fewer than 64 buckets double instead; in a
// larger table the bucket becomes a red-black tree (TreeNode) ordered by
// hash, then by the keys' compareTo. A tree bucket still iterates along
// its linked list, but the list changes: the tree's root moves to the
// front after every insertion, and a new entry goes right after its parent
// in the tree. When a resize splits a tree bucket, each half of six
// entries or fewer turns back into a plain list and each larger half is
// rebuilt as a tree from its list, unless the whole bucket stayed
// together.
//
// Without tree buckets the order is simply: by bucket of the final table,
// then by insertion. That is the reference the tests hold this against.
type HashMap struct {
	hashes    []int32 // entry index => spread hash, h ^ (h >>> 16)
	initial   int     // capacity of the table at the first insertion
	threshold int     // resize when the size exceeds it
	compare   func(a, b int) int
	compute   bool // filled by computeIfAbsent, not put: see NewComputeMap

	treeBuckets
}

const (
	defaultCapacity    = 16
	treeifyThreshold   = 8 // a bucket holding 8 treeifies on the next insertion
	untreeifyThreshold = 6
	minTreeifyCapacity = 64
	maximumCapacity    = 1 << 30
)

// NewHashMap returns an empty map as new HashMap<>(initialCapacity) makes
// it, or as new HashMap<>() does when initialCapacity is 0 or less.
// compare(a, b) must compare keys a and b, by insertion index, as their
// compareTo does; it is called only for keys of equal hashCode, when a
// bucket is a tree. It may be nil for keys whose hashCode is unique, such
// as Integers.
func NewHashMap(initialCapacity int, compare func(a, b int) int) *HashMap {
	c := defaultCapacity
	if initialCapacity > 0 {
		c = tableSizeFor(initialCapacity)
	}
	return &HashMap{initial: c, compare: compare}
}

// NewComputeMap returns an empty map as NewHashMap does, into which
// [HashMap.Add] puts keys as HashMap.computeIfAbsent does rather than
// put: a new key goes to the head of its bucket, not the tail, so a
// bucket iterates newest first; the table grows before an insertion once
// the size exceeds the threshold, not after; and a bucket becomes a tree
// (or a small table doubles) when it reaches eight entries, not nine.
func NewComputeMap(initialCapacity int, compare func(a, b int) int) *HashMap {
	m := NewHashMap(initialCapacity, compare)
	m.compute = true
	return m
}

// ComputeOrder is [Order] for a map filled by computeIfAbsent
// ([NewComputeMap]).
func ComputeOrder(initialCapacity int, hashCodes []int32, compare func(a, b int) int) []int {
	m := NewComputeMap(initialCapacity, compare)
	for _, h := range hashCodes {
		m.Add(h)
	}
	return m.Order()
}

// tableSizeFor is HashMap.tableSizeFor: the smallest power of two >= c.
func tableSizeFor(c int) int {
	n := 1
	for n < c && n < maximumCapacity {
		n <<= 1
	}
	return n
}

// SetCapacity is the initial capacity new HashSet<>(c) asks of its map for
// a collection c of n elements: max((int) (n / .75f) + 1, 16).
func SetCapacity(n int) int {
	return max(int(float32(n)/0.75)+1, defaultCapacity)
}

// Spread is HashMap.hash: h ^ (h >>> 16).
func Spread(h int32) int32 { return h ^ int32(uint32(h)>>16) }

// Len is the number of keys.
func (m *HashMap) Len() int { return len(m.hashes) }

// Capacity is the number of buckets of the table, 0 before the first key.
func (m *HashMap) Capacity() int { return len(m.table) }

// Bucket is the bucket key i is in.
func (m *HashMap) Bucket(i int) int { return int(m.hashes[i] & int32(len(m.table)-1)) }

// Add inserts a new key with the given hashCode, as HashMap.put does for a
// key it does not hold. Putting a key the map already holds changes no
// order; callers skip those.
func (m *HashMap) Add(hashCode int32) {
	if m.compute {
		m.computeAdd(hashCode)
		return
	}
	if m.table == nil {
		m.table = make([][]int32, m.initial)
		m.tree = make([]bool, m.initial)
		m.threshold = m.initial * 3 / 4
	}
	h := Spread(hashCode)
	e := int32(len(m.hashes))
	m.hashes = append(m.hashes, h)
	m.left = append(m.left, -1)
	m.right = append(m.right, -1)
	m.parent = append(m.parent, -1)
	m.red = append(m.red, false)

	b := h & int32(len(m.table)-1)
	switch before := len(m.table[b]); {
	case m.tree[b]:
		m.putTreeVal(b, e, m.treeOrder)
	case before >= treeifyThreshold: // the new entry is the ninth or later
		m.table[b] = append(m.table[b], e)
		if len(m.table) < minTreeifyCapacity {
			m.resize()
		} else {
			m.tree[b] = true
			m.treeify(b, m.treeOrder)
		}
	default:
		m.table[b] = append(m.table[b], e)
	}
	if len(m.hashes) > m.threshold {
		m.resize()
	}
}

// computeAdd is Add for a map filled by computeIfAbsent.
func (m *HashMap) computeAdd(hashCode int32) {
	if m.table == nil {
		m.table = make([][]int32, m.initial)
		m.tree = make([]bool, m.initial)
		m.threshold = m.initial * 3 / 4
	} else if len(m.hashes) > m.threshold {
		m.resize()
	}
	h := Spread(hashCode)
	e := int32(len(m.hashes))
	m.hashes = append(m.hashes, h)
	m.left = append(m.left, -1)
	m.right = append(m.right, -1)
	m.parent = append(m.parent, -1)
	m.red = append(m.red, false)
	b := h & int32(len(m.table)-1)
	if m.tree[b] {
		m.putTreeVal(b, e, m.treeOrder)
		return
	}
	before := len(m.table[b])
	m.table[b] = append([]int32{e}, m.table[b]...)
	if before >= treeifyThreshold-1 { // the new entry is the eighth or later
		if len(m.table) < minTreeifyCapacity {
			m.resize()
		} else {
			m.tree[b] = true
			m.treeify(b, m.treeOrder)
		}
	}
}

// Order returns the iteration order, as insertion indices, of a map made
// by NewHashMap(initialCapacity, compare) into which keys with the given
// hash codes were added in index order. It is [HashMap.Order] computed
// without building the table when no bucket ever becomes a tree (the
// common case): the capacity is followed through the resizes, both those
// the size and those a crowded small table causes, and the entries are
// then sorted by bucket of the final table, stably. Should a bucket reach
// nine entries in a table of 64 buckets or more, it builds the table.
func Order(initialCapacity int, hashCodes []int32, compare func(a, b int) int) []int {
	order, _ := orderOf[int](initialCapacity, hashCodes, compare, nil)
	return order
}

// Order32 is [Order] with the indices as int32s: half the bytes, for the
// KIP-848 assignors, which order a member map and two sets of a thousand
// keys or more on every call (BenchmarkKIP848/shape=uniform-1000x100000/
// strategy=uniform/churn=leave1 in package assign).
func Order32(initialCapacity int, hashCodes []int32, compare func(a, b int) int) []int32 {
	order, _ := orderOf[int32](initialCapacity, hashCodes, compare, nil)
	return order
}

// Order32Buf is [Order32] that counts the entries of each bucket in buf
// when buf is long enough for the table, and returns the order and the
// array it counted in (buf, or a new one), for the next order to count
// in: the KIP-848 assignors order the member map and two sets of about
// as many keys one after the other, and one array serves the three
// (BenchmarkKIP848/shape=uniform-1000x100000/strategy=uniform/churn=leave1
// in package assign). buf's contents are overwritten.
func Order32Buf(initialCapacity int, hashCodes []int32, compare func(a, b int) int, buf []int32) (order, counts []int32) {
	return orderOf[int32](initialCapacity, hashCodes, compare, buf)
}

// orderOf is Order with indices of type I, counting in buf when it is
// long enough (see Order32Buf).
func orderOf[I int | int32](initialCapacity int, hashCodes []int32, compare func(a, b int) int, buf []int32) ([]I, []int32) {
	capacity := defaultCapacity
	if initialCapacity > 0 {
		capacity = tableSizeFor(initialCapacity)
	}
	// One buffer serves every table size the counts go through: the size
	// resizes stop at 4/3 of the entries, the crowded-table ones at 64
	// buckets. The counts at the final size then place the entries, in a
	// stable counting sort by bucket, with no second pass to count them.
	// Hashes are spread as they are read rather than kept: three orders
	// of a thousand keys a call on
	// BenchmarkKIP848/shape=uniform-1000x100000/strategy=uniform/churn=leave1
	// in package assign, and BenchmarkOrder32 here. TestOrderMatchesTable
	// holds it to the table.
	if need := max(capacity, minTreeifyCapacity, tableSizeFor(len(hashCodes)/3*4+4)); cap(buf) >= need {
		buf = buf[:cap(buf)]
		clear(buf[:capacity])
	} else {
		buf = make([]int32, need)
	}
	count := buf[:capacity]
	recount := func(n int) {
		if capacity > len(buf) { // not expected; kept correct regardless
			buf = make([]int32, capacity)
		}
		count = buf[:capacity]
		clear(count)
		for _, h := range hashCodes[:n] {
			count[Spread(h)&int32(capacity-1)]++
		}
	}
	for i, h := range hashCodes {
		b := Spread(h) & int32(capacity-1)
		count[b]++
		if count[b] > treeifyThreshold {
			if capacity >= minTreeifyCapacity {
				m := NewHashMap(initialCapacity, compare)
				for _, h := range hashCodes {
					m.Add(h)
				}
				order := make([]I, 0, len(hashCodes))
				for _, e := range m.Order() {
					order = append(order, I(e))
				}
				return order, buf
			}
			capacity *= 2
			recount(i + 1)
		}
		if i+1 > capacity*3/4 && capacity < maximumCapacity {
			capacity *= 2
			recount(i + 1)
		}
	}
	// count holds every bucket's entries at the final capacity: summed,
	// where each bucket's entries start.
	var sum int32
	for b, c := range count {
		count[b] = sum
		sum += c
	}
	order := make([]I, len(hashCodes))
	for i, h := range hashCodes {
		b := Spread(h) & int32(capacity-1)
		order[count[b]] = I(i)
		count[b]++
	}
	return order, buf
}

// Order returns the keys' insertion indices in iteration order.
func (m *HashMap) Order() []int {
	order := make([]int, 0, len(m.hashes))
	for _, bucket := range m.table {
		for _, e := range bucket {
			order = append(order, int(e))
		}
	}
	return order
}

// resize doubles the table. The threshold doubles with it from 16 buckets
// up; below, it is recomputed as 3/4 of the capacity, as HashMap.resize
// does.
func (m *HashMap) resize() {
	old, oldTree := len(m.table), m.tree
	if old >= maximumCapacity {
		m.threshold = int(^uint(0) >> 1)
		return
	}
	next := make([][]int32, 2*old)
	tree := make([]bool, 2*old)
	if old >= defaultCapacity {
		m.threshold *= 2
	} else {
		m.threshold = 2 * old * 3 / 4
	}
	for j, bucket := range m.table {
		var lo, hi []int32
		for _, e := range bucket {
			if m.hashes[e]&int32(old) == 0 {
				lo = append(lo, e)
			} else {
				hi = append(hi, e)
			}
		}
		next[j], next[j+old] = lo, hi
		if !oldTree[j] {
			continue
		}
		// TreeNode.split: a half of six or fewer becomes a list; a larger
		// half is rebuilt from its list order, unless it is the whole
		// bucket, which keeps its tree.
		tree[j] = len(lo) > untreeifyThreshold
		tree[j+old] = len(hi) > untreeifyThreshold
		m.table, m.tree = next, tree // treeify works on the new table
		if tree[j] && len(hi) > 0 {
			m.treeify(int32(j), m.treeOrder)
		}
		if tree[j+old] && len(lo) > 0 {
			m.treeify(int32(j+old), m.treeOrder)
		}
	}
	m.table, m.tree = next, tree
}

// treeOrder compares entries as TreeNode does: by spread hash (signed),
// then by compareTo. Distinct keys of a comparable class never tie, so
// tieBreakOrder (identity hash codes) is never reached.
func (m *HashMap) treeOrder(a, b int32) int {
	switch {
	case m.hashes[a] < m.hashes[b]:
		return -1
	case m.hashes[a] > m.hashes[b]:
		return 1
	}
	return m.compare(int(a), int(b))
}
