package churn

import (
	"strconv"
	"strings"

	"github.com/assigncalc/assigncalc/assign"
)

// RestartedID names the new member.id of a restarted dynamic member, for
// [Change.NewID]: ID-r1, ID-r2, ... for successive restarts of the
// member first called ID (ref may be ID itself or any ID-rN it has had
// since), skipping IDs that a member of g already has. restarts counts
// the restarts so far of each first ID and is updated; pass the same map
// for every restart of a simulation. A real consumer gets a random
// member.id from the coordinator; a readable one made from the old keeps
// the tables of a simulation easy to follow.
func RestartedID(g assign.Group, ref string, restarts map[string]int) string {
	base := ref
	if b, n, ok := strings.Cut(ref, "-r"); ok {
		if _, err := strconv.Atoi(n); err == nil {
			base = b
		}
	}
	for {
		restarts[base]++
		id := base + "-r" + strconv.Itoa(restarts[base])
		taken := false
		for _, m := range g.Members {
			taken = taken || m.ID == id
		}
		if !taken {
			return id
		}
	}
}
