package javasticky

import (
	"fmt"
	"strconv"
	"strings"
)

// The releases before Kafka38 whose AbstractStickyAssignor answers
// differently. Each is named for the first release that behaves so; the
// zero Version is Kafka38, the newest.
const (
	// Kafka35 is Kafka 3.5.0 and 3.5.1: before KAFKA-14639 and
	// KAFKA-15106.
	Kafka35 Version = iota + 1
	// Kafka36 is Kafka 3.6.0 to 3.6.2, 3.7.0, and 3.5.2 (which took
	// both fixes in a patch release): KAFKA-14639 and KAFKA-15106, but
	// not yet KAFKA-15170 or KAFKA-16277.
	Kafka36
)

// String names the version by the first release that behaves so.
func (v Version) String() string {
	switch v {
	case Kafka35:
		return "3.5"
	case Kafka36:
		return "3.6"
	case Kafka38:
		return "3.8"
	}
	return "Version(" + strconv.Itoa(int(v)) + ")"
}

func (v Version) valid() bool { return v == Kafka35 || v == Kafka36 || v == Kafka38 }

// ForRelease maps an Apache Kafka release, "3.6.1" or a line "3.6", to
// the Version whose assignor code it runs. A line without a patch number
// means its first release (x.y.0). Releases before 3.5.0 are refused: the
// emulation does not reproduce them (3.5.0 brought KIP-881's racks).
// Releases after 3.8 behave as Kafka38: up to the 4.4 branch of
// confluentinc/kafka the classes changed only in form.
//
// The patch releases matter: KAFKA-14639 and KAFKA-15106 were released in
// 3.6.0 and also in 3.5.2; KAFKA-15170 and KAFKA-16277 in 3.8.0 and also
// in 3.7.1.
func ForRelease(release string) (Version, error) {
	major, minor, patch, err := parseRelease(release)
	if err != nil {
		return 0, err
	}
	switch {
	case major < 3 || major == 3 && minor < 5:
		return 0, fmt.Errorf("javasticky: Kafka %s is older than 3.5.0, the oldest release reproduced", release)
	case major > 3 || minor >= 8 || minor == 7 && patch >= 1:
		return Kafka38, nil
	case minor == 6 || minor == 7 || minor == 5 && patch >= 2:
		return Kafka36, nil
	}
	return Kafka35, nil
}

// parseRelease reads "MAJOR.MINOR" or "MAJOR.MINOR.PATCH", decimal
// numbers without signs.
func parseRelease(s string) (major, minor, patch int, err error) {
	parts := strings.Split(s, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, 0, 0, fmt.Errorf("javasticky: Kafka release %q is not MAJOR.MINOR or MAJOR.MINOR.PATCH", s)
	}
	var nums [3]int
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || n > 999 || p == "" || p[0] == '+' || p[0] == '-' {
			return 0, 0, 0, fmt.Errorf("javasticky: Kafka release %q: %q is not a version number", s, p)
		}
		nums[i] = n
	}
	return nums[0], nums[1], nums[2], nil
}

// The rules that changed between versions, each in one place. The
// emulation's phases ask these, never the version itself.

// winnerKeepsClaim is KAFKA-14639 (c6ad151ac3b; 3.5.2, 3.6.0): when a
// member's claim loses to an earlier claimant of a higher generation,
// allSubscriptionsEqual keeps the winner as the partition's previous
// owner. Before it, Java's Map.put had already recorded the loser, whose
// generation later claimants were then compared with.
func (v Version) winnerKeepsClaim() bool { return v != Kafka35 }

// balanceSlack is KAFKA-15106 (e0b7499103d; 3.5.2, 3.6.0): the general
// path's isBalanced finds a partition movable when its owner holds more
// than one partition more than the member that could take it. Before it,
// any owner holding more made the assignment unbalanced.
func (v Version) balanceSlack() int {
	if v == Kafka35 {
		return 0
	}
	return 1
}

// sortsOwnedByPartition is KAFKA-16277 (027fad4b2a0; 3.7.1, 3.8.0): the
// constrained path sorts each member's owned partitions by partition,
// then topic, before cutting them at the quota. Before it, the owned
// list kept its (topic, partition) order.
func (v Version) sortsOwnedByPartition() bool { return v == Kafka38 }

// fixesRackQuota is KAFKA-15170 (f0291ac74b8; 3.7.1, 3.8.0), three
// changes to the constrained path: a partition whose owner loses it to a
// rack mismatch counts as maybe revoked; a partition is transferring
// only when it goes to a member other than the one that may revoke it;
// and the rack-aware round robin counts members filled past minQuota,
// listing a member at minQuota as unfilled only while fewer than the
// expected number are past it. Before it, rack mismatches were not
// recorded, any revoked partition was transferring, and the count was
// left alone.
func (v Version) fixesRackQuota() bool { return v == Kafka38 }
