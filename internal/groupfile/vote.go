package groupfile

import (
	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/coordinator"
	"github.com/assigncalc/assigncalc/churn"
)

// Vote is the coordinator's choice of strategy, as vote writes it in
// json and jsonl. Its field names are a public contract. The maps are
// written with sorted keys and are never null; Tally keeps the
// coordinator's order, which breaks ties.
type Vote struct {
	Coordinator    string            `json:"coordinator"` // java or scala
	Kind           string            `json:"kind"`        // classic or consumer
	Candidates     []string          `json:"candidates"`  // [] when none
	Ballots        []Ballot          `json:"ballots"`
	Votes          map[string]int    `json:"votes"` // strategy => ballots
	Tally          []Tally           `json:"tally"`
	Winner         string            `json:"winner"`
	Refused        map[string]string `json:"refused"`   // member => reason
	Rebalance      map[string]string `json:"rebalance"` // member => [RebalanceOf] its protocols
	OrderDependent bool              `json:"orderDependent"`
}

// Tally is the number of ballots one strategy received, in a [Vote].
type Tally struct {
	Strategy string `json:"strategy"`
	Votes    int    `json:"votes"`
}

// Ballot is the strategy one accepted member voted for, in a [Vote].
type Ballot struct {
	Member   string `json:"member"`
	Strategy string `json:"strategy"`
}

// VoteOf is r, the vote of members.
func VoteOf(members []coordinator.VoteMember, r coordinator.VoteResult) Vote {
	v := Vote{
		Coordinator: r.Coordinator.String(), Kind: r.Kind.String(),
		Candidates: r.Candidates, Tally: []Tally{}, Winner: r.Winner,
		Rebalance: make(map[string]string), OrderDependent: r.OrderDependent,
		Ballots: []Ballot{}, Refused: make(map[string]string), Votes: r.Votes(),
	}
	if v.Candidates == nil {
		v.Candidates = []string{}
	}
	if v.Votes == nil {
		v.Votes = make(map[string]int)
	}
	for _, tl := range r.Tally {
		v.Tally = append(v.Tally, Tally{tl.Strategy, tl.Votes})
	}
	for _, b := range r.Ballots {
		v.Ballots = append(v.Ballots, Ballot{b.Member, b.Strategy})
	}
	for _, pe := range r.Refused {
		v.Refused[pe.Member] = pe.Err.Error()
	}
	for _, m := range members {
		v.Rebalance[m.ID] = RebalanceOf(m.Protocols)
	}
	return v
}

// RebalanceOf is the rebalance protocol a member's own list of
// strategies gives it ([coordinator.ClientProtocol]): "eager" or
// "cooperative", "-" when the list gives none.
func RebalanceOf(protocols []string) string {
	p, err := coordinator.ClientProtocol(protocols)
	if err != nil {
		return "-"
	}
	return p.String()
}

// UpgradeStep is one step of a rolling upgrade, as vote --upgrade writes
// it in json and jsonl. Its field names are a public contract.
type UpgradeStep struct {
	Step      int      `json:"step"`      // 0 before any restart
	Phase     int      `json:"phase"`     // index of the configuration rolled out, -1 at step 0
	Restarted string   `json:"restarted"` // the member that just restarted, "" at step 0
	Config    []string `json:"config"`    // the strategies it restarted with
	Winner    string   `json:"winner"`
	Refused   []string `json:"refused"`  // members refused, [] when none
	Eager     int      `json:"eager"`    // accepted members that rebalance eagerly
	Accepted  int      `json:"accepted"` // members the vote accepted
	FellBack  bool     `json:"fellBack"`
	Safe      bool     `json:"safe"`
	Moved     *int     `json:"moved,omitempty"` // at a switch of strategy, with --topics

	// StartupRefused, when not "", says why the restarted member's client
	// refuses its configuration at startup (librdkafka with eager and
	// cooperative strategies in one list): the member does not come back,
	// and the step is not safe.
	StartupRefused string `json:"startupRefused,omitempty"`
}

// UpgradeSteps are the steps of a rolling upgrade whose members start
// with the strategies start and restart with each of phases in turn, as
// [churn.Rollout] replayed it.
func UpgradeSteps(start []string, phases [][]string, steps []churn.RolloutStep) []UpgradeStep {
	var out []UpgradeStep
	for i, s := range steps {
		u := UpgradeStep{Step: i, Phase: s.Phase, Restarted: s.Restarted, Config: start, Winner: s.Vote.Winner, Refused: []string{},
			Accepted: len(s.Protocols), FellBack: s.FellBack, Safe: s.Safe()}
		if s.Phase >= 0 {
			u.Config = phases[s.Phase]
		}
		for _, pe := range s.Vote.Refused {
			u.Refused = append(u.Refused, pe.Member)
		}
		for _, p := range s.Protocols {
			if p.Protocol == assign.Eager {
				u.Eager++
			}
		}
		if s.Switched {
			moved := len(s.Moves)
			u.Moved = &moved
		}
		out = append(out, u)
	}
	return out
}
