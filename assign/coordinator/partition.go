package coordinator

import (
	"errors"
	"fmt"
	"math"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/internal/jvm"
)

// DefaultOffsetsPartitions is the default of the broker setting
// offsets.topic.num.partitions: the number of partitions of
// __consumer_offsets.
const DefaultOffsetsPartitions = 50

// ErrOffsetsPartitions is wrapped in an [*InputError] when the partition
// count given for __consumer_offsets is not positive.
var ErrOffsetsPartitions = errors.New("__consumer_offsets needs a positive partition count")

// GroupIDHash returns Java's String.hashCode of groupID, computed over
// its UTF-16 code units in 32-bit two's complement arithmetic, as the
// broker computes it. Bytes that are not valid UTF-8 count as U+FFFD.
func GroupIDHash(groupID string) int32 { return jvm.StringHash(groupID) }

// CoordinatorPartition returns the partition of __consumer_offsets, of
// the given partition count, whose leader is the group's coordinator:
// Kafka's
//
//	Utils.abs(groupId.hashCode()) % partitions
//
// (GroupMetadataManager.partitionFor; GroupCoordinatorService.partitionFor
// since Kafka 3.x), where Utils.abs maps Integer.MIN_VALUE, whose absolute
// value does not fit, to 0. Use [DefaultOffsetsPartitions] unless the
// cluster sets offsets.topic.num.partitions. It returns an [*InputError]
// wrapping [ErrOffsetsPartitions] when partitions < 1.
func CoordinatorPartition(groupID string, partitions int32) (int32, error) {
	if partitions < 1 {
		return 0, &assign.InputError{Index: -1, Topic: "__consumer_offsets", Partition: -1, Err: fmt.Errorf("%w: %d", ErrOffsetsPartitions, partitions)}
	}
	h := GroupIDHash(groupID)
	switch {
	case h == math.MinInt32:
		h = 0
	case h < 0:
		h = -h
	}
	return h % partitions, nil
}
