package groupfile

import "github.com/assigncalc/assigncalc/assign"

// Verdict is check's judgement of one result line, as check writes it in
// json and jsonl. Its field names are a public contract.
type Verdict struct {
	Name     string   `json:"name"`
	Strategy string   `json:"strategy"`
	Valid    bool     `json:"valid"`
	Problem  string   `json:"problem,omitempty"`  // every problem, joined with "; "
	Problems []string `json:"problems,omitempty"` // one per checker that fails

	// Ours says whether our strategy of that name gives the same
	// assignment: "same", "differs", "double assignment" (the client
	// emulated, Java's sticky say, gives a partition to two members), or
	// "-" when not compared.
	Ours        string       `json:"ours"`
	Differences []Difference `json:"differences,omitempty"`

	// Owned is where the partitions started: for check --from-describe,
	// what the members own as the describe output lists it (the
	// assignment judged); for check --in, what the group's members owned
	// before the round judged (their "owned"), absent when they owned
	// nothing.
	Owned *MemberPartitions `json:"owned,omitempty"`

	// Assumed lists what the input did not say and was assumed, as stderr
	// says it.
	Assumed []string `json:"assumed,omitempty"`
}

// Difference is one partition that our strategy gives elsewhere, in a
// [Verdict]. It is a partition that changed hands, but not a [Move]: its
// keys name whose assignment holds it, not a before and an after, and
// the partition is one "topic-partition" string.
type Difference struct {
	Partition string `json:"partition"`
	Theirs    string `json:"theirs"` // "" when they leave it unassigned
	Ours      string `json:"ours"`
}

// DifferenceOf is m, a move from their assignment to ours
// ([assign.Moves](theirs, ours)).
func DifferenceOf(m assign.Move) Difference {
	return Difference{Partition: m.Partition.String(), Theirs: m.From, Ours: m.To}
}
