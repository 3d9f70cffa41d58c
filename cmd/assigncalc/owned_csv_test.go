package main

import (
	"encoding/csv"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// ownedGroupG is a group whose members own partitions in no strategy's
// layout: c0 (rack a) owns t1-2, t1-0 and t2-1, listed out of order; c1
// owns t1-1; c2 owns nothing.
const ownedGroupG = `{"name": "g", "topics": {"t1": 3, "t2": 2}, "members": [
 {"id": "c0", "rack": "a", "topics": ["t1", "t2"], "owned": {"t1": [2, 0], "t2": [1]}, "generation": 1},
 {"id": "c1", "topics": ["t1", "t2"], "owned": {"t1": [1]}, "generation": 1},
 {"id": "c2", "topics": ["t1", "t2"]}]}`

// ownedRow is an "owned" row of a csv: its GROUP (where the csv has the
// column), MEMBER, RACK, TOPIC, COUNT and PARTITIONS.
type ownedRow struct{ group, member, rack, topic, count, partitions string }

// ownedOfG is what ownedGroupG's members owned, as every command's csv
// must write it, worked out by hand: a row per member and topic, the
// partitions sorted in Kafka's notation, and a row with count 0 for c2.
var ownedOfG = []ownedRow{
	{"g", "c0", "a", "t1", "2", "t1(0,2)"},
	{"g", "c0", "a", "t2", "1", "t2(1)"},
	{"g", "c1", "", "t1", "1", "t1(1)"},
	{"g", "c2", "", "", "0", ""},
}

// TestOwnedCSV: every command whose json says what the members owned
// ("owned") writes it in its csv as "owned" rows in the preview's columns
// and notation, before its other rows; and a group whose members own
// nothing gets none. Each csv reads back as RFC 4180, every record as
// wide as the header.
func TestOwnedCSV(t *testing.T) {
	describeStatic := describeData + "members_scala_static.txt"
	describeOffsets := describeData + "offsets_4x.txt"
	noGroup := func(rows []ownedRow) []ownedRow { // commands with no GROUP column
		out := slices.Clone(rows)
		for i := range out {
			out[i].group = ""
		}
		return out
	}
	const (
		static1  = "consumer-orders-1-5f0c6a1e-2b7d-4a0e-9d3c-1f2e3d4c5b6a"
		static2  = "consumer-orders-2-0a1b2c3d-4e5f-4061-8a9b-cdef01234567"
		offsets3 = "consumer-orders-3-99999999-8888-4777-8666-555544443333"
	)
	for _, tc := range []struct {
		name   string
		args   []string
		stdin  string
		status int
		want   []ownedRow
	}{
		{name: "preview", args: []string{"--in", "-", "--strategy", "range"}, stdin: ownedGroupG, want: ownedOfG},
		{name: "simulate", args: []string{"simulate", "--in", "-", "--leave", "c2", "--compare", "range,sticky"}, stdin: ownedGroupG, want: noGroup(ownedOfG)},
		{name: "simulate moves", args: []string{"simulate", "--in", "-", "--leave", "c2", "--compare", "range", "--moves"}, stdin: ownedGroupG, want: noGroup(ownedOfG)},
		{name: "simulate consumer", args: []string{"simulate", "--in", "-", "--leave", "c2", "--protocol", "consumer", "--compare", "uniform",
			"--topic-id", "t1=Yp0cT2sWQ7ChA0qyU5Ckdg", "--topic-id", "t2=Zp0cT2sWQ7ChA0qyU5Ckdg"}, stdin: ownedGroupG, want: noGroup(ownedOfG)},
		{name: "simulate share", args: []string{"simulate", "--in", "-", "--leave", "c2", "--protocol", "share",
			"--topic-id", "t1=Yp0cT2sWQ7ChA0qyU5Ckdg", "--topic-id", "t2=Zp0cT2sWQ7ChA0qyU5Ckdg"}, stdin: ownedGroupG, want: noGroup(ownedOfG)},
		// offsets_4x.txt: consumer-orders-1 owns orders-0 and 1,
		// consumer-orders-2 orders-2 and payments-0, consumer-orders-3
		// nothing; payments-1 has no owner and is in no row.
		{name: "simulate paste", args: []string{"simulate", "--from-describe", describeOffsets, "--leave", "consumer-orders-1", "--compare", "range"}, want: []ownedRow{
			{"", static1, "", "orders", "2", "orders(0,1)"},
			{"", static2, "", "orders", "1", "orders(2)"},
			{"", static2, "", "payments", "1", "payments(0)"},
			{"", offsets3, "", "", "0", ""},
		}},
		// members_scala_static.txt: the static consumer-orders-1 owns
		// orders-0 and 1, consumer-orders-2 orders-2.
		{name: "check paste", args: []string{"check", "--from-describe", describeStatic, "--topics", "orders:3", "--strategy", "range,sticky"}, want: []ownedRow{
			{"orders-app", static1, "", "orders", "2", "orders(0,1)"},
			{"orders-app", static2, "", "orders", "1", "orders(2)"},
		}},
		// check_groups.jsonl: in "join", a owns t-0 to t-3 and b nothing;
		// in "two" nobody owns anything.
		{name: "check results", args: []string{"check", "--in", "testdata/check_groups.jsonl", "--results", "-"}, stdin: checkResults, status: exitFailed, want: []ownedRow{
			{"join", "a", "", "t", "4", "t(0-3)"},
			{"join", "b", "", "", "0", ""},
		}},

		{name: "preview, nothing owned", args: []string{"--members", "2", "--topics", "t:4"}},
		{name: "simulate, nothing owned", args: []string{"simulate", "--members", "2", "--topics", "t:4", "--leave", "c1", "--compare", "range"}},
		{name: "simulate moves, nothing owned", args: []string{"simulate", "--members", "2", "--topics", "t:4", "--leave", "c1", "--compare", "range", "--moves"}},
		{name: "simulate share, nothing owned", args: []string{"simulate", "--members", "2", "--topics", "t:4", "--leave", "c1", "--protocol", "share",
			"--topic-id", "t=Yp0cT2sWQ7ChA0qyU5Ckdg"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, status := runCase(cliCase{args: append(tc.args, "--format", "csv"), stdin: tc.stdin})
			if status != tc.status {
				t.Fatalf("exit status %d, want %d; stderr %q", status, tc.status, stderr)
			}
			r := csv.NewReader(strings.NewReader(stdout))
			r.FieldsPerRecord = -1 // checked below, with the record named
			records, err := r.ReadAll()
			if err != nil || len(records) == 0 {
				t.Fatalf("not RFC 4180 CSV (%v):\n%s", err, stdout)
			}
			header := records[0]
			col := func(name string) int { return slices.Index(header, name) }
			for _, c := range []string{"row", "member", "rack", "topic", "count", "partitions"} {
				if col(c) < 0 {
					t.Fatalf("no column %q in %q", c, header)
				}
			}
			var got []ownedRow
			kinds := []string{}
			for i, rec := range records[1:] {
				if len(rec) != len(header) {
					t.Fatalf("record %d has %d fields, the header %d: %q", i+1, len(rec), len(header), rec)
				}
				if k := rec[col("row")]; len(kinds) == 0 || kinds[len(kinds)-1] != k {
					kinds = append(kinds, k)
				}
				if rec[col("row")] != "owned" {
					continue
				}
				o := ownedRow{member: rec[col("member")], rack: rec[col("rack")], topic: rec[col("topic")], count: rec[col("count")], partitions: rec[col("partitions")]}
				filled := map[int]bool{col("row"): true, col("member"): true, col("rack"): true, col("topic"): true, col("count"): true, col("partitions"): true}
				if g := col("group"); g >= 0 {
					o.group, filled[g] = rec[g], true
				}
				for k, cell := range rec {
					if !filled[k] && cell != "" {
						t.Errorf("owned row %d: column %s = %q, want it empty", i+1, header[k], cell)
					}
				}
				got = append(got, o)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(ownedRow{})); diff != "" {
				t.Errorf("owned rows mismatch (-want +got):\n%s\n%s", diff, stdout)
			}
			// The owned rows come first, in one block (check: before
			// their group's first verdict).
			if len(tc.want) > 0 && kinds[0] != "owned" && !strings.HasPrefix(tc.name, "check") {
				t.Errorf("rows by kind %q: want the owned rows first", kinds)
			}
			if n := strings.Count(strings.Join(kinds, " "), "owned"); n > 1 || (n == 0) != (len(tc.want) == 0) {
				t.Errorf("rows by kind %q: want the owned rows in one block", kinds)
			}
		})
	}
}

// TestOwnedCSVCheckOrder: check writes a group's owned rows just before
// its first verdict. In check_groups.jsonl's results, "two" comes first,
// then "join" (a owns t 0-3).
func TestOwnedCSVCheckOrder(t *testing.T) {
	stdout, _, _ := runCase(cliCase{args: []string{"check", "--in", "testdata/check_groups.jsonl", "--results", "-", "--format", "csv"}, stdin: checkResults})
	_, rows := readCSV(t, stdout)
	var got []string
	for _, r := range rows[:8] {
		got = append(got, r["row"]+" "+r["group"])
	}
	want := []string{"verdict two", "verdict two", "verdict two", "verdict two", "verdict two", "owned join", "owned join", "verdict join"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("check csv order mismatch (-want +got):\n%s", diff)
	}
}

// TestOwnedCSVConflictingClaims: the owned rows are what the members
// listed, as the json's "owned" is, not who wins the claims: c0 (at
// generation 1) and c1 (at generation 2) both list t-0, and both rows
// show it, though c1's newer claim is the one the strategies honour.
func TestOwnedCSVConflictingClaims(t *testing.T) {
	in := `{"topics": {"t": 2}, "members": [{"id": "c0", "topics": ["t"], "owned": {"t": [0]}, "generation": 1},
	 {"id": "c1", "topics": ["t"], "owned": {"t": [0, 1]}, "generation": 2}]}`
	for _, args := range [][]string{{"--in", "-", "--strategy", "sticky"}, {"simulate", "--in", "-", "--compare", "sticky"}} {
		stdout, stderr, status := runCase(cliCase{args: append(args, "--format", "csv"), stdin: in})
		if status != 0 {
			t.Fatalf("%q: exit status %d, stderr %q", args, status, stderr)
		}
		_, rows := readCSV(t, stdout)
		var got []string
		for _, r := range ofKind(rows, "owned") {
			got = append(got, r["member"]+" "+r["partitions"])
		}
		if want := []string{"c0 t(0)", "c1 t(0,1)"}; !slices.Equal(got, want) {
			t.Errorf("%q: owned rows %q, want %q", args, got, want)
		}
	}
}

// TestMigrateCSVCarriesOwned: migrate's csv already says where the
// partitions start, in its "member" rows' OWNED column (every topic in
// one cell), so it gets no "owned" rows.
func TestMigrateCSVCarriesOwned(t *testing.T) {
	stdout, stderr, status := runCase(cliCase{args: []string{"migrate", "--in", "-", "--topic-id", "t1=Yp0cT2sWQ7ChA0qyU5Ckdg", "--topic-id", "t2=Zp0cT2sWQ7ChA0qyU5Ckdg", "--format", "csv"}, stdin: ownedGroupG})
	if status != 0 {
		t.Fatalf("exit status %d, stderr %q", status, stderr)
	}
	_, rows := readCSV(t, stdout)
	var got []string
	for _, r := range ofKind(rows, "member") {
		got = append(got, r["member"]+" "+r["held"]+" "+r["owned"])
	}
	want := []string{"c0 3 t1(0,2) t2(1)", "c1 1 t1(1)", "c2 0 "}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("migrate member rows mismatch (-want +got):\n%s", diff)
	}
	if n := len(ofKind(rows, "owned")); n != 0 {
		t.Errorf("%d owned rows, want none", n)
	}
}

// TestOwnedCSVScales: the csv of the commands that write "owned" rows,
// on a paste (every member owning 50 partitions) and on the paste of the
// group doubled, grows no faster than the input (checkScales).
func TestOwnedCSVScales(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"preview", []string{"--from-describe", "-", "--strategy", "sticky", "--format", "csv"}},
		{"simulate", []string{"simulate", "--from-describe", "-", "--compare", "range,sticky", "--join", "extra", "--format", "csv"}},
		{"simulate moves", []string{"simulate", "--from-describe", "-", "--compare", "range", "--join", "extra", "--moves", "--format", "csv"}},
		{"check", []string{"check", "--from-describe", "-", "--strategy", "all", "--format", "csv"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkScales(t, 100, func(n int) ([]string, string) { return tc.args, describePaste(n) })
		})
	}
}
