package training

import (
	"math"
	"testing"

	"rocelab/internal/collective"
	"rocelab/internal/gpu"
	"rocelab/internal/testnet"
	"rocelab/internal/unit"
)

// small is a 1.2B-parameter GPT on 2 servers of 4 A100 with one 100G NIC
// each: TP 2 × PP 2 × DP 2.
func small() (Config, gpu.Server) {
	c := Config{Model: Model{Params: 1.2e9, Layers: 24, Hidden: 2048, SeqLen: 2048, MicroBatch: 1, MicroBatches: 4, DType: "bf16"},
		Parallel: Parallel{TP: 2, PP: 2, DP: 2}, Iterations: 2}
	a100 := gpu.Models["A100"]
	srv := gpu.Server{GPU: a100, GPUs: 4, NICs: 1, NICRate: 100 * unit.Gbps, NICPCIe: 4, Intra: gpu.NVSwitch, GPUNIC: gpu.PXB, CPU: gpu.AMD, PeerMem: true, GIDs: gpu.StandardGIDs}
	return c, srv
}

// TestDecomposeByHand checks the traffic of the small model against the
// arithmetic done by hand.
func TestDecomposeByHand(t *testing.T) {
	c, srv := small()
	tr, err := Decompose(c, srv)
	if err != nil {
		t.Fatal(err)
	}
	// Activations: 1 × 2048 × 2048 × 2 B = 8 MiB. TP: 4 AllReduces × 12
	// layers per stage. PP: 8 MiB / 2 = 4 MiB per TP rank. DP: 1.2e9 / 4
	// parameters × 2 B = 600 MB per GPU. Forward: 2 × 1.2e9 × 2048 / 4 =
	// 1.2288 TFLOP at 312 × 0.4 TFLOPS = 9.846 ms; backward twice that.
	want := Traffic{GPUs: 8, StageLayers: 12, ActBytes: 8 << 20, TPCalls: 48, PPBytes: 4 << 20, DPBytes: 600_000_000}
	if tr.GPUs != want.GPUs || tr.StageLayers != want.StageLayers || tr.ActBytes != want.ActBytes || tr.TPCalls != want.TPCalls || tr.PPBytes != want.PPBytes || tr.DPBytes != want.DPBytes {
		t.Errorf("traffic %+v, want %+v", tr, want)
	}
	if f := tr.Fwd.Seconds() * 1e3; math.Abs(f-9.846) > 0.001 || tr.Bwd != 2*tr.Fwd {
		t.Errorf("forward %.4f ms backward %s", f, tr.Bwd)
	}
	// Layout: rank pp·4 + dp·2 + tp: stage 0 on server 0, stage 1 on 1.
	if s, g := place(c.Parallel, 4, 1, 1, 1); s != 1 || g != 3 {
		t.Errorf("tp1 dp1 pp1 on server %d GPU %d, want 1, 3", s, g)
	}
	for _, bad := range []Parallel{{TP: 3, PP: 2, DP: 1}, {TP: 2, PP: 5, DP: 1}, {TP: 0, PP: 1, DP: 1}} {
		c.Parallel = bad
		if _, err := Decompose(c, srv); err == nil {
			t.Errorf("%+v: want an error", bad)
		}
	}
}

// TestSchedule1F1B: stage s of p runs p-s-1 warm-up forwards, then
// alternates, then drains; every micro-batch once each way.
func TestSchedule1F1B(t *testing.T) {
	got := schedule(0, 4, 6)
	want := []int32{0, 1, 2, 3, -1, 4, -2, 5, -3, -4, -5, -6}
	if len(got) != len(want) {
		t.Fatalf("%v", got)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("schedule(0,4,6) = %v, want %v", got, want)
		}
	}
	if s := schedule(3, 4, 2); len(s) != 4 || s[0] != 0 || s[1] != -1 {
		t.Errorf("last stage: %v", s)
	}
}

// TestIteration runs the small model on the test network: the iteration
// takes the 1F1B time (m + p - 1)(F + B) plus the transfers and the
// gradient AllReduce, and the transfer count is 2·m·(p-1) per pipeline.
func TestIteration(t *testing.T) {
	c, srv := small()
	nc, _ := collective.NewConfig(nil, collective.DefaultVersion)
	sys := collective.System{Server: srv, Hosts: collective.DenseHosts(2, 1)}
	w, err := New(c, nc, sys)
	if err != nil {
		t.Fatal(err)
	}
	n := testnet.New(testnet.Config{Hosts: 2, Rate: srv.NICRate, Latency: collective.NominalFabricLatency})
	if err := n.Run(100*unit.Second, w); err != nil {
		t.Fatal(err)
	}
	if w.Err != nil {
		t.Fatal(w.Err)
	}
	r := w.Report
	tr := w.Traffic
	if r.Iterations != 2 || r.PPTransfers != 2*2*4*1*4 {
		t.Errorf("iterations %d transfers %d", r.Iterations, r.PPTransfers)
	}
	step := tr.Fwd + tr.Bwd + unit.Time(tr.TPCalls)*w.TPTime
	lower := unit.Time(c.MicroBatches+c.PP-1) * step
	// Upper: add one forward and one backward transfer per micro-batch
	// on the critical path and the gradient AllReduce.
	upper := lower + unit.Time(2*(c.MicroBatches+c.PP-1))*r.PP + r.DP
	if r.Iteration < lower || r.Iteration > upper {
		t.Errorf("iteration %s outside [%s, %s]: %s", r.Iteration, lower, upper, r)
	}
	// The PP transfer of 4 MiB over one shared 100G NIC: at least the
	// wire time of 4 MiB.
	if wire := gpu.Rate(12.25).TxTime(4 << 20); r.PP < wire {
		t.Errorf("pipeline transfer %s below the wire time %s", r.PP, wire)
	}
	if r.Communication() <= r.TP || r.DP <= 0 {
		t.Errorf("%s", r)
	}
	t.Logf("%s", r)
}

// TestGPT3Traffic is a 2048-GPU job (GPT-3 175B on 256
// servers × 8 GPUs with eight 100G NICs, TP 8, PP 16, DP 16): its
// network traffic per iteration, computed without running it, is what a
// run would have to simulate.
func TestGPT3Traffic(t *testing.T) {
	c := Config{Model: Model{Params: 175e9, Layers: 96, Hidden: 12288, SeqLen: 2048, MicroBatch: 1, MicroBatches: 96, DType: "bf16"},
		Parallel: Parallel{TP: 8, PP: 16, DP: 16}}
	srv := gpu.Server{GPU: gpu.Models["A100"], GPUs: 8, NICs: 8, NICRate: 100 * unit.Gbps, NICPCIe: 4, Intra: gpu.NVSwitch, GPUNIC: gpu.PXB, CPU: gpu.AMD, PeerMem: true, GIDs: gpu.StandardGIDs}
	nc, _ := collective.NewConfig(nil, collective.DefaultVersion)
	w, err := New(c, nc, collective.System{Server: srv, Hosts: collective.DenseHosts(256, 8)})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := w.NetTraffic(4096)
	if err != nil {
		t.Fatal(err)
	}
	var bytes int64
	for _, x := range tr {
		bytes += x.Bytes
	}
	// DP: 2048 GPUs × 2(15)/16 × 175e9/128 × 2 B = 10.5 TB; PP: 128
	// pipelines × 15 boundaries × 2 directions × 96 micro-batches ×
	// 50.3 MB / 8 = 2.3 TB.
	dp := 2048 * 30.0 / 16 * 175e9 / 128 * 2
	pp := 128 * 15 * 2 * 96 * float64(2048*12288*2/8)
	if got := float64(bytes); math.Abs(got/(dp+pp)-1) > 0.01 {
		t.Errorf("%.3g bytes on the network per iteration, want %.3g", got, dp+pp)
	}
}
