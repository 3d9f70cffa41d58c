package groupfile

import (
	"slices"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/churn"
)

// Share is what an answer for a share group (KIP-932, the [assign.Simple]
// assignor) shows beyond the [Result]'s keys, written after them by
// [AppendShare]:
//
//	{"name": "orders", "strategy": "simple",
//	 "assignment": {"c0": {"t0": [1]}, "c1": {"t0": [0, 1]}, "c2": {"t0": [0]}},
//	 "stats": {...},
//	 "protocol": "share", "kafka": "4.4", "maxSharing": 2,
//	 "sharing": [{"topic": "t0", "partition": 0, "count": 2, "members": ["c1", "c2"]},
//	             {"topic": "t0", "partition": 1, "count": 2, "members": ["c0", "c1"]}]}
//
// One partition may go to several members of a share group, which then
// share its records; "sharing" says, partition by partition, how many and
// which. Its field names are a public contract.
type Share struct {
	// Protocol is always "share": the group protocol the answer is for.
	Protocol string `json:"protocol"`

	// Kafka is the release whose assignor answered, "4.2" to "4.4".
	Kafka string `json:"kafka"`

	// MaxSharing is the most members holding any one partition
	// ([assign.Stats.MaxSharing]).
	MaxSharing int `json:"maxSharing"`

	// Sharing lists every partition of every topic some member subscribes
	// to, and any other partition a member holds, sorted by topic then
	// partition; a partition nobody holds has count 0.
	Sharing []PartitionSharing `json:"sharing"`

	// Owned is what the members held before (their current targets), when
	// any held something.
	Owned *MemberPartitions `json:"owned,omitempty"`
}

// PartitionSharing is one partition of a share group's answer and the
// members holding it.
type PartitionSharing struct {
	Topic     string   `json:"topic"`
	Partition int32    `json:"partition"`
	Count     int      `json:"count"`   // len(Members)
	Members   []string `json:"members"` // in the group's member order
}

// ShareOf is the [Share] of a, the answer of the share assignor of Kafka
// release kafka for g.
func ShareOf(g assign.Group, a assign.Assignment, kafka string) Share {
	holders := make(map[assign.TopicPartition][]string)
	for _, m := range g.Members {
		for _, tp := range a[m.ID] {
			holders[tp] = append(holders[tp], m.ID)
		}
	}
	subscribed := make(map[string]bool)
	for _, m := range g.Members {
		for _, t := range m.Topics {
			if _, ok := g.Topics[t]; ok {
				subscribed[t] = true
			}
		}
	}
	var tps []assign.TopicPartition
	for t := range subscribed {
		for p := range g.Topics[t] {
			tps = append(tps, assign.TopicPartition{Topic: t, Partition: p})
		}
	}
	for tp := range holders {
		if !subscribed[tp.Topic] || tp.Partition >= g.Topics[tp.Topic] {
			tps = append(tps, tp) // held beyond the subscriptions: Kafka's heterogeneous builder keeps such
		}
	}
	slices.SortFunc(tps, assign.TopicPartition.Compare)
	s := Share{Protocol: "share", Kafka: kafka, Sharing: make([]PartitionSharing, len(tps)), Owned: OwnedOf(g)}
	for i, tp := range tps {
		ms := holders[tp]
		if ms == nil {
			ms = []string{}
		}
		s.Sharing[i] = PartitionSharing{Topic: tp.Topic, Partition: tp.Partition, Count: len(ms), Members: ms}
		s.MaxSharing = max(s.MaxSharing, len(ms))
	}
	return s
}

// SharedBy groups the partitions of s by how many members hold them: for
// each count, in ascending order, the partitions with it, in s's order.
func (s Share) SharedBy() (counts []int, partitions [][]assign.TopicPartition) {
	by := make(map[int][]assign.TopicPartition)
	for _, p := range s.Sharing {
		by[p.Count] = append(by[p.Count], assign.TopicPartition{Topic: p.Topic, Partition: p.Partition})
	}
	for n := range by {
		counts = append(counts, n)
	}
	slices.Sort(counts)
	for _, n := range counts {
		partitions = append(partitions, by[n])
	}
	return counts, partitions
}

// AppendShare appends r with s's fields after its keys, as compact JSON
// without a newline, to buf. A result with an error gets none of them.
func AppendShare(buf []byte, r Result, s Share) ([]byte, error) {
	if r.Err != nil {
		return AppendResult(buf, r)
	}
	return appendExtended(buf, r, s)
}

// ShareStep is one step of simulate --protocol share, written after the
// keys of the step's [Result] ([AppendShareStep]): the share group's
// counterpart of [SimulateStep]. A partition may have several holders,
// so instead of moves it counts what members received and revoked, a
// partition once per member. Its field names are a public contract.
type ShareStep struct {
	Step       int      `json:"step"`       // 0 for the first rebalance, then one per change
	Change     string   `json:"change"`     // "start", or the change as given ("leave c0")
	Received   int      `json:"received"`   // partitions members hold after the step and did not before
	Revoked    int      `json:"revoked"`    // partitions members held before the step and do not after
	Affected   int      `json:"affected"`   // members whose assignment changed
	Rounds     int      `json:"rounds"`     // heartbeat rounds: every member takes its target at its next
	Spread     int      `json:"spread"`     // most minus fewest partitions a member holds after the step
	MaxSharing int      `json:"maxSharing"` // most members holding one partition after the step
	Notes      []string `json:"notes,omitempty"`

	// Protocol, Kafka and Sharing are those of [Share], after the step.
	Protocol string             `json:"protocol"`
	Kafka    string             `json:"kafka"`
	Sharing  []PartitionSharing `json:"sharing"`

	// Owned and Assumed, on step 0 only, are as [SimulateStep]'s.
	Owned   *MemberPartitions `json:"owned,omitempty"`
	Assumed []string          `json:"assumed,omitempty"`
}

// ShareStepOf is step number n, change, of a share group as s, the churn
// model's answer, says, for the assignor of Kafka release kafka.
func ShareStepOf(n int, change string, s churn.Step, kafka string) ShareStep {
	sh := ShareOf(s.Group, s.After, kafka)
	return ShareStep{Step: n, Change: change, Received: s.Received, Revoked: s.Revoked, Affected: s.Affected(),
		Rounds: s.Rounds, Spread: assign.Summarize(s.Group, s.After).Spread, MaxSharing: sh.MaxSharing, Notes: s.Notes,
		Protocol: sh.Protocol, Kafka: kafka, Sharing: sh.Sharing}
}

// AppendShareStep appends r, the step's result, with s's fields after
// its keys, as compact JSON without a newline, to buf.
func AppendShareStep(buf []byte, r Result, s ShareStep) ([]byte, error) {
	return appendExtended(buf, r, s)
}
