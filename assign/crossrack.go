package assign

import (
	"maps"
	"slices"
)

// CrossRack counts, for each member of g with a rack, the partitions a
// gives it that have no replica on that rack, so that the member reads
// them across racks (KIP-881 tries to avoid it). Partitions of topics
// without rack information in g.PartitionRacks, and members without a
// rack, are not counted: nothing is known about them. Members of g missing
// from a count 0.
func CrossRack(g Group, a Assignment) map[string]int {
	out := make(map[string]int, len(g.Members))
	for _, m := range g.Members {
		out[m.ID] = 0
		if m.Rack == "" {
			continue
		}
		for _, tp := range a[m.ID] {
			lists, ok := g.PartitionRacks[tp.Topic]
			if !ok || tp.Partition < 0 || int(tp.Partition) >= len(lists) {
				continue
			}
			if !slices.Contains(lists[tp.Partition], m.Rack) {
				out[m.ID]++
			}
		}
	}
	return out
}

// RacksWithoutReplicas returns, sorted, the racks of members of g on which
// no partition of g.PartitionRacks has a replica: members there read
// everything across racks, whatever the strategy. It returns nil when g
// has no rack information for partitions.
func RacksWithoutReplicas(g Group) []string {
	if len(g.PartitionRacks) == 0 {
		return nil
	}
	held := make(map[string]bool)
	for _, lists := range g.PartitionRacks {
		for _, rs := range lists {
			for _, r := range rs {
				held[r] = true
			}
		}
	}
	missing := make(map[string]bool)
	for _, m := range g.Members {
		if m.Rack != "" && !held[m.Rack] {
			missing[m.Rack] = true
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return slices.Sorted(maps.Keys(missing))
}
