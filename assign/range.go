package assign

// Range is Kafka's RangeAssignor.
type Range struct{}

// Name returns "range".
func (Range) Name() string { return "range" }

// Protocol returns [Eager].
func (Range) Protocol() RebalanceProtocol { return Eager }

// Assign is not written yet.
func (Range) Assign(g Group) (Assignment, error) { panic("TODO") }
