package jvm

import "slices"

// treeLinks are the red-black tree links of HashMap.TreeNode, for nodes
// known by index; -1 is null. Its methods rebalance as TreeNode's static
// methods do (JDK 8 to 21 share them): which node ends up the root decides
// which entry moveRootToFront puts first in its bucket, so the rotations
// must be Java's, not merely any valid red-black rebalancing.
type treeLinks struct {
	left, right, parent []int32
	red                 []bool
}

// grow makes room for node x.
func (m *treeLinks) grow(x int32) {
	for int(x) >= len(m.left) {
		m.left = append(m.left, -1)
		m.right = append(m.right, -1)
		m.parent = append(m.parent, -1)
		m.red = append(m.red, false)
	}
}

// balanceInsertion restores the red-black properties after x was attached
// and returns the root, as HashMap.TreeNode.balanceInsertion does.
func (m *treeLinks) balanceInsertion(root, x int32) int32 {
	m.red[x] = true
	for {
		xp := m.parent[x]
		if xp < 0 {
			m.red[x] = false
			return x
		}
		xpp := m.parent[xp]
		if !m.red[xp] || xpp < 0 {
			return root
		}
		if xp == m.left[xpp] {
			if y := m.right[xpp]; y >= 0 && m.red[y] {
				m.red[y], m.red[xp], m.red[xpp] = false, false, true
				x = xpp
				continue
			}
			if x == m.right[xp] {
				x = xp
				root = m.rotateLeft(root, x)
				xp, xpp = m.parentAndGrandparent(x)
			}
			if xp >= 0 {
				m.red[xp] = false
				if xpp >= 0 {
					m.red[xpp] = true
					root = m.rotateRight(root, xpp)
				}
			}
		} else {
			if y := m.left[xpp]; y >= 0 && m.red[y] {
				m.red[y], m.red[xp], m.red[xpp] = false, false, true
				x = xpp
				continue
			}
			if x == m.left[xp] {
				x = xp
				root = m.rotateRight(root, x)
				xp, xpp = m.parentAndGrandparent(x)
			}
			if xp >= 0 {
				m.red[xp] = false
				if xpp >= 0 {
					m.red[xpp] = true
					root = m.rotateLeft(root, xpp)
				}
			}
		}
	}
}

func (m *treeLinks) parentAndGrandparent(x int32) (xp, xpp int32) {
	xp, xpp = m.parent[x], -1
	if xp >= 0 {
		xpp = m.parent[xp]
	}
	return xp, xpp
}

func (m *treeLinks) rotateLeft(root, p int32) int32 {
	r := m.right[p]
	if r < 0 {
		return root
	}
	m.right[p] = m.left[r]
	if rl := m.left[r]; rl >= 0 {
		m.parent[rl] = p
	}
	pp := m.parent[p]
	m.parent[r] = pp
	switch {
	case pp < 0:
		root = r
		m.red[r] = false
	case m.left[pp] == p:
		m.left[pp] = r
	default:
		m.right[pp] = r
	}
	m.left[r] = p
	m.parent[p] = r
	return root
}

func (m *treeLinks) rotateRight(root, p int32) int32 {
	l := m.left[p]
	if l < 0 {
		return root
	}
	m.left[p] = m.right[l]
	if lr := m.right[l]; lr >= 0 {
		m.parent[lr] = p
	}
	pp := m.parent[p]
	m.parent[l] = pp
	switch {
	case pp < 0:
		root = l
		m.red[l] = false
	case m.right[pp] == p:
		m.right[pp] = l
	default:
		m.left[pp] = l
	}
	m.right[l] = p
	m.parent[p] = l
	return root
}

// balanceDeletion restores the red-black properties after a black node
// left the tree at x and returns the root, as
// HashMap.TreeNode.balanceDeletion does.
func (m *treeLinks) balanceDeletion(root, x int32) int32 {
	for {
		if x < 0 || x == root {
			return root
		}
		xp := m.parent[x]
		switch {
		case xp < 0:
			m.red[x] = false
			return x
		case m.red[x]:
			m.red[x] = false
			return root
		}
		left := m.left[xp] == x
		// sibling returns x's sibling on the far side, and near/far its
		// children; mirrored when x is a right child.
		sibling := func(xp int32) int32 {
			if xp < 0 {
				return -1
			}
			if left {
				return m.right[xp]
			}
			return m.left[xp]
		}
		near := func(n int32) int32 {
			if left {
				return m.left[n]
			}
			return m.right[n]
		}
		far := func(n int32) int32 {
			if left {
				return m.right[n]
			}
			return m.left[n]
		}
		rotateTowardX := func(root, n int32) int32 { // rotateLeft when x is a left child
			if left {
				return m.rotateLeft(root, n)
			}
			return m.rotateRight(root, n)
		}
		rotateAway := func(root, n int32) int32 {
			if left {
				return m.rotateRight(root, n)
			}
			return m.rotateLeft(root, n)
		}
		isRed := func(n int32) bool { return n >= 0 && m.red[n] }

		w := sibling(xp)
		if isRed(w) {
			m.red[w], m.red[xp] = false, true
			root = rotateTowardX(root, xp)
			xp = m.parent[x]
			w = sibling(xp)
		}
		if w < 0 {
			x = xp
			continue
		}
		if !isRed(far(w)) && !isRed(near(w)) {
			m.red[w] = true
			x = xp
			continue
		}
		if !isRed(far(w)) {
			if n := near(w); n >= 0 {
				m.red[n] = false
			}
			m.red[w] = true
			root = rotateAway(root, w)
			xp = m.parent[x]
			w = sibling(xp)
		}
		if w >= 0 {
			m.red[w] = xp >= 0 && m.red[xp]
			if f := far(w); f >= 0 {
				m.red[f] = false
			}
		}
		if xp >= 0 {
			m.red[xp] = false
			root = rotateTowardX(root, xp)
		}
		x = root
	}
}

// treeBuckets are a hash table's buckets, each the node indices of its
// linked list in Java's order, and the tree links of the buckets that are
// red-black trees: what HashMap.TreeNode's treeify, putTreeVal and
// moveRootToFront do, for HashMap and ChurnSet alike. order compares a
// node with a tree node as TreeNode does (by spread hash, then as the
// table's keys allow).
type treeBuckets struct {
	table [][]int32 // bucket => node indices in linked-list order
	tree  []bool    // bucket => is a red-black tree
	treeLinks
}

// attach hangs x under the leaf where a search from root ends, and
// returns its new parent.
func (t *treeBuckets) attach(root, x int32, order func(x, p int32) int) int32 {
	for p := root; ; {
		child := &t.right[p]
		if order(x, p) <= 0 {
			child = &t.left[p]
		}
		if *child < 0 {
			*child, t.parent[x] = x, p
			return p
		}
		p = *child
	}
}

// treeify builds bucket b's tree by inserting its entries in list order,
// then moves the root to the front of the list (TreeNode.treeify).
func (t *treeBuckets) treeify(b int32, order func(x, p int32) int) {
	root := int32(-1)
	for _, x := range t.table[b] {
		t.left[x], t.right[x] = -1, -1
		if root < 0 {
			t.parent[x], t.red[x] = -1, false
			root = x
			continue
		}
		t.attach(root, x, order)
		root = t.balanceInsertion(root, x)
	}
	t.moveRootToFront(b, root)
}

// putTreeVal inserts x into tree bucket b: into the tree, into the list
// right after its tree parent, then moves the root to the front.
func (t *treeBuckets) putTreeVal(b, x int32, order func(x, p int32) int) {
	root := t.rootOf(t.table[b][0])
	xp := t.attach(root, x, order)
	i := slices.Index(t.table[b], xp)
	t.table[b] = slices.Insert(t.table[b], i+1, x)
	t.moveRootToFront(b, t.balanceInsertion(root, x))
}

// rootOf returns the root of x's tree.
func (t *treeBuckets) rootOf(x int32) int32 {
	for t.parent[x] >= 0 {
		x = t.parent[x]
	}
	return x
}

// moveRootToFront puts root first in bucket b's list, the others keeping
// their order (TreeNode.moveRootToFront).
func (t *treeBuckets) moveRootToFront(b, root int32) {
	l := t.table[b]
	if i := slices.Index(l, root); i > 0 {
		copy(l[1:i+1], l[:i])
		l[0] = root
	}
}
