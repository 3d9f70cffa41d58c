package kafkago_test

// The rejoin backoff, kafka-go's side (client.KafkaGo has none): a
// kafka-go member whose SyncGroup is answered REBALANCE_IN_PROGRESS joins
// again at once, keeping its member.id (ConsumerGroup.run), whatever its
// JoinGroupBackoff, which follows other errors.
//
// The scenario of e2e/sarama's backoff_band_test.go: c3 joins the group
// of c0, c1 and c2 (eager range); once the join phase it starts has
// ended, kfake holds the leader's SyncGroup until c4's JoinGroup has
// arrived (tlband.InterruptSync), so that c0 to c3 are answered
// REBALANCE_IN_PROGRESS; the model has c4 join a round trip after the
// join phase ends (tlband.JoinDuringSync). Every member's JoinGroupBackoff
// is tlkBackoff.
//
// Checked: each of c0 to c3 sent its JoinGroup within tlkBackoff of c4's;
// each partition's unowned time and the total fall in the model's bands
// without a backoff, widened by tlkTolerance as in the other scenarios;
// and the total lies below the band of the model with a backoff of
// tlkBackoff, widened alike, so the check would fail if kafka-go waited
// its JoinGroupBackoff there. Every wait is bounded.

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/e2e/internal/tlband"
	"github.com/assigncalc/assigncalc/timeline"
)

const tlkBackoff = time.Second

func TestTimelineBandNoRejoinBackoff(t *testing.T) {
	if testing.Short() {
		t.Skip("plays real rebalances for about ten seconds")
	}
	ctx, cancel := context.WithTimeout(context.Background(), tlkTimeout)
	defer cancel()
	s := assign.Range{}
	g := newTLKGroup(ctx, t)
	g.startWith("c0", s, tlkBackoff, nil)
	g.Settle("c0 alone")
	g.startWith("c1", s, tlkBackoff, nil)
	g.startWith("c2", s, tlkBackoff, nil)
	a := g.Settle("forming")
	at := g.Since()
	real := g.Phases(at)
	start, seen := g.InterruptSync(func(*kmsg.JoinGroupRequest) bool { return true }, 10*time.Second)
	g.startWith("c3", s, tlkBackoff, nil)
	g.startWith("c4", s, tlkBackoff, start) // waits until the leader's SyncGroup is held
	g.Settle("join during sync")

	ir := seen()
	if ir.Joined == 0 {
		t.Fatalf("c4's JoinGroup never interrupted a SyncGroup (held at %v)", ir.Held)
	}
	for _, name := range []string{"c0", "c1", "c2", "c3"} {
		id, _ := g.Member(name).Meta()
		rejoin, ok := ir.Rejoins[id]
		t.Logf("%s rejoined %v after c4's JoinGroup", name, (rejoin - ir.Joined).Round(time.Millisecond))
		if !ok || rejoin-ir.Joined >= tlkBackoff {
			t.Errorf("%s (%s): JoinGroup %v after c4's, want less than the JoinGroupBackoff, %v (seen: %v)", name, id, rejoin-ir.Joined, tlkBackoff, ok)
		}
	}

	sc := func(cfg *timeline.Config) timeline.Scenario {
		var ms []timeline.Member
		for _, id := range []string{"c0", "c1", "c2"} {
			ms = append(ms, timeline.Member{ID: id, Topics: []string{"t"}, Config: cfg})
		}
		return timeline.Scenario{
			Members: ms, Topics: tlkTopics, Strategy: s, Broker: &tlkBroker, Initial: a, RTT: 1,
			Events: []timeline.Event{{Kind: timeline.Join, Member: "c3", Topics: []string{"t"}, Config: cfg}},
		}
	}
	cfg := tlkConfig // kafka-go's profile: no rejoin backoff
	g.Adjust = tlband.JoinDuringSync(tlkEventAt, "c4", []string{"t"}, &cfg)
	r := g.Judge(t, "join during sync", sc(&cfg), at, real, false, tlkTolerance, tlkDraws)

	waiting := tlkConfig
	waiting.RejoinBackoff = tlkBackoff.Milliseconds()
	pr, err := tlband.Predict(sc(&waiting), tlkEventAt, real, tlkHeartbeat, tlkDraws, tlband.JoinDuringSync(tlkEventAt, "c4", []string{"t"}, &waiting))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("with a %v backoff the model says p5/p50/p95 %v partition-ms, measured %d", tlkBackoff, pr.Totals, r.Total)
	if limit := pr.Totals[0] - tlkTolerance.Milliseconds(); r.Total >= limit {
		t.Errorf("total unowned %d partition-ms, not below the model with a %v backoff (p5 %d - %v): kafka-go waited", r.Total, tlkBackoff, pr.Totals[0], tlkTolerance)
	}
}
