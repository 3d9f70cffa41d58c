package assign_test

import (
	"slices"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/assigntest"
	"pgregory.net/rapid"
)

// balancedReference is VerifyBalanced's rule searched the obvious way: from
// every member, every member reachable by passing partitions along, and
// whether one of them has two partitions fewer.
func balancedReference(g assign.Group, a assign.Assignment) bool {
	subscribes := func(m assign.Member, topic string) bool { return slices.Contains(m.Topics, topic) }
	for _, src := range g.Members {
		seen := map[string]bool{src.ID: true}
		queue := []assign.Member{src}
		for len(queue) > 0 {
			m := queue[0]
			queue = queue[1:]
			if len(a[m.ID]) <= len(a[src.ID])-2 {
				return false
			}
			for _, tp := range a[m.ID] {
				for _, next := range g.Members {
					if !seen[next.ID] && subscribes(next, tp.Topic) {
						seen[next.ID] = true
						queue = append(queue, next)
					}
				}
			}
		}
	}
	return true
}

// randomAssignment gives every partition of every subscribed topic to a
// random subscriber: valid, and often unbalanced.
func randomAssignment(t *rapid.T, g assign.Group) assign.Assignment {
	a := make(assign.Assignment)
	for _, m := range g.Members {
		a[m.ID] = nil
	}
	topics := make([]string, 0, len(g.Topics))
	for topic := range g.Topics {
		topics = append(topics, topic)
	}
	slices.Sort(topics)
	for _, topic := range topics {
		var subs []string
		for _, m := range g.Members {
			if slices.Contains(m.Topics, topic) {
				subs = append(subs, m.ID)
			}
		}
		if len(subs) == 0 {
			continue
		}
		for p := range g.Topics[topic] {
			id := rapid.SampledFrom(subs).Draw(t, "owner")
			a[id] = append(a[id], assign.TopicPartition{Topic: topic, Partition: p})
		}
	}
	for id := range a {
		slices.SortFunc(a[id], assign.TopicPartition.Compare)
	}
	return a
}

func TestVerifyBalancedMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := assigntest.GroupOf(assigntest.Small).Draw(t, "group")
		a := randomAssignment(t, g)
		if err := assign.Verify(g, a); err != nil {
			t.Fatalf("randomAssignment is invalid: %v", err)
		}
		err := assign.VerifyBalanced(g, a)
		if want := balancedReference(g, a); (err == nil) != want {
			t.Fatalf("VerifyBalanced = %v, reference says balanced = %v", err, want)
		}
	})
}
