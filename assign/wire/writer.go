package wire

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/assigncalc/assigncalc/assign"
)

// writer appends Kafka's classic encoding to buf and remembers the first
// error (a string or list too long for its length prefix), so that encoders
// read as a list of fields.
type writer struct {
	buf     []byte
	err     error
	message string
	version int16
}

func (w *writer) tooLong(f field, n int, limit int) {
	if w.err == nil {
		w.err = fmt.Errorf("wire: %s v%d: %s: length %d exceeds %d: %w", w.message, w.version, f, n, limit, ErrTooLong)
	}
}

func (w *writer) int16(v int16) { w.buf = binary.BigEndian.AppendUint16(w.buf, uint16(v)) }
func (w *writer) int32(v int32) { w.buf = binary.BigEndian.AppendUint32(w.buf, uint32(v)) }

func (w *writer) count(f field, n int) {
	if n > math.MaxInt32 {
		w.tooLong(f, n, math.MaxInt32)
	}
	w.int32(int32(n))
}

func (w *writer) string(f field, s string) {
	if len(s) > math.MaxInt16 {
		w.tooLong(f, len(s), math.MaxInt16)
	}
	w.int16(int16(len(s)))
	w.buf = append(w.buf, s...)
}

func (w *writer) nullableString(f field, s *string) {
	if s == nil {
		w.int16(-1)
		return
	}
	w.string(f, *s)
}

func (w *writer) nullableBytes(f field, b []byte) {
	if b == nil {
		w.int32(-1)
		return
	}
	w.count(f, len(b))
	w.buf = append(w.buf, b...)
}

// topicPartitions writes a flat partition list as Kafka's [Topic
// [Partition]] list, one entry per run of consecutive partitions of the
// same topic. Lists sorted by topic, as every [assign.Assignment] is, get
// one entry per topic; other orders are kept as they are, so that what a
// decoder flattened is written back unchanged.
func (w *writer) topicPartitions(name string, tps []assign.TopicPartition) {
	entries := 0
	for i := range tps {
		if i == 0 || tps[i].Topic != tps[i-1].Topic {
			entries++
		}
	}
	w.count(plain(name), entries)
	entry := -1
	for i := 0; i < len(tps); {
		j := i + 1
		for j < len(tps) && tps[j].Topic == tps[i].Topic {
			j++
		}
		entry++
		w.string(field{name, entry, "topic"}, tps[i].Topic)
		w.count(field{name, entry, "partitions"}, j-i)
		for _, tp := range tps[i:j] {
			w.int32(tp.Partition)
		}
		i = j
	}
}
