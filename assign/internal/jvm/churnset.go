package jvm

import "slices"

// TopicPartitionHash is org.apache.kafka.common.TopicPartition.hashCode
// (Kafka 0.9 to 4.x): 31 * (31 + partition) + topic.hashCode(), given the
// topic's [StringHash].
func TopicPartitionHash(topicHash int32, partition int32) int32 {
	return 31*(31+partition) + topicHash
}

// ChurnSet follows a java.util.HashSet made by new HashSet<>() through
// adds and removes, as OpenJDK 17's HashMap keeps it (JDK 8 to 25 do not
// differ here), far enough to give its iteration order: Kafka's sticky
// assignor moves "partitionMovementsForThisTopic.get(reversePair)
// .iterator().next()", a set it adds to and removes from.
//
// A HashSet iterates bucket by bucket, each bucket along its linked list.
// A plain bucket's list is in the order its entries were added (a removal
// keeps the others' order, an entry added again goes last). The table
// starts at 16 buckets at the first add, never shrinks, and doubles when
// the set holds more than 3/4 of its capacity, or when an add makes a
// bucket of a table of fewer than 64 buckets reach nine entries; a resize
// splits bucket i into i and i+oldCapacity, each keeping its order.
//
// When an add makes a bucket of a larger table reach nine entries, the
// bucket becomes a red-black tree ordered by hash (treeifyBin), and its
// list changes with the tree: the root moves to the front after every
// insertion and removal (moveRootToFront); an entry added to a tree goes
// into the list right after its parent in the tree (putTreeVal); a
// removal unlinks the entry and, when the tree is too small — by its shape:
// the root lacks a child or its left child lacks a left child, whatever
// the count — turns the bucket back into a plain list in its current
// order (removeTreeNode). A resize splits a tree bucket's list into the
// two halves; a half of six entries or fewer becomes a plain list, a
// larger half is rebuilt as a tree from its list unless it is the whole
// bucket, which keeps its tree (TreeNode.split).
//
// A tree orders entries of equal hash by their compareTo when their class
// is Comparable, else by class name and then System.identityHashCode,
// which differs from one JVM run to the next. ChurnSet is for keys that
// are not Comparable (TopicPartition): when a tree would compare two
// distinct keys of equal hash, Java's own order is not deterministic, and
// ChurnSet records it in [ChurnSet.IdentityHash] for the caller to report.
//
// Sets in the sticky assignor hold few elements; an operation costs
// O(bucket) and First amortised O(1), and the type favours being
// obviously right over being compact.
type ChurnSet[K comparable] struct {
	index  map[K]int32 // key => node
	keys   []K         // node => key
	hashes []int32     // node => spread hash, h ^ (h >>> 16)
	free   []int32     // nodes of removed keys, for reuse
	size   int
	low    int // no bucket below low holds an entry
	treeBuckets

	// IdentityHash is set once a tree bucket has had to order two keys
	// of equal hash, which Java does by System.identityHashCode.
	IdentityHash bool
	// Treeified is set once an add has turned a bucket into a tree.
	Treeified bool
}

// Len is the number of elements.
func (s *ChurnSet[K]) Len() int { return s.size }

// Contains reports whether k is in the set.
func (s *ChurnSet[K]) Contains(k K) bool { _, ok := s.index[k]; return ok }

// Add adds k, whose hashCode is hashCode, as HashSet.add does; adding an
// element the set holds changes nothing.
func (s *ChurnSet[K]) Add(k K, hashCode int32) {
	if _, ok := s.index[k]; ok {
		return
	}
	if s.table == nil {
		s.index = map[K]int32{}
		s.table = make([][]int32, defaultCapacity)
		s.tree = make([]bool, defaultCapacity)
	}
	x := s.newNode(k, Spread(hashCode))
	b := s.bucket(x)
	s.low = min(s.low, int(b))
	switch {
	case s.tree[b]:
		s.putTreeVal(b, x, s.order)
	case len(s.table[b]) >= treeifyThreshold: // the new entry is the ninth or later
		s.table[b] = append(s.table[b], x)
		if len(s.table) < minTreeifyCapacity {
			s.resize()
		} else {
			s.tree[b], s.Treeified = true, true
			s.treeify(b, s.order)
		}
	default:
		s.table[b] = append(s.table[b], x)
	}
	s.size++
	if s.size > len(s.table)*3/4 {
		s.resize()
	}
}

// Remove removes k, as HashSet.remove does; removing an element the set
// does not hold changes nothing.
func (s *ChurnSet[K]) Remove(k K) {
	x, ok := s.index[k]
	if !ok {
		return
	}
	delete(s.index, k)
	b := s.bucket(x)
	if s.tree[b] {
		s.removeTreeNode(b, x)
	} else {
		s.table[b] = slices.Delete(s.table[b], slices.Index(s.table[b], x), slices.Index(s.table[b], x)+1)
	}
	var zero K
	s.keys[x] = zero
	s.free = append(s.free, x)
	s.size--
}

// First returns the element iterator().next() returns, and false when the
// set is empty.
func (s *ChurnSet[K]) First() (K, bool) {
	if s.size > 0 {
		for ; s.low < len(s.table); s.low++ {
			if l := s.table[s.low]; len(l) > 0 {
				return s.keys[l[0]], true
			}
		}
	}
	var zero K
	return zero, false
}

// Order returns the elements in iteration order.
func (s *ChurnSet[K]) Order() []K {
	out := make([]K, 0, s.size)
	for _, l := range s.table {
		for _, x := range l {
			out = append(out, s.keys[x])
		}
	}
	return out
}

func (s *ChurnSet[K]) newNode(k K, h int32) int32 {
	var x int32
	if n := len(s.free); n > 0 {
		x, s.free = s.free[n-1], s.free[:n-1]
		s.keys[x], s.hashes[x] = k, h
	} else {
		x = int32(len(s.keys))
		s.keys = append(s.keys, k)
		s.hashes = append(s.hashes, h)
		s.grow(x)
	}
	s.left[x], s.right[x], s.parent[x], s.red[x] = -1, -1, -1, false
	s.index[k] = x
	return x
}

func (s *ChurnSet[K]) bucket(x int32) int32 { return s.hashes[x] & int32(len(s.table)-1) }

// resize doubles the table, splitting each bucket as HashMap.resize and
// TreeNode.split do.
func (s *ChurnSet[K]) resize() {
	old := len(s.table)
	table := make([][]int32, 2*old)
	tree := make([]bool, 2*old)
	for j, l := range s.table {
		var lo, hi []int32
		for _, x := range l {
			if s.hashes[x]&int32(old) == 0 {
				lo = append(lo, x)
			} else {
				hi = append(hi, x)
			}
		}
		table[j], table[j+old] = lo, hi
		if s.tree[j] {
			tree[j] = len(lo) > untreeifyThreshold
			tree[j+old] = len(hi) > untreeifyThreshold
		}
	}
	s.table, s.tree, s.low = table, tree, 0
	for j := range old {
		lo, hi := int32(j), int32(j+old)
		if s.tree[lo] && len(s.table[hi]) > 0 {
			s.treeify(lo, s.order)
		}
		if s.tree[hi] && len(s.table[lo]) > 0 {
			s.treeify(hi, s.order)
		}
	}
}

// order compares node x with tree node p as TreeNode's treeify and
// putTreeVal do: by spread hash, signed; equal hashes of distinct keys
// are ordered by identity hash codes, which ChurnSet cannot know (it
// records the meeting and goes left, as if x's were the smaller).
func (s *ChurnSet[K]) order(x, p int32) int {
	switch {
	case s.hashes[x] < s.hashes[p]:
		return -1
	case s.hashes[x] > s.hashes[p]:
		return 1
	}
	s.IdentityHash = true
	return -1
}

// removeTreeNode removes p from tree bucket b as TreeNode.removeTreeNode
// does for HashSet.remove (movable). It unlinks p from the list first;
// then, judging the tree as it stood with p still in it, a tree whose
// root lacks a child, or whose root's left child lacks a left child, is
// too small and the bucket becomes a plain list in its current order.
// Otherwise p leaves the tree (swapped with its successor when it has
// two children), the tree is rebalanced and its root moved to the front.
func (s *ChurnSet[K]) removeTreeNode(b, p int32) {
	first := s.table[b][0]
	s.table[b] = slices.Delete(s.table[b], slices.Index(s.table[b], p), slices.Index(s.table[b], p)+1)
	if len(s.table[b]) == 0 {
		s.tree[b] = false
		return
	}
	root := s.rootOf(first)
	if s.right[root] < 0 || s.left[root] < 0 || s.left[s.left[root]] < 0 {
		s.tree[b] = false // untreeify: the list order stands
		return
	}
	pl, pr := s.left[p], s.right[p]
	var replacement int32
	switch {
	case pl >= 0 && pr >= 0:
		// Swap p with its successor in the tree, colours included, so that
		// p has at most a right child.
		succ := pr
		for s.left[succ] >= 0 {
			succ = s.left[succ]
		}
		s.red[succ], s.red[p] = s.red[p], s.red[succ]
		sr, pp := s.right[succ], s.parent[p]
		if succ == pr {
			s.parent[p], s.right[succ] = succ, p
		} else {
			sp := s.parent[succ]
			s.parent[p] = sp
			if succ == s.left[sp] {
				s.left[sp] = p
			} else {
				s.right[sp] = p
			}
			s.right[succ] = pr
			s.parent[pr] = succ
		}
		s.left[p], s.right[p] = -1, sr
		if sr >= 0 {
			s.parent[sr] = p
		}
		s.left[succ], s.parent[pl] = pl, succ
		s.parent[succ] = pp
		switch {
		case pp < 0:
			root = succ
		case p == s.left[pp]:
			s.left[pp] = succ
		default:
			s.right[pp] = succ
		}
		replacement = p
		if sr >= 0 {
			replacement = sr
		}
	case pl >= 0:
		replacement = pl
	case pr >= 0:
		replacement = pr
	default:
		replacement = p
	}
	if replacement != p {
		pp := s.parent[p]
		s.parent[replacement] = pp
		switch {
		case pp < 0:
			root = replacement
			s.red[replacement] = false
		case p == s.left[pp]:
			s.left[pp] = replacement
		default:
			s.right[pp] = replacement
		}
		s.left[p], s.right[p], s.parent[p] = -1, -1, -1
	}
	r := root
	if !s.red[p] {
		r = s.balanceDeletion(root, replacement)
	}
	if replacement == p { // detach
		if pp := s.parent[p]; pp >= 0 {
			if p == s.left[pp] {
				s.left[pp] = -1
			} else if p == s.right[pp] {
				s.right[pp] = -1
			}
		}
		s.parent[p] = -1
	}
	s.moveRootToFront(b, r)
}
