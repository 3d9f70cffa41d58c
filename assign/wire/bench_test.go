package wire

import (
	"fmt"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
)

// BenchmarkDecode decodes messages of a member owning many partitions of a
// few topics, as a leader of a large group decodes them.
func BenchmarkDecode(b *testing.B) {
	for _, parts := range []int{100, 10000} {
		var owned []assign.TopicPartition
		for p := range parts {
			owned = append(owned, assign.TopicPartition{Topic: fmt.Sprintf("topic-%d", p*10/parts), Partition: int32(p)})
		}
		sub, err := Subscription{Version: 3, Topics: []string{"topic-0", "topic-1"}, OwnedPartitions: owned, GenerationID: 4}.MarshalBinary()
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("message=subscription/partitions=%d", parts), func(b *testing.B) {
			b.SetBytes(int64(len(sub)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := DecodeSubscription(sub); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
