package timeline_test

import (
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/timeline"
)

// TestSamplePercentiles checks Sample against the draws played one by one:
// the nearest-rank p50, p95 and max of 20 single runs, sorted here.
func TestSamplePercentiles(t *testing.T) {
	members := issueGroup(3, 2_000)
	sc := timeline.Scenario{
		Members: members, Topics: map[string]int32{"t": 6}, Strategy: assign.Range{},
		Events: []timeline.Event{{At: 10_000, Kind: timeline.Crash, Member: "c1"}},
		Seed:   7, RTT: timeline.DefaultRTT,
	}
	d, err := timeline.Sample(sc, 20)
	if err != nil {
		t.Fatal(err)
	}
	var unowned []int64
	for i := range 20 {
		one := sc
		one.Seed = 7 + uint64(i)
		unowned = append(unowned, simulateDrawn(t, one).Summary.UnownedPartitionMs)
	}
	// Insertion sort: independent of the package's own sorting.
	for i := 1; i < len(unowned); i++ {
		for j := i; j > 0 && unowned[j] < unowned[j-1]; j-- {
			unowned[j], unowned[j-1] = unowned[j-1], unowned[j]
		}
	}
	// Nearest rank of 20 draws: p50 is the 10th, p95 the 19th.
	want := timeline.Percentiles{P50: unowned[9], P95: unowned[18], Max: unowned[19]}
	if d.UnownedPartitionMs != want || d.Samples != 20 || d.Seed != 7 {
		t.Errorf("Sample(20): samples %d seed %d unowned %+v, want 20, 7, %+v", d.Samples, d.Seed, d.UnownedPartitionMs, want)
	}
	if unowned[0] == unowned[19] {
		t.Errorf("every draw gave %d partition-ms: the phases do not vary", unowned[0])
	}
	if _, err := timeline.Sample(sc, 0); err == nil {
		t.Errorf("Sample(0): no error")
	}
}

// TestFormatPartitionMs: partition-time reads in partition-seconds, with
// the plural right.
func TestFormatPartitionMs(t *testing.T) {
	for ms, want := range map[int64]string{
		88_000: "88 partition-seconds", // 44 s for 2 partitions
		1_000:  "1 partition-second",
		1_500:  "1.5 partition-seconds",
		0:      "0 partition-seconds",
	} {
		if got := timeline.FormatPartitionMs(ms); got != want {
			t.Errorf("FormatPartitionMs(%d) = %q, want %q", ms, got, want)
		}
	}
}
