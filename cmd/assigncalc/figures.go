package main

import (
	"strconv"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/internal/groupfile"
)

// previewFigures are what the preview's tables show besides the
// assignments, for its machine formats: json and csv carry every figure
// the table shows (issue 28), computed as the table computes them.
type previewFigures struct {
	in      groupInput
	group   assign.Group      // the group assigned (topic ids filled in)
	owned   assign.Assignment // nil: no member owns anything (no MOVED)
	racks   bool              // CROSS-RACK: rack-aware, replicas' racks known
	server  bool              // UNSPREAD: a server-side strategy is compared
	bound   int               // the move bound, -1 when not shown
	assumed []string
}

// of is the figures of one outcome, for its json line.
func (f previewFigures) of(o outcome) (groupfile.Preview, error) {
	g, target := f.group, o.target()
	var p groupfile.Preview
	if pendingCount(o) > 0 {
		p.TargetStats = groupfile.StatsOf(assign.Summarize(g, target))
	}
	if f.owned != nil {
		moved := assign.Moved(f.owned, target)
		p.Moved = &moved
		p.Owned = groupfile.OwnedOf(g)
	}
	if f.server {
		unspread := assign.UnspreadTopics(g, target)
		if unspread == nil {
			unspread = []string{}
		}
		p.Unspread = &unspread
		if f.bound >= 0 {
			bound := f.bound
			p.MoveBound = &bound
		}
	}
	var cross map[string]int
	if f.racks {
		cross = assign.CrossRack(g, target)
		total := 0
		for _, n := range cross {
			total += n
		}
		p.CrossRack = &total
	}
	if f.in.lag != nil || f.racks || hasRacks(g) {
		for _, m := range g.Members {
			mf := groupfile.MemberFigures{ID: m.ID, Rack: m.Rack, Count: len(target[m.ID])}
			if f.racks {
				n := cross[m.ID]
				mf.CrossRack = &n
			}
			if f.in.lag != nil {
				if sum, top, known := lagOf(target[m.ID], f.in.lag); known {
					mf.Lag, mf.MaxLag = &sum, &top
				}
			}
			p.MemberFigures = append(p.MemberFigures, mf)
		}
	}
	if name := f.in.Name; name != "" {
		co, err := groupCoordinator(name, f.in)
		if err != nil {
			return p, err
		}
		p.Coordinator = &co
	}
	p.Assumed = f.assumed
	return p, nil
}

func hasRacks(g assign.Group) bool {
	for _, m := range g.Members {
		if m.Rack != "" {
			return true
		}
	}
	return false
}

// csv lays the outcomes' targets out in the one CSV layout of
// assignments (assignmentCSVHeader), with the rows of the figures beside
// them:
//
//   - "owned": what each member owned, its json's "owned", in the
//     columns of "assignment" rows with no strategy (ownedCSV);
//   - "stats" rows for moved, unspread, moveBound and crossRack, when the
//     table shows them;
//   - "member": a row per strategy, member and figure (lag, maxLag,
//     crossRack) of the member table;
//   - "group": the coordinator's broker, partition and partitions
//     (coordinator.broker, coordinator.partition, coordinator.partitions,
//     coordinator.shown);
//   - "assumed": one row per assumption, its text in VALUE.
func (f previewFigures) csv(group string, outcomes []outcome) ([][]string, error) {
	var rows [][]string
	if f.owned != nil {
		rows = ownedCSV(rows, assignmentCSVHeader, group, f.group, groupfile.OwnedOf(f.group))
	}
	for _, o := range outcomes {
		name := o.strategy.Name()
		rows = assignmentCSV(rows, group, name, f.group, o.target())
		p, err := f.of(o)
		if err != nil {
			return nil, err
		}
		stat := func(statistic string, n int) {
			rows = append(rows, []string{"stats", group, name, "", "", "", "", "", statistic, itoa(n)})
		}
		if p.Moved != nil {
			stat("moved", *p.Moved)
		}
		if p.Unspread != nil {
			stat("unspread", len(*p.Unspread))
		}
		if p.MoveBound != nil {
			stat("moveBound", *p.MoveBound)
		}
		if p.CrossRack != nil {
			stat("crossRack", *p.CrossRack)
		}
		for _, mf := range p.MemberFigures {
			member := func(statistic, value string) {
				rows = append(rows, []string{"member", group, name, mf.ID, mf.Rack, "", "", "", statistic, value})
			}
			if mf.Lag != nil {
				member("lag", strconv.FormatInt(*mf.Lag, 10))
				member("maxLag", strconv.FormatInt(*mf.MaxLag, 10))
			}
			if mf.CrossRack != nil {
				member("crossRack", itoa(*mf.CrossRack))
			}
		}
	}
	if f.in.Name != "" {
		co, err := groupCoordinator(f.in.Name, f.in)
		if err != nil {
			return nil, err
		}
		grp := func(statistic, value string) {
			rows = append(rows, []string{"group", group, "", "", "", "", "", "", statistic, value})
		}
		grp("coordinator.broker", co.Broker)
		grp("coordinator.partition", strconv.Itoa(int(co.Partition)))
		grp("coordinator.partitions", strconv.Itoa(int(co.Partitions)))
		if co.Shown != nil {
			grp("coordinator.shown", strconv.Itoa(int(*co.Shown)))
		}
	}
	for _, a := range f.assumed {
		rows = append(rows, []string{"assumed", group, "", "", "", "", "", "", "", a})
	}
	return rows, nil
}
