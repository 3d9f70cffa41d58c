package wire

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/google/go-cmp/cmp"
)

// The JSON of testdata/vectors.json, written by bench/cmd/wirevectors from
// franz-go's kmsg and sarama. The expected structures in it were written by
// hand in bench/internal/wirevec, not by this package.
type (
	vectorFile struct {
		Vectors []vector `json:"vectors"`
	}
	vector struct {
		Name         string         `json:"name"`
		Peer         string         `json:"peer"`
		Message      string         `json:"message"`
		Version      int16          `json:"version"`
		Hex          string         `json:"hex"`
		Subscription *vSubscription `json:"subscription"`
		Assignment   *vAssignment   `json:"assignment"`
		Sticky       *vSticky       `json:"sticky"`
	}
	vTopicPartition struct {
		Topic     string `json:"topic"`
		Partition int32  `json:"partition"`
	}
	vSubscription struct {
		Version    int16             `json:"version"`
		Topics     []string          `json:"topics"`
		UserData   *string           `json:"userData"`
		Owned      []vTopicPartition `json:"owned"`
		Generation int32             `json:"generation"`
		Rack       *string           `json:"rack"`
	}
	vAssignment struct {
		Version    int16             `json:"version"`
		Partitions []vTopicPartition `json:"partitions"`
		UserData   *string           `json:"userData"`
	}
	vSticky struct {
		Version    int16             `json:"version"`
		Previous   []vTopicPartition `json:"previous"`
		Generation int32             `json:"generation"`
	}
)

func (v vTopicPartition) tp() assign.TopicPartition {
	return assign.TopicPartition{Topic: v.Topic, Partition: v.Partition}
}

func vTPs(vs []vTopicPartition) []assign.TopicPartition {
	var out []assign.TopicPartition
	for _, v := range vs {
		out = append(out, v.tp())
	}
	return out
}

func vBytes(t *testing.T, s *string) []byte {
	if s == nil {
		return nil
	}
	b, err := hex.DecodeString(*s)
	if err != nil {
		t.Fatalf("bad hex %q: %v", *s, err)
	}
	return b
}

func loadVectors(t *testing.T) []vector {
	t.Helper()
	b, err := os.ReadFile("testdata/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var f vectorFile
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Vectors) == 0 {
		t.Fatal("testdata/vectors.json holds no vectors")
	}
	return f.Vectors
}

// TestPeerVectors decodes the bytes franz-go and sarama wrote, compares
// them with what the peers were given, and checks that encoding that
// structure again gives the peer's bytes exactly.
func TestPeerVectors(t *testing.T) {
	for _, v := range loadVectors(t) {
		t.Run(v.Name, func(t *testing.T) {
			raw, err := hex.DecodeString(v.Hex)
			if err != nil {
				t.Fatal(err)
			}
			var want, got any
			var again []byte
			var encErr error
			switch v.Message {
			case "subscription":
				w := v.Subscription
				want = Subscription{Version: w.Version, Topics: w.Topics, UserData: vBytes(t, w.UserData),
					OwnedPartitions: vTPs(w.Owned), GenerationID: w.Generation, RackID: w.Rack}
				s, err := DecodeSubscription(raw)
				if err != nil {
					t.Fatalf("DecodeSubscription(%s's bytes): %v", v.Peer, err)
				}
				got = s
				again, encErr = s.MarshalBinary()
			case "assignment":
				w := v.Assignment
				want = Assignment{Version: w.Version, Partitions: vTPs(w.Partitions), UserData: vBytes(t, w.UserData)}
				a, err := DecodeAssignment(raw)
				if err != nil {
					t.Fatalf("DecodeAssignment(%s's bytes): %v", v.Peer, err)
				}
				got = a
				again, encErr = a.MarshalBinary()
			case "sticky":
				w := v.Sticky
				want = StickyUserData{Version: w.Version, Previous: vTPs(w.Previous), Generation: w.Generation}
				d, err := DecodeStickyUserData(raw)
				if err != nil {
					t.Fatalf("DecodeStickyUserData(%s's bytes): %v", v.Peer, err)
				}
				got = d
				again, encErr = d.MarshalBinary()
			default:
				t.Fatalf("unknown message %q", v.Message)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("decode(%s) mismatch (-want +got):\n%s", v.Hex, diff)
			}
			if encErr != nil || hex.EncodeToString(again) != v.Hex {
				t.Errorf("re-encoding gave %x, %v; want %s's bytes %s", again, encErr, v.Peer, v.Hex)
			}
		})
	}
}
