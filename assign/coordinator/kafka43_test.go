package coordinator

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/assigncalc/assigncalc/assign"
)

// TestKafka43ReconcilesAs42 holds the package doc's claim that Kafka 4.3
// (KIP-1251's assignment epochs, which only decide which offset commits
// the coordinator accepts) reconciles as 4.2 does: NextAssignment gives
// 4.3 and 4.4 the answer it gives 4.2 on random members' owned, pending
// revocations and targets over eight partitions, with random holders
// elsewhere. KAFKA-19449 (4.2) is the last change to the rule; 4.1 is
// compared too, to show the generator reaches a case where versions can
// differ at all.
func TestKafka43ReconcilesAs42(t *testing.T) {
	differs41 := false
	rapid.Check(t, func(t *rapid.T) {
		set := func(label string) []assign.TopicPartition {
			var out []assign.TopicPartition
			for p := range int32(8) {
				if rapid.Bool().Draw(t, label) {
					out = append(out, assign.TopicPartition{Topic: "t", Partition: p})
				}
			}
			return out
		}
		owned, target, elsewhere := set("owned"), set("target"), set("elsewhere")
		var revoked []assign.TopicPartition
		for _, tp := range set("revoked") {
			if !slices.Contains(owned, tp) { // a pending revocation is no longer owned
				revoked = append(revoked, tp)
			}
		}
		held := func(tp assign.TopicPartition) bool { return slices.Contains(elsewhere, tp) }
		type answer struct {
			Revoke, Grant []assign.TopicPartition
			Unreleased    bool
		}
		run := func(v assign.KafkaVersion) answer {
			r, g, u := NextAssignment(v, owned, revoked, target, held)
			return answer{r, g, u}
		}
		want := run(assign.Kafka42)
		for _, v := range []assign.KafkaVersion{assign.Kafka43, assign.Kafka44} {
			if diff := cmp.Diff(want, run(v)); diff != "" {
				t.Fatalf("NextAssignment(Kafka %v) differs from 4.2 (-4.2 +%v):\n%s", v, v, diff)
			}
		}
		if !cmp.Equal(want, run(assign.Kafka41)) {
			differs41 = true
		}
	})
	if !differs41 {
		t.Errorf("no drawn case told 4.1 from 4.2: the generator does not reach KAFKA-19449's case")
	}
}
