package main

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/assigncalc/assigncalc/assign"
)

// A family is a formula for groups of about p partitions over m members,
// shaped to make the sticky solver work: every family stresses one
// mechanism (see each doc). knob is the family's free parameter, which
// the search varies (see knobs); 0 means its default.
type family struct {
	name  string
	doc   string
	knobs []int // values of knob the search tries; nil: knob unused
	build func(m, p, knob int) assign.Group
}

// families returns every family, in the order the report lists them.
func families() []family {
	return []family{
		{name: "chain", doc: "member i subscribes to topics i and i+1: the longest paths a fresh group can have",
			build: func(m, p, _ int) assign.Group { return chain(m, p, false, false) }},
		{name: "chain-heavy", doc: "chain whose first topic holds half the partitions: they must flow down the whole chain",
			build: func(m, p, _ int) assign.Group { return chain(m, p, true, false) }},
		{name: "chain-heavy-claims", doc: "chain-heavy, each member claiming its own topic at generation 1 (the first all of the heavy one)",
			build: func(m, p, _ int) assign.Group { return chain(m, p, true, true) }},
		{name: "ladder", doc: "member i subscribes to the knob topics from i on, circularly, topic sizes skewed; members claim what a one-member-lighter group would give them",
			knobs: []int{2, 3, 8, 32},
			build: ladder},
		{name: "nested", doc: "member i subscribes to topics 0..i (nested prefixes), equal topic sizes, all claimed by the last member",
			build: nested},
		{name: "classes", doc: "every member a distinct random subscription of density knob/8 over √M·4 topics; claims from the group before one member left and one joined",
			knobs: []int{1, 4, 7},
			build: classes},
		{name: "hub", doc: "one member subscribes to every topic and claims every partition; each other member subscribes to one topic",
			build: hub},
		{name: "lopsided", doc: "half the members subscribe to everything and claim nothing, the other half to knob topics each and claim all of them",
			knobs: []int{1, 4, 16},
			build: lopsided},
		{name: "conflicting", doc: "everyone but the last member subscribes to everything; every partition claimed by two members at generation 2 (cancelled) and another at 1",
			build: conflicting},
		{name: "deleted", doc: "hetero-like subscriptions; each member claims its share of live partitions and as many of deleted ones (past the count or of missing topics)",
			build: deleted},
		{name: "racks", doc: "hetero-like subscriptions; 90% of members on rack a, every replica on rack b, claims skewed to the rack-b members",
			build: racks},
		{name: "random", doc: "windows of random width over topics of Zipf sizes, claims piled on a few members (knob is the seed)",
			knobs: []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16},
			build: random},
	}
}

// builder accumulates a group.
type builder struct {
	g     assign.Group
	names []string
}

func newBuilder(parts []int) *builder {
	b := &builder{g: assign.Group{Topics: make(map[string]int32, len(parts))}}
	for i, n := range parts {
		name := fmt.Sprintf("t%05d", i)
		b.names = append(b.names, name)
		b.g.Topics[name] = int32(n)
	}
	return b
}

// member adds a member subscribing to topics (by number), at generation
// -1 owning nothing, and returns its index.
func (b *builder) member(topics []int) int {
	m := assign.Member{ID: fmt.Sprintf("m%05d", len(b.g.Members)), Generation: -1}
	for _, t := range topics {
		m.Topics = append(m.Topics, b.names[t])
	}
	b.g.Members = append(b.g.Members, m)
	return len(b.g.Members) - 1
}

// claim makes member j list partitions lo..hi-1 of topic t at gen.
func (b *builder) claim(j, t, lo, hi int, gen int32) {
	m := &b.g.Members[j]
	for q := lo; q < hi; q++ {
		m.Owned = append(m.Owned, assign.TopicPartition{Topic: b.names[t], Partition: int32(q)})
	}
	m.Generation = gen
}

// spread returns n topic sizes summing to about p, all at least 1.
func spread(n, p int) []int {
	parts := make([]int, n)
	for i := range parts {
		parts[i] = max(1, p/n)
	}
	return parts
}

func span(lo, hi int) []int {
	out := make([]int, 0, hi-lo)
	for t := lo; t < hi; t++ {
		out = append(out, t)
	}
	return out
}

// chain: member i subscribes to topics i and i+1 (the last member to its
// own only). With heavy, topic 0 holds half the partitions, so balance
// needs them to travel the chain; with claims, member i claims all of
// topic i at generation 1.
func chain(m, p int, heavy, claims bool) assign.Group {
	parts := spread(m, p)
	if heavy {
		parts = spread(m, p/2)
		parts[0] = p / 2
	}
	b := newBuilder(parts)
	for i := range m {
		if i+1 < m {
			b.member([]int{i, i + 1})
		} else {
			b.member([]int{i})
		}
		if claims {
			b.claim(i, i, 0, parts[i], 1)
		}
	}
	return b.g
}

// ladder: member i subscribes to topics i..i+w-1 mod m; topic i has
// about (1 + (i*7919 mod 64)) * p/(32.5m) partitions. Members claim the sticky
// assignment of the same group without its last member.
func ladder(m, p, w int) assign.Group {
	if w == 0 {
		w = 3
	}
	parts := make([]int, m)
	for i := range parts {
		parts[i] = max(1, (1+(i*7919)%64)*2*p/(65*m)) // the mean of 1 + x%64 is 32.5
	}
	b := newBuilder(parts)
	for i := range m {
		subs := make([]int, 0, w)
		for k := range w {
			subs = append(subs, (i+k)%m)
		}
		slices.Sort(subs)
		b.member(slices.Compact(subs))
	}
	return withPrevious(b.g, len(b.g.Members)-1)
}

// withPrevious gives g's members, but member drop, what Sticky gives
// them in g without member drop, at generation 1: a member joined since.
func withPrevious(g assign.Group, drop int) assign.Group {
	before := assign.Group{Topics: g.Topics, PartitionRacks: g.PartitionRacks}
	before.Members = slices.Delete(slices.Clone(g.Members), drop, drop+1)
	prev, err := assign.Sticky{}.Assign(before)
	if err != nil {
		panic(err) // the families are valid by construction
	}
	for j := range g.Members {
		if j == drop {
			continue
		}
		g.Members[j].Owned = prev[g.Members[j].ID]
		g.Members[j].Generation = 1
	}
	return g
}

// nested: member i subscribes to topics 0..i; the last member, which
// subscribes to all, claims everything.
func nested(m, p, _ int) assign.Group {
	parts := spread(m, p)
	b := newBuilder(parts)
	for i := range m {
		b.member(span(0, i+1))
	}
	for t, n := range parts {
		b.claim(m-1, t, 0, n, 1)
	}
	return b.g
}

// classes: every member a random subscription over T = 4√m topics, each
// topic in with probability knob/8; the claims are Sticky's answer for
// the group in which member 0 had not yet been replaced by a newcomer.
func classes(m, p, knob int) assign.Group {
	if knob == 0 {
		knob = 4
	}
	T := 4 * isqrt(m)
	r := rand.New(rand.NewPCG(uint64(m), uint64(knob)))
	b := newBuilder(spread(T, p))
	for range m {
		var subs []int
		for t := range T {
			if r.IntN(8) < knob {
				subs = append(subs, t)
			}
		}
		if len(subs) == 0 {
			subs = []int{r.IntN(T)}
		}
		b.member(subs)
	}
	// Every topic needs a subscriber for the partition counts to mean
	// what they say; the last member takes any orphan.
	last := &b.g.Members[m-1]
	for t, name := range b.names {
		found := false
		for _, mm := range b.g.Members {
			if slices.Contains(mm.Topics, name) {
				found = true
				break
			}
		}
		if !found {
			last.Topics = append(last.Topics, b.names[t])
		}
	}
	g := withPrevious(b.g, 0)
	return g
}

// hub: member 0 subscribes to every topic and claims every partition;
// member i > 0 subscribes to topic i-1 only.
func hub(m, p, _ int) assign.Group {
	parts := spread(m-1, p)
	b := newBuilder(parts)
	b.member(span(0, m-1))
	for t, n := range parts {
		b.claim(0, t, 0, n, 1)
	}
	for i := 1; i < m; i++ {
		b.member([]int{i - 1})
	}
	return b.g
}

// lopsided: members 0..m/2-1 subscribe to every topic and claim nothing;
// member m/2+k subscribes to topics k*w..k*w+w-1 (mod T, T = m/2) and
// claims all of them that nobody claimed before it.
func lopsided(m, p, w int) assign.Group {
	if w == 0 {
		w = 4
	}
	T := m / 2
	parts := spread(T, p)
	b := newBuilder(parts)
	for range m / 2 {
		b.member(span(0, T))
	}
	claimed := make([]bool, T)
	for k := 0; m/2+k < m; k++ {
		subs := make([]int, 0, w)
		for i := range w {
			subs = append(subs, (k*w+i)%T)
		}
		slices.Sort(subs)
		subs = slices.Compact(subs)
		j := b.member(subs)
		for _, t := range subs {
			if !claimed[t] {
				claimed[t] = true
				b.claim(j, t, 0, parts[t], 1)
			}
		}
	}
	return b.g
}

// conflicting: every member but the last subscribes to every topic (the
// last to all but topic 0, so the general path runs); partition q of
// topic t is claimed at generation 2 by members (q+t) mod m and
// (q+t+1) mod m, which cancels both, and at generation 1 by
// (q+t+2) mod m, which names its previous owner.
func conflicting(m, p, _ int) assign.Group {
	T := max(2, isqrt(p))
	parts := spread(T, p)
	b := newBuilder(parts)
	for j := range m {
		if j == m-1 {
			b.member(span(1, T))
		} else {
			b.member(span(0, T))
		}
	}
	// Generations are per member: members alternate between 2 and 1 so
	// that a partition's listers differ in generation.
	for t, n := range parts {
		for q := range n {
			for k := range 3 {
				j := (q + t + k) % m
				if j == m-1 && t == 0 {
					continue
				}
				b.claim(j, t, q, q+1, int32(2-j%2))
			}
		}
	}
	return b.g
}

// heteroSubs is hetero(C, T)'s rule: member j subscribes to topic i iff
// (i*31 + j*17) % 5 < 3; every topic has a subscriber for T >= 5.
func heteroSubs(j, T int) []int {
	var subs []int
	for i := range T {
		if (i*31+j*17)%5 < 3 {
			subs = append(subs, i)
		}
	}
	return subs
}

// deleted: hetero-like subscriptions over T = m/2 topics; each member
// claims, at generation 1, the partitions of its subscribed topics whose
// number is congruent to it mod m, plus as many of partitions past each
// topic's count and of topic "gone".
func deleted(m, p, _ int) assign.Group {
	T := max(5, m/2)
	parts := spread(T, p)
	b := newBuilder(parts)
	for j := range m {
		b.member(heteroSubs(j, T))
	}
	for j := range b.g.Members {
		mm := &b.g.Members[j]
		for _, name := range mm.Topics {
			n := int(b.g.Topics[name])
			for q := j % m; q < n; q += m {
				mm.Owned = append(mm.Owned, assign.TopicPartition{Topic: name, Partition: int32(q)},
					assign.TopicPartition{Topic: name, Partition: int32(n + q)},
					assign.TopicPartition{Topic: "gone", Partition: int32(q*m + j)})
			}
		}
		mm.Generation = 1
	}
	return b.g
}

// racks: hetero-like subscriptions over T = m/2 topics; members j with
// j % 10 == 0 are on rack b, the others on rack a; every partition's
// replicas are on rack b only, and the rack-b members claim every
// partition of their topics that no earlier member claimed.
func racks(m, p, _ int) assign.Group {
	T := max(5, m/2)
	parts := spread(T, p)
	b := newBuilder(parts)
	b.g.PartitionRacks = make(map[string][][]string, T)
	for t, n := range parts {
		rs := make([][]string, n)
		for q := range rs {
			rs[q] = []string{"b"}
		}
		b.g.PartitionRacks[b.names[t]] = rs
	}
	claimed := make([]bool, T)
	for j := range m {
		k := b.member(heteroSubs(j, T))
		if j%10 == 0 {
			b.g.Members[k].Rack = "b"
			for _, t := range heteroSubs(j, T) {
				if !claimed[t] {
					claimed[t] = true
					b.claim(k, t, 0, parts[t], 1)
				}
			}
		} else {
			b.g.Members[k].Rack = "a"
		}
	}
	return b.g
}

// random: seeded; T = m topics of Zipf-like sizes; member j subscribes to
// a window of topics of random start and width 1..8 (or, one time in
// eight, up to T/4); a few members claim whole topics of theirs.
func random(m, p, seed int) assign.Group {
	r := rand.New(rand.NewPCG(uint64(seed), uint64(m)))
	T := m
	weights := make([]float64, T)
	sum := 0.0
	for i := range weights {
		weights[i] = 1 / float64(1+r.IntN(T))
		sum += weights[i]
	}
	parts := make([]int, T)
	for i, w := range weights {
		parts[i] = max(1, int(w/sum*float64(p)))
	}
	b := newBuilder(parts)
	subscribed := make([]bool, T)
	for j := range m {
		width := 1 + r.IntN(8)
		if r.IntN(8) == 0 {
			width = 1 + r.IntN(max(1, T/4))
		}
		lo := r.IntN(T)
		var subs []int
		for k := range width {
			subs = append(subs, (lo+k)%T)
		}
		slices.Sort(subs)
		subs = slices.Compact(subs)
		if j == m-1 {
			for t := range T {
				if !subscribed[t] {
					subs = append(subs, t)
				}
			}
			slices.Sort(subs)
			subs = slices.Compact(subs)
		}
		for _, t := range subs {
			subscribed[t] = true
		}
		b.member(subs)
	}
	claimed := make([]bool, T)
	heavy := 1 + r.IntN(max(1, m/50))
	for range heavy {
		j := r.IntN(m)
		mm := &b.g.Members[j]
		for _, name := range mm.Topics {
			var t int
			fmt.Sscanf(name, "t%05d", &t)
			if !claimed[t] {
				claimed[t] = true
				b.claim(j, t, 0, parts[t], 1)
			}
		}
	}
	return b.g
}

func isqrt(n int) int {
	r := 0
	for (r+1)*(r+1) <= n {
		r++
	}
	return r
}
