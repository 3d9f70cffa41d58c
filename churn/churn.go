package churn

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/coordinator"
)

// ChangeKind says what a [Change] does.
type ChangeKind int8

// The kinds of [Change].
const (
	ChangeLeave     ChangeKind = iota + 1 // a member leaves the group
	ChangeJoin                            // a member joins, or rejoins
	ChangeGrow                            // a topic gets a new partition count
	ChangeSubscribe                       // a member changes its subscription
	ChangeRestart                         // a member restarts
	ChangeStrategy                        // the group switches strategies
)

// String returns the kind's name: "leave", "join", "grow", "subscribe",
// "restart" or "strategy".
func (k ChangeKind) String() string {
	switch k {
	case ChangeLeave:
		return "leave"
	case ChangeJoin:
		return "join"
	case ChangeGrow:
		return "grow"
	case ChangeSubscribe:
		return "subscribe"
	case ChangeRestart:
		return "restart"
	case ChangeStrategy:
		return "strategy"
	}
	return fmt.Sprintf("ChangeKind(%d)", int8(k))
}

// Given says which of a joining member's optional fields a [Change] sets;
// the others are kept from the member's last time in the group, or take
// their defaults.
type Given uint8

// The fields a join may give.
const (
	GivenTopics   Given = 1 << iota // Change.Topics
	GivenInstance                   // Change.InstanceID ("" makes the member dynamic)
	GivenRack                       // Change.Rack
)

// Change is one event in the life of a group.
type Change struct {
	Kind ChangeKind

	// Member names the member concerned. For a leave, a subscription
	// change and a restart it is the member's ID or, when no member has
	// that ID, its group.instance.id. For a join it is the new member's ID.
	Member string

	// Topics is the subscription of a subscription change, and of a join
	// when Given has GivenTopics.
	Topics []string

	// TopicRegex is, beside Topics, the subscription by pattern of a
	// subscription change, and of a join when Given has GivenTopics (see
	// [assign.Member].TopicRegex and regex.go); "" for none.
	TopicRegex string

	// InstanceID and Rack are the joining member's group.instance.id and
	// client.rack when Given says so.
	InstanceID string
	Rack       string
	Given      Given

	// Topic and Partitions are, for a growth, the topic and its new
	// partition count. A topic missing from the metadata is created.
	Topic      string
	Partitions int32

	// Racks lists, for a growth, the racks of the replicas of each new
	// partition, in partition order; nil when unknown.
	Racks [][]string

	// NewID is, for the restart of a dynamic member, the member.id it
	// comes back with; "" keeps its ID (which a real consumer does not
	// do: it gets a new one from the coordinator).
	NewID string

	// Strategy is, for a strategy switch, the strategy the group
	// switches to.
	Strategy assign.Strategy
}

// String describes c in a few words, such as "leave c1" or "grow t1 to 8".
func (c Change) String() string {
	switch c.Kind {
	case ChangeGrow:
		return fmt.Sprintf("grow %s to %d", c.Topic, c.Partitions)
	case ChangeSubscribe:
		return fmt.Sprintf("subscribe %s to %s", c.Member, declared(c.Topics, c.TopicRegex))
	case ChangeStrategy:
		if c.Strategy == nil {
			return "switch to no strategy"
		}
		return "switch to " + c.Strategy.Name()
	}
	return c.Kind.String() + " " + c.Member
}

// Step is what one change did to a group under one strategy.
type Step struct {
	// Change is the change applied; the zero Change for the group's
	// first rebalance ([NewChurn]).
	Change Change

	// Group is the group after the step, every member owning what After
	// gives it.
	Group assign.Group

	// Before and After are the stable assignments before and after the
	// step. For the first rebalance, Before is what the members' claims
	// say they owned ([Owned]).
	Before, After assign.Assignment

	// Rebalances counts the rebalances the change starts: none (a static
	// member's restart, a change nobody's subscription sees), one, or two
	// (a dynamic member's restart). Rounds counts the assignments the
	// leader computed over them; for a server-assigned strategy
	// ([ServerAssigned]), the rounds of heartbeats [Reconcile] takes.
	Rebalances int
	Rounds     int

	// Revoked counts the partitions members gave up along the way:
	// everything they owned, at every rebalance, for an eager strategy;
	// what each round took away for a cooperative one; for a share group
	// ([assign.Share]), what each member's new target lacks of its
	// previous one, a partition counted once per member.
	Revoked int

	// Received counts, for a share group, what each member's new target
	// holds that its previous one lacked, a partition counted once per
	// member; 0 for the other protocols, whose Moves say it.
	Received int

	// Stops lists, for a server-assigned strategy, the partitions one
	// member revoked and another received heartbeat rounds later
	// ([Stops]), rounds numbered across the step; nil otherwise.
	Stops []coordinator.Stop

	// Moves lists the partitions whose owner in After differs from their
	// owner in Before, sorted by partition: exactly what [Moved] counts.
	// It is nil for a share group, where a partition may have several
	// holders (see Received).
	Moves []assign.Move

	// Notes says, in English, what the model assumed (a rejoining
	// member's kept subscription, a restart without rebalance, ...).
	Notes []string
}

// Affected counts the members of the group after the step whose
// partitions differ between Before and After.
func (s Step) Affected() int {
	n := 0
	for _, m := range s.Group.Members {
		if !slices.Equal(s.Before[m.ID], s.After[m.ID]) {
			n++
		}
	}
	return n
}

// ErrPartitionsDecrease is wrapped in an [*InputError] when a growth would
// lower a topic's partition count: Kafka cannot remove partitions.
var ErrPartitionsDecrease = errors.New("partition count cannot decrease")

// ErrNotStable is returned by [Churn.Apply] and [NewChurn] when a
// cooperative strategy still withholds partitions after [MaxChurnRounds]
// rounds of one rebalance.
var ErrNotStable = errors.New("assign: rebalance not stable")

// MaxChurnRounds bounds the rounds of one rebalance; cooperative-sticky
// settles in two.
const MaxChurnRounds = 5

// Churn follows a group through a sequence of [Change]s under one
// strategy, carrying each stable assignment forward as the members' Owned
// at a rising generation, as real consumers report it when they rejoin.
// The command line's simulate and vote --upgrade use it, and the state
// machine of its tests drives it with random changes against a model of
// its own; the zero value is not usable: start with [NewChurn].
//
// The rules, stated once:
//
//  1. A leave removes the member; it revokes what it had (a dynamic
//     member sends LeaveGroup on close; a static one sends none, and the
//     coordinator removes it when session.timeout.ms expires, KIP-345).
//     The model remembers it, so that a later join of the same member.id,
//     or of the same group.instance.id, brings back its subscription,
//     instance id and rack unless the join says otherwise.
//  2. A join adds a member owning nothing. A member seen for the first
//     time subscribes to every topic of the metadata unless the join says
//     which.
//  3. A restart of a static member (one with a group.instance.id) within
//     its session timeout starts no rebalance: the coordinator hands it
//     its cached assignment (KIP-345). The member keeps its ID here: the
//     coordinator gives it a new member.id, but the assignment follows
//     the instance, and keeping the ID keeps the steps comparable.
//  4. A restart of a dynamic member is a leave and a join: two
//     rebalances. It comes back with a new member.id, as a Java consumer
//     does ([Change.NewID]), owning nothing; its subscription and rack
//     stay.
//  5. A growth of a topic starts a rebalance only if its partition count
//     changes and some member subscribes to it, by name or by a pattern
//     that matches it (regex.go): the leader's metadata refresh watches
//     the subscribed topics only. Counts never decrease
//     (Kafka cannot remove partitions).
//  6. A subscription change starts a rebalance only if the set of topics
//     changes.
//  7. Each rebalance runs rounds until the group is stable: one for an
//     eager strategy; for a cooperative one, rounds until none withholds
//     a partition (two when partitions move, KIP-429). After each round
//     every member owns what it got, at a generation one higher. Eager
//     members revoke everything they own at every rebalance; cooperative
//     ones revoke what the round takes away. A server-assigned strategy
//     (the consumer protocol, KIP-848) computes one target per rebalance,
//     which the members reach by heartbeats ([Reconcile]): they revoke
//     what the target takes away, and receive a partition once its
//     previous owner has released it.
//     A share group (KIP-932, [assign.Share]) computes one target per
//     rebalance too, from the members' current targets, and every
//     member takes its own whole at its next heartbeat: one round, with
//     no wait for a partition's other holders (see share.go).
//  8. Every round is checked with [Check]; a strategy that breaks an
//     invariant is an error.
//  9. A strategy switch (the coordinator's vote picked another strategy,
//     as in a rolling upgrade: see [Rollout]) is one rebalance of the
//     same members under the new strategy, from what they own; the
//     partitions it moves between members that stay move for
//     [assign.ReasonStrategy].
type Churn struct {
	strategy   assign.Strategy
	group      assign.Group      // members own current at generation; subscriptions as declared
	view       assign.Group      // group with every pattern resolved (regex.go)
	current    assign.Assignment // the stable assignment after the last step
	generation int32             // the generation of the last round
	departed   []assign.Member   // members that left, without their claims, newest last
}

// NewChurn validates g and rebalances it with s from the members' own
// claims (Owned at Generation), returning the churn and that first step.
// Its errors are an [*InputError] for an invalid g, the strategy's own
// errors, and errors wrapping [ErrInvalidAssignment] or [ErrNotStable] for
// a strategy that misbehaves.
func NewChurn(s assign.Strategy, g assign.Group) (*Churn, Step, error) {
	view, err := resolve(s, g)
	if err != nil {
		return nil, Step{}, err
	}
	if err := view.Validate(); err != nil {
		return nil, Step{}, err
	}
	before, err := assign.Owned(view)
	if err != nil {
		return nil, Step{}, err
	}
	if s.Protocol() == assign.Share {
		before = shareStart(view)
	}
	c := &Churn{strategy: s, current: before}
	for _, m := range g.Members {
		c.generation = max(c.generation, m.Generation)
	}
	step := Step{Before: before, Rebalances: 1, Notes: patternNotes(g)}
	deferred := make(map[assign.TopicPartition]bool)
	final, err := c.rebalance(view, &step, deferred)
	if err != nil {
		return nil, Step{}, err
	}
	c.finish(g, view, final, &step, deferred, stepFacts{})
	return c, step, nil
}

// Group returns the group after the last step, every member owning what
// [Churn.Assignment] gives it, a member subscribed by pattern subscribed
// to the topics it resolves to. It shares memory with the churn: do not
// modify it.
func (c *Churn) Group() assign.Group { return c.view }

// Assignment returns the stable assignment after the last step.
func (c *Churn) Assignment() assign.Assignment { return c.current }

// Apply applies ch, runs the rebalances it starts, and returns the step.
// A change Kafka's rules refuse (an unknown member, a member joining
// twice, a partition count that decreases) or that leaves an invalid
// group is an [*InputError], and leaves the churn as it was.
func (c *Churn) Apply(ch Change) (step Step, err error) {
	generation, departed, strategy := c.generation, slices.Clone(c.departed), c.strategy
	defer func() {
		if err != nil {
			c.generation, c.departed, c.strategy = generation, departed, strategy
		}
	}()
	if err := checkPattern(ch); err != nil {
		return Step{}, err
	}
	next, phases, facts, notes, err := c.change(ch)
	if err != nil {
		return Step{}, err
	}
	view, err := resolve(c.strategy, next)
	if err != nil {
		return Step{}, err
	}
	if err := view.Validate(); err != nil {
		return Step{}, err
	}
	step = Step{Change: ch, Before: c.current, Rebalances: len(phases), Notes: notes}
	cur := c.current
	deferred := make(map[assign.TopicPartition]bool)
	for _, members := range phases {
		g := next
		g.Members = members
		if g, err = resolve(c.strategy, g); err != nil {
			return Step{}, err
		}
		if cur, err = c.rebalance(assign.Carry(g, cur, c.generation), &step, deferred); err != nil {
			return Step{}, err
		}
	}
	if len(phases) == 0 {
		cur = make(assign.Assignment, len(next.Members))
		for _, m := range next.Members {
			cur[m.ID] = c.current[m.ID]
		}
	}
	c.finish(next, view, cur, &step, deferred, facts)
	return step, nil
}

// finish records final as the state after a step on g, whose patterns
// resolve to view.
func (c *Churn) finish(g, view assign.Group, final assign.Assignment, step *Step, deferred map[assign.TopicPartition]bool, facts stepFacts) {
	c.group = assign.Carry(g, final, c.generation)
	c.view = c.group
	if hasPattern(g) {
		c.view = assign.Carry(view, final, c.generation)
	}
	c.current = final
	step.Group = c.view
	step.After = final
	if c.strategy.Protocol() != assign.Share {
		step.Moves = moves(c.strategy, c.view, step.Before, final, deferred, facts)
	}
}

// rebalance runs rounds of c's strategy from g, whose members carry their
// claims, until no partition is withheld, adding to step's counts and
// marking in deferred the partitions a round withheld.
func (c *Churn) rebalance(g assign.Group, step *Step, deferred map[assign.TopicPartition]bool) (assign.Assignment, error) {
	s := c.strategy
	if s.Protocol() == assign.ServerAssigned {
		return c.reconcileRebalance(g, step, deferred)
	}
	if s.Protocol() == assign.Share {
		return c.shareRebalance(g, step)
	}
	if s.Protocol() == assign.Eager {
		for _, m := range g.Members {
			step.Revoked += len(m.Owned)
		}
	}
	for range MaxChurnRounds {
		round, plan, err := assign.AssignChecked(s, g)
		if err != nil {
			return nil, err
		}
		whole := true
		switch {
		case plan != nil:
			for _, ps := range plan.Pending {
				for _, tp := range ps {
					deferred[tp] = true
					whole = false
				}
			}
		case s.Protocol() == assign.Cooperative:
			// Without a plan, a round that is not a whole assignment
			// withholds something.
			whole = assign.Verify(g, round) == nil
		}
		if s.Protocol() == assign.Cooperative {
			for _, m := range g.Members {
				for _, tp := range m.Owned {
					if _, kept := slices.BinarySearchFunc(round[m.ID], tp, assign.TopicPartition.Compare); !kept {
						step.Revoked++
					}
				}
			}
		}
		step.Rounds++
		c.generation++
		if whole {
			return round, nil
		}
		g = assign.Carry(g, round, c.generation)
	}
	return nil, fmt.Errorf("%w: %s still withholds partitions after %d rounds", ErrNotStable, s.Name(), MaxChurnRounds)
}

// stepFacts is what a change tells the reasons of moves.
type stepFacts struct {
	returned  string // ID of a static member that rejoined, or ""
	restarted string // old ID of a dynamic member that restarted, or ""
	switched  bool   // the group switched strategies
}

// find returns the index in c.group of the member whose ID is ref or,
// when none has that ID, whose group.instance.id is ref; -1 if none.
func (c *Churn) find(ref string) int {
	if i := slices.IndexFunc(c.group.Members, func(m assign.Member) bool { return m.ID == ref }); i >= 0 {
		return i
	}
	if ref == "" {
		return -1
	}
	return slices.IndexFunc(c.group.Members, func(m assign.Member) bool { return m.InstanceID == ref })
}

func unknownMember(ch Change) error {
	return &assign.InputError{Member: ch.Member, Index: -1, Partition: -1, Err: fmt.Errorf("%w: %q", assign.ErrUnknownMember, ch.Member)}
}

// change applies ch to the group's shape and returns the group after it
// (members still owning their claims), the member lists of the rebalances
// it starts, the static members it brings back, and notes on what it
// assumed.
func (c *Churn) change(ch Change) (next assign.Group, phases [][]assign.Member, facts stepFacts, notes []string, err error) {
	next = c.group
	next.Members = slices.Clone(c.group.Members)
	one := func() [][]assign.Member { return [][]assign.Member{next.Members} }
	i := -1 // the member a leave, a subscription change or a restart names
	if ch.Kind == ChangeLeave || ch.Kind == ChangeSubscribe || ch.Kind == ChangeRestart {
		if i = c.find(ch.Member); i < 0 {
			return next, nil, stepFacts{}, nil, unknownMember(ch)
		}
	}
	switch ch.Kind {
	case ChangeLeave:
		m := next.Members[i]
		if m.InstanceID != "" {
			notes = append(notes, fmt.Sprintf("%s is static (group.instance.id %q): it sends no LeaveGroup, so it leaves when session.timeout.ms expires", m.ID, m.InstanceID))
		}
		m.Owned, m.Generation = nil, -1
		c.departed = append(slices.DeleteFunc(c.departed, func(d assign.Member) bool { return d.ID == m.ID }), m)
		next.Members = slices.Delete(next.Members, i, i+1)
		return next, one(), stepFacts{}, notes, nil

	case ChangeJoin:
		if slices.ContainsFunc(next.Members, func(m assign.Member) bool { return m.ID == ch.Member }) {
			return next, nil, stepFacts{}, nil, &assign.InputError{Member: ch.Member, Index: -1, Partition: -1, Err: fmt.Errorf("%w: %q is already in the group", assign.ErrDuplicateMemberID, ch.Member)}
		}
		m, note, back := c.joiner(ch)
		notes = append(notes, note)
		if back && m.InstanceID != "" {
			facts.returned = m.ID
		}
		next.Members = append(next.Members, m)
		return next, one(), facts, notes, nil

	case ChangeSubscribe:
		r, err := resubscribe(&next.Members[i], ch, next.Topics)
		if err != nil || r.unchanged {
			return next, nil, stepFacts{}, r.notes, err
		}
		return next, one(), stepFacts{}, r.notes, nil

	case ChangeGrow:
		return c.grow(ch, next)

	case ChangeStrategy:
		if ch.Strategy == nil {
			return next, nil, stepFacts{}, nil, &assign.InputError{Index: -1, Partition: -1, Err: fmt.Errorf("%w: a switch needs a strategy", assign.ErrUnknownStrategy)}
		}
		if err := shareSwitch(c.strategy, ch.Strategy); err != nil {
			return next, nil, stepFacts{}, nil, err
		}
		c.strategy = ch.Strategy
		return next, one(), stepFacts{switched: true}, nil, nil

	case ChangeRestart:
		m := next.Members[i]
		if m.InstanceID != "" {
			notes = append(notes, fmt.Sprintf("%s is static (group.instance.id %q): back within session.timeout.ms, it gets its assignment again with no rebalance (KIP-345)", m.ID, m.InstanceID))
			return next, nil, stepFacts{}, notes, nil
		}
		id := m.ID
		if ch.NewID != "" && ch.NewID != m.ID {
			if slices.ContainsFunc(next.Members, func(o assign.Member) bool { return o.ID == ch.NewID }) {
				return next, nil, stepFacts{}, nil, &assign.InputError{Member: ch.NewID, Index: -1, Partition: -1, Err: fmt.Errorf("%w: %q is already in the group", assign.ErrDuplicateMemberID, ch.NewID)}
			}
			id = ch.NewID
			notes = append(notes, fmt.Sprintf("%s is dynamic: it leaves (LeaveGroup on close) and rejoins as %s, a new member.id: two rebalances", m.ID, id))
		} else {
			notes = append(notes, fmt.Sprintf("%s is dynamic: it leaves (LeaveGroup on close) and rejoins keeping its member.id: two rebalances", m.ID))
		}
		facts.restarted = m.ID
		without := slices.Delete(slices.Clone(next.Members), i, i+1)
		next.Members[i] = assign.Member{ID: id, Rack: m.Rack, Topics: m.Topics, TopicRegex: m.TopicRegex, Generation: -1}
		return next, [][]assign.Member{without, next.Members}, facts, notes, nil
	}
	return next, nil, stepFacts{}, nil, fmt.Errorf("assign: unknown change kind %d", ch.Kind)
}

// joiner builds the member ch brings in, from what ch gives and, for the
// rest, from the member's last time in the group (same ID, else same
// group.instance.id) or the defaults. It reports what it assumed, and
// whether the member came back.
func (c *Churn) joiner(ch Change) (assign.Member, string, bool) {
	m := assign.Member{ID: ch.Member, InstanceID: ch.InstanceID, Rack: ch.Rack, Topics: slices.Clone(ch.Topics), TopicRegex: ch.TopicRegex, Generation: -1}
	k := slices.IndexFunc(c.departed, func(d assign.Member) bool { return d.ID == ch.Member })
	if k < 0 && ch.Given&GivenInstance != 0 && ch.InstanceID != "" {
		k = slices.IndexFunc(c.departed, func(d assign.Member) bool { return d.InstanceID == ch.InstanceID })
	}
	if k < 0 {
		if ch.Given&GivenTopics == 0 {
			m.Topics, m.TopicRegex = slices.Sorted(maps.Keys(c.group.Topics)), ""
			return m, fmt.Sprintf("%s is new and subscribes to every topic (%s)", m.ID, topicList(m.Topics, ", ")), false
		}
		if note := patternNote(m, c.group.Topics); note != "" {
			return m, fmt.Sprintf("%s is new and %s", m.ID, strings.TrimPrefix(note, m.ID+" ")), false
		}
		return m, fmt.Sprintf("%s is new", m.ID), false
	}
	d := c.departed[k]
	c.departed = slices.Delete(c.departed, k, k+1)
	var kept []string
	if ch.Given&GivenTopics == 0 {
		m.Topics, m.TopicRegex = slices.Clone(d.Topics), d.TopicRegex
		kept = append(kept, "subscription "+orNothing(withPattern(topicList(d.Topics, ","), d.TopicRegex)))
	}
	if ch.Given&GivenInstance == 0 {
		m.InstanceID = d.InstanceID
		if d.InstanceID != "" {
			kept = append(kept, fmt.Sprintf("group.instance.id %q", d.InstanceID))
		} else {
			kept = append(kept, "no group.instance.id")
		}
	}
	if ch.Given&GivenRack == 0 {
		m.Rack = d.Rack
		if d.Rack != "" {
			kept = append(kept, fmt.Sprintf("rack %q", d.Rack))
		} else {
			kept = append(kept, "no rack")
		}
	}
	who := m.ID
	if d.ID != m.ID {
		who = fmt.Sprintf("%s (was %s)", m.ID, d.ID)
	}
	if len(kept) == 0 {
		return m, who + " rejoins as the join says", true
	}
	return m, who + " rejoins as it left: " + strings.Join(kept, ", "), true
}

// notedTopics is how many topics a note lists before it counts the rest.
const notedTopics = 5

// topicList joins topics with sep for a note: all of them up to
// notedTopics, else the first three and how many more.
func topicList(topics []string, sep string) string {
	if len(topics) <= notedTopics {
		return strings.Join(topics, sep)
	}
	return fmt.Sprintf("%s%s… (%d topics)", strings.Join(topics[:3], sep), sep, len(topics))
}

func orNothing(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// grow applies a growth (rule 5).
func (c *Churn) grow(ch Change, next assign.Group) (assign.Group, [][]assign.Member, stepFacts, []string, error) {
	if ch.Topic == "" {
		return next, nil, stepFacts{}, nil, topicError("", assign.ErrEmptyTopicName)
	}
	old, exists := c.group.Topics[ch.Topic]
	if ch.Partitions < old {
		return next, nil, stepFacts{}, nil, topicError(ch.Topic, fmt.Errorf("%w: from %d to %d (Kafka cannot remove partitions)", ErrPartitionsDecrease, old, ch.Partitions))
	}
	if ch.Racks != nil && len(ch.Racks) != int(ch.Partitions-old) {
		return next, nil, stepFacts{}, nil, topicError(ch.Topic, fmt.Errorf("%w: %d rack lists for %d new partitions", assign.ErrRackCount, len(ch.Racks), ch.Partitions-old))
	}
	next.Topics = maps.Clone(c.group.Topics)
	if next.Topics == nil {
		next.Topics = make(map[string]int32)
	}
	next.Topics[ch.Topic] = ch.Partitions
	if lists, ok := c.group.PartitionRacks[ch.Topic]; ok || ch.Racks != nil {
		if !ok {
			lists = make([][]string, old)
		}
		lists = slices.Clone(lists)
		if ch.Racks != nil {
			lists = append(lists, ch.Racks...)
		} else {
			lists = append(lists, make([][]string, ch.Partitions-old)...)
		}
		next.PartitionRacks = maps.Clone(c.group.PartitionRacks)
		if next.PartitionRacks == nil {
			next.PartitionRacks = make(map[string][][]string)
		}
		next.PartitionRacks[ch.Topic] = lists
	}
	// Patterns are resolved against the topics after the growth: a
	// topic it creates that a pattern matches is subscribed (regex.go).
	resolved, err := assign.ResolveTopicRegex(next)
	if err != nil {
		return next, nil, stepFacts{}, nil, err
	}
	var notes []string
	if !exists && hasPattern(next) {
		notes = matchedNotes(ch.Topic, next, resolved)
	}
	subscribed := slices.ContainsFunc(resolved.Members, func(m assign.Member) bool { return slices.Contains(m.Topics, ch.Topic) })
	switch {
	case exists && ch.Partitions == old:
		return next, nil, stepFacts{}, []string{fmt.Sprintf("%s keeps %d partitions: no rebalance", ch.Topic, old)}, nil
	case !subscribed:
		return next, nil, stepFacts{}, []string{fmt.Sprintf("nobody subscribes to %s: its growth starts no rebalance", ch.Topic)}, nil
	}
	return next, [][]assign.Member{next.Members}, stepFacts{}, notes, nil
}

// topicSet is the sorted set of a subscription.
func topicSet(topics []string) []string {
	return slices.Compact(slices.Sorted(slices.Values(topics)))
}

// moves lists the partitions whose owner in after (an assignment of g)
// differs from their owner in before, and why.
func moves(s assign.Strategy, g assign.Group, before, after assign.Assignment, deferred map[assign.TopicPartition]bool, facts stepFacts) []assign.Move {
	members := make(map[string]*assign.Member, len(g.Members))
	for i := range g.Members {
		members[g.Members[i].ID] = &g.Members[i]
	}
	all := assign.Moves(before, after)
	out := all[:0] // filtered in place: a million moves grown by append cost more than the rest of simulate
	for _, mv := range all {
		if mv.From == "" || mv.To == "" {
			continue
		}
		mv.Deferred = deferred[mv.Partition]
		switch fm := members[mv.From]; {
		case fm == nil && mv.From == facts.restarted:
			mv.Reason = assign.ReasonOwnerRestarted
		case fm == nil:
			mv.Reason = assign.ReasonOwnerLeft
		case !slices.Contains(fm.Topics, mv.Partition.Topic):
			mv.Reason = assign.ReasonUnsubscribed
		case mv.To == facts.returned:
			mv.Reason = assign.ReasonStaticReturned
		case facts.switched:
			mv.Reason = assign.ReasonStrategy
		case s.Traits().Sticky:
			mv.Reason = assign.ReasonBalance
		default:
			mv.Reason = assign.ReasonLayout
		}
		out = append(out, mv)
	}
	if len(out) == 0 {
		return nil // as before the filtering went in place
	}
	return out
}

// topicError is an [*assign.InputError] about topic.
func topicError(topic string, err error) *assign.InputError {
	return &assign.InputError{Index: -1, Topic: topic, Partition: -1, Err: err}
}
