// Package workload defines, by formula, the consumer groups the benchmarks
// and the compare command of bench/ run every implementation on, and adapts
// each implementation (ours and the Go peers franz-go, sarama and kafka-go)
// to one calling convention so that both measure exactly the same thing.
//
// # Groups
//
//	uniform(C, T, P): members consumer-00000 .. consumer-{C-1}, topics
//	    topic-00000 .. topic-{T-1} with P partitions each, every member
//	    subscribed to every topic.
//	hetero(C, T):     topic i has 1 + (i*7919 % 64) partitions; member j
//	    subscribes to topic i iff (i*31 + j*17) % 5 < 3.
//
// # Churn
//
// A churned group starts from a previous assignment prev of the fresh
// group, given to the members as Owned at generation 1 (assign.Carry),
// and then:
//
//	leave1:    consumer-00000 leaves and consumer-new joins with the same
//	           subscription, owning nothing (generation -1);
//	replace10: every member j with j % 10 == 0 (ceil(C/10) members, 10%)
//	           is replaced by consumer-new-{j:05d} with the same
//	           subscription, owning nothing.
//	join1:     consumer-new joins with consumer-00000's subscription,
//	           owning nothing, and nobody leaves. This one is not in the
//	           issue: with leave1 and replace10 every balanced result can
//	           keep every claim, so only join1 tells sticky assignors
//	           apart by the partitions they move.
//
// Members keep their positions in Group.Members; a newcomer takes the
// place of the member it replaces, or comes last.
package workload

import (
	"fmt"

	"github.com/assigncalc/assigncalc/assign"
)

// Kind is the family of a [Spec]'s group.
type Kind int

const (
	// Uniform is uniform(C, T, P): everybody subscribes to everything.
	Uniform Kind = iota
	// Hetero is hetero(C, T): overlapping, different subscriptions.
	Hetero
)

// Churn is what happened to a group since its previous assignment.
type Churn int

const (
	// Fresh groups own nothing.
	Fresh Churn = iota
	// Leave1 replaces consumer-00000 by consumer-new.
	Leave1
	// Replace10 replaces every tenth member.
	Replace10
	// Join1 adds consumer-new.
	Join1
)

// String returns the suffix of a shape name: "", "leave1", "replace10"
// or "join1".
func (c Churn) String() string {
	switch c {
	case Leave1:
		return "leave1"
	case Replace10:
		return "replace10"
	case Join1:
		return "join1"
	}
	return ""
}

// Spec is one group size by formula.
type Spec struct {
	Kind Kind
	C, T int // members, topics
	P    int // partitions per topic; Uniform only
}

// Name names the shape for benchmarks: "uniform-1000x100000" is C members
// by T*P partitions; "hetero-1000x2000t" is C members by T topics (the
// partition count follows from the formula, see [Spec.Partitions]).
func (s Spec) Name() string {
	if s.Kind == Hetero {
		return fmt.Sprintf("hetero-%dx%dt", s.C, s.T)
	}
	return fmt.Sprintf("uniform-%dx%d", s.C, s.T*s.P)
}

// Partitions returns the number of partitions of the group's topics.
func (s Spec) Partitions() int {
	if s.Kind == Uniform {
		return s.T * s.P
	}
	n := 0
	for i := range s.T {
		n += heteroPartitions(i)
	}
	return n
}

// Big reports whether the shape is one of the two heaviest, which the
// benchmarks and tests run only on request.
func (s Spec) Big() bool { return s.Partitions() >= 100000 }

// Specs returns the sizes of the issue: uniform (10,10,10), (100,100,100),
// (1000,1000,100), (2000,100,10000); hetero (100,200), (1000,2000).
func Specs() []Spec {
	return []Spec{
		{Kind: Uniform, C: 10, T: 10, P: 10},
		{Kind: Uniform, C: 100, T: 100, P: 100},
		{Kind: Uniform, C: 1000, T: 1000, P: 100},
		{Kind: Uniform, C: 2000, T: 100, P: 10000},
		{Kind: Hetero, C: 100, T: 200},
		{Kind: Hetero, C: 1000, T: 2000},
	}
}

// MemberID is the ID of member j.
func MemberID(j int) string { return fmt.Sprintf("consumer-%05d", j) }

// TopicName is the name of topic i.
func TopicName(i int) string { return fmt.Sprintf("topic-%05d", i) }

func heteroPartitions(i int) int { return 1 + (i*7919)%64 }

func heteroSubscribes(i, j int) bool { return (i*31+j*17)%5 < 3 }

// Group builds the fresh group of s: nobody owns anything.
func (s Spec) Group() assign.Group {
	g := assign.Group{Topics: make(map[string]int32, s.T)}
	names := make([]string, s.T)
	for i := range names {
		names[i] = TopicName(i)
		if s.Kind == Uniform {
			g.Topics[names[i]] = int32(s.P)
		} else {
			g.Topics[names[i]] = int32(heteroPartitions(i))
		}
	}
	g.Members = make([]assign.Member, s.C)
	for j := range g.Members {
		m := assign.Member{ID: MemberID(j), Generation: -1}
		if s.Kind == Uniform {
			m.Topics = names // shared, as a client library shares one subscription list
		} else {
			for i, t := range names {
				if heteroSubscribes(i, j) {
					m.Topics = append(m.Topics, t)
				}
			}
		}
		g.Members[j] = m
	}
	return g
}

// Churned returns the group that follows g, whose previous assignment was
// prev, after churn c (see the package documentation). Members of g keep
// what prev gave them as Owned at generation 1 ([assign.Carry], the
// library's rule for feeding a round back; a member prev gives nothing
// owns nothing, at generation -1). g itself is not modified.
//
// The changes of one churn land in one rebalance (a member replaced before
// the coordinator's next round), which [churn.Churn], one rebalance per
// change, does not model; and a newcomer takes its predecessor's place in
// Group.Members, so that every peer sees the same member order.
func Churned(g assign.Group, prev assign.Assignment, c Churn) assign.Group {
	out := assign.Carry(g, prev, 1)
	for j, m := range out.Members {
		switch {
		case c == Leave1 && m.ID == MemberID(0):
			out.Members[j] = assign.Member{ID: "consumer-new", Topics: m.Topics, Generation: -1}
		case c == Replace10 && j%10 == 0:
			out.Members[j] = assign.Member{ID: fmt.Sprintf("consumer-new-%05d", j), Topics: m.Topics, Generation: -1}
		}
	}
	if c == Join1 && len(g.Members) > 0 {
		out.Members = append(out.Members, assign.Member{ID: "consumer-new", Topics: g.Members[0].Topics, Generation: -1})
	}
	return out
}

// Shape is a group ready to run: a spec, a churn, and the group itself.
type Shape struct {
	Spec  Spec
	Churn Churn
	Group assign.Group

	// Prev is the assignment the churned group's members owned (nil when
	// Fresh): the result of [assign.Sticky] on the fresh group, so that
	// every implementation starts from the same balanced assignment.
	Prev assign.Assignment
}

// Name is the shape's benchmark name: the spec's name, then "-leave1",
// "-replace10" or "-join1" for churned groups.
func (s Shape) Name() string {
	if s.Churn == Fresh {
		return s.Spec.Name()
	}
	return s.Spec.Name() + "-" + s.Churn.String()
}

// Shapes returns the fresh group of spec and its churned variants, in the
// order Fresh, Leave1, Replace10, Join1: shapes[c] has churn c. The
// previous assignment of the churned ones is [assign.Sticky]'s result on
// the fresh group.
func Shapes(spec Spec) ([]Shape, error) {
	fresh := spec.Group()
	prev, err := assign.Sticky{}.Assign(fresh)
	if err != nil {
		return nil, fmt.Errorf("workload: sticky assignment of %s: %w", spec.Name(), err)
	}
	return []Shape{
		{Spec: spec, Churn: Fresh, Group: fresh},
		{Spec: spec, Churn: Leave1, Group: Churned(fresh, prev, Leave1), Prev: prev},
		{Spec: spec, Churn: Replace10, Group: Churned(fresh, prev, Replace10), Prev: prev},
		{Spec: spec, Churn: Join1, Group: Churned(fresh, prev, Join1), Prev: prev},
	}, nil
}
