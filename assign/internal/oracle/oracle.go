// Package oracle is what the tests that hold our emulations to Kafka's own
// classes share: running an oracle (a Java program of testdata that reads
// groups as JSON lines on stdin and writes one answer a line), reading
// its answers, and keeping the head of a run as goldens. Only tests
// import it.
package oracle

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"testing"
)

// Run pipes in through `java [jvmFlags] -cp classpath main args...`, its
// standard error passed on, and returns what it wrote; it fails t if java
// fails.
func Run(t testing.TB, classpath, main string, args, jvmFlags []string, in []byte) []byte {
	t.Helper()
	argv := append(append(append(jvmFlags[:len(jvmFlags):len(jvmFlags)], "-cp", classpath), main), args...)
	cmd := exec.Command("java", argv...)
	cmd.Stdin = bytes.NewReader(in)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("oracle %s: %v", main, err)
	}
	return out
}

// Parse decodes one JSON value of type T a line.
func Parse[T any](t testing.TB, data []byte) []T {
	t.Helper()
	var out []T
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		var a T
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatalf("oracle line %d: %v", len(out)+1, err)
		}
		out = append(out, a)
	}
	return out
}

// Read is Parse of the file at path.
func Read[T any](t testing.TB, path string) []T {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return Parse[T](t, data)
}

// WriteHead writes the first n lines of data to path: the goldens a run
// keeps.
func WriteHead(t testing.TB, path string, data []byte, n int) {
	t.Helper()
	head := bytes.SplitAfterN(data, []byte("\n"), n+1)
	if err := os.WriteFile(path, bytes.Join(head[:min(n, len(head))], nil), 0o644); err != nil {
		t.Fatal(err)
	}
}
