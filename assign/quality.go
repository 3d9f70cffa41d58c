package assign

import (
	"cmp"
	"slices"
)

// Quality beyond validity: how many partitions an assignment needed to
// move, and whether it spreads each topic. Kafka's [Uniform] balances the
// number of partitions per member, not per topic, and keeps what members
// hold; these say what that costs beside [Sticky] on the same group.

// MoveBound returns a lower bound on the partitions any assignment of g
// must take from the members that claim them ([Owned]), given valid
// assignments of g (by any strategy) as witnesses of how balanced g can
// be. It returns an [*InputError] when g is invalid.
//
// Write k(m) for the number of partitions member m keeps a claim on
// (partitions of topics m still subscribes to) and N, C for the
// partitions of subscribed topics and the members of g. A member that
// ends with t(m) partitions loses at least max(0, k(m) - t(m)) of its
// claims.
//
// If a witness has a spread of at most 1, every count is floor(N/C) or
// ceil(N/C), and so is every count of any assignment that is balanced (it
// minimises the sum of squared counts, whose minimum floor/ceil counts
// reach). Then t(m) is floor(N/C) for all but N mod C members, which get
// one more; the bound gives those to the members with the largest k(m),
// which minimises the sum:
//
//	bound = min over such t of sum over m of max(0, k(m) - t(m))
//
// With identical subscriptions a balanced assignment reaching it always
// exists. Otherwise, with u the smallest maximum count among the
// witnesses, every assignment whose maximum count is at most u has
// t(m) <= u, and bound = sum over m of max(0, k(m) - u). It is a bound for
// assignments at least as balanced as the best witness; a less balanced
// one can move less. Without witnesses it is 0.
func MoveBound(g Group, witnesses ...Assignment) (int, error) {
	owned, err := Owned(g)
	if err != nil {
		return 0, err
	}
	c := len(g.Members)
	if c == 0 || len(witnesses) == 0 {
		return 0, nil
	}
	subscribed := make(map[string]bool)
	keep := make([]int, 0, c)
	for _, m := range g.Members {
		subs := make(map[string]bool, len(m.Topics))
		for _, t := range m.Topics {
			if g.Topics[t] > 0 {
				subs[t], subscribed[t] = true, true
			}
		}
		k := 0
		for _, tp := range owned[m.ID] {
			if subs[tp.Topic] && tp.Partition >= 0 && tp.Partition < g.Topics[tp.Topic] {
				k++
			}
		}
		keep = append(keep, k)
	}
	n := 0
	for t := range subscribed {
		n += int(g.Topics[t])
	}
	u, tight := -1, false
	for _, w := range witnesses {
		lo, hi := -1, 0
		for _, m := range g.Members {
			k := len(w[m.ID])
			if lo < 0 || k < lo {
				lo = k
			}
			hi = max(hi, k)
		}
		tight = tight || hi-lo <= 1
		if u < 0 || hi < u {
			u = hi
		}
	}
	bound := 0
	if tight {
		slices.SortFunc(keep, func(a, b int) int { return cmp.Compare(b, a) })
		q, extra := n/c, n%c
		for i, k := range keep {
			t := q
			if i < extra {
				t++
			}
			bound += max(0, k-t)
		}
		return bound, nil
	}
	for _, k := range keep {
		bound += max(0, k-u)
	}
	return bound, nil
}

// UnspreadTopics returns, sorted, the topics of g that a spreads unevenly
// over their subscribers: two members of g subscribed to the topic hold
// numbers of its partitions that differ by more than one. Range and
// RoundRobin spread every topic of a homogeneous group; [Uniform] deals
// whole chunks and may give a topic to one member alone.
func UnspreadTopics(g Group, a Assignment) []string {
	type span struct{ lo, hi int }
	spans := make(map[string]*span)
	counts := make(map[string]int)
	for _, m := range g.Members {
		clear(counts)
		for _, tp := range a[m.ID] {
			counts[tp.Topic]++
		}
		for _, t := range slices.Compact(slices.Sorted(slices.Values(m.Topics))) {
			if g.Topics[t] <= 0 {
				continue
			}
			n := counts[t]
			if s := spans[t]; s == nil {
				spans[t] = &span{n, n}
			} else {
				s.lo, s.hi = min(s.lo, n), max(s.hi, n)
			}
		}
	}
	var out []string
	for t, s := range spans {
		if s.hi-s.lo > 1 {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return out
}
