package coordinator

import (
	"fmt"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/cespare/xxhash/v2"
)

// DefaultRedpandaGroupPartitions is the default of Redpanda's cluster
// setting group_topic_partitions: the number of partitions of its group
// topic, __consumer_offsets (releases before 21.x made it 1).
const DefaultRedpandaGroupPartitions = 16

// RedpandaGroupHash returns the 64-bit xxHash (XXH64, seed 0) of groupID's
// bytes, from which Redpanda places the group's coordinator.
func RedpandaGroupHash(groupID string) uint64 { return xxhash.Sum64String(groupID) }

// RedpandaPartition returns the partition of Redpanda's group topic, of
// the given partition count, whose leader is the group's coordinator.
// Redpanda does not take Kafka's Utils.abs(hashCode) % n: its
// coordinator_ntp_mapper places the group at
//
//	jump_consistent_hash(xxhash64(groupID, seed 0), partitions)
//
// Lamping and Veach's jump consistent hash (arXiv:1406.2294), so that
// adding partitions moves few groups. Use
// [DefaultRedpandaGroupPartitions] unless the cluster sets
// group_topic_partitions. It returns an [*InputError] wrapping
// [ErrOffsetsPartitions] when partitions < 1.
func RedpandaPartition(groupID string, partitions int32) (int32, error) {
	if partitions < 1 {
		return 0, &assign.InputError{Index: -1, Topic: "__consumer_offsets", Partition: -1, Err: fmt.Errorf("%w: %d", ErrOffsetsPartitions, partitions)}
	}
	return jumpHash(RedpandaGroupHash(groupID), partitions), nil
}

// jumpHash is the jump consistent hash of key over buckets: a bucket
// number in [0, buckets). Each step draws the next bucket the key would
// jump to as buckets grow, from a 64-bit linear congruential generator;
// the key stays in the last bucket below buckets. The floating-point
// expression is evaluated in the order Redpanda's C++ evaluates it,
// (b+1) * (2^31 / ((key>>33)+1)), since another order may round
// differently.
func jumpHash(key uint64, buckets int32) int32 {
	b, j := int64(-1), int64(0)
	for j < int64(buckets) {
		b = j
		key = key*2862933555777941757 + 1
		j = int64(float64(b+1) * (float64(int64(1)<<31) / float64((key>>33)+1)))
	}
	return int32(b)
}
