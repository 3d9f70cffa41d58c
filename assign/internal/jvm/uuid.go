package jvm

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
)

// Uuid is Kafka's org.apache.kafka.common.Uuid: 16 bytes, the most
// significant long first (big-endian), as Uuid.toString encodes them.
type Uuid [16]byte

// MSB and LSB are the two signed longs Kafka's Uuid holds.
func (u Uuid) MSB() int64 { return int64(binary.BigEndian.Uint64(u[:8])) }

// LSB is the least significant long; see [Uuid.MSB].
func (u Uuid) LSB() int64 { return int64(binary.BigEndian.Uint64(u[8:])) }

// Hash is Uuid.hashCode: with x = msb ^ lsb, (int)(x >> 32) ^ (int)x.
func (u Uuid) Hash() int32 {
	x := u.MSB() ^ u.LSB()
	return int32(x>>32) ^ int32(x)
}

// Compare is Uuid.compareTo: the most significant longs as signed
// numbers, then the least significant ones.
func (u Uuid) Compare(v Uuid) int {
	switch a, b := u.MSB(), v.MSB(); {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	switch a, b := u.LSB(), v.LSB(); {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// String is Uuid.toString: URL-safe base64 without padding, 22
// characters, the TopicId that kafka-topics.sh --describe prints.
func (u Uuid) String() string { return base64.RawURLEncoding.EncodeToString(u[:]) }

// ErrUuidSyntax is returned by [ParseUuid] for a string that is not 22
// characters of URL-safe base64.
var ErrUuidSyntax = errors.New("not a Kafka Uuid: want 22 characters of URL-safe base64")

// ParseUuid reads the 22-character form [Uuid.String] writes.
func ParseUuid(s string) (Uuid, error) {
	var u Uuid
	if len(s) != 22 {
		return u, ErrUuidSyntax
	}
	n, err := base64.RawURLEncoding.Decode(u[:], []byte(s))
	if err != nil || n != 16 || u.String() != s {
		// The last check refuses a final character whose unused bits are
		// set: Java would accept it and print a different id.
		return Uuid{}, ErrUuidSyntax
	}
	return u, nil
}
