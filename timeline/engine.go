package timeline

import (
	"cmp"
	"container/heap"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/assigncalc/assigncalc/assign"
)

// A simulation runs at most actionsPerMember actions per member and event
// (at default settings a member's heartbeats and polls for about three
// hours of simulated time), and never more than maxActions, so that a
// scenario that never settles, or a time far off, ends with an error
// instead of looping: every action costs memory and time, and the time an
// input names must not buy it more than its group's share
// (TestFarTimesAreBounded holds a far time to this bound).
const (
	actionsPerMember = 1 << 14
	maxActions       = 5_000_000
)

// actionLimit is the number of actions a simulation of n may run.
func actionLimit(n *normalized) int {
	return min(maxActions, actionsPerMember*(1+len(n.members)+len(n.Events)))
}

// ErrNotSettled is wrapped by the error [Simulate] returns when, without
// an end time, the group never settles, or when reaching the end time
// takes more actions than a group of its size may play.
var ErrNotSettled = errors.New("the group has not settled")

// Within one millisecond, actions run in the order of these ranks, then of
// member ID, then of scheduling. Scenario events come first: a heartbeat
// due at the instant of a crash is not sent.
const (
	rankEvent       = iota // scenario events, and a restarted member's return
	rankCoordinator        // session expiry, join-phase and initial-delay timers
	rankMember             // a member's poll: rejoining, revoking, leaving on poll timeout
	rankHeartbeat          // periodic heartbeats
)

// action is one thing scheduled to happen.
type action struct {
	at       int64
	rank     int
	member   string
	seq      int
	periodic bool   // a heartbeat: does not by itself keep the timeline going
	do       func() // nil once its timer was stopped or set again
}

func (a *action) less(b *action) bool {
	return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.rank, b.rank), strings.Compare(a.member, b.member), cmp.Compare(a.seq, b.seq)) < 0
}

// agenda is a min-heap of actions.
type agenda []*action

// The heap.Interface of agenda, ordered by [action.less].
func (q agenda) Len() int           { return len(q) }
func (q agenda) Less(i, j int) bool { return q[i].less(q[j]) }
func (q agenda) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *agenda) Push(x any)        { *q = append(*q, x.(*action)) }
func (q *agenda) Pop() any {
	old := *q
	a := old[len(old)-1]
	*q = old[:len(old)-1]
	return a
}

// engine is the clock, the agenda and the record shared by both protocols.
type engine struct {
	now        int64
	queue      agenda
	seq        int
	pending    int // actions in queue that are not periodic
	lastChange int64
	err        error // a strategy's failure: stops the run

	ledger     *ledger
	steps      []Step
	rebalances []Rebalance
}

func newEngine() *engine { return &engine{ledger: newLedger()} }

// at schedules do at time t.
func (e *engine) at(t int64, rank int, member string, do func()) {
	e.push(&action{at: t, rank: rank, member: member, do: do})
}

// A timer is one thing scheduled to happen once, which setting it again or
// stopping it cancels: a member's next heartbeat, what it does at its next
// poll, its poll or session timeout, the end of a join phase. A cancelled
// firing stays in the agenda and does nothing when its time comes: it
// still counts towards the action limit and, unless periodic, keeps a run
// without an end time going until then, so that the timelines and the
// point where a run gives up do not depend on how a firing was cancelled.
type timer struct {
	e      *engine
	rank   int
	member string // whose actions it orders among, "" for the coordinator's
	next   *action
}

// timer returns a stopped timer whose firings have rank and member.
func (e *engine) timer(rank int, member string) timer {
	return timer{e: e, rank: rank, member: member}
}

// set cancels t's pending firing and schedules do at time at.
func (t *timer) set(at int64, do func()) { t.schedule(at, false, do) }

// setPeriodic is set for a firing that, like a heartbeat, does not by
// itself keep the run going.
func (t *timer) setPeriodic(at int64, do func()) { t.schedule(at, true, do) }

func (t *timer) schedule(at int64, periodic bool, do func()) {
	t.stop()
	t.next = &action{at: at, rank: t.rank, member: t.member, periodic: periodic, do: do}
	t.e.push(t.next)
}

// stop cancels t's pending firing, if any.
func (t *timer) stop() {
	if t.next != nil {
		t.next.do = nil
		t.next = nil
	}
}

func (e *engine) push(a *action) {
	a.seq = e.seq
	e.seq++
	if !a.periodic {
		e.pending++
	}
	heap.Push(&e.queue, a)
}

// step records that something mattered now.
func (e *engine) step(member, format string, args ...any) {
	e.steps = append(e.steps, Step{At: e.now, Member: member, What: fmt.Sprintf(format, args...)})
	e.lastChange = e.now
}

// run plays the agenda until until (when positive), or until settled
// holds and only periodic actions are left. Without until, a group that
// has not settled by settleBy is an error.
func (e *engine) run(until, settleBy int64, limit int, settled func() bool) error {
	for n := 0; e.queue.Len() > 0; n++ {
		if n == limit {
			return fmt.Errorf("timeline: %w: %d actions played by %d ms, the most a group of this size may play; bring the events or the end time closer", ErrNotSettled, n, e.now)
		}
		if until <= 0 && e.now > settleBy {
			return fmt.Errorf("timeline: %w by %d ms, long after the last event: members keep missing "+
				"the join phase (is a heartbeat interval or a batch close to max.poll.interval.ms?); set an end time to see the timeline", ErrNotSettled, e.now)
		}
		if until <= 0 && e.pending == 0 && settled() {
			break
		}
		if until > 0 && e.queue[0].at > until {
			break
		}
		a := heap.Pop(&e.queue).(*action)
		if !a.periodic {
			e.pending--
		}
		e.now = a.at
		if a.do != nil {
			a.do()
		}
		if e.err != nil {
			return e.err
		}
	}
	return nil
}

// finish closes the record at end and builds the timeline.
func (e *engine) finish(strategy string, p Protocol, end int64) *Timeline {
	for i := range e.rebalances {
		if e.rebalances[i].End < 0 {
			e.rebalances[i].End = end
		}
	}
	tl := &Timeline{
		Strategy:   strategy,
		Protocol:   p,
		End:        end,
		Rebalances: e.rebalances,
		Steps:      e.steps,
		Partitions: e.ledger.partitions(end),
		Final:      e.ledger.final(),
	}
	tl.Summary = summarize(tl)
	return tl
}

// Simulate plays sc and returns its timeline. The result is a function of
// sc's content only: the order of sc.Members and of map iteration is never
// observable. It returns an error wrapping [ErrInvalidScenario] for a
// scenario it cannot play, or the strategy's error.
func Simulate(sc Scenario) (*Timeline, error) {
	n, err := normalize(sc)
	if err != nil {
		return nil, err
	}
	e := newEngine()
	var p protocol
	switch n.Protocol {
	case Classic:
		p = newClassic(e, n)
	case Consumer:
		p = newKIP848(e, n)
	case Share:
		p = newShareGroup(e, n)
	}
	p.start()
	if e.err != nil {
		return nil, e.err
	}
	lastEvent := int64(0)
	for _, ev := range n.Events {
		lastEvent = max(lastEvent, ev.At+ev.For)
	}
	if err := e.run(n.Until, lastEvent+settleMargin(n), actionLimit(n), p.settled); err != nil {
		return nil, err
	}
	end := n.Until
	if end <= 0 {
		end = max(e.lastChange, lastEvent)
	}
	return e.finish(n.Strategy.Name(), n.Protocol, end), nil
}

// settleMargin is how long after the last event a group may take to
// settle: ten times the longest chain of timeouts any member or the
// broker could go through.
func settleMargin(n *normalized) int64 {
	b := n.broker
	longest := b.InitialRebalanceDelay + b.ConsumerSessionTimeout + b.ConsumerHeartbeatInterval
	configs := []*Config{}
	for _, m := range n.members {
		configs = append(configs, m.Config)
	}
	for _, ev := range n.Events {
		if ev.Kind == Join {
			configs = append(configs, ev.Config)
		}
	}
	var member int64
	for _, c := range configs {
		member = max(member, c.MaxPollInterval+c.SessionTimeout+c.HeartbeatInterval+c.MetadataMaxAge+c.BatchMs())
	}
	return 10 * (longest + member)
}

// eventsInOrder returns the events of n ordered by time, ties in the
// order listed.
func eventsInOrder(n *normalized) []Event {
	evs := slices.Clone(n.Events)
	slices.SortStableFunc(evs, func(a, b Event) int { return cmp.Compare(a.At, b.At) })
	return evs
}

// allTopics returns the names of topics, sorted.
func allTopics(topics map[string]int32) []string {
	out := make([]string, 0, len(topics))
	for t := range topics {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

// minus returns the partitions of a not in b; both sorted.
func minus(a, b []assign.TopicPartition) []assign.TopicPartition {
	var out []assign.TopicPartition
	for _, tp := range a {
		if _, found := slices.BinarySearchFunc(b, tp, assign.TopicPartition.Compare); !found {
			out = append(out, tp)
		}
	}
	return out
}

// list formats partitions for a step: "t-0 t-1".
func list(tps []assign.TopicPartition) string {
	if len(tps) == 0 {
		return "nothing"
	}
	s := make([]string, len(tps))
	for i, tp := range tps {
		s[i] = tp.String()
	}
	return strings.Join(s, " ")
}

// insertSorted returns ids, sorted, with id in it. The groups keep their
// members' IDs so as each member is added: sorting them all at every add
// made a group of many members quadratic (TestTimelineScales).
func insertSorted(ids []string, id string) []string {
	if i, found := slices.BinarySearch(ids, id); !found {
		ids = slices.Insert(ids, i, id)
	}
	return ids
}
