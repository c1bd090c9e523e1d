package tune

import (
	"errors"
	"os"
	"testing"
)

func FuzzParseSpace(f *testing.F) {
	if data, err := os.ReadFile("testdata/headroom-space.yaml"); err == nil {
		f.Add(data)
	}
	f.Add([]byte("search: random\nsamples: 3\nseed: 9\nobjective: p99\nparams:\n  switch.ecn.kmin: {range: [50KB, 2MB], steps: 4, scale: log}\n  traffic.generators[0].qps: [1, 8]\n  switch.ecmp.hash: [[dst_ip], [src_ip, dst_ip]]\n"))
	f.Add([]byte("name: x\ntune:\n  params:\n    switch.alpha: {range: [0.125, 8]}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 16<<10 {
			return
		}
		sp, err := ParseSpace("f.yaml", data)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if len(sp.Params) == 0 {
			t.Fatal("a space without parameters was accepted")
		}
		if sp.Search == "grid" && sp.gridSize() > maxCandidates {
			t.Fatalf("grid of %d accepted", sp.gridSize())
		}
		if sp.Search == "random" && sp.Samples > 64 {
			return
		}
		if sp.gridSize() > 4096 {
			return
		}
		cs := sp.Candidates()
		seen := map[string]bool{}
		for i, c := range cs {
			if c.Index != i || seen[c.Key()] && i > 0 {
				t.Fatalf("candidate %d: index %d, duplicate %v", i, c.Index, seen[c.Key()])
			}
			seen[c.Key()] = true
		}
	})
}
