package client

import (
	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/internal/javasticky"
)

// JavaError reports that Kafka's Java assignor throws on a group: the
// simple name of the exception's class and its message.
type JavaError = javasticky.JavaError

// JavaSticky is Kafka's Java StickyAssignor (Cooperative false) or
// CooperativeStickyAssignor (Cooperative true) of the Kafka release
// Kafka names (3.8 and later when empty), reproduced decision for decision under the conventions a Java leader
// follows with the JoinGroup response: the subscriptions a HashMap
// filled in the order of Group.Members; eager sticky reading each
// member's previous assignment from its user data, cooperative-sticky
// its owned partitions and generation.
//
// Its answers are Java's, faults included: they may be unbalanced, give a
// partition to two members or to none; where Java throws, Assign returns
// a [*JavaError]. For cooperative-sticky Assign returns the round Java
// hands out, without what it withholds. Unlike [assign.Sticky] it
// promises no balance (its Traits say so), so [assign.Check] judges only
// validity, and for cooperative-sticky the safety of the round.
//
// The releases answer alike in three groups, told apart by the patch
// release: 3.5.0 and 3.5.1; 3.5.2, 3.6.x and 3.7.0 (KAFKA-14639 and
// KAFKA-15106); 3.7.1 and 3.8.0 onwards (KAFKA-15170 and KAFKA-16277).
type JavaSticky struct {
	Cooperative bool

	// Kafka is the release of the Java client, "3.6.1" or a line "3.6"
	// (its first release, 3.6.0); "" for 3.8 and later. Releases before
	// 3.5.0 are refused.
	Kafka string
}

// Name is the Kafka protocol name: "sticky" or "cooperative-sticky".
func (s JavaSticky) Name() string {
	if s.Cooperative {
		return "cooperative-sticky"
	}
	return "sticky"
}

// Protocol is [assign.Cooperative] for CooperativeStickyAssignor and
// [assign.Eager] for StickyAssignor.
func (s JavaSticky) Protocol() assign.RebalanceProtocol {
	if s.Cooperative {
		return assign.Cooperative
	}
	return assign.Eager
}

// Traits: sticky, with Java's class name; not promised balanced.
func (s JavaSticky) Traits() assign.Traits {
	class := "StickyAssignor"
	if s.Cooperative {
		class = "CooperativeStickyAssignor"
	}
	return assign.Traits{Sticky: true, JavaClass: class}
}

// Assign returns what a fresh Java assignor returns for g (see the type's
// doc).
func (s JavaSticky) Assign(g assign.Group) (assign.Assignment, error) {
	v := javasticky.Kafka38
	if s.Kafka != "" {
		var err error
		if v, err = javasticky.ForRelease(s.Kafka); err != nil {
			return nil, err
		}
	}
	return javasticky.Assign(g, s.Cooperative, v)
}
