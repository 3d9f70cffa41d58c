package balance

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestClaimReusable: Solve answers the same whether or not it may write
// its answer into Claim's array, on identical subscriptions (the fast
// path) with claims, previous owners and racks drawn, and on different
// ones (the general path, which then places into Claim's array and
// copies the claims back only for the phases after place: it fails when
// generalOpts skips that copy).
func TestClaimReusable(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var p *Problem
		if rapid.Bool().Draw(t, "identical") {
			p = identicalProblem(t, 8, 4, 12)
			drawHistory(t, p, func(_ int32, subs []int32) int32 {
				return int32(rapid.IntRange(-1, len(p.Subs)-1).Draw(t, "claimant"))
			})
		} else {
			p = mediumProblem(t)
		}
		want, wantErr := Solve(p)
		q := *p
		q.Claim = slices.Clone(p.Claim)
		q.ClaimReusable = true
		got, err := Solve(&q)
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("error %v, want %v", err, wantErr)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("owners %v with Claim reusable, %v without", got, want)
		}
	})
}

// TestScratchReuse: solves that share a Scratch answer as fresh ones do.
// Each problem after the first has the first's Parts and Subs and claims
// drawn anew (the next one of CooperativeSticky's settling solves claims
// the last answer less some partitions; here, any claims), with Claim
// reusable or not, and sometimes other options of the search, so that
// the second solver takes every array the first left, cleared. A solve
// of other Parts takes none (take checks).
func TestScratchReuse(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		first := mediumProblem(t)
		var sc Scratch
		p := *first
		p.Scratch = &sc
		for round := range rapid.IntRange(1, 4).Draw(t, "solves") {
			q := p
			if round > 0 {
				start := Start(q.Parts)
				q.Claim = make([]int32, start[len(q.Parts)])
				for tp := range q.Parts {
					for pid := start[tp]; pid < start[tp+1]; pid++ {
						q.Claim[pid] = -1
						var subs []int32
						for m, sub := range q.Subs {
							if subscribes(sub, int32(tp)) {
								subs = append(subs, int32(m))
							}
						}
						if rapid.Bool().Draw(t, "claimed") {
							q.Claim[pid] = rapid.SampledFrom(subs).Draw(t, "claimant")
						}
					}
				}
				q.ClaimReusable = rapid.Bool().Draw(t, "reusable")
			}
			fresh := q
			fresh.Scratch, fresh.Claim = nil, slices.Clone(q.Claim)
			want, wantErr := Solve(&fresh)
			got, err := Solve(&q)
			if (err == nil) != (wantErr == nil) {
				t.Fatalf("solve %d: error %v, want %v", round, err, wantErr)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("solve %d: owners %v with the scratch, %v fresh", round, got, want)
			}
		}
	})
}

// TestDropUnsubscribed: with DropUnsubscribed, Solve answers a problem
// whose claims name members that do not subscribe to the pid's topic as
// it answers the problem with those claims made -1 beforehand, and leaves
// Claim so; without it, it refuses the problem. The claims are drawn
// from every member, subscriber or not.
func TestDropUnsubscribed(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := mediumProblem(t)
		start := Start(p.Parts)
		p.Claim = make([]int32, start[len(p.Parts)])
		dropped := make([]int32, len(p.Claim))
		some := false
		for tp := range p.Parts {
			for pid := start[tp]; pid < start[tp+1]; pid++ {
				c := int32(rapid.IntRange(-1, len(p.Subs)-1).Draw(t, "claimant"))
				p.Claim[pid], dropped[pid] = c, c
				if c >= 0 && !subscribes(p.Subs[c], int32(tp)) {
					dropped[pid], some = -1, true
				}
			}
		}
		ref := *p
		ref.Claim = slices.Clone(dropped)
		want, wantErr := Solve(&ref)
		if wantErr != nil {
			t.Fatal(wantErr)
		}
		q := *p
		q.Claim = slices.Clone(p.Claim)
		if _, err := Solve(&q); some && err == nil {
			t.Fatalf("Solve took claims of members that do not subscribe, without DropUnsubscribed")
		}
		q.Claim = slices.Clone(p.Claim)
		q.DropUnsubscribed = true
		got, err := Solve(&q)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("owners %v dropping in Solve, %v dropped before", got, want)
		}
		if !slices.Equal(q.Claim, dropped) {
			t.Fatalf("Claim left %v, want %v", q.Claim, dropped)
		}
	})
}
