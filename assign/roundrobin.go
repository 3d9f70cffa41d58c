package assign

// RoundRobin is Kafka's RoundRobinAssignor.
type RoundRobin struct{}

// Name returns "roundrobin".
func (RoundRobin) Name() string { return "roundrobin" }

// Protocol returns [Eager].
func (RoundRobin) Protocol() RebalanceProtocol { return Eager }

// Assign is not written yet.
func (RoundRobin) Assign(g Group) (Assignment, error) { panic("TODO") }
