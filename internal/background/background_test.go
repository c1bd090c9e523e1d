package background

import (
	"math"
	"strings"
	"testing"

	"rocelab/internal/testnet"
	"rocelab/internal/unit"
	"rocelab/internal/workload"
)

// TestFlows: alone, a storage READ stream and a bulk TCP stream each get
// the line less headers on the test network; into the same host they
// share its 100G receive side, and held flows of fixed size end the run.
func TestFlows(t *testing.T) {
	run := func(flows ...Flow) *Workload {
		n := testnet.New(testnet.Config{Hosts: 3, Rate: 100 * unit.Gbps, Latency: 2 * unit.Microsecond})
		w, err := New(true, flows...)
		if err != nil {
			t.Fatal(err)
		}
		if err := n.Run(10*unit.Second, w); err != nil {
			t.Fatal(err)
		}
		for _, s := range w.Stats {
			if s.Bytes != s.Flow.Bytes {
				t.Fatalf("%s: %d of %d bytes", s.Flow.Name, s.Bytes, s.Flow.Bytes)
			}
		}
		return w
	}
	st := Storage("nvme", 0, 1, 26<<2)
	st.Bytes = 256 << 20
	tcp := TCP("bulk", 2, 0)
	tcp.Bytes = 256 << 20
	line := 100 * 4096.0 / (4096 + 82)
	for _, f := range []Flow{st, tcp} {
		if g := run(f).Stats[0].Goodput().Gbps(); math.Abs(g/line-1) > 0.02 {
			t.Errorf("%s alone: %.1f Gb/s, want about %.1f", f.Name, g, line)
		}
	}
	w := run(st, tcp)
	total := 512 << 20 * 8 / (max(w.Stats[0].Last, w.Stats[1].Last) - min(w.Stats[0].First, w.Stats[1].First)).Seconds() / 1e9
	if total > 100 || total < 0.95*line {
		t.Errorf("together: %.1f Gb/s into one 100G host", total)
	}
	if !strings.Contains(w.Summary(), "nvme") {
		t.Error(w.Summary())
	}
}

func TestFlowChecks(t *testing.T) {
	for _, f := range []Flow{{Src: 1, Dst: 1, Message: 1, Depth: 1}, {Src: 0, Dst: 1, Depth: 1}, {Src: 0, Dst: 1, Message: 1, Depth: 1, Class: workload.TCP, Op: workload.Read}} {
		if _, err := New(false, f); err == nil {
			t.Errorf("%+v: want an error", f)
		}
	}
	if _, err := New(true, TCP("x", 0, 1)); err == nil {
		t.Error("a held flow without a size: want an error")
	}
}
