package jvm

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
