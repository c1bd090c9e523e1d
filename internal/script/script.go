// Package script runs story scripts: readable testdata files that mix prose
// with commands and their expected output, in the style of etcd raft's
// testdata. A script is prose (lines starting with #, and blank lines) and
// commands; a command line is followed by its input lines, a "----" line,
// and the expected output, which ends at a blank line. Tests run each
// command through their own interpreter and compare; with rewrite set the
// file is rewritten with what the commands print, for a reviewer to read
// as a diff.
package script

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A Command is one command of a script, split into its name, its key=value
// arguments, its bare words, and the lines of input before "----".
type Command struct {
	Line  string
	Name  string
	Args  map[string]string
	Flags []string
	Input string
}

// T is the part of testing.TB a script run needs.
type T interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// RunAll runs every script matching glob as a subtest named after its file.
// fresh gives each script its own interpreter, so no state leaks between
// stories. A glob that matches nothing fails the test.
func RunAll(t *testing.T, glob string, rewrite bool, fresh func(t *testing.T) func(Command) (string, error)) {
	t.Helper()
	files, _ := filepath.Glob(glob)
	if len(files) == 0 {
		t.Fatalf("no scripts match %s", glob)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) { Run(t, f, rewrite, fresh(t)) })
	}
}

// Run runs the script at path, calling exec for each command, and checks
// or (with rewrite) rewrites the expected outputs.
func Run(t T, path string, rewrite bool, exec func(c Command) (string, error)) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v", err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	var out strings.Builder
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if l == "" || strings.HasPrefix(l, "#") {
			out.WriteString(l + "\n")
			continue
		}
		c := parse(l)
		start := i + 1
		var input []string
		for i++; i < len(lines) && lines[i] != "----"; i++ {
			input = append(input, lines[i])
		}
		if i == len(lines) {
			t.Fatalf("%s:%d: command %q not followed by ----", path, start, l)
		}
		c.Input = strings.Join(input, "\n")
		var want []string
		for i++; i < len(lines) && lines[i] != ""; i++ {
			want = append(want, lines[i])
		}
		got, err := exec(c)
		if err != nil {
			t.Fatalf("%s:%d: %s: %v", path, start, l, err)
		}
		got = strings.TrimRight(got, "\n")
		out.WriteString(l + "\n")
		for _, in := range input {
			out.WriteString(in + "\n")
		}
		fmt.Fprintf(&out, "----\n%s\n", got)
		if i < len(lines) {
			out.WriteString("\n")
		}
		if !rewrite && got != strings.Join(want, "\n") {
			t.Errorf("%s:%d: %s\n got:\n%s\nwant:\n%s", path, start, l, got, strings.Join(want, "\n"))
		}
	}
	if rewrite {
		if err := os.WriteFile(path, []byte(strings.TrimRight(out.String(), "\n")+"\n"), 0o644); err != nil {
			t.Fatalf("%v", err)
		}
	}
}

// parse splits a command line into name, key=value arguments and bare
// words.
func parse(line string) Command {
	fs := strings.Fields(line)
	c := Command{Line: line, Name: fs[0], Args: map[string]string{}}
	for _, a := range fs[1:] {
		if k, v, ok := strings.Cut(a, "="); ok {
			c.Args[k] = v
		} else {
			c.Flags = append(c.Flags, a)
		}
	}
	return c
}
