package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fencedBlocks returns the fenced code blocks of a Markdown text with
// their info strings.
func fencedBlocks(md string) (infos, bodies []string) {
	lines := strings.Split(md, "\n")
	for i := 0; i < len(lines); i++ {
		info, ok := strings.CutPrefix(lines[i], "```")
		if !ok {
			continue
		}
		var body []string
		for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
			body = append(body, lines[i])
		}
		infos = append(infos, info)
		bodies = append(bodies, strings.Join(body, "\n")+"\n")
	}
	return infos, bodies
}

// TestREADMECommands runs every `$ go run ./cmd/assigncalc ...` and
// `$ assigncalc ...` (the installed command) of the README's console
// blocks, from the repository's root as the README does,
// and checks that it prints what the README shows. A command ending in
// `2>&1` shows stderr and stdout as one stream, in the order written;
// `; echo $?` then shows the exit status. Any other command must exit 0
// with nothing on stderr.
func TestREADMECommands(t *testing.T) {
	md, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir("../..")
	infos, bodies := fencedBlocks(string(md))
	ran := 0
	for i, body := range bodies {
		if infos[i] != "console" {
			continue
		}
		cmdLine, want, _ := strings.Cut(body, "\n")
		rest, ok := strings.CutPrefix(cmdLine, "$ go run ./cmd/assigncalc")
		if !ok {
			rest, ok = strings.CutPrefix(cmdLine, "$ assigncalc ")
			rest = " " + rest
		}
		if !ok {
			continue
		}
		rest, status := strings.CutSuffix(rest, "; echo $?")
		rest, merged := strings.CutSuffix(rest, " 2>&1")
		if strings.ContainsAny(rest, `"'\|;>&`) {
			t.Fatalf("README command %q uses shell syntax this test does not parse", cmdLine)
		}
		ran++
		var out, errw bytes.Buffer
		stderr := io.Writer(&errw)
		if merged {
			stderr = &out
		}
		code := run(append([]string{"assigncalc"}, strings.Fields(rest)...), strings.NewReader(""), &out, stderr)
		if status {
			fmt.Fprintln(&out, code)
		} else if code != 0 || errw.Len() > 0 {
			t.Errorf("README command %q: exit status %d, stderr %q", cmdLine, code, errw.String())
		}
		if diff := cmp.Diff(want, out.String()); diff != "" {
			t.Errorf("README command %q prints other than the README shows (-README +got):\n%s", cmdLine, diff)
		}
	}
	if ran == 0 {
		t.Error("README shows no `$ go run ./cmd/assigncalc` command")
	}
}

// TestREADMEInstall checks the README's first steps, which no test can
// run without the network: `go install` names this module's command and
// `go get` this module, as go.mod declares it, and both come before the
// reference (the first command example the README runs).
func TestREADMEInstall(t *testing.T) {
	md, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(mod), "\n")
	module, ok := strings.CutPrefix(first, "module ")
	if !ok {
		t.Fatalf("go.mod starts %q", first)
	}
	text := string(md)
	reference := strings.Index(text, "\n## The command line")
	for _, want := range []string{
		"$ go install " + module + "/cmd/assigncalc@latest\n",
		"$ go get " + module + "@latest\n",
	} {
		i := strings.Index(text, want)
		if i < 0 || i > reference {
			t.Errorf("README: %q is not among the first steps, before the reference", strings.TrimSpace(want))
		}
	}
	if _, err := os.Stat("../../cmd/assigncalc/main.go"); err != nil {
		t.Errorf("the command go install names: %v", err)
	}
}

// TestREADMEQuickStart checks that the README's library program is the
// body of Example_readme, whose output go test checks, and that the output
// the README shows is the example's.
func TestREADMEQuickStart(t *testing.T) {
	md, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	example, err := os.ReadFile("../../assign/example_readme_test.go")
	if err != nil {
		t.Fatal(err)
	}
	infos, bodies := fencedBlocks(string(md))
	var program, printed string
	for i, body := range bodies {
		if infos[i] == "go" && strings.Contains(body, "func main() {") {
			program = body
			if i+1 < len(bodies) {
				printed = bodies[i+1]
			}
		}
	}
	if program == "" {
		t.Fatal("README has no Go program with func main")
	}
	_, mainBody, _ := strings.Cut(program, "func main() {\n")
	mainBody, _, _ = strings.Cut(mainBody, "\n}\n")

	_, exBody, ok := strings.Cut(string(example), "func Example_readme() {\n")
	if !ok {
		t.Fatal("assign/example_readme_test.go has no Example_readme")
	}
	exBody, output, _ := strings.Cut(exBody, "\t// Output:\n")
	exBody = strings.TrimSuffix(exBody, "\n")
	if diff := cmp.Diff(exBody, mainBody); diff != "" {
		t.Errorf("README program differs from Example_readme (-example +README):\n%s", diff)
	}
	output, _, _ = strings.Cut(output, "}")
	var want strings.Builder
	for line := range strings.Lines(output) {
		want.WriteString(strings.TrimPrefix(strings.TrimSpace(line), "// ") + "\n")
	}
	if diff := cmp.Diff(want.String(), printed); diff != "" {
		t.Errorf("README output differs from Example_readme's (-example +README):\n%s", diff)
	}
}
