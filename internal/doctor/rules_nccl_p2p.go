package doctor

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"rocelab/internal/ingest"
)

// NCCL reads, for each pair of GPUs of a node, the CUDA peer-to-peer read
// and write status NVML reports (graph/paths.cc) before it picks the P2P
// transport between them. On a PCIe path a status other than OK turns P2P
// off for the pair with a line at INFO; on an NVLink path it is a WARN and
// init stops (warnClass tells that one, nvlinkP2PClass).

func ncclP2PRules() []Rule {
	return []Rule{{IDs: []string{"nccl.p2p.disabled"}, Check: checkP2PDisabled}}
}

// checkP2PDisabled reports the GPU pairs NCCL could not use P2P between,
// one finding per host with that host's pairs and lines: logs of several
// hosts concatenated, each line telling its host by its prefix, give one
// finding each, grouped in the text report.
func checkP2PDisabled(inc *Incident) []Finding {
	var fs []Finding
	for _, l := range All[*ingest.NCCLLog](inc) {
		for _, p := range l.P2PDisabled {
			fs = append(fs, Finding{
				ID: "nccl.p2p.disabled", Severity: Warn, Layer: LayerNCCL,
				Title: fmt.Sprintf("NVML reports CUDA peer-to-peer as not working between GPUs %s: NCCL moves their data through host memory instead (%s)",
					pairList(p.Pairs), strings.TrimLeft(onHosts([]string{p.Host})+"; "+plural(p.Count, "line", "lines"), "; ")),
				Evidence: sortEvidence(slices.Clone(p.Lines)),
				Mechanism: "Before it picks the P2P transport for two GPUs of a node, NCCL reads the peer-to-peer read and write status NVML reports for the pair; on a PCIe path a status other than OK turns P2P off for them with this line, and their traffic goes through shared host memory (SHM): a copy into and out of host memory through the CPU's root complex, at a fraction of P2P's bandwidth, so collectives within the node are slow while the job runs on. " +
					"NVML says so when the PCIe hierarchy will not carry peer traffic: ACS on the PCIe switches and root ports redirecting it to the root complex, the IOMMU translating it (VT-d on, no iommu=pt, a VM), or GPUs whose driver offers no P2P (GeForce cards). It is not the network, and it is no failure by itself: an error after it is told by its own line.",
				Fix: "Read the pairs' status with `nvidia-smi topo -p2p r` and `nvidia-smi topo -p2p w` (OK, or CNS/GNS/TNS/NS: chipset, GPU, topology not supported). On servers, disable ACS on the PCIe switches and root ports the GPUs sit behind (BIOS, or setpci at boot) and boot with iommu=pt (or VT-d off), as NCCL's troubleshooting guide says, then rerun until the line is gone. Where the GPUs have no P2P, SHM is the path there is: give containers a large /dev/shm (docker --shm-size, --ipc=host), and NCCL_IGNORE_DISABLED_P2P=1 only silences the line.",
			}.per(p.Host, "host", "GPU pairs without CUDA peer-to-peer"))
		}
	}
	return fs
}

// pairList is "0-1, 0-2, 1-2", in order, or "of one node" when no line
// named its pair.
func pairList(pairs [][2]int) string {
	if len(pairs) == 0 {
		return "of one node"
	}
	ps := slices.Clone(pairs)
	slices.SortFunc(ps, func(x, y [2]int) int {
		if c := cmp.Compare(x[0], y[0]); c != 0 {
			return c
		}
		return cmp.Compare(x[1], y[1])
	})
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = fmt.Sprintf("%d-%d", p[0], p[1])
	}
	return list(s, 8)
}

// nvlinkP2PClass is graph/paths.cc's WARN "P2P is disabled between NVLINK
// connected GPUs 1 and 0. This should not be the case given their
// connectivity, and is probably due to a hardware issue.": NCCL returns
// ncclUnhandledCudaError from init instead of going on without P2P.
var nvlinkP2PClass = failureClass{"NVML reports CUDA peer-to-peer as not working between GPUs joined by NVLink, and NCCL stopped init (unhandled cuda error)",
	"For two GPUs NCCL finds joined by NVLink (directly or through NVSwitches), NCCL reads the peer-to-peer read and write status NVML reports; when it is not OK, NCCL does not fall back to shared memory as it does on a PCIe path but prints this WARN and returns ncclUnhandledCudaError from init, since links that are present yet carry no P2P point at the hardware: an NVLink down or not trained, on NVSwitch systems (HGX, DGX) a Fabric Manager that is not running or failed to set the fabric up, a GPU in an error state. It is not the network.",
	"On the host named: `nvidia-smi nvlink -s` (every link up at its speed), `nvidia-smi topo -p2p r` (the pairs' status), dmesg for Xid errors, and on NVSwitch systems `systemctl status nvidia-fabricmanager` and its log; drain the node until they are clean (a GPU reset or reboot, the Fabric Manager restarted). NCCL_IGNORE_DISABLED_P2P=1 lets NCCL start without P2P between those GPUs, through host memory, far slower."}
