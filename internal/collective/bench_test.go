package collective

import (
	"testing"

	"rocelab/internal/testnet"
	"rocelab/internal/unit"
)

// BenchmarkRingAllReduce runs a 1 GiB AllReduce on 16 servers × 8 A100
// with one 100G NIC each over the test network, and reports simulated
// events and collective bytes per wall second (the engine's cost; the
// packet-level twin adds the fabric's).
func BenchmarkRingAllReduce(b *testing.B) {
	srv := server("A100", 8, 1, 100*unit.Gbps, 4)
	c := mustComm(b, srv, 16, 8, map[string]string{"NCCL_ALGO": "ring"})
	var events uint64
	for i := 0; i < b.N; i++ {
		n := testnet.New(testnet.Config{Hosts: 16, Rate: srv.NICRate, Latency: testLatency, Segment: 1 << 20})
		w := NewWorkload(c, 1, Call{Func: AllReduce, Bytes: 1 << 30})
		if err := n.Run(100*unit.Second, w); err != nil {
			b.Fatal(err)
		}
		events += n.Scheduler().Executed()
	}
	s := b.Elapsed().Seconds()
	b.ReportMetric(float64(events)/s, "events/s")
	b.ReportMetric(float64(b.N)*float64(1<<30)/s/1e9, "GB/s")
}
