package assign_test

// The strategies' churn state machine: a small group rebalanced after
// every change, every invariant of Sticky and CooperativeSticky checked
// after every round against a brute force.
//
// It is an oracle of the strategies, not of the churn model: unlike
// churn.Churn (whose own machine is churn_machine_test.go), it runs one
// round per action, so changes land between a cooperative round and its
// follow-up, and it builds inputs no well-behaved consumer sends and
// Churn never produces (zombies listing stale claims at old generations,
// claims tied at the newest generation, a static member's new member.id
// carrying its Owned). Only feeding a round back as the members' claims
// is shared with Churn: assign.Carry.

import (
	"fmt"
	"slices"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/assigntest"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// churn is a rapid state machine over a small group that rebalances after
// every change, feeding each round's result back as the members' Owned at
// a rising generation. It stays small enough (4 members, 8 partitions)
// for the brute force to give the fewest moves after every step.
type churn struct {
	coop    bool
	g       assign.Group
	gen     int32
	next    int // for new member IDs
	last    *assign.CooperativePlan
	lastG   assign.Group
	changed bool // the group changed since the last round

	// zombies are members that dropped out of the group (kicked out
	// while paused, say) and remember what they owned then, at the
	// generation they owned it.
	zombies []assign.Member
}

func newChurn(t *rapid.T, coop bool) *churn {
	c := &churn{coop: coop, g: assign.Group{Topics: map[string]int32{
		"t0": int32(rapid.IntRange(1, 4).Draw(t, "t0")),
		"t1": int32(rapid.IntRange(0, 3).Draw(t, "t1")),
	}}}
	c.setRacks()
	for range rapid.IntRange(1, 3).Draw(t, "members") {
		c.join(t)
	}
	return c
}

func (c *churn) total() int32 { return c.g.Topics["t0"] + c.g.Topics["t1"] }

// setRacks puts even partitions' replicas on rack a, odd ones on b.
func (c *churn) setRacks() {
	c.g.PartitionRacks = map[string][][]string{}
	for topic, n := range c.g.Topics {
		lists := make([][]string, n)
		for p := range lists {
			lists[p] = []string{[]string{"a", "b"}[p%2]}
		}
		c.g.PartitionRacks[topic] = lists
	}
}

func (c *churn) member(t *rapid.T) *assign.Member {
	return &c.g.Members[rapid.IntRange(0, len(c.g.Members)-1).Draw(t, "member")]
}

func (c *churn) join(t *rapid.T) {
	if len(c.g.Members) >= 4 {
		t.Skip("group full")
	}
	m := assign.Member{
		ID:         fmt.Sprintf("m%d", c.next),
		Topics:     rapid.SliceOfDistinct(rapid.SampledFrom([]string{"t0", "t1"}), rapid.ID[string]).Draw(t, "topics"),
		Rack:       rapid.SampledFrom([]string{"", "a", "b"}).Draw(t, "rack"),
		Generation: -1,
	}
	if rapid.Bool().Draw(t, "static") {
		m.InstanceID = "i" + m.ID
	}
	c.next++
	c.g.Members = append(c.g.Members, m)
	c.changed = true
}

// round rebalances and checks every invariant of the result.
func (c *churn) round(t *rapid.T) {
	g := c.g
	sticky, err := assign.Sticky{}.Assign(g)
	if err != nil {
		t.Fatal(err)
	}
	if err := assign.VerifyBalanced(g, sticky); err != nil {
		t.Fatal(err)
	}
	wantSq, wantMoves := bruteForceSticky(g)
	if gotSq, gotMoves := sumSquares(g, sticky), assign.Moved(owned(t, g), sticky); gotSq != wantSq || gotMoves != wantMoves {
		t.Fatalf("Sticky(g): sum of squares %d, moves %d; brute force %d, %d", gotSq, gotMoves, wantSq, wantMoves)
	}
	again, err := assign.Sticky{}.Assign(assigntest.Shuffled(g).Draw(t, "shuffled"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(sticky, again); diff != "" {
		t.Fatalf("Sticky(shuffled g) mismatch (-original +shuffled):\n%s", diff)
	}
	result := sticky
	if c.coop {
		plan, err := assign.CooperativeSticky{}.Plan(g)
		if err != nil {
			t.Fatal(err)
		}
		compareTargets(t, g, sticky, plan.Target)
		checkPlan(t, g, plan)
		if !c.changed && c.last != nil {
			// The follow-up round: nothing changed since the last one.
			for id, pending := range plan.Pending {
				if len(pending) > 0 {
					t.Fatalf("follow-up round still withholds %v from %q", pending, id)
				}
			}
			if diff := cmp.Diff(c.last.Target, plan.Assignment); diff != "" {
				t.Fatalf("follow-up round missed the target (-target +follow-up):\n%s\nfirst round %+v\nfollow-up %+v", diff, c.lastG, g)
			}
		}
		c.last = plan
		c.lastG = g
		c.lastG.Members = slices.Clone(g.Members)
		result = plan.Assignment
	}
	c.gen++
	c.g = assign.Carry(c.g, result, c.gen)
	c.changed = false
}

func (c *churn) actions() map[string]func(*rapid.T) {
	return map[string]func(*rapid.T){
		"join": func(t *rapid.T) { c.join(t); c.round(t) },
		"leave": func(t *rapid.T) {
			if len(c.g.Members) < 2 {
				t.Skip("last member")
			}
			i := rapid.IntRange(0, len(c.g.Members)-1).Draw(t, "leaver")
			c.g.Members = slices.Delete(slices.Clone(c.g.Members), i, i+1)
			c.changed = true
			c.round(t)
		},
		"subscribe": func(t *rapid.T) {
			m := c.member(t)
			topic := rapid.SampledFrom([]string{"t0", "t1"}).Draw(t, "topic")
			if slices.Contains(m.Topics, topic) {
				t.Skip("already subscribed")
			}
			m.Topics = append(slices.Clone(m.Topics), topic)
			c.changed = true
			c.round(t)
		},
		"unsubscribe": func(t *rapid.T) {
			m := c.member(t)
			if len(m.Topics) == 0 {
				t.Skip("no subscription")
			}
			i := rapid.IntRange(0, len(m.Topics)-1).Draw(t, "which")
			m.Topics = slices.Delete(slices.Clone(m.Topics), i, i+1)
			c.changed = true
			c.round(t)
		},
		"grow": func(t *rapid.T) {
			topic := rapid.SampledFrom([]string{"t0", "t1"}).Draw(t, "topic")
			by := int32(rapid.IntRange(1, 3).Draw(t, "by"))
			if c.total()+by > 8 {
				t.Skip("too many partitions to enumerate")
			}
			topics := map[string]int32{"t0": c.g.Topics["t0"], "t1": c.g.Topics["t1"]}
			topics[topic] += by
			c.g.Topics = topics
			c.setRacks()
			c.changed = true
			c.round(t)
		},
		"rack change": func(t *rapid.T) {
			c.member(t).Rack = rapid.SampledFrom([]string{"", "a", "b"}).Draw(t, "rack")
			c.changed = true
			c.round(t)
		},
		"static restart": func(t *rapid.T) {
			m := c.member(t)
			if m.InstanceID == "" {
				t.Skip("dynamic member")
			}
			m.ID = fmt.Sprintf("m%d", c.next) // same instance, new member.id, same Owned
			c.next++
			c.changed = true
			c.round(t)
		},
		"zombie": func(t *rapid.T) {
			if len(c.g.Members) < 2 {
				t.Skip("last member")
			}
			i := rapid.IntRange(0, len(c.g.Members)-1).Draw(t, "zombie")
			c.zombies = append(c.zombies, c.g.Members[i])
			c.g.Members = slices.Delete(slices.Clone(c.g.Members), i, i+1)
			c.changed = true
			c.round(t)
		},
		"zombie rejoin": func(t *rapid.T) {
			// It comes back listing what it had, at the generation it
			// had it, however many rebalances it missed.
			if len(c.zombies) == 0 || len(c.g.Members) >= 4 {
				t.Skip("no zombie, or group full")
			}
			i := rapid.IntRange(0, len(c.zombies)-1).Draw(t, "rejoiner")
			c.g.Members = append(slices.Clone(c.g.Members), c.zombies[i])
			c.zombies = slices.Delete(c.zombies, i, i+1)
			c.changed = true
			c.round(t)
		},
		"tied claim": func(t *rapid.T) {
			// Another member lists one of a's partitions at a's
			// generation: a tie at the newest generation.
			a, b := c.member(t), c.member(t)
			if a == b || len(a.Owned) == 0 {
				t.Skip("no second claimant")
			}
			tp := rapid.SampledFrom(a.Owned).Draw(t, "tied")
			if slices.Contains(b.Owned, tp) {
				t.Skip("already listed")
			}
			b.Owned, b.Generation = append(slices.Clone(b.Owned), tp), a.Generation
			c.changed = true
			c.round(t)
		},
		"settle": func(t *rapid.T) { c.round(t) },
		"":       func(t *rapid.T) {},
	}
}

func TestStickyChurn(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := newChurn(t, false)
		c.round(t)
		t.Repeat(c.actions())
	})
}

func TestCooperativeStickyChurn(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := newChurn(t, true)
		c.round(t)
		t.Repeat(c.actions())
	})
}
