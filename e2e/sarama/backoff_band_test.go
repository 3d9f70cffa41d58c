package sarama_test

// The rejoin backoff (timeline.Config.RejoinBackoff, client.Sarama): a
// sarama member whose SyncGroup is answered REBALANCE_IN_PROGRESS waits
// Consumer.Group.Rebalance.Retry.Backoff before it sends JoinGroup again.
//
// The group of timeline_band_test.go (c0, c1, c2 under eager range, every
// member's backoff tlsBackoff). c3 joins; once the join phase it starts
// has ended, c4 joins while the group completes it, so that kfake answers
// the SyncGroups of c0 to c3 REBALANCE_IN_PROGRESS. On loopback the
// SyncGroup round trip is too short for c4's JoinGroup to land in it by
// itself: kfake holds the leader's SyncGroup until c4's JoinGroup has
// arrived (tlband.InterruptSync), and the model has c4 join one round
// trip after the join phase ends, in each draw (tlband.Group.Adjust). Then
// c0 to c3 back off, rejoin, and the rebalance ends tlsBackoff later than
// it would have.
//
// Checked: each of c0 to c3 sent its JoinGroup at least tlsBackoff after
// c4's; each partition's unowned time and the total fall in the model's
// bands with the backoff, widened by tlsTolerance as in the other
// scenarios; and the total lies above the band of the model without the
// backoff (Java's behaviour), widened alike, so the check would fail if
// sarama rejoined at once. Every wait is bounded.

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/e2e/internal/tlband"
	"github.com/assigncalc/assigncalc/timeline"
)

const tlsBackoff = time.Second

func TestTimelineBandRejoinBackoff(t *testing.T) {
	if testing.Short() {
		t.Skip("plays real rebalances for about ten seconds")
	}
	ctx, cancel := context.WithTimeout(context.Background(), tlsTimeout)
	defer cancel()
	s := assign.Range{}
	g := newTLSGroup(ctx, t)
	g.startWith("c0", "", s, tlsBackoff, nil)
	g.Settle("c0 alone")
	g.startWith("c1", "", s, tlsBackoff, nil)
	g.startWith("c2", "", s, tlsBackoff, nil)
	a := g.Settle("forming")
	at := g.Since()
	real := g.Phases(at)
	start, seen := g.InterruptSync(func(r *kmsg.JoinGroupRequest) bool { return r.MemberID != "" }, 10*time.Second)
	g.startWith("c4", "", s, tlsBackoff, start) // consumes once the leader's SyncGroup is held
	g.startWith("c3", "", s, tlsBackoff, nil)
	g.Settle("join during sync")

	ir := seen()
	if ir.Joined == 0 {
		t.Fatalf("c4's JoinGroup never interrupted a SyncGroup (held at %v)", ir.Held)
	}
	for _, name := range []string{"c0", "c1", "c2", "c3"} {
		id, _ := g.Member(name).Meta()
		rejoin, ok := ir.Rejoins[id]
		t.Logf("%s rejoined %v after c4's JoinGroup", name, (rejoin - ir.Joined).Round(time.Millisecond))
		if !ok || rejoin-ir.Joined < tlsBackoff {
			t.Errorf("%s (%s): JoinGroup %v after c4's, want at least the backoff, %v (seen: %v)", name, id, rejoin-ir.Joined, tlsBackoff, ok)
		}
	}

	cfg := tlsConfig
	cfg.RejoinBackoff = tlsBackoff.Milliseconds()
	sc := func(cfg *timeline.Config) timeline.Scenario {
		var ms []timeline.Member
		for _, id := range []string{"c0", "c1", "c2"} {
			ms = append(ms, timeline.Member{ID: id, Topics: []string{"t"}, Config: cfg})
		}
		return timeline.Scenario{
			Members: ms, Topics: tlsTopics, Strategy: s, Broker: &tlsBroker, Initial: a, RTT: 1,
			Events: []timeline.Event{{Kind: timeline.Join, Member: "c3", Topics: []string{"t"}, Config: cfg}},
		}
	}
	g.Adjust = tlband.JoinDuringSync(tlsEventAt, "c4", []string{"t"}, &cfg)
	r := g.Judge(t, "join during sync", sc(&cfg), at, real, false, tlsTolerance, tlsDraws)

	java := tlsConfig // no backoff
	pr, err := tlband.Predict(sc(&java), tlsEventAt, real, tlsHeartbeat, tlsDraws, tlband.JoinDuringSync(tlsEventAt, "c4", []string{"t"}, &java))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("without the backoff the model says p5/p50/p95 %v partition-ms, measured %d", pr.Totals, r.Total)
	if limit := pr.Totals[2] + tlsTolerance.Milliseconds(); r.Total <= limit {
		t.Errorf("total unowned %d partition-ms, not above the model without the backoff (p95 %d + %v): sarama did not wait", r.Total, pr.Totals[2], tlsTolerance)
	}
}
