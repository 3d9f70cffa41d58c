package timeline_test

import (
	"fmt"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/internal/benchmem"
	"github.com/assigncalc/assigncalc/timeline"
)

// BenchmarkSimulate plays a group of members through crashes, restarts,
// stalls and a join, under each protocol, until it settles: the
// heartbeats, polls and timers of the discrete-event engine are what it
// measures.
func BenchmarkSimulate(b *testing.B) {
	for _, p := range []timeline.Protocol{timeline.Classic, timeline.Consumer} {
		for _, members := range []int{10, 40} {
			sc := churnScenario(p, members)
			b.Run(fmt.Sprintf("protocol=%s/members=%d", p, members), func(b *testing.B) { benchmarkSimulate(b, sc) })
		}
	}
}

// benchmarkSimulate times Simulate on sc, with its bytes per partition.
func benchmarkSimulate(b *testing.B, sc timeline.Scenario) {
	b.ReportAllocs()
	bytes := benchmem.Start(b, benchmem.Partitions(sc.Topics))
	for b.Loop() {
		if _, err := timeline.Simulate(sc); err != nil {
			b.Fatal(err)
		}
	}
	bytes.Report()
}

// churnScenario is a stable group of n members, half of them static,
// consuming two topics, with a crash, a close, a restart, a stall, a join
// and a subscription change spread over the first minutes.
func churnScenario(p timeline.Protocol, n int) timeline.Scenario {
	cfg := timeline.DefaultConfig()
	sc := timeline.Scenario{
		Protocol: p,
		Topics:   map[string]int32{"a": int32(4 * n), "b": int32(2 * n)},
	}
	if p == timeline.Classic {
		sc.Strategy = assign.CooperativeSticky{}
	}
	for i := range n {
		m := timeline.Member{ID: fmt.Sprintf("c%03d", i), Config: &cfg}
		if i%2 == 1 {
			m.InstanceID = "i-" + m.ID
		}
		sc.Members = append(sc.Members, m)
	}
	join := cfg
	join.RecordMicros = 1_000
	sc.Events = []timeline.Event{
		{At: 10_000, Kind: timeline.Crash, Member: "c000"},
		{At: 20_000, Kind: timeline.Close, Member: "c001"},
		{At: 30_000, Kind: timeline.Restart, Member: "c002", For: 5_000},
		{At: 40_000, Kind: timeline.Restart, Member: "c003", For: 5_000},
		{At: 50_000, Kind: timeline.Stall, Member: "c004", For: 400_000},
		{At: 60_000, Kind: timeline.Join, Member: "new", Config: &join},
		{At: 70_000, Kind: timeline.Subscribe, Member: "c005", Topics: []string{"a"}},
		{At: 80_000, Kind: timeline.Grow, Topic: "b", Partitions: int32(2*n + 3)},
	}
	return sc
}
