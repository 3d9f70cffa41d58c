package franz_test

// The chaos test's checks of the group: its return to Stable, and the
// rounds our leader ran (see chaos_test.go).

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/wire"
)

// settle waits, at most chaosSettleTimeout, until the group is stable (see
// stable), logs what each member holds and reports true. A group that
// does not settle is a fatal error, or, with unsettledIsViolation, a
// violation, and settle reports false.
func (r *chaosRun) settle(what string) bool {
	r.t.Helper()
	var last error
	for range int(chaosSettleTimeout / chaosTick) {
		a, err := r.stable()
		if err == nil {
			r.logf("stable %s: %v", what, a)
			r.closeZombies() // kfake no longer lists them
			return true
		}
		last = err
		if r.ctx.Err() != nil {
			break
		}
		r.pause(chaosTick)
	}
	if r.unsettledIsViolation {
		r.violation("%s: the group did not return to Stable within %v: %v", what, chaosSettleTimeout, last)
		return false
	}
	r.t.Fatalf("%s: the group did not return to Stable within %v: %v", what, chaosSettleTimeout, last)
	return false
}

// stable returns what the live members hold, by incarnation name, when the
// group is stable: kfake describes it Stable with exactly the live members,
// each subscribed as the test subscribed it and assigned what it holds;
// the members agree on the generation; and what they hold passes
// assign.Verify and assign.VerifyBalanced.
func (r *chaosRun) stable() (map[string][]assign.TopicPartition, error) {
	req := kmsg.NewPtrDescribeGroupsRequest()
	req.Groups = []string{chaosGroup}
	resp, err := req.RequestWith(r.ctx, r.admin)
	if err != nil {
		return nil, fmt.Errorf("describe: %w", err)
	}
	if len(resp.Groups) != 1 {
		return nil, fmt.Errorf("describe: %d groups", len(resp.Groups))
	}
	desc := resp.Groups[0]
	if desc.State != "Stable" {
		return nil, fmt.Errorf("kfake says %s", desc.State)
	}
	described := make(map[string]kmsg.DescribeGroupsResponseGroupMember, len(desc.Members))
	for _, m := range desc.Members {
		described[m.MemberID] = m
	}

	r.mu.Lock()
	defer r.mu.Unlock()
	held := make(map[*chaosMember][]assign.TopicPartition)
	for tp, m := range r.owner {
		held[m] = append(held[m], tp)
	}
	var g assign.Group
	g.Topics = chaosTopics
	a := make(assign.Assignment)
	byName := make(map[string][]assign.TopicPartition)
	gen := int32(-1)
	for _, name := range slices.Sorted(maps.Keys(r.live)) {
		m := r.live[name]
		id, mgen := m.cl.GroupMetadata()
		if id == "" || mgen <= 0 {
			return nil, fmt.Errorf("%s has not joined", name)
		}
		if gen >= 0 && mgen != gen {
			return nil, fmt.Errorf("members are in generations %d and %d", gen, mgen)
		}
		gen = mgen
		d, ok := described[id]
		if !ok {
			return nil, fmt.Errorf("kfake does not list %s (%s)", name, id)
		}
		delete(described, id)
		sub, err := wire.DecodeSubscription(d.ProtocolMetadata)
		if err != nil {
			return nil, fmt.Errorf("%s: subscription: %w", name, err)
		}
		if got := slices.Sorted(slices.Values(sub.Topics)); !slices.Equal(got, m.topics) {
			return nil, fmt.Errorf("%s joined with %v, subscribes to %v", name, got, m.topics)
		}
		as, err := wire.DecodeAssignment(d.MemberAssignment)
		if err != nil {
			return nil, fmt.Errorf("%s: assignment: %w", name, err)
		}
		tps := held[m]
		slices.SortFunc(tps, assign.TopicPartition.Compare)
		slices.SortFunc(as.Partitions, assign.TopicPartition.Compare)
		if !slices.Equal(as.Partitions, tps) {
			return nil, fmt.Errorf("%s is assigned %v, holds %v", name, as.Partitions, tps)
		}
		g.Members = append(g.Members, assign.Member{ID: id, InstanceID: m.instance, Topics: m.topics})
		a[id] = tps
		byName[name] = tps
	}
	for id := range described {
		return nil, fmt.Errorf("kfake lists %s, which is not live", id)
	}
	for tp, m := range r.owner {
		if r.live[m.name] != m {
			return nil, fmt.Errorf("%s is held by %s, which is not live", tp, m.name)
		}
	}
	if len(g.Members) == 0 {
		return nil, errors.New("no live member")
	}
	if err := assign.VerifyBalanced(g, a); err != nil {
		return nil, err
	}
	return byName, nil
}

// checkRounds checks every round our leader ran (see chaos_test.go).
func (r *chaosRun) checkRounds() {
	r.t.Helper()
	rounds := r.rounds.take()
	if len(rounds) == 0 {
		r.violation("our leader ran no round")
	}
	for i, rd := range rounds {
		if r.s.Protocol() != assign.Cooperative {
			if err := assign.VerifyBalanced(rd.group, rd.result); err != nil {
				r.violation("round %d of %d: %v", i+1, len(rounds), err)
			}
			continue
		}
		p, err := assign.CooperativeSticky{}.Plan(rd.group)
		if err != nil {
			r.violation("round %d of %d: Plan: %v", i+1, len(rounds), err)
			continue
		}
		if err := assign.VerifyBalanced(rd.group, p.Target); err != nil {
			r.violation("round %d of %d: target: %v", i+1, len(rounds), err)
		}
		if err := assign.VerifyCooperative(rd.group, rd.result); err != nil {
			r.violation("round %d of %d: %v", i+1, len(rounds), err)
		}
		if err := assign.CheckCooperative(rd.group, rd.result); err != nil {
			r.violation("round %d of %d: %v", i+1, len(rounds), err)
		}
	}
	r.logf("%d rounds led by our balancer, all checked", len(rounds))
}
