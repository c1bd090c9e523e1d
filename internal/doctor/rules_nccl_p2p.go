package doctor

import (
	"fmt"
	"sort"
	"strconv"
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

// checkP2PDisabled reports GPU pairs NCCL could not use P2P between, one
// finding for the incident with the pairs and hosts named.
func checkP2PDisabled(inc *Incident) []Finding {
	var ev evidence
	var hosts []string
	pairs := map[[2]int]bool{}
	n := 0
	for _, l := range All[*ingest.NCCLLog](inc) {
		p := l.P2PDisabled
		n += p.Count
		hosts = append(hosts, p.Hosts...)
		ev.add(p.First...)
		ev.add(p.Lines...)
		for _, e := range p.Lines {
			if a, b, ok := p2pPair(e.Text); ok {
				pairs[[2]int{min(a, b), max(a, b)}] = true
			}
		}
	}
	if n == 0 {
		return nil
	}
	return []Finding{{
		ID: "nccl.p2p.disabled", Severity: Warn, Layer: LayerNCCL,
		Title: fmt.Sprintf("NVML reports CUDA peer-to-peer as not working between GPUs %s: NCCL moves their data through host memory instead (%s)",
			pairList(pairs), strings.TrimLeft(onHosts(hosts)+"; "+plural(n, "line", "lines"), "; ")),
		Evidence: ev.sorted(),
		Mechanism: "Before it picks the P2P transport for two GPUs of a node, NCCL reads the peer-to-peer read and write status NVML reports for the pair; on a PCIe path a status other than OK turns P2P off for them with this line, and their traffic goes through shared host memory (SHM): a copy into and out of host memory through the CPU's root complex, at a fraction of P2P's bandwidth, so collectives within the node are slow while the job runs on. " +
			"NVML says so when the PCIe hierarchy will not carry peer traffic: ACS on the PCIe switches and root ports redirecting it to the root complex, the IOMMU translating it (VT-d on, no iommu=pt, a VM), or GPUs whose driver offers no P2P (GeForce cards). It is not the network, and it is no failure by itself: an error after it is told by its own line.",
		Fix: "Read the pairs' status with `nvidia-smi topo -p2p r` and `nvidia-smi topo -p2p w` (OK, or CNS/GNS/TNS/NS: chipset, GPU, topology not supported). On servers, disable ACS on the PCIe switches and root ports the GPUs sit behind (BIOS, or setpci at boot) and boot with iommu=pt (or VT-d off), as NCCL's troubleshooting guide says, then rerun until the line is gone. Where the GPUs have no P2P, SHM is the path there is: give containers a large /dev/shm (docker --shm-size, --ipc=host), and NCCL_IGNORE_DISABLED_P2P=1 only silences the line.",
	}}
}

// p2pPair reads the two GPU indices of "P2P is disabled between connected
// GPUs 2 and 1.".
func p2pPair(line string) (a, b int, ok bool) {
	_, rest, found := strings.Cut(line, "connected GPUs ")
	if !found {
		return 0, 0, false
	}
	f := strings.Fields(rest)
	if len(f) < 3 || f[1] != "and" {
		return 0, 0, false
	}
	a, errA := strconv.Atoi(f[0])
	b, errB := strconv.Atoi(strings.TrimSuffix(f[2], "."))
	return a, b, errA == nil && errB == nil
}

// pairList is "0-1, 0-2, 1-2", in order, or "of one node" when no line
// named its pair.
func pairList(pairs map[[2]int]bool) string {
	if len(pairs) == 0 {
		return "of one node"
	}
	ps := make([][2]int, 0, len(pairs))
	for p := range pairs {
		ps = append(ps, p)
	}
	sort.Slice(ps, func(i, j int) bool {
		if ps[i][0] != ps[j][0] {
			return ps[i][0] < ps[j][0]
		}
		return ps[i][1] < ps[j][1]
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
