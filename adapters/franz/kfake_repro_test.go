package franz_test

// A reproduction of the kfake behaviour the chaos test works around (see
// dropCrashed and chaosSession): kfake expires a member parked in SyncGroup
// by its session timer, and never answers the parked request. Kafka keeps
// such a member (MemberMetadata.hasSatisfiedHeartbeat: a member awaiting a
// join or a sync satisfies its heartbeats), and removes a member only after
// answering what it waits on. The test fails on the kfake version pinned
// here, so it only runs with -kfake.repro:
//
//	go test -run TestKfakeKeepsMemberParkedInSync -kfake.repro -v

import (
	"context"
	"flag"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

var kfakeRepro = flag.Bool("kfake.repro", false, "run TestKfakeKeepsMemberParkedInSync, which fails on the pinned kfake")

// TestKfakeKeepsMemberParkedInSync: A leads generation 1 alone; B joins,
// A rejoins, generation 2 forms with A as leader. B sends SyncGroup and
// waits for the leader's; A keeps heartbeating but does not sync. Three
// sessions later, B must still be a member, its SyncGroup unanswered or
// answered with an error, never dropped.
func TestKfakeKeepsMemberParkedInSync(t *testing.T) {
	if !*kfakeRepro {
		t.Skip("kfake expires members parked in SyncGroup; run with -kfake.repro to see it")
	}
	const (
		group     = "repro"
		session   = time.Second
		rebalance = 10 * time.Second
	)
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.BrokerConfigs(map[string]string{"group.min.session.timeout.ms": "500"}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := func() *kgo.Client {
		cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(cl.Close)
		return cl
	}
	a, b := client(), client()

	join := func(cl *kgo.Client, id string) *kmsg.JoinGroupResponse {
		req := kmsg.NewPtrJoinGroupRequest()
		req.Group, req.MemberID, req.ProtocolType = group, id, "consumer"
		req.SessionTimeoutMillis, req.RebalanceTimeoutMillis = int32(session.Milliseconds()), int32(rebalance.Milliseconds())
		p := kmsg.NewJoinGroupRequestProtocol()
		p.Name, p.Metadata = "range", []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
		req.Protocols = append(req.Protocols, p)
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			t.Fatalf("join: %v", err)
		}
		return resp
	}
	member := func(cl *kgo.Client) string {
		resp := join(cl, "")
		if kerr.ErrorForCode(resp.ErrorCode) != kerr.MemberIDRequired {
			t.Fatalf("first join: %v, want MEMBER_ID_REQUIRED", kerr.ErrorForCode(resp.ErrorCode))
		}
		return resp.MemberID
	}
	sync := func(cl *kgo.Client, id string, gen int32, assign bool) (*kmsg.SyncGroupResponse, error) {
		req := kmsg.NewPtrSyncGroupRequest()
		req.Group, req.MemberID, req.Generation = group, id, gen
		if assign {
			ga := kmsg.NewSyncGroupRequestGroupAssignment()
			ga.MemberID = id
			req.GroupAssignment = append(req.GroupAssignment, ga)
		}
		return req.RequestWith(ctx, cl)
	}
	members := func() []string {
		req := kmsg.NewPtrDescribeGroupsRequest()
		req.Groups = []string{group}
		resp, err := req.RequestWith(ctx, a)
		if err != nil || len(resp.Groups) != 1 {
			t.Fatalf("describe: %v", err)
		}
		var ids []string
		for _, m := range resp.Groups[0].Members {
			ids = append(ids, m.MemberID)
		}
		return ids
	}

	idA := member(a)
	if resp := join(a, idA); resp.ErrorCode != 0 || resp.LeaderID != idA {
		t.Fatalf("A's join: %v, leader %q", kerr.ErrorForCode(resp.ErrorCode), resp.LeaderID)
	}
	if _, err := sync(a, idA, 1, true); err != nil {
		t.Fatalf("A's sync: %v", err)
	}
	idB := member(b)
	joinedB := make(chan *kmsg.JoinGroupResponse, 1)
	go func() { joinedB <- join(b, idB) }()
	// B's join moved the group to PreparingRebalance; A rejoins once it
	// has (a heartbeat says so).
	for i := 0; ; i++ {
		req := kmsg.NewPtrHeartbeatRequest()
		req.Group, req.MemberID, req.Generation = group, idA, 1
		resp, err := req.RequestWith(ctx, a)
		if err != nil {
			t.Fatalf("A's heartbeat: %v", err)
		}
		if kerr.ErrorForCode(resp.ErrorCode) == kerr.RebalanceInProgress {
			break
		}
		if i == 100 {
			t.Fatal("the group never rebalanced after B joined")
		}
		time.Sleep(10 * time.Millisecond)
	}
	respA := join(a, idA)
	respB := <-joinedB
	if respA.ErrorCode != 0 || respB.ErrorCode != 0 || respA.Generation != 2 || respA.LeaderID != idA {
		t.Fatalf("generation 2: A %v gen %d leader %q, B %v", kerr.ErrorForCode(respA.ErrorCode), respA.Generation, respA.LeaderID, kerr.ErrorForCode(respB.ErrorCode))
	}

	syncedB := make(chan error, 1)
	go func() {
		resp, err := sync(b, idB, 2, false)
		if err == nil {
			err = kerr.ErrorForCode(resp.ErrorCode)
		}
		syncedB <- err
	}()
	deadline := time.Now().Add(3 * session)
	for time.Now().Before(deadline) {
		req := kmsg.NewPtrHeartbeatRequest()
		req.Group, req.MemberID, req.Generation = group, idA, 2
		if _, err := req.RequestWith(ctx, a); err != nil {
			t.Fatalf("A's heartbeat: %v", err)
		}
		time.Sleep(session / 5)
	}
	select {
	case err := <-syncedB:
		t.Logf("B's SyncGroup answered: %v", err)
	default:
		t.Logf("B's SyncGroup is still parked")
	}
	if ids := members(); !slices.Contains(ids, idB) {
		t.Errorf("after %v parked in SyncGroup, B is no longer a member (members %v): kfake expired it by its session timer", 3*session, ids)
	}
}
