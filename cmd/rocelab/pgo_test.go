package main

import (
	"io"
	"strings"
	"testing"
)

// profileMix is the work default.pgo is a CPU profile of: the runs and
// the diagnosis people start the binary for, each repeated so that the
// small runs weigh about as much as the default scenario (on one thread,
// the engine's serial code, which two threads run too).
var profileMix = []struct {
	args   []string
	repeat int
}{
	{[]string{"run", "-q", "--threads", "1"}, 1},
	{[]string{"run", "-q", "--threads", "1", "../../tools/htsimconv/scenarios/incast127.yaml"}, 20},
	{[]string{"run", "-q", "--threads", "1", "../../tools/htsimconv/scenarios/perm128.yaml"}, 6},
	{[]string{"run", "-q", "--threads", "1", "../../examples/leafspine-permutation.yaml"}, 2},
	{[]string{"diagnose", "../../testdata/corpus/nccl-tests/allreduce-dgx-h100-2n-g2-148GBps.txt"}, 200},
}

// BenchmarkProfileMix runs profileMix; with -cpuprofile it regenerates
// default.pgo (docs/engine.md, "The profile").
func BenchmarkProfileMix(b *testing.B) {
	for b.Loop() {
		for _, m := range profileMix {
			for range m.repeat {
				var errb strings.Builder
				if code := execute(m.args, strings.NewReader(""), io.Discard, &errb); code > 1 {
					b.Fatalf("rocelab %s: exit %d: %s", strings.Join(m.args, " "), code, errb.String())
				}
			}
		}
	}
}
