package assign

// This file holds compile's interning of racks: the members' and those
// of the subscribed topics' replicas, which the rack-aware strategies
// match.

import (
	"maps"
	"slices"
)

// internRacks interns member racks and the replica racks of subscribed
// topics. Rack names are numbered in Go string order.
func (cg *compiledGroup) internRacks() {
	g := cg.g
	names := make(map[string]int32)
	for i := range g.Members {
		if r := g.Members[i].Rack; r != "" {
			names[r] = 0
		}
	}
	for _, t := range cg.topics {
		for _, racks := range g.PartitionRacks[t] {
			for _, r := range racks {
				if r != "" {
					names[r] = 0
				}
			}
		}
	}
	if len(names) == 0 {
		return
	}
	cg.rackNames = slices.AppendSeq(make([]string, 0, len(names)), maps.Keys(names)) // sized: slices.Sorted would grow it
	slices.Sort(cg.rackNames)
	for i, r := range cg.rackNames {
		names[r] = int32(i)
	}
	cg.memberRack = make([]int32, len(g.Members))
	for i := range g.Members {
		cg.memberRack[i] = -1
		if r := g.Members[i].Rack; r != "" {
			cg.memberRack[i] = names[r]
		}
	}
	cg.partRacks = make([][][]int32, len(cg.topics))
	total := 0
	for _, t := range cg.topics {
		for _, racks := range g.PartitionRacks[t] {
			total += len(racks)
		}
	}
	backing := make([]int32, 0, total) // one array for every partition's list
	for ti, t := range cg.topics {
		lists, ok := g.PartitionRacks[t]
		if !ok {
			continue
		}
		parts := make([][]int32, len(lists))
		for p, racks := range lists {
			start := len(backing)
			for _, r := range racks {
				if r != "" {
					backing = append(backing, names[r])
				}
			}
			rs := backing[start:len(backing):len(backing)]
			slices.Sort(rs)
			parts[p] = slices.Compact(rs)
		}
		cg.partRacks[ti] = parts
	}
}
