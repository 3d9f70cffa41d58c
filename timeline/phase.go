package timeline

import (
	"hash/fnv"
	"math/rand/v2"
)

// Phase places one member in its heartbeat and poll cycles when the
// timeline starts from a stable group. Real members are not in lockstep:
// each heartbeat thread runs from when its member last joined, each poll
// loop from when its last batch ended, so a rebalance reaches the members
// at different points of their cycles and the join phase waits for the
// slowest.
type Phase struct {
	// Heartbeat is when the member's first heartbeat comes, in ms from
	// t = 0: in [1, the heartbeat interval] (heartbeat.interval.ms under
	// Classic, group.consumer.heartbeat.interval.ms under Consumer).
	Heartbeat int64
	// Poll is when its first poll comes, in ms from t = 0: in [0, the
	// time of one batch]; 0 for a member that polls at t = 0.
	Poll int64
}

// DrawPhase is the phase [Simulate] gives the member id under seed when
// the scenario does not give one: uniform over the heartbeat interval and
// over one batch, drawn from a generator seeded by seed and id alone, so
// that a member's phase does not depend on the other members or on their
// order.
func DrawPhase(seed uint64, id string, heartbeatInterval, batchMs int64) Phase {
	h := fnv.New64a()
	h.Write([]byte(id))
	r := rand.New(rand.NewPCG(seed, h.Sum64()))
	p := Phase{Heartbeat: 1 + r.Int64N(max(heartbeatInterval, 1))}
	if batchMs > 0 {
		p.Poll = r.Int64N(batchMs + 1)
	}
	return p
}

// phaseOf returns m's phase in n: the one given, or the drawn one.
func phaseOf(n *normalized, m Member, heartbeatInterval int64) Phase {
	if p, ok := n.Phases[m.ID]; ok {
		return p
	}
	return DrawPhase(n.Seed, m.ID, heartbeatInterval, m.Config.BatchMs())
}
