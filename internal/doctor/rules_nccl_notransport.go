package doctor

import (
	"strings"

	"rocelab/internal/ingest"
)

// noTransport reads transport.cc's "No transport found for rank 0[18000] ->
// rank 1[2a000]" (NVIDIA/nccl v2.24-v2.30, returning ncclSystemError): no
// transport accepted a pair of ranks. NCCL asks P2P, SHM and NET in turn
// (selectTransport); NET takes any pair on two hosts, so the pair is one
// NCCL takes for a single host (same hostname and boot id, or the same
// NCCL_HOSTID) with P2P and SHM refused and NET refused as well
// (ncclTopoCheckNet: NCCL_NET_DISABLE_INTRA=1, or no NIC closer to both
// GPUs than their own path). The settings the host echoed that close a
// transport are its evidence and named in the title.
func noTransport(l *ingest.NCCLLog, w ingest.Warning) (failureClass, []Evidence, bool) {
	if !strings.HasPrefix(strings.TrimSpace(w.Message), "No transport found for rank ") {
		return failureClass{}, nil, false
	}
	var names []string
	var ev []Evidence
	for _, e := range l.Env {
		if e.Host != w.Host || !closesTransport(e.Name, e.Value) {
			continue
		}
		names = append(names, e.Name+"="+e.Value)
		ev = append(ev, e.Evidence)
	}
	what := "no NCCL transport connects two ranks NCCL takes for one host"
	if len(names) > 0 {
		what = "no NCCL transport connects two ranks NCCL takes for one host (" + strings.Join(distinct(names), ", ") + ")"
	}
	return failureClass{what,
		"NCCL connects each pair of ranks with the first transport that accepts it, in the order P2P (CUDA peer access), SHM (host shared memory), NET; when none does it prints 'No transport found' and returns ncclSystemError from init. NET accepts any pair on two hosts, so this pair is two ranks NCCL counts as one host (the same hostname and boot id, or the same NCCL_HOSTID, which replaces both). Between them P2P is refused by NCCL_P2P_DISABLE=1 or an NCCL_P2P_LEVEL below the GPUs' path (LOC), SHM by NCCL_SHM_DISABLE=1 or processes that do not share /dev/shm (separate containers), and NET by NCCL_NET_DISABLE_INTRA=1 or, by default, unless a NIC on a PCIe switch next to both GPUs is faster than their own path (graph/paths.cc's ncclTopoCheckNet). It is not the fabric: the job's settings or its placement left the pair no path.",
		"Leave at least one way between ranks of a host: unset NCCL_SHM_DISABLE (shared memory works without NVLink or PCIe peer access), or NCCL_P2P_DISABLE and NCCL_P2P_LEVEL, in every rank's environment (also /etc/nccl.conf, ~/.nccl.conf); run a node's ranks in one container or share /dev/shm and the IPC namespace (docker --ipc=host, Kubernetes hostIPC or one pod). If the ranks run on different machines, drop NCCL_HOSTID, or give each machine its own value: the same value makes them one host to NCCL."}, ev, true
}

// closesTransport reports whether an NCCL setting refuses one of the
// transports between ranks of one host: P2P (NCCL_P2P_DISABLE=1,
// NCCL_P2P_LEVEL=LOC or 0), SHM (NCCL_SHM_DISABLE=1), NET
// (NCCL_NET_DISABLE_INTRA=1), or NCCL_HOSTID, which decides which ranks
// NCCL counts as one host.
func closesTransport(name, value string) bool {
	v := strings.ToUpper(strings.TrimSuffix(strings.TrimSpace(value), "."))
	switch name {
	case "NCCL_P2P_DISABLE", "NCCL_SHM_DISABLE", "NCCL_NET_DISABLE_INTRA":
		return v == "1"
	case "NCCL_P2P_LEVEL":
		return v == "LOC" || v == "0"
	case "NCCL_HOSTID":
		return v != ""
	}
	return false
}
