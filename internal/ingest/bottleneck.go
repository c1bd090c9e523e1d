package ingest

import "rocelab/internal/unit"

// A Bottleneck is a condition an artifact shows that holds end-to-end
// bandwidth below what the NIC's line rate allows: GPUDirect RDMA off, NCCL
// on TCP sockets, a NIC on a narrow PCIe link, PFC missing on the RoCE
// priority. Bandwidth findings (a low nccl-tests busbw) name the incident's
// bottlenecks as likely causes, so that a slow busbw in one file and its
// cause in another tell one story.
type Bottleneck struct {
	// What names the condition in a few words, e.g. "GPUDirect RDMA off
	// (GDR 0)" or "mlx5_0 limited to 63 Gb/s by PCIe Gen3 x8".
	What string
	// Cap is the rate the condition limits a NIC or rank to, when the
	// artifact says; zero when it does not.
	Cap unit.BitRate
	// Device is the NIC or GPU concerned, or "".
	Device string
	// Evidence is the lines that show it (a few at most).
	Evidence []Evidence
}

// A Bottlenecker is an artifact that shows bandwidth bottlenecks.
type Bottlenecker interface {
	Bottlenecks() []Bottleneck
}
