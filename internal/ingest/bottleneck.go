package ingest

import "rocelab/internal/unit"

// A Bottleneck is a condition an artifact shows that holds end-to-end
// bandwidth below what the NIC's line rate allows: GPUDirect RDMA off, NCCL
// on TCP sockets, a NIC on a narrow PCIe link, PFC missing on the RoCE
// priority, drops or retransmissions, a slow RDMA path in perftest.
// Bandwidth findings (a low nccl-tests busbw) name the incident's
// bottlenecks as likely causes, so that a slow busbw in one file and its
// cause in another tell one story.
//
// Artifacts that establish a bottleneck on their own implement Bottlenecker
// (NCCL logs, dmesg, mlnx_qos, perftest). Counter dumps state theirs per
// port sample (CounterSample.Bottlenecks), because dumps of one port may sit
// in several inputs and are joined into before/after pairs first.
type Bottleneck struct {
	// What names the condition in a few words, e.g. "GPUDirect RDMA off
	// (GDR 0)" or "mlx5_core 0001:43:00.0 on a PCIe 8.0 GT/s x8 link".
	What string
	// Cap is the rate the condition limits a NIC or rank to, when the
	// artifact says; zero when it does not.
	Cap unit.BitRate
	// Measured is set when Cap is a rate a test achieved (perftest) rather
	// than a limit the hardware states: it points at a cause only when it is
	// well below the line rate, which the artifact alone may not know.
	Measured bool
	// Device is the NIC or GPU concerned, or "".
	Device string
	// Evidence is the lines that show it (a few at most).
	Evidence []Evidence
}

// A Bottlenecker is an artifact that shows bandwidth bottlenecks.
type Bottlenecker interface {
	Bottlenecks() []Bottleneck
}
