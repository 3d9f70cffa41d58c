package wire_test

import (
	"fmt"
	"maps"
	"slices"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/wire"
)

// A group leader's round with the range strategy: from the member metadata
// of the JoinGroup response to the assignment bytes of the SyncGroup
// request. Members C0 and C1 subscribe to t0 and t1, three partitions each;
// Range gives C0 the first two partitions of each topic and C1 the last.
func Example() {
	// What the JoinGroup response holds, as the members' clients encoded
	// it (here, subscriptions version 3 with C1's rack).
	c0, _ := wire.Subscription{Version: 3, Topics: []string{"t0", "t1"}, GenerationID: -1}.MarshalBinary()
	c1, _ := wire.Subscription{Version: 3, Topics: []string{"t0", "t1"}, GenerationID: -1,
		RackID: ptr("rack-a")}.MarshalBinary()
	members := []wire.JoinMember{
		{MemberID: "C1", Metadata: c1},
		{MemberID: "C0", Metadata: c0},
	}

	// The leader's view: members plus cluster metadata.
	g, err := wire.GroupFromJoin("range", members, map[string]int32{"t0": 3, "t1": 3}, nil)
	if err != nil {
		panic(err)
	}
	a, err := assign.Range{}.Assign(g)
	if err != nil {
		panic(err)
	}

	// What goes into SyncGroup, member by member.
	sync, err := wire.SyncGroupAssignments(a, wire.MaxAssignmentVersion)
	if err != nil {
		panic(err)
	}
	for _, id := range slices.Sorted(maps.Keys(sync)) {
		fmt.Printf("%s %v\n   %x\n", id, a[id], sync[id])
	}
	// Output:
	// C0 [t0-0 t0-1 t1-0 t1-1]
	//    0003000000020002743000000002000000000000000100027431000000020000000000000001ffffffff
	// C1 [t0-2 t1-2]
	//    000300000002000274300000000100000002000274310000000100000002ffffffff
}

func ptr[T any](v T) *T { return &v }
