package groupfile

import (
	"fmt"

	"github.com/assigncalc/assigncalc/assign/coordinator"
)

// Coordinator is where a group's coordinator lives, as coordinator writes
// it in json and jsonl. Its field names are a public contract.
type Coordinator struct {
	Group      string `json:"group"`      // the group.id
	HashCode   int32  `json:"hashCode"`   // Java's String.hashCode of it
	Partition  int32  `json:"partition"`  // of __consumer_offsets; its leader is the coordinator
	Partitions int32  `json:"partitions"` // of __consumer_offsets
}

// CoordinatorOf is where the coordinator of groupID lives when
// __consumer_offsets has partitions partitions
// ([coordinator.CoordinatorPartition]).
func CoordinatorOf(groupID string, partitions int32) (Coordinator, error) {
	p, err := coordinator.CoordinatorPartition(groupID, partitions)
	if err != nil {
		return Coordinator{}, err
	}
	return Coordinator{Group: groupID, HashCode: coordinator.GroupIDHash(groupID), Partition: p, Partitions: partitions}, nil
}

// RedpandaCoordinator is where a group's coordinator lives in a Redpanda
// cluster, as coordinator --broker redpanda writes it in json and jsonl.
// Its field names are a public contract.
type RedpandaCoordinator struct {
	Group      string `json:"group"`      // the group.id
	Broker     string `json:"broker"`     // "redpanda"
	XXHash64   string `json:"xxhash64"`   // XXH64 of the group.id, seed 0, in hex
	Partition  int32  `json:"partition"`  // of __consumer_offsets; its leader is the coordinator
	Partitions int32  `json:"partitions"` // of __consumer_offsets (group_topic_partitions)
}

// RedpandaCoordinatorOf is where the coordinator of groupID lives in a
// Redpanda cluster whose group topic has partitions partitions
// ([coordinator.RedpandaPartition]).
func RedpandaCoordinatorOf(groupID string, partitions int32) (RedpandaCoordinator, error) {
	p, err := coordinator.RedpandaPartition(groupID, partitions)
	if err != nil {
		return RedpandaCoordinator{}, err
	}
	return RedpandaCoordinator{Group: groupID, Broker: "redpanda", XXHash64: fmt.Sprintf("%016x", coordinator.RedpandaGroupHash(groupID)), Partition: p, Partitions: partitions}, nil
}
