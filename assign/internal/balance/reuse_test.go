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
