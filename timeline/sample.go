package timeline

import (
	"fmt"
	"slices"
)

// MaxSamples is the most draws [Sample] plays: each is a whole
// simulation, so the count an input names must stay in proportion.
const MaxSamples = 10_000

// Distribution is what [Sample] returns: the figures of many draws of the
// members' phases, each as its p50, p95 and max.
type Distribution struct {
	Samples int    // the number of draws
	Seed    uint64 // the first draw's seed; draw i has seed Seed + i

	LongestPause       Percentiles // of Summary.MaxUnownedMs
	UnownedPartitionMs Percentiles // of Summary.UnownedPartitionMs
	// RebalanceMs is over the durations of every rebalance of every draw,
	// pooled: draws may differ in how many rebalances they have.
	RebalanceMs Percentiles
}

// Percentiles are three points of a distribution of milliseconds, by the
// nearest-rank method: the smallest value at least p% of the draws do not
// exceed.
type Percentiles struct {
	P50, P95, Max int64
}

// Sample plays sc n times, with seeds sc.Seed, sc.Seed+1, ...,
// sc.Seed+n-1 drawing the phases sc.Phases does not give, and returns
// the distribution of the figures. n must be in [1, MaxSamples].
func Sample(sc Scenario, n int) (Distribution, error) {
	if n < 1 || n > MaxSamples {
		return Distribution{}, invalidf("samples: want 1 to %d draws, got %d", MaxSamples, n)
	}
	d := Distribution{Samples: n, Seed: sc.Seed}
	var pauses, unowned, rebalances []int64
	for i := range n {
		draw := sc
		draw.Seed = sc.Seed + uint64(i)
		tl, err := Simulate(draw)
		if err != nil {
			return Distribution{}, fmt.Errorf("draw %d (seed %d): %w", i, draw.Seed, err)
		}
		pauses = append(pauses, tl.Summary.MaxUnownedMs)
		unowned = append(unowned, tl.Summary.UnownedPartitionMs)
		for _, r := range tl.Rebalances {
			rebalances = append(rebalances, r.End-r.Start)
		}
	}
	d.LongestPause = percentiles(pauses)
	d.UnownedPartitionMs = percentiles(unowned)
	d.RebalanceMs = percentiles(rebalances)
	return d, nil
}

// percentiles returns the nearest-rank p50, p95 and max of xs, zero when
// xs is empty.
func percentiles(xs []int64) Percentiles {
	if len(xs) == 0 {
		return Percentiles{}
	}
	s := slices.Sorted(slices.Values(xs))
	rank := func(p int) int64 { return s[(p*len(s)+99)/100-1] }
	return Percentiles{P50: rank(50), P95: rank(95), Max: s[len(s)-1]}
}
