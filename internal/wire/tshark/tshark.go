// Package tshark runs Wireshark's command-line decoder as a test oracle:
// the decoders in internal/wire and internal/capture are checked field by
// field against it. It has no init side effects and is imported by tests
// only.
package tshark

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"
)

// Separator splits the fields of a row; Aggregator joins repeated
// occurrences of one field within a packet.
const (
	Separator  = "|"
	Aggregator = ","
)

// ErrNotInstalled is returned when tshark is not on PATH.
var ErrNotInstalled = errors.New("tshark is not installed")

// Path returns the tshark executable.
func Path() (string, error) {
	p, err := exec.LookPath("tshark")
	if err != nil {
		return "", ErrNotInstalled
	}
	return p, nil
}

// Version returns tshark's first version line, e.g. "TShark (Wireshark)
// 4.0.17 (...)".
func Version() (string, error) {
	p, err := Path()
	if err != nil {
		return "", err
	}
	out, err := exec.Command(p, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("tshark --version: %w", err)
	}
	line, _, _ := strings.Cut(string(out), "\n")
	return strings.TrimSpace(line), nil
}

// Fields decodes file with tshark (no name resolution) and returns one row
// per packet, one column per field, in the order given. A field absent
// from a packet is "". A field repeated within a packet is joined with
// Aggregator.
func Fields(file string, fields ...string) ([][]string, error) {
	p, err := Path()
	if err != nil {
		return nil, err
	}
	args := []string{"-n", "-r", file, "-T", "fields", "-E", "separator=" + Separator,
		"-E", "occurrence=a", "-E", "aggregator=" + Aggregator}
	for _, f := range fields {
		args = append(args, "-e", f)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(p, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("tshark %s: %w: %s", strings.Join(args, " "), err, stderr.String())
	}
	var rows [][]string
	for _, l := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		if l == "" && len(rows) == 0 && len(out) == 0 {
			break
		}
		rows = append(rows, strings.Split(l, Separator))
	}
	return rows, nil
}

// Require returns tshark's version for the test log, or skips the test
// with a visible message when tshark is not installed.
func Require(t testing.TB) string {
	t.Helper()
	v, err := Version()
	if err != nil {
		t.Skipf("SKIP: tshark oracle unavailable (%v); install the tshark package to run this cross-check", err)
	}
	t.Logf("oracle: %s", v)
	return v
}
