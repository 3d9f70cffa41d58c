// Command wirevectors writes the consumer-protocol golden vectors that
// franz-go's kmsg and sarama encode to assign/wire/testdata/vectors.json,
// and seeds the wire fuzz targets' corpora with them.
//
// Run it from the bench module after upgrading a peer:
//
//	go run ./cmd/wirevectors
package main

import (
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/assigncalc/assigncalc/bench/internal/wirevec"
)

func main() {
	out := flag.String("out", "../assign/wire/testdata/vectors.json", "write the vectors to `FILE`")
	fuzzDir := flag.String("fuzz", "../fuzz/testdata/fuzz", "write fuzz seed corpora under `DIR` (\"\" to skip)")
	flag.Parse()
	if err := run(*out, *fuzzDir); err != nil {
		fmt.Fprintln(os.Stderr, "wirevectors:", err)
		os.Exit(1)
	}
}

func run(out, fuzzDir string) error {
	f, err := wirevec.Vectors()
	if err != nil {
		return err
	}
	b, err := wirevec.Marshal(f)
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		return err
	}
	if fuzzDir == "" {
		return nil
	}
	targets := map[string]string{
		"subscription": "FuzzDecodeSubscription",
		"assignment":   "FuzzDecodeAssignment",
		"sticky":       "FuzzDecodeStickyUserData",
	}
	for _, v := range f.Vectors {
		raw, err := hex.DecodeString(v.Hex)
		if err != nil {
			return err
		}
		dir := filepath.Join(fuzzDir, targets[v.Message])
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		seed := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", raw)
		if err := os.WriteFile(filepath.Join(dir, v.Name), []byte(seed), 0o644); err != nil {
			return err
		}
	}
	return nil
}
