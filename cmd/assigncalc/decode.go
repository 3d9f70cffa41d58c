package main

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/wire"
	"github.com/urfave/cli/v2"
)

// maxDecodeInput bounds what decode reads from stdin: consumer protocol
// messages are small, and a hostile stream must not fill memory.
const maxDecodeInput = 64 << 20

func decodeCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "decode",
		Usage:     "decode consumer protocol bytes: a subscription, an assignment, or sticky user data",
		UsageText: "assigncalc decode subscription|assignment|sticky|cooperative HEX_OR_BASE64|- [--encoding auto|hex|base64|raw] [--format table|json|jsonl|csv]",
		Description: "Decodes ConsumerProtocolSubscription (JoinGroup metadata, v0-v3), ConsumerProtocolAssignment\n" +
			"(SyncGroup), the eager StickyAssignor's user data, or the CooperativeStickyAssignor's. The\n" +
			"bytes are given as hex (an optional 0x, spaces and colons ignored) or base64; - reads them\n" +
			"from stdin, where --encoding raw takes the bytes as they are. Bad bytes are reported with\n" +
			"the field and the byte offset at fault.\n\n" +
			"Example:\n" +
			"   assigncalc decode subscription 0000000000010002743100000000",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "encoding", Value: "auto", Usage: "how the bytes are written: `ENCODING` auto, hex, base64, raw (stdin only)"},
			&cli.StringFlag{Name: "format", Usage: "print results in `FORMAT`: table, json, jsonl, csv (default: table)"},
		},
		Action: func(c *cli.Context) error { return decode(e, c) },
	}
}

func decode(e *env, c *cli.Context) error {
	format, err := parseFormat(c.String("format"), formatTable, formatTable, formatJSON, formatJSONL, formatCSV)
	if err != nil {
		return err
	}
	if c.Args().Len() != 2 {
		return usagef("decode: want a message kind (subscription, assignment, sticky, cooperative) and the bytes (HEX_OR_BASE64 or -)")
	}
	kind, arg := c.Args().Get(0), c.Args().Get(1)
	enc := c.String("encoding")
	switch enc {
	case "auto", "hex", "base64", "raw":
	default:
		return usagef("--encoding: unknown encoding %q: want one of auto, hex, base64, raw", enc)
	}
	var text string
	var raw []byte
	used := "raw"
	if arg == "-" {
		data, err := io.ReadAll(io.LimitReader(e.stdin, maxDecodeInput+1))
		if err != nil {
			return err
		}
		if len(data) > maxDecodeInput {
			return usagef("decode: more than %d bytes on stdin", maxDecodeInput)
		}
		if enc == "raw" || (enc == "auto" && !printable(data)) {
			raw = data
		} else {
			text = string(data)
		}
	} else {
		if enc == "raw" {
			return usagef("--encoding raw reads the bytes from stdin: give - instead of %q", arg)
		}
		text = arg
	}
	if raw == nil {
		if raw, used, err = parseBytes(text, enc); err != nil {
			return err
		}
	}
	// bad explains a message that does not decode; bytes guessed to be
	// base64 say so, since they may have been meant as something else.
	bad := func(err error) error {
		if enc == "auto" && used == "base64" {
			return usagef("decode: %q is not hex; read as base64 it gives %d bytes, and %v", truncate(strings.TrimSpace(text), 40), len(raw), err)
		}
		return &usageError{err}
	}
	var reencoded []byte // the known fields encoded again, to find bytes after them

	var fields []field
	switch kind {
	case "subscription":
		s, err := wire.DecodeSubscription(raw)
		if err != nil {
			return bad(err)
		}
		reencoded, _ = s.MarshalBinary()
		fields = []field{
			{"message", "subscription", `"subscription"`},
			{"version", itoa(int(s.Version)), itoa(int(s.Version))},
			{"topics", strings.Join(s.Topics, ", "), jsonStrings(s.Topics)},
			bytesField("userData", s.UserData),
			userDataField(s.UserData),
			partitionsField("ownedPartitions", s.OwnedPartitions),
			{"generation", strconv.Itoa(int(s.GenerationID)), strconv.Itoa(int(s.GenerationID))},
			optString("rack", s.RackID),
		}
	case "assignment":
		a, err := wire.DecodeAssignment(raw)
		if err != nil {
			return bad(err)
		}
		reencoded, _ = a.MarshalBinary()
		fields = []field{
			{"message", "assignment", `"assignment"`},
			{"version", itoa(int(a.Version)), itoa(int(a.Version))},
			partitionsField("partitions", a.Partitions),
			bytesField("userData", a.UserData),
		}
	case "sticky":
		d, err := wire.DecodeStickyUserData(raw)
		if err != nil {
			return bad(err)
		}
		reencoded, _ = d.MarshalBinary()
		fields = []field{
			{"message", "sticky user data", `"sticky user data"`},
			{"version", itoa(int(d.Version)), itoa(int(d.Version))},
			partitionsField("previous", d.Previous),
			{"generation", strconv.Itoa(int(d.Generation)), strconv.Itoa(int(d.Generation))},
		}
	case "cooperative":
		gen, err := wire.DecodeCooperativeUserData(raw)
		if err != nil {
			return bad(err)
		}
		reencoded = wire.AppendCooperativeUserData(nil, gen)
		fields = []field{
			{"message", "cooperative-sticky user data", `"cooperative-sticky user data"`},
			{"generation", strconv.Itoa(int(gen)), strconv.Itoa(int(gen))},
		}
	default:
		return usagef("decode: unknown message kind %q: want one of subscription, assignment, sticky, cooperative", kind)
	}
	fields = append(fields, field{"encoding", used, jsonString(used)}, trailingField(raw, reencoded))

	switch format {
	case formatJSON, formatJSONL:
		var b strings.Builder
		b.WriteString("{")
		for i, f := range fields {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(jsonString(f.name))
			b.WriteString(":")
			b.WriteString(f.json)
		}
		b.WriteString("}")
		out := []byte(b.String())
		if format == formatJSON {
			var buf bytes.Buffer
			if err := json.Indent(&buf, out, "", "  "); err != nil {
				return err
			}
			out = buf.Bytes()
		}
		_, err := e.stdout.Write(append(out, '\n'))
		return err
	}
	if format == formatCSV {
		var rows [][]string
		for _, f := range fields {
			rows = append(rows, []string{f.name, f.csvCell()})
		}
		return writeCSV(e.stdout, []string{"field", "value"}, rows)
	}
	t := &table{header: []string{"FIELD", "VALUE"}}
	for _, f := range fields {
		t.add(f.name, f.text)
	}
	return t.render(e.stdout)
}

// field is one decoded field: its name, its text for the table, its JSON.
type field struct {
	name, text, json string
}

// csvCell is the field's CSV value: its text, but a string the table
// quotes (a rack, to tell "" from null) unquoted, since CSV quotes by its
// own rules and would double the table's quotes ("""rack-a""").
func (f field) csvCell() string {
	var s string
	if json.Unmarshal([]byte(f.json), &s) == nil && f.text == strconv.Quote(s) {
		return s
	}
	return f.text
}

// jsonString is s as a JSON string.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func jsonStrings(ss []string) string {
	return "[" + strings.Join(quoteAll(ss), ",") + "]"
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = jsonString(s)
	}
	return out
}

// bytesField shows user data: null, or its length and hex (base64 in JSON).
func bytesField(name string, b []byte) field {
	switch {
	case b == nil:
		return field{name, "null", "null"}
	case len(b) == 0:
		return field{name, "0 bytes", `""`}
	}
	return field{name, fmt.Sprintf("%d bytes: %s", len(b), hex.EncodeToString(b)), jsonString(base64.StdEncoding.EncodeToString(b))}
}

func optString(name string, s *string) field {
	if s == nil {
		return field{name, "null", "null"}
	}
	return field{name, strconv.Quote(*s), jsonString(*s)}
}

// partitionsField shows partitions in wire order, grouped by runs of one
// topic as the wire groups them: [{"topic": "t", "partitions": [0, 1]}].
func partitionsField(name string, tps []assign.TopicPartition) field {
	var text, js []string
	for i := 0; i < len(tps); {
		j := i
		var ps []string
		for ; j < len(tps) && tps[j].Topic == tps[i].Topic; j++ {
			ps = append(ps, strconv.Itoa(int(tps[j].Partition)))
		}
		text = append(text, compact(tps[i:j]))
		js = append(js, `{"topic":`+jsonString(tps[i].Topic)+`,"partitions":[`+strings.Join(ps, ",")+`]}`)
		i = j
	}
	return field{name, strings.Join(text, " "), "[" + strings.Join(js, ",") + "]"}
}

// printable reports whether data looks like text: printable ASCII and
// white space only.
func printable(data []byte) bool {
	for _, c := range data {
		if (c < 0x20 || c > 0x7e) && c != '\n' && c != '\r' && c != '\t' {
			return false
		}
	}
	return true
}

// trailingField says how many bytes follow the last field the decoder
// knows: Kafka ignores them (a newer version's fields), and so does the
// decoder, but they are worth seeing. The known fields, encoded again, are
// a prefix of the input when nothing else differs; when they are not
// (one topic's partitions split over adjacent entries, say), the count is
// unknown and the field says so.
func trailingField(raw, known []byte) field {
	switch {
	case known == nil || len(known) > len(raw) || !bytes.Equal(raw[:len(known)], known):
		return field{"trailing", "unknown", "null"}
	case len(known) == len(raw):
		return field{"trailing", "none", "0"}
	}
	n := len(raw) - len(known)
	return field{"trailing", fmt.Sprintf("%d bytes after the last field this decoder knows, ignored as Kafka ignores them: %s", n, hex.EncodeToString(raw[len(known):])), itoa(n)}
}

// userDataField decodes a subscription's user data as what it most likely
// is: four bytes are CooperativeStickyAssignor's generation; a partition
// list that reads whole is StickyAssignor's data; anything else is some
// other assignor's, shown only as bytes.
func userDataField(b []byte) field {
	const name = "userDataAs"
	if len(b) == 4 {
		gen, _ := wire.DecodeCooperativeUserData(b)
		return field{name, fmt.Sprintf("cooperative-sticky: generation %d", gen), fmt.Sprintf(`{"assignor":"cooperative-sticky","generation":%d}`, gen)}
	}
	if len(b) > 0 {
		if d, err := wire.DecodeStickyUserData(b); err == nil {
			if again, err := d.MarshalBinary(); err == nil && bytes.Equal(again, b) {
				p := partitionsField("previous", d.Previous)
				return field{name, fmt.Sprintf("sticky: previous %s, generation %d", orNone(p.text), d.Generation),
					fmt.Sprintf(`{"assignor":"sticky","previous":%s,"generation":%d}`, p.json, d.Generation)}
			}
		}
	}
	return field{name, "-", "null"}
}

// parseBytes reads hex or base64 and says which it read. In auto mode,
// text that is valid hex is hex; otherwise base64.
func parseBytes(text, enc string) ([]byte, string, error) {
	text = strings.TrimSpace(text)
	h := strings.NewReplacer(" ", "", ":", "", "\n", "", "\r", "", "\t", "").Replace(strings.TrimPrefix(strings.TrimPrefix(text, "0x"), "0X"))
	if enc == "hex" || enc == "auto" {
		b, err := hex.DecodeString(h)
		if err == nil {
			return b, "hex", nil
		}
		if enc == "hex" {
			return nil, "", usagef("decode: not hex: %v", err)
		}
	}
	compact := strings.NewReplacer("\n", "", "\r", "", " ", "", "\t", "").Replace(text)
	for _, e := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := e.DecodeString(compact); err == nil {
			return b, "base64", nil
		}
	}
	if enc == "base64" {
		return nil, "", usagef("decode: %q is not base64", truncate(text, 40))
	}
	return nil, "", usagef("decode: %q is neither hex nor base64", truncate(text, 40))
}
