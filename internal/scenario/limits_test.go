package scenario

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A scenario above MaxFileSize is refused before it is parsed, in memory,
// from a file (without reading it all) and from a gzip stream (whatever
// its compressed size).
func TestScenarioSizeCap(t *testing.T) {
	big := append([]byte("name: "), bytes.Repeat([]byte("x"), int(MaxFileSize))...)
	_, err := Load("big.yaml", big)
	var es Errors
	if !errors.As(err, &es) || !strings.Contains(err.Error(), "big.yaml: 1.0 MiB, more than the 1.0 MiB a scenario may be") {
		t.Errorf("Load: %v", err)
	}

	p := filepath.Join(t.TempDir(), "huge.yaml")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 40); err != nil { // sparse: 1 TiB of nothing
		t.Skip("sparse files unsupported:", err)
	}
	f.Close()
	if _, err := LoadFile(p); err == nil || !strings.Contains(err.Error(), "huge.yaml: larger than the 1.0 MiB a scenario may be") {
		t.Errorf("LoadFile: %v", err)
	}

	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(big)
	zw.Close()
	if _, err := LoadReader("big.yaml.gz", &z); err == nil || !strings.Contains(err.Error(), "larger than the 1.0 MiB") {
		t.Errorf("LoadReader gzip: %v", err)
	}
	if _, err := LoadFile(t.TempDir()); err == nil || !strings.Contains(err.Error(), "is a directory: expected a scenario file") {
		t.Errorf("LoadFile(dir): %v", err)
	}
}

// A gzip-compressed scenario reads like the plain one; an hour is a valid
// duration (it is a cap, see Estimate).
func TestLoadReaderGzip(t *testing.T) {
	src := "duration: 1h\ntopology: {kind: single-switch, hosts: 2}\ntraffic: {flows: [{src: h0, dst: h1, bytes: 1MiB}]}\n"
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte(src))
	zw.Close()
	s, err := LoadReader("s.yaml.gz", &z)
	if err != nil {
		t.Fatal(err)
	}
	if s.Duration.Seconds() != 3600 || len(s.Flows) != 1 {
		t.Errorf("duration %v, flows %d", s.Duration, len(s.Flows))
	}
}

// Traffic that cannot be what its author meant loads with a warning at the
// key: a rate above the sender's link, a start after the run ends.
func TestTrafficWarnings(t *testing.T) {
	s := mustLoad(t, "w.yaml", `duration: 10ms
topology: {kind: single-switch, hosts: 4}
traffic:
  flows:
    - {src: h0, dst: h1, bytes: 1MiB, rate: 400G}
    - {src: h1, dst: h2, bytes: 1MiB, start: 10ms}
    - {src: h2, dst: h3, bytes: 1MiB, rate: 100G, start: 9ms}
  generators:
    - {kind: incast, senders: 2, receiver: h3, bytes: 1MiB, rate: 200G, start: 1s}
`)
	want := []string{
		"w.yaml:5:45: traffic.flows[0].rate: 400Gbps is above h0's 100Gbps link: the flow is sent at line rate",
		"w.yaml:6:46: traffic.flows[1].start: starts at 10ms, at or after the end of the run (duration 10ms): it sends nothing",
		"w.yaml:9:67: traffic.generators[0].rate: 200Gbps is above h0's 100Gbps link: the flow is sent at line rate",
		"w.yaml:9:80: traffic.generators[0].start: starts at 1s, at or after the end of the run (duration 10ms): it sends nothing",
	}
	if len(s.Warnings) != len(want) {
		t.Fatalf("warnings:\n%v\nwant %d", s.Warnings, len(want))
	}
	for i, w := range want {
		if got := s.Warnings[i].Error(); got != w {
			t.Errorf("warning %d:\n got %s\nwant %s", i, got, w)
		}
	}
}
