package coordinator

// ReplicaRacks gives the racks of the replicas of partitions from to
// end-1 of a topic, one list per partition, for a cluster with one
// broker per entry of racks: partition p has its replicas on racks p,
// p+1, ..., p+replicas-1 (mod len(racks)), so each list is
// min(replicas, len(racks)) long, and empty when racks is.
//
// This is the round-robin placement Kafka gives a new topic, and the
// partitions added to one, when its brokers have no rack
// (AdminUtils.assignReplicasToBrokersRackUnaware): the first replica of
// partition p goes to broker (start+p) mod n and the others follow it.
// Kafka draws start at random and, every n partitions, shifts where the
// followers begin so that leaders and followers spread; ReplicaRacks
// starts at 0 and never shifts, so the same flags always give the same
// racks. The rack-aware assignors read only the set of racks of each
// partition, which the shift can change only when replicas < n.
func ReplicaRacks(from, end int32, racks []string, replicas int) [][]string {
	lists := make([][]string, 0, max(0, end-from))
	for p := from; p < end; p++ {
		var rs []string
		for k := range min(replicas, len(racks)) {
			rs = append(rs, racks[(int(p)+k)%len(racks)])
		}
		lists = append(lists, rs)
	}
	return lists
}
