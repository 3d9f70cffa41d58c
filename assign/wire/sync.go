package wire

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/assigncalc/assigncalc/assign"
)

// SyncGroupPacked encodes what the leader sends in SyncGroup from a
// [assign.Packed]: one ConsumerProtocolAssignment per member, in p's
// member order (that of Group.Members), at the given version, with one
// topic entry per topic and no user data, exactly the bytes
// [SyncGroupAssignments] writes for p.Assignment(). It computes every
// member's size first and writes all of them into one array, so it
// allocates twice whatever the size of the group: no [assign.Assignment],
// no map, no slice per member.
func SyncGroupPacked(p *assign.Packed, version int16) ([][]byte, error) {
	v, err := encodeVersion("assignment", version, 0, MaxAssignmentVersion)
	if err != nil {
		return nil, err
	}
	total := 0
	for i := range p.Len() {
		total += 2 + 4 + 4 // version, topic count, null user data
		for k := range p.Topics(i) {
			topic, parts := p.Topic(i, k)
			if len(topic) > math.MaxInt16 {
				return nil, fmt.Errorf("wire: assignment v%d: %s: length %d exceeds %d: %w", v, field{"assigned_partitions", k, "topic"}, len(topic), math.MaxInt16, ErrTooLong)
			}
			total += 2 + len(topic) + 4 + 4*len(parts)
		}
	}
	buf := make([]byte, 0, total)
	out := make([][]byte, p.Len())
	for i := range p.Len() {
		start := len(buf)
		buf = binary.BigEndian.AppendUint16(buf, uint16(v))
		buf = binary.BigEndian.AppendUint32(buf, uint32(p.Topics(i)))
		for k := range p.Topics(i) {
			topic, parts := p.Topic(i, k)
			buf = binary.BigEndian.AppendUint16(buf, uint16(len(topic)))
			buf = append(buf, topic...)
			buf = binary.BigEndian.AppendUint32(buf, uint32(len(parts)))
			for _, q := range parts {
				buf = binary.BigEndian.AppendUint32(buf, uint32(q))
			}
		}
		buf = binary.BigEndian.AppendUint32(buf, math.MaxUint32) // user_data: null (-1)
		out[i] = buf[start:len(buf):len(buf)]
	}
	return out, nil
}
