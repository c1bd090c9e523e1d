package doctor

import (
	"fmt"
	"sort"
	"strings"

	"rocelab/internal/ingest"
)

// compareRules compare what the hosts of one incident say about
// themselves: the NCCL version each runs and the RoCE MTU of each port.
// (The GID index each host uses is compared by the GID rules, the
// transport by checkTransport.)
func compareRules() []Rule {
	return []Rule{
		{IDs: []string{"nccl.version.mismatch"}, Check: checkVersions},
		{IDs: []string{"host.mtu.mismatch"}, Check: checkMTUMismatch},
	}
}

// checkVersions reports hosts that print different NCCL versions.
func checkVersions(inc *Incident) []Finding {
	type seen struct {
		host string
		ev   Evidence
	}
	byVersion := map[string]seen{}
	var order []string
	for _, l := range All[*ingest.NCCLLog](inc) {
		for _, v := range l.Versions {
			if !ingest.RealHost(v.Host) {
				continue
			}
			nv, _, _ := strings.Cut(v.Version, "+") // 2.18.3+cuda12.2 and +cuda12.1 are one NCCL
			if _, ok := byVersion[nv]; !ok {
				byVersion[nv] = seen{v.Host, v.Evidence}
				order = append(order, nv)
			}
		}
	}
	if len(order) < 2 {
		return nil
	}
	hosts := map[string]bool{}
	var parts []string
	var ev []Evidence
	for _, v := range order {
		s := byVersion[v]
		hosts[s.host] = true
		parts = append(parts, fmt.Sprintf("%s on %s", v, s.host))
		ev = append(ev, s.ev)
	}
	if len(hosts) < 2 {
		return nil // one host reporting two versions: two runs in one paste
	}
	ras := rasVersionWarns(inc)
	var saw string
	if len(ras) > 0 {
		saw = " NCCL's RAS thread saw it too: it compares versions with each peer it connects to and refused the peer of another version (\"NCCL version mismatch with remote peer\")."
	}
	return []Finding{{
		ID: "nccl.version.mismatch", Severity: Warn, Layer: LayerNCCL,
		Title:    "Hosts run different NCCL versions: " + strings.Join(parts, ", "),
		Evidence: evidenceInOrder(append(ev, ras...)),
		Mechanism: "The ranks of one communicator exchange NCCL's own structures during bootstrap and connection setup, and buffer sizes, protocols and defaults (NCCL_IB_TIMEOUT, the GID index choice) change between releases; ranks on different versions can hang or fail with errors that name neither version " +
			"(in NVIDIA/nccl#1328 \"receiving 524288 bytes instead of 65536\", which the maintainer read as a version or configuration mismatch between two ranks)." + saw,
		Fix: "Run one NCCL build everywhere: the same container image or the same libnccl.so on every host (check `ldconfig -p | grep libnccl`, LD_LIBRARY_PATH, and what PyTorch bundles: `python -c 'import torch; print(torch.cuda.nccl.version())'`); NCCL_DEBUG=VERSION prints the version each rank loaded.",
	}}
}

// rasVersionWarns are the WARNs with which NCCL's RAS thread refused a
// peer of another NCCL version: nccl.version.mismatch's evidence when the
// hosts' version lines differ, else a failure of their own.
func rasVersionWarns(inc *Incident) []Evidence {
	var ev []Evidence
	for _, l := range All[*ingest.NCCLLog](inc) {
		for _, w := range l.Warnings {
			if rasVersionWarn(w.Message) {
				ev = append(ev, w.Evidence)
			}
		}
	}
	return ev
}

// rasVersionWarn reports RAS's "NCCL version mismatch with remote peer".
func rasVersionWarn(msg string) bool {
	return strings.HasPrefix(strings.ToLower(strings.TrimSpace(msg)), "nccl version mismatch with remote peer")
}

// portMTU is one port's RoCE path MTU as an artifact states it.
type portMTU struct {
	owner string // the host, else the table's place
	mtu   int
	ev    Evidence
}

// checkMTUMismatch reports hosts whose RoCE ports run at different path
// MTUs: NCCL uses the smaller of the two ends, so every connection to the
// host with the smaller MTU runs at it. A host is judged by its largest
// MTU, the one its fabric ports are set for: ports of one host below it
// (a management bond left at 1500) are devinfo.mtu.small's, not a
// difference between hosts.
func checkMTUMismatch(inc *Incident) []Finding {
	var ports []portMTU
	for _, d := range All[*ingest.Devinfo](inc) {
		count := map[string]int{}
		for _, dev := range d.Devices {
			count[dev.Name]++
			for _, pt := range dev.Ports {
				if pt.LinkLayer != "Ethernet" || pt.ActiveMTU <= 0 || !strings.HasPrefix(pt.State, "PORT_ACTIVE") {
					continue
				}
				owner := dev.Host
				if owner == "" {
					// ibv_devinfo lists each device of a host once, so
					// the Nth block of a device name is the Nth host's.
					owner = fmt.Sprintf("host %d of %s", count[dev.Name], d.Source())
				}
				ports = append(ports, portMTU{owner, pt.ActiveMTU, pt.Evidence["active_mtu"]})
			}
		}
	}
	for _, l := range All[*ingest.NCCLLog](inc) {
		if !l.RoCE() {
			continue
		}
		for _, m := range l.MTUs {
			if ingest.RealHost(m.Host) {
				ports = append(ports, portMTU{m.Host, m.MTU, m.Evidence})
			}
		}
	}
	byMTU := map[int][]portMTU{}
	for _, p := range hostMTUs(ports) {
		byMTU[p.mtu] = append(byMTU[p.mtu], p)
	}
	if len(byMTU) < 2 {
		return nil
	}
	var mtus []int
	for m := range byMTU {
		mtus = append(mtus, m)
	}
	sort.Ints(mtus)
	var parts []string
	var ev evidence
	for _, m := range mtus {
		var owners []string
		for _, p := range byMTU[m] {
			owners = append(owners, p.owner)
			ev.add(p.ev)
		}
		parts = append(parts, fmt.Sprintf("%d on %s", m, list(distinct(owners), 3)))
	}
	low := byMTU[mtus[0]]
	return []Finding{{
		ID: "host.mtu.mismatch", Severity: Warn, Layer: LayerNCCL,
		Title:     "RoCE path MTU differs between hosts: " + strings.Join(parts, "; "),
		Evidence:  ev.sorted(),
		Mechanism: fmt.Sprintf("NCCL uses the smaller of the two ends' active_mtu for each connection, so every connection to %s runs at %d bytes whatever the other end has; below 4096 each large transfer takes more packets, headers and ACKs. The RoCE MTU follows the netdev MTU (the largest of 256-4096 that fits in the netdev MTU minus 96 bytes: 1500 gives 1024, 9000 gives 4096), so the hosts' netdev MTUs differ.", low[0].owner, mtus[0]),
		Fix:       "Set the same netdev MTU on every host (ip link set <netdev> mtu 9000, and jumbo frames on every switch port), so ibv_devinfo shows active_mtu 4096 (5) everywhere.",
	}}
}

// hostMTUs keeps the ports of each owner at its largest MTU, in the
// order the owners first appear.
func hostMTUs(ports []portMTU) []portMTU {
	best := map[string]int{}
	for _, p := range ports {
		best[p.owner] = max(best[p.owner], p.mtu)
	}
	var out []portMTU
	for _, p := range ports {
		if p.mtu == best[p.owner] {
			out = append(out, p)
		}
	}
	return out
}
