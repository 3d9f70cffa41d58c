// Checking, at both ends of Solve: check refuses a malformed problem
// before either path runs (the adapter's bug, never user input), and
// valid vouches for the answer after it. Both report ErrInternal.

package balance

import (
	"fmt"
	"slices"
)

// check refuses a malformed problem. Unless subscriptions are identical
// it returns the subscriptions as sets, for valid to use too.
func check(p *Problem, start []int32, total int, same bool) (*TopicSets, error) {
	if p.Claim != nil && len(p.Claim) != total || p.Prev != nil && len(p.Prev) != total ||
		p.Replicas != nil && len(p.Replicas) != total || p.Late != nil && len(p.Late) != total {
		return nil, fmt.Errorf("%w: per-partition slices must have %d entries", ErrInternal, total)
	}
	if p.Rack != nil && len(p.Rack) != len(p.Subs) {
		return nil, fmt.Errorf("%w: racks for %d members, want %d", ErrInternal, len(p.Rack), len(p.Subs))
	}
	n := int32(len(p.Subs))
	subscribed := make([]bool, len(p.Parts))
	// Members share subscription slices (the adapter makes equal lists
	// one slice), so each distinct slice of the last few is checked once:
	// hetero groups have a few lists, each listed by members in turn,
	// and checking every member's list showed in the profile of
	// BenchmarkAssign/strategy=sticky/impl=ours/shape=hetero-100x200t-leave1
	// in bench/.
	var seen [8][]int32
	next := 0
	for _, sub := range p.Subs {
		if checkedBefore(sub, &seen) {
			continue
		}
		seen[next%len(seen)] = sub
		next++
		for i, t := range sub {
			if t < 0 || int(t) >= len(p.Parts) || i > 0 && sub[i-1] >= t {
				return nil, fmt.Errorf("%w: subscriptions must be ascending topic numbers", ErrInternal)
			}
			subscribed[t] = true
		}
	}
	for t, parts := range p.Parts {
		if parts < 0 || parts > 0 && !subscribed[t] {
			return nil, fmt.Errorf("%w: topic %d has %d partitions and no subscriber", ErrInternal, t, parts)
		}
	}
	// With identical subscriptions every member subscribes to every
	// topic that has partitions (each has a subscriber, checked above).
	var sets *TopicSets
	if !same {
		if sets = p.Sets; sets == nil {
			sets = NewTopicSets(p.Subs, len(p.Parts))
		}
	}
	for i, by := range [][]int32{p.Claim, p.Prev} {
		if by == nil {
			continue
		}
		for _, m := range by {
			if m < -1 || m >= n {
				return nil, fmt.Errorf("%w: member %d out of range", ErrInternal, m)
			}
		}
		if same {
			continue
		}
		drop := i == 0 && p.DropUnsubscribed
		for t := range p.Parts {
			ms := by[start[t]:start[t+1]]
			for {
				k := sets.Outside(int32(t), ms)
				if k < 0 {
					break
				}
				if !drop {
					return nil, fmt.Errorf("%w: member %d claims a partition of topic %d it does not subscribe to", ErrInternal, ms[k], t)
				}
				ms[k] = -1
				ms = ms[k+1:]
			}
		}
	}
	return sets, nil
}

// checkedBefore reports whether sub is one of the slices in seen.
func checkedBefore(sub []int32, seen *[8][]int32) bool {
	for _, s := range seen {
		if s != nil && sameSlice(sub, s) {
			return true
		}
	}
	return false
}

// valid is a last line of defence: every pid has an owner that
// subscribes to its topic, and with identical subscriptions loads differ
// by at most one. (The general path's last searches prove its balance.)
// sets is nil when subscriptions are identical.
func valid(p *Problem, start, owner []int32, sets *TopicSets) error {
	n := int32(len(p.Subs))
	same := sets == nil
	load := make([]int32, n)
	for t := range p.Parts {
		owners := owner[start[t]:start[t+1]]
		for k, m := range owners {
			if m < 0 || m >= n {
				return fmt.Errorf("%w: partition %d of topic %d has no valid owner", ErrInternal, k, t)
			}
			load[m]++
		}
		if same {
			continue
		}
		if k := sets.Outside(int32(t), owners); k >= 0 {
			return fmt.Errorf("%w: partition %d of topic %d has no valid owner", ErrInternal, k, t)
		}
	}
	if same && slices.Max(load)-slices.Min(load) > 1 {
		return fmt.Errorf("%w: loads from %d to %d", ErrInternal, slices.Min(load), slices.Max(load))
	}
	return nil
}
