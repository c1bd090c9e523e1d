package doctor

import (
	"fmt"
	"strings"

	"rocelab/internal/ingest"
)

// softRoCERules are the rules over NCCL's IB transport running on the
// kernel's software RoCE.
func softRoCERules() []Rule {
	return []Rule{
		{IDs: []string{"nccl.transport.softroce"}, Check: checkSoftRoCE},
	}
}

// softRoCE reports whether an RDMA device name is Soft-RoCE's (rdma_rxe):
// rxe is the name `rdma link add <name> type rxe` is given by convention.
func softRoCE(name string) bool { return strings.HasPrefix(name, "rxe") }

// checkSoftRoCE reports NCCL logs whose IB transport opened an rxe device
// ("NET/IB : Using [0]rxe0:1/RoCE"): Soft-RoCE, RoCE done by the host's
// CPU over an ordinary Ethernet port.
func checkSoftRoCE(inc *Incident) []Finding {
	var ev evidence
	var devs []string
	for _, l := range All[*ingest.NCCLLog](inc) {
		for _, d := range l.IBDevices {
			if !softRoCE(d.Name) {
				continue
			}
			devs = append(devs, strings.TrimSpace(fmt.Sprintf("%s %s:%d", d.Host, d.Name, d.Port)))
			ev.add(d.Evidence)
		}
	}
	devs = distinct(devs)
	if len(devs) == 0 {
		return nil
	}
	return []Finding{{
		ID: "nccl.transport.softroce", Severity: Warn, Layer: LayerRDMA,
		Title:     fmt.Sprintf("NCCL's IB transport runs on Soft-RoCE (%s): RoCE done in software by the host's CPU, not by a RoCE NIC", list(devs, 3)),
		Evidence:  ev.sorted(),
		Mechanism: "An rxe device is the kernel's Soft-RoCE (rdma_rxe) bound to an ordinary Ethernet interface: the CPU builds, checksums and acknowledges every RoCE packet in the kernel's network stack. It has no PCI device of its own (NCCL's 'Could not find real path of rxe0' WARN), so NCCL cannot place it near any GPU, and it cannot read or write GPU memory (no GPUDirect RDMA): every byte is staged through host memory. Its throughput is bounded by CPU cores, typically a few to tens of Gb/s, often below NCCL's own socket transport on the same port; it serves functional tests, not GPU collectives.",
		Fix:       "Run NCCL over the RDMA device of a RoCE-capable NIC (`ibv_devices`, `rdma link`: mlx5_*, bnxt_re*, irdma*, ionic_*) with NCCL_IB_HCA naming it, and remove the rxe link (`rdma link delete rxe0`); on a NIC without RDMA, NCCL_IB_DISABLE=1 (the socket transport) is usually as fast.",
	}}
}
