// Who subscribes to what, the indexes both paths share: TopicSets
// answers "does m subscribe to t" in O(1) (check, valid and the adapter
// use it), Identical sends Solve down the fast path, and subClasses lists
// a topic's subscribers for the general path's placement and searches
// without a list per (topic, member) pair.

package balance

import (
	"math/bits"
	"slices"
)

// TopicSets answers whether member m subscribes to topic t in O(1): one
// bit per topic and distinct subscription, members that share their
// neighbour's subscription slice sharing its row. When the rows would
// take more words than the subscriptions have entries (many topics, each
// member on few), it binary-searches the subscriptions instead.
type TopicSets struct {
	subs  [][]int32
	words int     // per row
	row   []int32 // member => its row; nil when searching instead
	bits  []uint64
}

// NewTopicSets returns the sets of subs (ascending topic numbers below
// topics, as in [Problem.Subs]).
func NewTopicSets(subs [][]int32, topics int) *TopicSets {
	ts := &TopicSets{subs: subs, words: (topics + 63) / 64}
	row := make([]int32, len(subs))
	rows, entries := 0, 0
	// Members that share a subscription slice share a row: the one
	// before, or any earlier one, found by the slice's address (assign's
	// compile makes members that list equal topics share one slice;
	// BenchmarkAssign/strategy=sticky/impl=ours/shape=hetero-1000x2000t in
	// bench/ has 5 distinct subscriptions among 1,000 members). The map
	// is only looked up, never ranged over.
	var rowAt map[*int32]int32 // address of a row's subscription => the row
	var lens []int32           // with rowAt: row => its subscription's length
	for m, sub := range subs {
		if m > 0 && sameSlice(sub, subs[m-1]) {
			row[m] = row[m-1]
			continue
		}
		if len(sub) > 0 {
			if rowAt == nil {
				rowAt = make(map[*int32]int32)
				lens = make([]int32, rows, len(subs)) // the rows so far are empty
			}
			if r, ok := rowAt[&sub[0]]; ok && lens[r] == int32(len(sub)) {
				row[m] = r
				continue
			}
			rowAt[&sub[0]] = int32(rows)
		}
		if rowAt != nil {
			lens = append(lens, int32(len(sub)))
		}
		row[m] = int32(rows)
		rows++
		entries += len(sub)
	}
	if rows*ts.words > entries+len(subs) {
		return ts
	}
	ts.row, ts.bits = row, make([]uint64, rows*ts.words)
	done := int32(0) // rows are numbered in order of their first member
	for m, sub := range subs {
		if row[m] < done {
			continue
		}
		done++
		// Each word is gathered in a register and stored once: sub
		// ascends, so its topics come word by word, and setting each
		// bit in memory waited on the store of the bit before (building
		// the sets was 6% of BenchmarkAssign/strategy=sticky/impl=ours/
		// shape=hetero-1000x2000t in bench/; TestTopicSets checks Has).
		bits := ts.bits[int(row[m])*ts.words:]
		word, w := int32(-1), uint64(0)
		for _, t := range sub {
			if t>>6 != word {
				if word >= 0 {
					bits[word] |= w
				}
				word, w = t>>6, 0
			}
			w |= 1 << (t & 63)
		}
		if word >= 0 {
			bits[word] |= w
		}
	}
	return ts
}

// Has reports whether member m subscribes to topic t.
func (ts *TopicSets) Has(m, t int32) bool {
	if ts.row == nil {
		return subscribes(ts.subs[m], t)
	}
	return ts.bits[int(ts.row[m])*ts.words+int(t>>6)]&(1<<(t&63)) != 0
}

// Outside returns the position in ms of the first member that does not
// subscribe to topic t, skipping entries below 0, or -1 when every one
// does; ms holds members below len(subs) or negative entries. It reads a
// mask of the rows subscribing to t when there are at most 64 rows,
// where [TopicSets.Has] finds a word per call and does not inline: check,
// valid and the sticky adapter test every claim and owner of a topic so
// (BenchmarkAssign/strategy=sticky/impl=ours/shape=hetero-100x200t-replace10
// in bench/; TestOutside holds it to Has).
func (ts *TopicSets) Outside(t int32, ms []int32) int {
	switch {
	case ts.row == nil:
		for i, m := range ms {
			if m >= 0 && !subscribes(ts.subs[m], t) {
				return i
			}
		}
	case len(ts.bits) <= 64*ts.words:
		w, bit := int(t>>6), uint64(1)<<(t&63)
		var rows uint64 // bit r: row r subscribes to t
		for r := 0; r*ts.words < len(ts.bits); r++ {
			if ts.bits[r*ts.words+w]&bit != 0 {
				rows |= 1 << r
			}
		}
		for i, m := range ms {
			if m >= 0 && rows>>(uint32(ts.row[m])&63)&1 == 0 {
				return i
			}
		}
	default:
		w, bit := int(t>>6), uint64(1)<<(t&63)
		for i, m := range ms {
			if m >= 0 && ts.bits[int(ts.row[m])*ts.words+w]&bit == 0 {
				return i
			}
		}
	}
	return -1
}

func subscribes(sub []int32, t int32) bool {
	_, ok := slices.BinarySearch(sub, t)
	return ok
}

// Identical reports whether every member subscribes to the same topics,
// which sends [Solve] down its fast path.
func Identical(subs [][]int32) bool {
	if len(subs) == 0 {
		return true
	}
	for _, s := range subs[1:] {
		if !sameSlice(s, subs[0]) && !slices.Equal(s, subs[0]) {
			return false
		}
	}
	return true
}

// sameSlice reports whether a and b are one slice: an O(1) shortcut for
// callers that share one subscription slice between members.
func sameSlice(a, b []int32) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// subClasses groups members by subscription: members with equal Subs
// form a class, numbered by their lowest member, and each topic lists
// the classes subscribing to it. Members usually share a few
// subscriptions, so this gathers a topic's subscribers without a list
// per (topic, member) pair, which costs a scattered write per pair.
type subClasses struct {
	memberOff, members []int32 // class k => its members, ascending: members[memberOff[k]:memberOff[k+1]]
	classOff, classes  []int32 // topic t => its classes, ascending: classes[classOff[t]:classOff[t+1]]
	// bits holds each class's members as a bit set of words words, when
	// that is small; unionBits is scratch for one topic's.
	bits, unionBits []uint64
	words           int
}

func newSubClasses(subs [][]int32, topics int, hash func([]int32) uint64) *subClasses {
	n := len(subs)
	classOf := make([]int32, n)
	var reps []int32 // class => its lowest member
	// Classes by a hash of the subscription; those sharing a hash are
	// chained through sameHash. The map is only looked up, never ranged
	// over.
	byHash := make(map[uint64]int32)
	var classAt map[*int32]int32 // address of a slice seen twice => its class; nil until one is
	var sameHash []int32
	for m, sub := range subs {
		if m > 0 && sameSlice(sub, subs[m-1]) {
			classOf[m] = classOf[m-1]
			continue
		}
		if m > 0 && sameSlice(sub, subs[0]) {
			classOf[m] = 0
			continue
		}
		// A slice an earlier member's class has, found by its address
		// before its elements are hashed (see NewTopicSets). Only the
		// slices of classes found twice are kept: a group whose members
		// all differ pays nothing for it.
		if len(sub) > 0 {
			if k, ok := classAt[&sub[0]]; ok && len(subs[reps[k]]) == len(sub) {
				classOf[m] = k
				continue
			}
		}
		h := hash(sub)
		first, ok := byHash[h]
		k := int32(-1)
		if ok {
			for c := first; c >= 0; c = sameHash[c] {
				if rep := subs[reps[c]]; sameSlice(rep, sub) || slices.Equal(rep, sub) {
					k = c
					break
				}
			}
		}
		if k >= 0 && len(sub) > 0 {
			if classAt == nil {
				classAt = make(map[*int32]int32)
			}
			classAt[&sub[0]] = k
		}
		if k < 0 {
			k = int32(len(reps))
			reps = append(reps, int32(m))
			sameHash = append(sameHash, -1)
			if ok {
				sameHash[k], sameHash[first] = sameHash[first], k
			} else {
				byHash[h] = k
			}
		}
		classOf[m] = k
	}
	K := len(reps)
	sc := &subClasses{memberOff: make([]int32, K+1), members: make([]int32, n), classOff: make([]int32, topics+1)}
	if words := (n + 63) / 64; K*words <= 1<<16 {
		sc.words = words
		sc.bits, sc.unionBits = make([]uint64, K*words), make([]uint64, words)
		for m, k := range classOf {
			sc.bits[int(k)*words+m/64] |= 1 << (m % 64)
		}
	}
	for _, k := range classOf {
		sc.memberOff[k+1]++
	}
	for k := range K {
		sc.memberOff[k+1] += sc.memberOff[k]
		for _, t := range subs[reps[k]] {
			sc.classOff[t+1]++
		}
	}
	for t := range topics {
		sc.classOff[t+1] += sc.classOff[t]
	}
	fill := slices.Clone(sc.memberOff[:K])
	for m, k := range classOf {
		sc.members[fill[k]] = int32(m)
		fill[k]++
	}
	sc.classes = make([]int32, sc.classOff[topics])
	fill = slices.Clone(sc.classOff[:topics])
	for k := range K {
		for _, t := range subs[reps[k]] {
			sc.classes[fill[t]] = int32(k)
			fill[t]++
		}
	}
	return sc
}

// hashSub hashes a subscription: FNV-1a on four interleaved lanes, which
// do not wait on each other's multiplications, two topics per word.
func hashSub(sub []int32) uint64 {
	const prime = 1099511628211
	h := [4]uint64{14695981039346656037, 1, 2, 3}
	word := func(i int) uint64 { return uint64(uint32(sub[i]))<<32 | uint64(uint32(sub[i+1])) }
	i := 0
	for ; i+8 <= len(sub); i += 8 {
		h[0] = (h[0] ^ word(i)) * prime
		h[1] = (h[1] ^ word(i+2)) * prime
		h[2] = (h[2] ^ word(i+4)) * prime
		h[3] = (h[3] ^ word(i+6)) * prime
	}
	for ; i < len(sub); i++ {
		h[0] = (h[0] ^ uint64(uint32(sub[i]))) * prime
	}
	return (h[0]^h[1]*3^h[2]*5^h[3]*7)*prime ^ uint64(len(sub))
}

// count returns the number of members subscribing to t.
func (sc *subClasses) count(t int32) int32 {
	c := int32(0)
	for _, k := range sc.classes[sc.classOff[t]:sc.classOff[t+1]] {
		c += sc.memberOff[k+1] - sc.memberOff[k]
	}
	return c
}

// subscribers appends the members subscribing to t to out, class by
// class.
func (sc *subClasses) subscribers(t int32, out []int32) []int32 {
	for _, k := range sc.classes[sc.classOff[t]:sc.classOff[t+1]] {
		out = append(out, sc.members[sc.memberOff[k]:sc.memberOff[k+1]]...)
	}
	return out
}

// union returns the members subscribing to t as a bit set, in scratch
// that the next call overwrites; sc.bits must be set.
func (sc *subClasses) union(t int32) []uint64 {
	u := sc.unionBits
	clear(u)
	for _, k := range sc.classes[sc.classOff[t]:sc.classOff[t+1]] {
		for i, w := range sc.bits[int(k)*sc.words : int(k+1)*sc.words] {
			u[i] |= w
		}
	}
	return u
}

// sorted appends the members subscribing to t to out, ascending.
func (sc *subClasses) sorted(t int32, out []int32) []int32 {
	ks := sc.classes[sc.classOff[t]:sc.classOff[t+1]]
	switch {
	case len(ks) == 1:
		return append(out, sc.members[sc.memberOff[ks[0]]:sc.memberOff[ks[0]+1]]...)
	case sc.bits != nil:
		for i, w := range sc.union(t) {
			for ; w != 0; w &= w - 1 {
				out = append(out, int32(i*64+bits.TrailingZeros64(w)))
			}
		}
		return out
	}
	n0 := len(out)
	out = sc.subscribers(t, out)
	slices.Sort(out[n0:])
	return out
}
