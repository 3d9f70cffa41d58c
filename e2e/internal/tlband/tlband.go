// Package tlband holds what the timeline e2e tests of sarama and kafka-go
// share: a partition's unowned time, measured from when members received
// and gave up partitions, and the band package timeline predicts for the
// same scenario (issue 27, item 4). adapters/franz has its own copy in
// its tests, in its own module.
package tlband

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/timeline"
)

// Change is a member receiving (Own) or giving up a partition, at a time
// since the test began.
type Change struct {
	At     time.Duration
	Member string
	TP     assign.TopicPartition
	Own    bool
}

// Unowned returns, for each of tps, how long it had no owner between at
// and end, replaying changes from the assignment initial the group had at
// at. Of changes at one instant, releases go first: a member that gives up
// and receives a partition in one instant left no gap.
func Unowned(initial assign.Assignment, changes []Change, tps []assign.TopicPartition, at, end time.Duration) map[assign.TopicPartition]time.Duration {
	byTP := make(map[assign.TopicPartition][]Change)
	for _, c := range changes {
		if c.At >= at && c.At <= end {
			byTP[c.TP] = append(byTP[c.TP], c)
		}
	}
	out := make(map[assign.TopicPartition]time.Duration)
	for _, tp := range tps {
		owners := make(map[string]bool)
		for m, owned := range initial {
			if slices.Contains(owned, tp) {
				owners[m] = true
			}
		}
		cs := byTP[tp]
		slices.SortStableFunc(cs, func(x, y Change) int {
			switch {
			case x.At != y.At:
				return int(x.At - y.At)
			case x.Own == y.Own:
				return 0
			case !x.Own:
				return -1
			}
			return 1
		})
		var unowned time.Duration
		last := at
		for _, c := range cs {
			if len(owners) == 0 {
				unowned += c.At - last
			}
			last = c.At
			if c.Own {
				owners[c.Member] = true
			} else {
				delete(owners, c.Member)
			}
		}
		if len(owners) == 0 {
			unowned += end - last
		}
		out[tp] = unowned
	}
	return out
}

// Phase is a member's heartbeat phase in a model whose event comes at
// eventAt ms: its next heartbeat is due hb after its last one (lastBeat,
// as the broker saw it), and the model's heartbeats come at the phase
// plus whole intervals.
func Phase(lastBeat, at time.Duration, eventAt int64, hb time.Duration) timeline.Phase {
	next := eventAt + (lastBeat + hb - at).Milliseconds()
	h := hb.Milliseconds()
	return timeline.Phase{Heartbeat: ((next-1)%h+h)%h + 1}
}

// Prediction is what the model says of one scenario on one group.
type Prediction struct {
	Band   map[assign.TopicPartition][2]int64 // [p5, p95] of each partition's unowned ms
	Totals [3]int64                           // p5, p50 and p95 of the total, partition-ms
	Exact  int64                              // the total under the phases measured
}

// Predict plays sc (its events at their offsets from eventAt) with the
// phases measured, then draws times with every phase shifted by one
// amount drawn from seeds 1 to draws: the members keep their measured
// offsets from each other, and the event falls anywhere in their cycle.
// Unowned time counts from eventAt. adjust, when not nil, turns each
// draw's scenario (its events at their times, its phases set) into the
// one played: for an event whose time the model itself decides, such as
// a member that joins during a rebalance's SyncGroup round trip.
func Predict(sc timeline.Scenario, eventAt int64, real map[string]timeline.Phase, hb time.Duration, draws int, adjust func(timeline.Scenario) (timeline.Scenario, error)) (Prediction, error) {
	events := make([]timeline.Event, len(sc.Events))
	for i, e := range sc.Events {
		e.At += eventAt
		events[i] = e
	}
	sc.Events = events
	h := hb.Milliseconds()
	var pr Prediction
	per := make(map[assign.TopicPartition][]int64)
	var totals []int64
	for seed := range uint64(draws + 1) {
		sc.Seed = seed
		sc.Phases = real
		if seed > 0 {
			shift := timeline.DrawPhase(seed, "group", h, 0).Heartbeat - 1
			sc.Phases = make(map[string]timeline.Phase, len(real))
			for name, p := range real {
				sc.Phases[name] = timeline.Phase{Heartbeat: (p.Heartbeat-1+shift)%h + 1}
			}
		}
		played := sc
		if adjust != nil {
			var err error
			if played, err = adjust(sc); err != nil {
				return Prediction{}, fmt.Errorf("seed %d: %w", seed, err)
			}
		}
		tl, err := timeline.Simulate(played)
		if err != nil {
			return Prediction{}, fmt.Errorf("timeline.Simulate (seed %d): %w", seed, err)
		}
		var total int64
		for _, p := range tl.Partitions {
			var ms int64
			for _, s := range p.Unowned {
				if s.To > eventAt {
					ms += s.To - max(s.From, eventAt)
				}
			}
			if seed > 0 {
				per[p.TopicPartition] = append(per[p.TopicPartition], ms)
			}
			total += ms
		}
		if seed == 0 {
			pr.Exact = total
			continue
		}
		totals = append(totals, total)
	}
	pr.Band = make(map[assign.TopicPartition][2]int64)
	for tp, xs := range per {
		pr.Band[tp] = [2]int64{nearestRank(xs, 5), nearestRank(xs, 95)}
	}
	pr.Totals = [3]int64{nearestRank(totals, 5), nearestRank(totals, 50), nearestRank(totals, 95)}
	return pr, nil
}

// JoinDuringSync returns an adjust for Predict (Group.Adjust): member,
// subscribing to topics with cfg, joins a round trip after the first join
// phase that ends at or after eventAt, in the middle of its SyncGroup
// round trip, as InterruptSync makes a member join at kfake.
func JoinDuringSync(eventAt int64, member string, topics []string, cfg *timeline.Config) func(timeline.Scenario) (timeline.Scenario, error) {
	return func(sc timeline.Scenario) (timeline.Scenario, error) {
		tl, err := timeline.Simulate(sc)
		if err != nil {
			return sc, err
		}
		i := slices.IndexFunc(tl.Steps, func(s timeline.Step) bool {
			return s.At >= eventAt && strings.HasPrefix(s.What, "leader assigns")
		})
		if i < 0 {
			return sc, errors.New("no join phase ended after the event")
		}
		join := timeline.Event{At: tl.Steps[i].At + sc.RTT, Kind: timeline.Join, Member: member, Topics: topics, Config: cfg}
		sc.Events = append(slices.Clone(sc.Events), join)
		return sc, nil
	}
}

func nearestRank(xs []int64, p int) int64 {
	s := slices.Sorted(slices.Values(xs))
	return s[(p*len(s)+99)/100-1]
}

// Check compares each partition's measured unowned time with the band
// widened by tol on each side, and the total with the band of totals
// widened alike: matched by rank (ByRank), each partition may sit at the
// edge of its band plus the tolerance, and six such edges add up to a
// total the model does not predict. It returns one line per partition for
// the log, the measured total in partition-ms, and an error per partition
// outside and for a total outside.
func Check(measured map[assign.TopicPartition]time.Duration, pr Prediction, tps []assign.TopicPartition, tol time.Duration) (log string, total int64, errs []string) {
	var lines []string
	for _, tp := range tps {
		m, b := measured[tp], pr.Band[tp]
		total += m.Milliseconds()
		verdict := "ok"
		if m < time.Duration(b[0])*time.Millisecond-tol || m > time.Duration(b[1])*time.Millisecond+tol {
			verdict = "OUT"
			errs = append(errs, fmt.Sprintf("%s unowned %v, the model's [p5, p95] is [%d ms, %d ms] (tolerance ±%v)", tp, m.Round(time.Millisecond), b[0], b[1], tol))
		}
		lines = append(lines, fmt.Sprintf("%s: %v in [%d ms, %d ms] %s", tp, m.Round(time.Millisecond), b[0], b[1], verdict))
	}
	if lo, hi := pr.Totals[0]-tol.Milliseconds(), pr.Totals[2]+tol.Milliseconds(); total < lo || total > hi {
		errs = append(errs, fmt.Sprintf("total unowned %d partition-ms, the model's [p5, p95] is [%d, %d] (tolerance ±%v)", total, pr.Totals[0], pr.Totals[2], tol))
	}
	return strings.Join(lines, "\n\t"), total, errs
}

// ByRank pairs the measured times with the bands by rank instead of by
// partition: the longest measured with the band of the highest p95, and
// so on down. For scenarios in which dynamic members restart: their new
// member.ids are random at kfake and ID-r1 in the model, so Range orders
// the members, and deals the partitions, differently in each, while the
// times the group goes through are the same.
func ByRank(measured map[assign.TopicPartition]time.Duration, pr Prediction, tps []assign.TopicPartition) (map[assign.TopicPartition]time.Duration, Prediction) {
	ms := slices.Collect(maps.Values(measured))
	slices.SortFunc(ms, func(x, y time.Duration) int { return cmp.Compare(y, x) })
	bs := slices.Collect(maps.Values(pr.Band))
	slices.SortFunc(bs, func(x, y [2]int64) int { return cmp.Or(cmp.Compare(y[1], x[1]), cmp.Compare(y[0], x[0])) })
	m2 := make(map[assign.TopicPartition]time.Duration, len(tps))
	out := pr
	out.Band = make(map[assign.TopicPartition][2]int64, len(tps))
	for i, tp := range tps {
		if i < len(ms) && i < len(bs) {
			m2[tp], out.Band[tp] = ms[i], bs[i]
		}
	}
	return m2, out
}

// Result is one scenario under one protocol.
type Result struct {
	Measured map[assign.TopicPartition]time.Duration
	Total    int64 // measured, partition-ms
	Pred     Prediction
}

// Order checks that the model and the measurement order eager and
// cooperative the same way. The model orders them strictly when the
// [p5, p95] bands of their totals do not overlap and its answer on the
// measured phases puts the same one ahead by more than tie partition-ms
// (on this machine a draw can split members that are in step within a
// millisecond, which the exact answer sees and the band does not); then
// the measured totals must differ the same way. Otherwise the measured totals must differ by no more than tie
// plus tol for each partition unowned at all in either.
func Order(eager, coop Result, tie int64, tol time.Duration) (log string, err error) {
	median := eager.Pred.Totals[1] - coop.Pred.Totals[1]
	exact := eager.Pred.Exact - coop.Pred.Exact
	meas := eager.Total - coop.Total
	log = fmt.Sprintf("unowned partition-time measured eager %d ms, cooperative %d ms; model on the measured phases %d ms and %d ms; model medians %d ms and %d ms",
		eager.Total, coop.Total, eager.Pred.Exact, coop.Pred.Exact, eager.Pred.Totals[1], coop.Pred.Totals[1])
	switch {
	case eager.Pred.Totals[0] > coop.Pred.Totals[2] && exact > tie:
		if meas <= 0 {
			err = fmt.Errorf("the model puts eager above cooperative (medians %+d, measured phases %+d partition-ms), the measurement %+d ms", median, exact, meas)
		}
	case eager.Pred.Totals[2] < coop.Pred.Totals[0] && exact < -tie:
		if meas >= 0 {
			err = fmt.Errorf("the model puts eager below cooperative (medians %+d, measured phases %+d partition-ms), the measurement %+d ms", median, exact, meas)
		}
	default:
		inPlay := 0
		for tp, d := range eager.Measured {
			if d > 0 || coop.Measured[tp] > 0 {
				inPlay++
			}
		}
		if limit := tie + int64(inPlay)*tol.Milliseconds(); meas > limit || meas < -limit {
			err = fmt.Errorf("the model does not order eager and cooperative (medians %+d, measured phases %+d partition-ms), the measurement has them %+d ms apart (limit %d)", median, exact, meas, limit)
		}
	}
	return log, err
}

// Stable returns who owns what when the group has settled: every live
// member (gens: name => the generation it is in, negative before its
// first) is in one generation and owns a partition, each of tps has
// exactly one owner among them (owners: partition => the members that
// say they own it), and nothing changed for two and a quarter heartbeats
// (sinceChange, the time since the last change, or a negative value when
// there was none). Not a whole number of heartbeats: sarama starts its
// heartbeat ticker with the session, when the claims (the changes) start,
// so a quiet window of whole heartbeats put the event within milliseconds
// of a heartbeat, which then came just before or just after it, a whole
// heartbeat of difference the measured phase could not tell (sarama's
// eager close measured 4 s of unowned partition-time where the model, on
// the phases measured, said 42 ms).
func Stable(gens map[string]int32, owners map[assign.TopicPartition]map[string]bool, tps []assign.TopicPartition, sinceChange, hb time.Duration) (assign.Assignment, bool) {
	a := make(assign.Assignment, len(gens))
	gen := int32(-2)
	for name, gn := range gens {
		if gn < 0 || (gen != -2 && gn != gen) {
			return nil, false
		}
		gen = gn
		a[name] = nil
	}
	for _, tp := range tps {
		if len(owners[tp]) != 1 {
			return nil, false
		}
		for o := range owners[tp] {
			if _, ok := a[o]; !ok {
				return nil, false
			}
			a[o] = append(a[o], tp)
		}
	}
	for _, ps := range a {
		if len(ps) == 0 {
			return nil, false
		}
	}
	if sinceChange >= 0 && sinceChange < 2*hb+hb/4 {
		return nil, false
	}
	return a, true
}

// Settle polls stable every tick, at most maxTicks times, until it
// reports the group settled, and returns the assignment; it fails t,
// naming what, when the group does not settle or ctx ends.
func Settle(ctx context.Context, t testing.TB, what string, stable func() (assign.Assignment, bool), maxTicks int, tick time.Duration) assign.Assignment {
	t.Helper()
	for range maxTicks {
		if a, ok := stable(); ok {
			return a
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: the group did not settle", what)
		case <-time.After(tick):
		}
	}
	t.Fatalf("%s: the group did not settle after %d checks", what, maxTicks)
	return nil
}

// SleepUntil sleeps until t since began, or until ctx ends.
func SleepUntil(ctx context.Context, began time.Time, t time.Duration) {
	if d := t - time.Since(began); d > 0 {
		select {
		case <-time.After(d):
		case <-ctx.Done():
		}
	}
}
