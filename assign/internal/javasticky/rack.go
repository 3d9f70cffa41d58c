package javasticky

import "github.com/assigncalc/assigncalc/assign"

// rackInfo is AbstractStickyAssignor.RackInfo (KIP-881).
type rackInfo struct {
	// consumerRacks maps a member to its rack, only when rack-aware
	// assignment is used.
	consumerRacks map[int]string
	// partitionRacks maps a partition to the racks of its replicas, only
	// when rack-aware assignment is used.
	partitionRacks map[tp]map[string]bool
	// numConsumers maps a partition to the number of members on the racks
	// of its replicas. Java fills it whenever some member has a rack, even
	// when rack-aware assignment is not used, and the constrained path
	// then still sorts the unassigned partitions by it.
	numConsumers map[tp]int
	// The same by pid, for the constrained path: pidRacks is nil unless
	// rack-aware, pidNum nil when numConsumers is; a claim past its
	// topic's end has neither, as in Java's maps.
	pidRacks []map[string]bool
	pidNum   []int
}

func newRackInfo(s *leader, g assign.Group) rackInfo {
	var ri rackInfo
	consumersByRack := map[string]int{} // rack => number of members; Java's lists are only counted
	memberRack := map[int]string{}
	for _, c := range s.order {
		if r := g.Members[c].Rack; r != "" {
			consumersByRack[r]++
			memberRack[c] = r
		}
	}
	if len(consumersByRack) == 0 {
		return ri
	}
	partitionRacks := map[tp]map[string]bool{}
	allRacks := map[string]bool{} // partitionsByRack.keySet()
	for k, t := range s.idx.names {
		racks := s.racks[t]
		for p := range s.idx.count(int32(k)) {
			set := map[string]bool{}
			if int(p) < len(racks) {
				for _, r := range racks[p] {
					set[r] = true
					allRacks[r] = true
				}
			}
			partitionRacks[tp{Topic: t, Partition: p}] = set
		}
	}
	ri.numConsumers = make(map[tp]int, len(partitionRacks))
	for p, set := range partitionRacks {
		sum := 0
		for r := range set {
			sum += consumersByRack[r]
		}
		ri.numConsumers[p] = sum
	}
	ri.pidNum = make([]int, s.total)
	x := s.idx
	for r, t := range x.names {
		for p := range x.count(int32(r)) {
			ri.pidNum[x.base[r]+p] = ri.numConsumers[tp{Topic: t, Partition: p}]
		}
	}
	if useRackAware(consumersByRack, allRacks, partitionRacks) {
		ri.consumerRacks = memberRack
		ri.partitionRacks = partitionRacks
		ri.pidRacks = make([]map[string]bool, s.total)
		for r, t := range x.names {
			for p := range x.count(int32(r)) {
				ri.pidRacks[x.base[r]+p] = partitionRacks[tp{Topic: t, Partition: p}]
			}
		}
	}
	return ri
}

// useRackAware is AbstractPartitionAssignor.useRackAwareAssignment: some
// member's rack holds replicas, and not every partition has replicas on
// every rack.
func useRackAware(consumerRacks map[string]int, partitionRacks map[string]bool, perPartition map[tp]map[string]bool) bool {
	disjoint := true
	for r := range consumerRacks {
		if partitionRacks[r] {
			disjoint = false
			break
		}
	}
	if disjoint {
		return false
	}
	for _, set := range perPartition {
		if len(set) != len(partitionRacks) {
			return true
		}
	}
	return false
}

// racksOf is partitionRacks.get(p) by pid.
func (ri *rackInfo) racksOf(p pid) map[string]bool {
	if int(p) < len(ri.pidRacks) {
		return ri.pidRacks[p]
	}
	return nil
}

// numOf is numConsumers.get(p) by pid; 0 where Go's map gives 0.
func (ri *rackInfo) numOf(p pid) int {
	if int(p) < len(ri.pidNum) {
		return ri.pidNum[p]
	}
	return 0
}

// mismatchPid is racksMismatch: the member has a rack (rack-aware) and
// the partition has no replica there.
func (ri *rackInfo) mismatchPid(c int, p pid) bool {
	r, ok := ri.consumerRacks[c]
	if !ok {
		return false
	}
	return !ri.racksOf(p)[r]
}

// nextRackConsumer returns the index in list, searching round from first,
// of the first member on a rack of p's replicas, or -1.
func (ri *rackInfo) nextRackConsumer(p pid, list []int, first int) int {
	racks := ri.racksOf(p)
	if len(racks) == 0 {
		return -1
	}
	for i := range list {
		k := (first + i) % len(list)
		if r, ok := ri.consumerRacks[list[k]]; ok && racks[r] {
			return k
		}
	}
	return -1
}
