package kafkago_test

// End-to-end scenarios; the harness, and what it guarantees, is in
// harness_test.go.

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/assigncalc/assigncalc/adapters/franz"
	"github.com/assigncalc/assigncalc/adapters/kafkago"
	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/wire"
)

// moved lists the partitions that passed from one member to another, both
// in the group before and after (nil when none).
func moved(prev, now snapshot) []string {
	prevOwner := make(map[assign.TopicPartition]string)
	for name, id := range prev.IDs {
		for _, tp := range prev.Assignment[id] {
			prevOwner[tp] = name
		}
	}
	var out []string
	for name, id := range now.IDs {
		if _, old := prev.IDs[name]; !old {
			continue
		}
		for _, tp := range now.Assignment[id] {
			if was, ok := prevOwner[tp]; ok && was != name {
				if _, stayed := now.IDs[was]; stayed {
					out = append(out, fmt.Sprintf("%s: %s -> %s", tp, was, name))
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// ledger records the rounds a set of balancers led: who led and what the
// strategy returned.
type ledger struct {
	mu     sync.Mutex
	rounds []round
}

type round struct {
	by     string // the member whose balancer led
	result assign.Assignment
}

// take returns the rounds recorded since the last take.
func (l *ledger) take() []round {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.rounds
	l.rounds = nil
	return r
}

// recorded is a strategy that writes the rounds member by leads into a
// ledger.
type recorded struct {
	assign.Strategy
	l  *ledger
	by string
}

func (r recorded) Assign(g assign.Group) (assign.Assignment, error) {
	a, err := r.Strategy.Assign(g)
	if err == nil {
		r.l.mu.Lock()
		r.l.rounds = append(r.l.rounds, round{r.by, a})
		r.l.mu.Unlock()
	}
	return a, err
}

func balancer(t *testing.T, s assign.Strategy, opts ...kafkago.Option) *kafkago.GroupBalancer {
	t.Helper()
	opts = append(opts, kafkago.OnError(func(err error) { t.Errorf("OnError: %v", err) }))
	b, err := kafkago.Balancer(s, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// churn runs the story every strategy goes through with kafka-go Readers:
// r0, r1 and r2 join one after the other, r1 leaves, r3 joins, and r0, the
// leader, leaves. After every step the group must settle on exactly what s
// computes for the group as it was before the step (members, and for
// sticky what each owned and in which generation), that must be what our
// leader computed last, and the records produced then must all be
// processed, by their partitions' owners, before the next step. It returns
// the snapshots after each step.
func churn(t *testing.T, s assign.Strategy) []snapshot {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	g := newGroup(ctx, t)
	var l ledger
	bals := make(map[string]*kafkago.GroupBalancer) // reader name => its balancer

	// For sticky, each Reader's balancer must also have learnt from the
	// Reader's log what the coordinator says it holds, and in which
	// generation: what its next JoinGroup will claim.
	learnt := func(now snapshot) error {
		if s.Name() != "sticky" {
			return nil
		}
		for name, id := range now.IDs {
			ud, err := bals[name].UserData()
			if err != nil {
				return err
			}
			d, err := wire.DecodeStickyUserData(ud)
			if err != nil {
				return fmt.Errorf("%s: user data %x: %v", name, ud, err)
			}
			if d.Generation != now.Generation || !slices.Equal(d.Previous, now.Assignment[id]) {
				return fmt.Errorf("%s's balancer remembers %v in generation %d; the coordinator says %v in %d", name, d.Previous, d.Generation, now.Assignment[id], now.Generation)
			}
		}
		return nil
	}

	var steps []snapshot
	prev := snapshot{Generation: -1}
	// kfake, like Kafka, keeps the leader until it leaves: r0 leads
	// until it leaves, then r2 or r3.
	step := func(what string, leader func(string) bool, do func()) {
		t.Helper()
		start := time.Now()
		do()
		now := g.settle(what, func(now snapshot) error {
			if err := exactly(s, prev)(now); err != nil {
				return err
			}
			return learnt(now)
		})
		settled := time.Since(start)
		rounds := l.take()
		if len(rounds) == 0 {
			t.Fatalf("%s: our leader ran no round", what)
		}
		last := rounds[len(rounds)-1]
		if d := cmp.Diff(last.result, now.Assignment, cmpopts.EquateEmpty()); d != "" {
			t.Errorf("%s: the coordinator holds another assignment than our leader's last round (-leader +coordinator):\n%s", what, d)
		}
		if !leader(last.by) {
			t.Errorf("%s: led by %s", what, last.by)
		}
		g.produce(len(steps), now)
		g.drain(what)
		t.Logf("%s: generation %d, %d rounds led by %s, settled in %v, moved %v", what, now.Generation, len(rounds), last.by, settled.Round(time.Millisecond), moved(prev, now))
		steps = append(steps, now)
		prev = now
	}
	join := func(name string) func() {
		return func() {
			bals[name] = balancer(t, recorded{s, &l, name})
			g.startReader(name, bals[name])
		}
	}
	r0 := func(by string) bool { return by == "r0" }
	notR0 := func(by string) bool { return by == "r2" || by == "r3" }

	step("r0 joins", r0, join("r0"))
	step("r1 joins", r0, join("r1"))
	step("r2 joins", r0, join("r2"))
	step("r1 leaves", r0, func() { g.leave("r1") })
	step("r3 joins", r0, join("r3"))
	step("r0 (the leader) leaves", notR0, func() { g.leave("r0") })
	g.checkRecords()
	return steps
}

func TestRangeAndRoundRobinFollowMembership(t *testing.T) {
	for _, s := range []assign.Strategy{assign.Range{}, assign.RoundRobin{}} {
		t.Run(s.Name(), func(t *testing.T) {
			t.Parallel()
			churn(t, s)
		})
	}
}

// TestStickyKeepsWhatStays checks Kafka's promise for sticky on top of the
// exact comparison churn makes: when a member leaves, every partition of
// the members that stay stays where it is, the leader's own included; when
// one joins, the others only give partitions up, to it. The history
// travels in the members' user data, so it survives the leader leaving.
func TestStickyKeepsWhatStays(t *testing.T) {
	t.Parallel()
	steps := churn(t, assign.Sticky{})
	if t.Failed() {
		return
	}
	for i, what := range []string{3: "r1 leaves", 4: "r3 joins", 5: "r0 (the leader) leaves"} {
		if what == "" {
			continue
		}
		if m := moved(steps[i-1], steps[i]); m != nil {
			t.Errorf("%s: partitions moved between members that stayed: %v", what, m)
		}
	}
}

// TestRangeRacks checks that racks travel end to end: kfake puts every
// broker in rack "krack", which kafka-go's metadata carries to the leader
// in each partition's replicas, and Readers declare their racks with
// kafkago.Rack. The strategy must be handed both, and the group must settle
// on what assign.Range computes with them. (With one rack for every
// partition, Kafka's rule leaves rack-aware assignment off, so the answer
// is the rack-less one; TestRacks shows racks changing it.)
func TestRangeRacks(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	g := newGroup(ctx, t)
	seen := sawGroup{Strategy: assign.Range{}}
	racks := map[string]string{"r0": "elsewhere", "r1": "krack"}
	for _, name := range []string{"r0", "r1"} {
		g.startReader(name, balancer(t, &seen, kafkago.Rack(racks[name])))
	}

	now := g.settle("r0 and r1 join", func(now snapshot) error {
		ag := wantGroup(snapshot{}, now)
		ag.PartitionRacks = make(map[string][][]string)
		for topic, n := range e2eTopics {
			for range n {
				ag.PartitionRacks[topic] = append(ag.PartitionRacks[topic], []string{"krack"})
			}
		}
		for name, id := range now.IDs {
			i := slices.IndexFunc(ag.Members, func(m assign.Member) bool { return m.ID == id })
			ag.Members[i].Rack = racks[name]
		}
		want, err := assign.Range{}.Assign(ag)
		if err != nil {
			return err
		}
		if d := cmp.Diff(want, now.Assignment, cmpopts.EquateEmpty()); d != "" {
			return fmt.Errorf("range(g) mismatch (-want +got):\n%s", d)
		}
		got := seen.last()
		slices.SortFunc(got.Members, func(a, b assign.Member) int { return strings.Compare(a.ID, b.ID) })
		if d := cmp.Diff(ag, got, cmpopts.EquateEmpty()); d != "" {
			return fmt.Errorf("the leader's strategy was given another group (-want +got):\n%s", d)
		}
		return nil
	})
	t.Logf("settled on %v", now.Assignment)
	g.checkRecords()
}

// sawGroup is a strategy that keeps the last group it was given. It
// embeds the interface, not assign.Range, whose unexported fast path
// assign.AssignPacked would run instead of this Assign.
type sawGroup struct {
	assign.Strategy
	mu sync.Mutex
	g  assign.Group
}

func (s *sawGroup) Assign(g assign.Group) (assign.Assignment, error) {
	s.mu.Lock()
	s.g = g
	s.mu.Unlock()
	return s.Strategy.Assign(g)
}

func (s *sawGroup) last() assign.Group {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.g
	g.Members = slices.Clone(g.Members)
	return g
}

// TestMixedWithFranzGo puts kafka-go Readers using our sticky in one group
// with franz-go clients using our sticky through adapters/franz, or kgo's
// own sticky balancer. kfake, like Kafka, keeps the leader until it leaves.
// The steps are laid out so that franz-go leads (f0 first), then kafka-go
// (f0 leaves, only Readers remain). With adapters/franz the group settles
// each time on exactly what assign.Sticky computes and nothing moves
// between members that stay; with kgo's own sticky, see below.
//
// Then f1 joins under a kafka-go leader, which cannot read f1's
// subscription (version 3; kafka-go reads version 0 and refuses the rest:
// "unable to read metadata for member"). The Reader leaves and rejoins
// with a new member ID, as does the next kafka-go leader, until f1 leads.
// The test checks that this is what happens, and that the group then
// settles on a valid, balanced assignment. Since the Readers left and
// rejoined, the group may pass through generations without one of them,
// so partitions may move between them in this step.
func TestMixedWithFranzGo(t *testing.T) {
	for _, tt := range []struct {
		name string
		bal  func(*ledger, string) kgo.GroupBalancer
	}{
		{"adapters/franz", func(l *ledger, name string) kgo.GroupBalancer {
			return franz.MustBalancer(recorded{assign.Sticky{}, l, name})
		}},
		// kgo's own sticky: its answers are its own, so the steps it
		// leads are checked for validity and balance only. Nor can
		// they keep what stays: an eager kgo member forgets what it
		// owned when it revokes before rejoining (kgo's consumer_group.go
		// sets lastAssigned to nil), so it claims nothing, and the
		// leader may hand a Reader's partition to it.
		{"kgo.StickyBalancer", func(*ledger, string) kgo.GroupBalancer { return kgo.StickyBalancer() }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			mixed(t, tt.name == "adapters/franz", tt.bal)
		})
	}
}

func mixed(t *testing.T, oursLeadsFranz bool, franzBalancer func(*ledger, string) kgo.GroupBalancer) {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	g := newGroup(ctx, t)
	var ours, theirs ledger // rounds led by kafka-go and by franz-go members using our sticky
	reader := func(name string) func() {
		return func() { g.startReader(name, balancer(t, recorded{assign.Sticky{}, &ours, name})) }
	}
	client := func(name string) func() {
		return func() { g.startFranz(name, franzBalancer(&theirs, name)) }
	}

	prev := snapshot{Generation: -1}
	step := func(what, wantLeader string, do func(), check func(prev, now snapshot) error, stayed bool) {
		t.Helper()
		do()
		now := g.settle(what, func(now snapshot) error { return check(prev, now) })
		byKafkaGo, byFranz := len(ours.take()), len(theirs.take())
		leader := "kafka-go"
		if byKafkaGo == 0 {
			leader = "franz-go" // kgo's own sticky leaves no ledger
		}
		if leader != wantLeader || wantLeader == "franz-go" && oursLeadsFranz && byFranz == 0 {
			t.Errorf("%s: led by %s (rounds: %d by kafka-go, %d by franz-go with ours); want %s", what, leader, byKafkaGo, byFranz, wantLeader)
		}
		if m := moved(prev, now); m != nil && stayed {
			t.Errorf("%s: partitions moved between members that stayed: %v", what, m)
		}
		t.Logf("%s: led by %s, generation %d, moved %v", what, leader, now.Generation, moved(prev, now))
		prev = now
	}
	exact := func(prev, now snapshot) error { return exactly(assign.Sticky{}, prev)(now) }
	valid := func(prev, now snapshot) error {
		ag := wantGroup(prev, now)
		if err := assign.Verify(ag, now.Assignment); err != nil {
			return err
		}
		return assign.VerifyBalanced(ag, now.Assignment)
	}
	franzLed := valid
	if oursLeadsFranz {
		franzLed = exact
	}

	step("f0 joins", "franz-go", client("f0"), franzLed, true)
	step("r0 joins", "franz-go", reader("r0"), franzLed, oursLeadsFranz)
	step("r1 joins", "franz-go", reader("r1"), franzLed, oursLeadsFranz)
	step("f0 leaves", "kafka-go", func() { g.leave("f0") }, exact, true)
	step("f1 joins under a kafka-go leader", "franz-go", client("f1"), valid, false)

	g.mu.Lock()
	fails := slices.Clone(g.joinFails)
	g.mu.Unlock()
	if !slices.ContainsFunc(fails, func(s string) bool { return strings.Contains(s, "unable to read metadata for member") }) {
		t.Errorf("no kafka-go leader failed to read f1's metadata; join failures: %q", fails)
	}
	t.Logf("kafka-go join failures: %q", fails)
	g.checkRecords()
}
