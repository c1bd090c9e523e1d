package doctor

import (
	"fmt"
	"slices"
	"strings"

	"rocelab/internal/ingest"
)

// Rules over lsmod: whether the peer-memory module GPUDirect RDMA needs
// is loaded, held against NCCL's word on GPUDirect RDMA in the same
// host's log.

func moduleRules() []Rule {
	return []Rule{
		{IDs: []string{"host.gdr.module"}, Check: checkPeerMemory},
	}
}

// peerMemoryModules are the modules that let an RDMA NIC pin GPU memory:
// nvidia_peermem (GPU driver R470 on) and MLNX_OFED's older nv_peer_mem.
var peerMemoryModules = []string{"nvidia_peermem", "nv_peer_mem"}

// peerMemHost is what one host's (or one input's, when it names none)
// listings show of the peer-memory modules.
type peerMemHost struct {
	name   string
	loaded []ingest.LoadedModule // peer-memory modules listed
	shown  []string              // the peer-memory names the listings would show
	ev     []Evidence            // the commands or headers of those listings
}

// checkPeerMemory reports, per host, the peer-memory modules lsmod
// shows: none of those its listings would show (a warning: GPUDirect
// RDMA has no peer-memory path, only DMA-BUF), one loaded while NCCL's
// log of the same host turned GPUDirect RDMA off (a warning: the module
// is not registered where NCCL looks), or one loaded (info).
func checkPeerMemory(inc *Incident) []Finding {
	var fs []Finding
	for _, a := range All[*ingest.Modules](inc) {
		for _, h := range peerMemHosts(a) {
			if len(h.shown) == 0 && len(h.loaded) == 0 {
				continue
			}
			if len(h.loaded) == 0 && len(dmaBufLines(inc, a.Scope(), h.name)) > 0 {
				// GPUDirect RDMA pins GPU memory through DMA-BUF: no
				// peer-memory module is needed
				continue
			}
			off := gdrOffLines(inc, a.Scope(), h.name)
			fs = append(fs, peerMemoryFinding(a, h, off))
		}
	}
	return fs
}

// peerMemHosts groups an input's listings by the host each names.
func peerMemHosts(a *ingest.Modules) []*peerMemHost {
	var hosts []*peerMemHost
	byName := map[string]*peerMemHost{}
	for _, l := range a.Listings {
		name := nameOr(l.Host, a.Scope().Host.Name)
		h := byName[name]
		if h == nil {
			h = &peerMemHost{name: name}
			byName[name] = h
			hosts = append(hosts, h)
		}
		seen := false
		for _, m := range l.Modules {
			if slices.Contains(peerMemoryModules, m.Name) {
				h.loaded = append(h.loaded, m)
				seen = true
			}
			for _, u := range m.Users {
				// a module named as a user of another is loaded,
				// whether or not the grep printed its own row
				if slices.Contains(peerMemoryModules, u) {
					h.loaded = append(h.loaded, ingest.LoadedModule{Name: u, Evidence: m.Evidence})
					seen = true
				}
			}
		}
		for _, p := range peerMemoryModules {
			if l.Filter == nil && !lists(l, "nvidia") {
				// a full listing of a host without the GPU driver (a CPU
				// or storage node) needs no peer-memory module
				break
			}
			if l.Shows(p) && !slices.Contains(h.shown, p) {
				h.shown = append(h.shown, p)
				seen = true
			}
		}
		if seen {
			h.ev = append(h.ev, l.Evidence)
		}
	}
	return hosts
}

// lists reports whether the listing has a row for the module.
func lists(l ingest.ModuleListing, name string) bool {
	return slices.ContainsFunc(l.Modules, func(m ingest.LoadedModule) bool { return m.Name == name })
}

// dmaBufLines are the lines of NCCL logs of the subject's host (or its
// input) that say GPUDirect RDMA is on through DMA-BUF; when the listing
// names its host, lines that name another are left out.
func dmaBufLines(inc *Incident, at ingest.Scope, host string) []Evidence {
	var ev []Evidence
	for _, l := range All[*ingest.NCCLLog](inc) {
		if reachOf(at, l.Scope()) < sameHost {
			continue
		}
		for _, d := range l.GDRReport().Enabled {
			if d.DMABuf && (host == "" || d.Host == "" || ingest.SameHostName(d.Host, host)) {
				ev = append(ev, d.Evidence)
			}
		}
	}
	return ev
}

// gdrOffLines are the lines of NCCL logs of the subject's host (or its
// input) that say GPUDirect RDMA is off; when the listing names its host,
// lines that name another are left out.
func gdrOffLines(inc *Incident, at ingest.Scope, host string) []Evidence {
	other := func(h string) bool { return host != "" && h != "" && !ingest.SameHostName(h, host) }
	var ev []Evidence
	for _, l := range All[*ingest.NCCLLog](inc) {
		if reachOf(at, l.Scope()) < sameHost {
			continue
		}
		r := l.GDRReport()
		for _, d := range r.Disabled {
			if !other(d.Host) {
				ev = append(ev, d.Evidence)
			}
		}
		for _, s := range r.RingsOff {
			if !other(s.Host) {
				ev = append(ev, s.Evidence)
			}
		}
	}
	return ev
}

func peerMemoryFinding(a *ingest.Modules, h *peerMemHost, off []Evidence) Finding {
	who := a.Source()
	if h.name != "" {
		who += ": " + h.name
	}
	ncclOff := ""
	if len(off) > 0 {
		_, said, ok := strings.Cut(off[0].Text, "NCCL INFO ")
		if !ok {
			said = off[0].Text
		}
		ncclOff = fmt.Sprintf(", and NCCL's log turned GPUDirect RDMA off (%s)", strings.TrimSpace(said))
	}
	ev := evidenceInOrder(append(append(slices.Clone(h.ev), evidenceOfModules(h.loaded)...), off[:min(len(off), 2)]...))
	if len(h.loaded) == 0 {
		title := fmt.Sprintf("%s: lsmod shows no %s: GPUDirect RDMA has no peer-memory module%s", who, strings.Join(h.shown, " nor "), ncclOff)
		if len(h.shown) < len(peerMemoryModules) {
			title += " (the grep would not show " + strings.Join(missing(peerMemoryModules, h.shown), ", ") + ")"
		}
		return Finding{
			ID: "host.gdr.module", Severity: Warn, Layer: LayerNCCL,
			Title:    title,
			Evidence: ev,
			Mechanism: "The NIC can read and write GPU memory (GPUDirect RDMA) only when the RDMA core can pin it: through a peer-memory client, the nvidia_peermem module of the GPU driver (R470 on; nv_peer_mem from MLNX_OFED before), or through DMA-BUF (kernel 5.12 on, with the open GPU kernel modules, which NCCL 2.2x can use instead). " +
				"NCCL looks for the module's registration (/sys/kernel/mm/memory_peers/nv_mem/version) and, without it or DMA-BUF, prints 'GPU Direct RDMA Disabled' and stages every inter-node chunk through host memory, a large share of a 100-400G NIC's bandwidth lost.",
			Fix: "Load it on every node, on the host rather than in the container: `sudo modprobe nvidia_peermem`, kept across reboots with `echo nvidia_peermem > /etc/modules-load.d/nvidia-peermem.conf`; with the GPU Operator set driver.rdma.enabled=true. Then `lsmod | grep -E 'nvidia_peermem|nv_peer_mem'` shows it and NCCL's log shows /GDRDMA on its NET channels.",
		}.per(h.name, "host", "peer-memory module not loaded")
	}
	names := make([]string, 0, len(h.loaded))
	for _, m := range h.loaded {
		if !slices.Contains(names, m.Name) {
			names = append(names, m.Name)
		}
	}
	if len(off) > 0 {
		return Finding{
			ID: "host.gdr.module", Severity: Warn, Layer: LayerNCCL,
			Title:    fmt.Sprintf("%s: %s is loaded%s: the module is not where NCCL looks", who, strings.Join(names, " and "), ncclOff),
			Evidence: ev,
			Mechanism: "NCCL turns GPUDirect RDMA on when the peer-memory module has registered with the RDMA core (/sys/kernel/mm/memory_peers/nv_mem/version; later versions also /sys/module/nvidia_peermem/version) or when DMA-BUF works. A module that is loaded but absent there was built against another RDMA core than the one running (the GPU driver installed before MLNX_OFED, or the inbox kernel's ib_core against OFED's), " +
				"or NCCL runs in a container that does not see the host's /sys; NCCL 2.2x does not say which (NVIDIA/nccl#1537, #1939).",
			Fix: "On the host: `ls /sys/kernel/mm/memory_peers/` and `cat /sys/module/nvidia_peermem/version`, `dmesg | grep -i peer`; reinstall the GPU driver after MLNX_OFED (or DOCA-OFED) so nvidia_peermem is rebuilt against its ib_core, and reload it; or use DMA-BUF (open GPU kernel modules, kernel 5.12 or later, NCCL_DMABUF_ENABLE=1). Mount /sys into the container.",
		}.per(h.name, "host", "peer-memory module loaded, GPUDirect RDMA off")
	}
	return Finding{
		ID: "host.gdr.module", Severity: Info, Layer: LayerNCCL,
		Title:     fmt.Sprintf("%s: %s is loaded: the NIC can pin GPU memory for GPUDirect RDMA", who, strings.Join(names, " and ")),
		Evidence:  ev,
		Mechanism: "The peer-memory module lets the RDMA core pin GPU memory, so NCCL may use GPUDirect RDMA when the GPU and NIC are close enough (NCCL_NET_GDR_LEVEL).",
	}
}

// evidenceOfModules is the rows of the modules.
func evidenceOfModules(ms []ingest.LoadedModule) []Evidence {
	ev := make([]Evidence, 0, len(ms))
	for _, m := range ms {
		ev = append(ev, m.Evidence)
	}
	return ev
}

// missing is the names of all not in some.
func missing(all, some []string) []string {
	var out []string
	for _, n := range all {
		if !slices.Contains(some, n) {
			out = append(out, n)
		}
	}
	return out
}
