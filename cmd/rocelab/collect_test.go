package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"testing"
)

// gcCycles is the number of collections the process has finished.
func gcCycles() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// ringFile writes a synthetic file of explicit flows laid out as
// tools/htsimconv's 3968-flow ring, whose parse tree is tens of MB.
func ringFile(t *testing.T) string {
	var b strings.Builder
	b.WriteString("duration: 1ns\ntopology: {kind: fat-tree, k: 8}\nhost: {cc: none}\ntraffic:\n  flows:\n")
	for i := range 3968 {
		fmt.Fprintf(&b, "    - {name: r%d, src: h%d, dst: h%d, bytes: 1MB", i, i%128, (i*37+1)%128)
		if i%31 != 0 {
			fmt.Fprintf(&b, ", after: [r%d]", i-1)
		}
		b.WriteString("}\n")
	}
	file := filepath.Join(t.TempDir(), "ring.yaml")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// runCollections runs rocelab with args from the pace and memory limit a
// fresh process has (another test's run may have set them; restored
// afterwards), and returns its exit code, its stderr and the collections
// it ran.
func runCollections(t *testing.T, args ...string) (code int, stderr string, n uint64) {
	pct := debug.SetGCPercent(100)
	limit := debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() {
		debug.SetGCPercent(pct)
		debug.SetMemoryLimit(limit)
	})
	runtime.GC()
	before := gcCycles()
	code, _, stderr = rocelab(t, args...)
	return code, stderr, gcCycles() - before
}

// run sets the memory limit of --max-memory only after the load: set
// before it, a limit under what loading takes had the collector run all
// the way through the load (76 times on this file at 1KB, against 5 at
// Go's default pace) of a scenario the estimate then refuses.
func TestRunRefusesATinyMaxMemoryWithoutCollectingWhileLoading(t *testing.T) {
	code, stderr, n := runCollections(t, "run", "-q", "--threads", "1", "--max-memory", "1KB", ringFile(t))
	if code != 2 || !strings.Contains(stderr, "no engine fits the limits") {
		t.Fatalf("exit %d: %s; want 2 and the estimate's refusal", code, stderr)
	}
	if n > 10 {
		t.Errorf("%d collections to load 3968 flows and refuse them under --max-memory 1KB; want a few (at most 10), not one after another all through the load", n)
	}
}

// run sets the collector's pace before it loads the scenario: a file of
// explicit flows makes a parse tree of tens of MB, which Go's default
// pace collected four or five times on the way, each a scan of all of it.
// The test checks the pace, not a count of collections: that count
// depends on the heap the test process starts with (a test counting at
// most one saw two after another test, and one without the change).
// A file of explicit flows that fails at its last line was parsed whole,
// and the pace after it is the one a run keeps.
func TestRunSetsThePaceBeforeLoading(t *testing.T) {
	file := ringFile(t)
	f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("bogus: 1\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	code, stderr, _ := runCollections(t, "run", "-q", "--threads", "1", file)
	if code != 2 || !strings.Contains(stderr, `unknown key "bogus"`) {
		t.Fatalf("exit %d: %s; want 2 and the unknown key", code, stderr)
	}
	if pct := debug.SetGCPercent(100); pct != 400 {
		t.Errorf("the pace after a load that failed is GOGC=%d; want 400, set before the load", pct)
	}
}
