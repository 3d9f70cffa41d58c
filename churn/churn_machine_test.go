package churn_test

// The state machine of the churn model: churn.Churn driven by random
// changes, checked after every step against the machine's own model of
// what Kafka's rules (churn.go's doc comment) say happens to the group.
// The model keeps membership, subscriptions, instance ids, racks and
// partition counts, and predicts how many rebalances each change starts;
// it never assigns. What the strategies assign is judged by the checkers
// (Verify, VerifyBalanced) and by recomputing the moves from Before and
// After.

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/churn"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
)

// modelMember is what the model knows of a member.
type modelMember struct {
	ID, Instance, Rack string
	Topics             []string
}

// churnMachine follows one churn.Churn and its model.
type churnMachine struct {
	s     assign.Strategy
	churn *churn.Churn
	last  assign.Assignment // the stable assignment after the last step

	topics   map[string]int32
	members  []modelMember
	departed []modelMember // newest last; at most one per ID
	next     int           // for fresh member IDs
}

// universe is every topic a member may subscribe to; t2 is missing from
// the metadata until a growth creates it.
var universe = []string{"t0", "t1", "t2"}

func (c *churnMachine) freshID() string {
	c.next++
	return fmt.Sprintf("m%d", c.next-1)
}

func newChurnMachine(t *rapid.T, s assign.Strategy) *churnMachine {
	c := &churnMachine{s: s, topics: map[string]int32{
		"t0": int32(rapid.IntRange(1, 6).Draw(t, "t0")),
		"t1": int32(rapid.IntRange(0, 4).Draw(t, "t1")),
	}}
	g := assign.Group{Topics: maps.Clone(c.topics)}
	for range rapid.IntRange(1, 3).Draw(t, "members") {
		m := c.drawNew(t)
		c.members = append(c.members, m)
		g.Members = append(g.Members, assign.Member{ID: m.ID, InstanceID: m.Instance, Rack: m.Rack, Topics: slices.Clone(m.Topics), Generation: -1})
	}
	ch, step, err := churn.NewChurn(s, g)
	if err != nil {
		t.Fatalf("NewChurn: %v", err)
	}
	c.churn = ch
	if step.Rebalances != 1 || len(step.Moves) != 0 {
		t.Fatalf("first step: %d rebalances, %d moves; want 1 and none (nobody owned anything)", step.Rebalances, len(step.Moves))
	}
	c.check(t, step, churn.Change{}, 1)
	return c
}

// drawNew draws a member never seen before.
func (c *churnMachine) drawNew(t *rapid.T) modelMember {
	m := modelMember{ID: c.freshID(), Rack: rapid.SampledFrom([]string{"", "a", "b"}).Draw(t, "rack")}
	if rapid.Bool().Draw(t, "static") {
		m.Instance = "i-" + m.ID
	}
	m.Topics = rapid.SliceOfDistinct(rapid.SampledFrom(universe), rapid.ID[string]).Draw(t, "topics")
	return m
}

// subscribed reports whether some member subscribes to topic.
func (c *churnMachine) subscribed(topic string) bool {
	return slices.ContainsFunc(c.members, func(m modelMember) bool { return slices.Contains(m.Topics, topic) })
}

func (c *churnMachine) pick(t *rapid.T) int {
	if len(c.members) == 0 {
		t.Skip("empty group")
	}
	return rapid.IntRange(0, len(c.members)-1).Draw(t, "member")
}

// ref names member m as a change may: by ID, or a static member by its
// group.instance.id.
func ref(t *rapid.T, m modelMember) string {
	if m.Instance != "" && rapid.Bool().Draw(t, "by instance") {
		return m.Instance
	}
	return m.ID
}

// apply applies ch, which the model expects to start want rebalances
// (-1: to be refused, leaving everything as it was), and checks the step.
func (c *churnMachine) apply(t *rapid.T, ch churn.Change, want int) {
	before := c.churn.Group()
	step, err := c.churn.Apply(ch)
	if want < 0 {
		var ie *assign.InputError
		if !errors.As(err, &ie) {
			t.Fatalf("Apply(%v) = %v, want an *InputError", ch, err)
		}
		if after := c.churn.Group(); !reflect.DeepEqual(before, after) {
			t.Fatalf("a refused change altered the group (-before +after):\n%s", cmp.Diff(before, after))
		}
		return
	}
	if err != nil {
		t.Fatalf("Apply(%v): %v", ch, err)
	}
	c.check(t, step, ch, want)
}

// check judges a step against the model (already updated for it).
func (c *churnMachine) check(t *rapid.T, step churn.Step, ch churn.Change, rebalances int) {
	g := step.Group
	// The group is the model's.
	var got []modelMember
	for _, m := range g.Members {
		got = append(got, modelMember{ID: m.ID, Instance: m.InstanceID, Rack: m.Rack, Topics: m.Topics})
	}
	if !slices.EqualFunc(c.members, got, func(a, b modelMember) bool {
		return a.ID == b.ID && a.Instance == b.Instance && a.Rack == b.Rack && slices.Equal(a.Topics, b.Topics)
	}) {
		t.Fatalf("after %v: members mismatch (-model +churn):\n%s", ch, cmp.Diff(c.members, got, cmpopts.EquateEmpty()))
	}
	if !maps.Equal(c.topics, g.Topics) {
		t.Fatalf("after %v: topics mismatch (-model +churn):\n%s", ch, cmp.Diff(c.topics, g.Topics))
	}
	if step.Rebalances != rebalances {
		t.Fatalf("%v started %d rebalances, the model says %d", ch, step.Rebalances, rebalances)
	}
	if c.last != nil && !maps.EqualFunc(c.last, step.Before, slices.Equal) {
		t.Fatalf("%v: Before is not the last step's After:\n%v\n%v", ch, c.last, step.Before)
	}
	// What the strategy assigned is a valid assignment, balanced for the
	// balancing strategies, and every member owns its share.
	if err := assign.Verify(g, step.After); err != nil {
		t.Fatalf("after %v: %v", ch, err)
	}
	if _, ok := c.s.(assign.Sticky); ok || c.s.Protocol() == assign.Cooperative {
		if err := assign.VerifyBalanced(g, step.After); err != nil {
			t.Fatalf("after %v: %v", ch, err)
		}
	}
	for _, m := range g.Members {
		if !slices.Equal(m.Owned, step.After[m.ID]) {
			t.Fatalf("after %v: %s owns %v, its share is %v", ch, m.ID, m.Owned, step.After[m.ID])
		}
	}
	// No rebalance: nothing moves.
	if rebalances == 0 {
		for _, m := range g.Members {
			if !slices.Equal(step.Before[m.ID], step.After[m.ID]) {
				t.Fatalf("%v starts no rebalance, yet %s went from %v to %v", ch, m.ID, step.Before[m.ID], step.After[m.ID])
			}
		}
		if step.Rounds != 0 || step.Revoked != 0 {
			t.Fatalf("%v starts no rebalance, yet %d rounds revoked %d", ch, step.Rounds, step.Revoked)
		}
	}
	// Rounds: one per rebalance for an eager strategy; eager members
	// revoke all they own at a single rebalance.
	if c.s.Protocol() == assign.Eager {
		if step.Rounds != rebalances {
			t.Fatalf("%v: %d rounds over %d eager rebalances", ch, step.Rounds, rebalances)
		}
		if rebalances == 1 {
			owned := 0
			for _, m := range g.Members {
				owned += len(step.Before[m.ID])
			}
			if step.Revoked != owned {
				t.Fatalf("%v: %d revoked, but the members owned %d", ch, step.Revoked, owned)
			}
		}
	} else if step.Rounds < rebalances || step.Rounds > 2*rebalances {
		t.Fatalf("%v: %d cooperative rounds over %d rebalances", ch, step.Rounds, rebalances)
	}
	// The moves are the partitions whose owner changed, recomputed here.
	owner := make(map[assign.TopicPartition]string)
	for id, tps := range step.Before {
		for _, tp := range tps {
			owner[tp] = id
		}
	}
	type move struct {
		TP       assign.TopicPartition
		From, To string
	}
	var want, have []move
	for _, m := range g.Members {
		for _, tp := range step.After[m.ID] {
			if from, ok := owner[tp]; ok && from != m.ID {
				want = append(want, move{tp, from, m.ID})
			}
		}
	}
	present := make(map[string]modelMember)
	for _, m := range c.members {
		present[m.ID] = m
	}
	for _, mv := range step.Moves {
		have = append(have, move{mv.Partition, mv.From, mv.To})
		from, stayed := present[mv.From]
		switch {
		case !stayed && ch.Kind == churn.ChangeRestart && mv.Reason != assign.ReasonOwnerRestarted && mv.Reason != assign.ReasonOwnerLeft,
			!stayed && ch.Kind != churn.ChangeRestart && mv.Reason != assign.ReasonOwnerLeft:
			t.Fatalf("%v: %v moved from %s, gone, because %q", ch, mv.Partition, mv.From, mv.Reason)
		case stayed && !slices.Contains(from.Topics, mv.Partition.Topic) && mv.Reason != assign.ReasonUnsubscribed:
			t.Fatalf("%v: %v moved from %s, no longer subscribed, because %q", ch, mv.Partition, mv.From, mv.Reason)
		}
		if mv.Deferred && c.s.Protocol() == assign.Eager {
			t.Fatalf("%v: an eager strategy deferred %v", ch, mv.Partition)
		}
	}
	byTP := func(a, b move) int { return a.TP.Compare(b.TP) }
	slices.SortFunc(want, byTP)
	if !slices.Equal(want, have) {
		t.Fatalf("%v: moves mismatch (-recomputed +step):\n%s", ch, cmp.Diff(want, have))
	}
	c.last = step.After
}

// depart records m as gone, replacing an earlier departure of its ID.
func (c *churnMachine) depart(m modelMember) {
	c.departed = append(slices.DeleteFunc(c.departed, func(d modelMember) bool { return d.ID == m.ID }), m)
}

func (c *churnMachine) actions() map[string]func(*rapid.T) {
	return map[string]func(*rapid.T){
		"join new": func(t *rapid.T) {
			if len(c.members) >= 5 {
				t.Skip("group full")
			}
			m := c.drawNew(t)
			ch := churn.Change{Kind: churn.ChangeJoin, Member: m.ID, InstanceID: m.Instance, Rack: m.Rack, Given: churn.GivenInstance | churn.GivenRack}
			if rapid.Bool().Draw(t, "given topics") {
				ch.Topics, ch.Given = slices.Clone(m.Topics), ch.Given|churn.GivenTopics
			} else {
				m.Topics = slices.Sorted(maps.Keys(c.topics)) // rule 2: every topic of the metadata
			}
			c.members = append(c.members, m)
			c.apply(t, ch, 1)
		},
		"rejoin": func(t *rapid.T) {
			// A departed member comes back as it left (rule 1): under its
			// ID, or a static one under a new ID with its instance id.
			if len(c.departed) == 0 || len(c.members) >= 5 {
				t.Skip("nobody departed, or group full")
			}
			k := rapid.IntRange(0, len(c.departed)-1).Draw(t, "rejoiner")
			d := c.departed[k]
			if slices.ContainsFunc(c.members, func(m modelMember) bool { return m.ID == d.ID || (d.Instance != "" && m.Instance == d.Instance) }) {
				t.Skip("its ID or instance is back already")
			}
			ch := churn.Change{Kind: churn.ChangeJoin, Member: d.ID}
			if d.Instance != "" && rapid.Bool().Draw(t, "new member.id") {
				d.ID = c.freshID()
				ch = churn.Change{Kind: churn.ChangeJoin, Member: d.ID, InstanceID: d.Instance, Given: churn.GivenInstance}
				if slices.ContainsFunc(c.departed, func(o modelMember) bool { return o.ID == d.ID }) {
					t.Skip("fresh ID departed before")
				}
			}
			c.departed = slices.Delete(c.departed, k, k+1)
			c.members = append(c.members, d)
			c.apply(t, ch, 1)
		},
		"leave": func(t *rapid.T) {
			i := c.pick(t)
			m := c.members[i]
			c.members = slices.Delete(c.members, i, i+1)
			c.depart(m)
			c.apply(t, churn.Change{Kind: churn.ChangeLeave, Member: ref(t, m)}, 1)
		},
		"subscribe": func(t *rapid.T) {
			i := c.pick(t)
			topics := rapid.SliceOfDistinct(rapid.SampledFrom(universe), rapid.ID[string]).Draw(t, "topics")
			want := 1
			if slices.Equal(slices.Sorted(slices.Values(topics)), slices.Sorted(slices.Values(c.members[i].Topics))) {
				want = 0 // rule 6
			}
			ch := churn.Change{Kind: churn.ChangeSubscribe, Member: ref(t, c.members[i]), Topics: topics}
			c.members[i].Topics = slices.Clone(topics)
			c.apply(t, ch, want)
		},
		"grow": func(t *rapid.T) {
			topic := rapid.SampledFrom(universe).Draw(t, "topic")
			old, exists := c.topics[topic]
			to := old + int32(rapid.IntRange(0, 3).Draw(t, "by"))
			if !exists && to == 0 {
				to = 1
			}
			want := 1
			if (exists && to == old) || !c.subscribed(topic) {
				want = 0 // rule 5
			}
			c.topics[topic] = to
			c.apply(t, churn.Change{Kind: churn.ChangeGrow, Topic: topic, Partitions: to}, want)
		},
		"shrink": func(t *rapid.T) {
			topic := rapid.SampledFrom(universe).Draw(t, "topic")
			if c.topics[topic] == 0 {
				t.Skip("nothing to remove")
			}
			c.apply(t, churn.Change{Kind: churn.ChangeGrow, Topic: topic, Partitions: c.topics[topic] - 1}, -1)
		},
		"restart": func(t *rapid.T) {
			i := c.pick(t)
			m := c.members[i]
			if m.Instance != "" {
				c.apply(t, churn.Change{Kind: churn.ChangeRestart, Member: ref(t, m)}, 0) // rule 3
				return
			}
			ch := churn.Change{Kind: churn.ChangeRestart, Member: m.ID} // rule 4
			if rapid.Bool().Draw(t, "new member.id") {
				ch.NewID = c.freshID()
				c.members[i].ID = ch.NewID
			}
			c.apply(t, ch, 2)
		},
		"unknown member": func(t *rapid.T) {
			kind := rapid.SampledFrom([]churn.ChangeKind{churn.ChangeLeave, churn.ChangeRestart, churn.ChangeSubscribe}).Draw(t, "kind")
			c.apply(t, churn.Change{Kind: kind, Member: "nobody"}, -1)
		},
		"join twice": func(t *rapid.T) {
			i := c.pick(t)
			c.apply(t, churn.Change{Kind: churn.ChangeJoin, Member: c.members[i].ID}, -1)
		},
	}
}

// TestChurnMachine draws the strategy too, so that -rapid.checks=N costs
// N runs in all, not N per strategy.
func TestChurnMachine(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.SampledFrom(assign.Strategies()).Draw(t, "strategy")
		c := newChurnMachine(t, s)
		t.Repeat(c.actions())
	})
}
