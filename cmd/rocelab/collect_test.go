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

// run sets the collector's pace before it loads the scenario: a file of
// explicit flows (synthetic here, laid out as tools/htsimconv's 3968-flow
// ring) makes a parse tree of tens of MB, which Go's default pace
// collected four or five times on the way, each a scan of all of it.
func TestRunCollectsRarelyWhileLoading(t *testing.T) {
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
	// The process's pace as a fresh one has it (another test's run may
	// have set it), restored afterwards.
	pct := debug.SetGCPercent(100)
	limit := debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() {
		debug.SetGCPercent(pct)
		debug.SetMemoryLimit(limit)
	})
	runtime.GC()
	before := gcCycles()
	if code, _, stderr := rocelab(t, "run", "-q", "--threads", "1", file); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if n := gcCycles() - before; n > 1 {
		t.Errorf("%d collections in a run of 3968 flows that stops at once; want at most 1", n)
	}
}
