package doctor

import (
	"fmt"
	"slices"
	"strings"

	"rocelab/internal/ingest"
)

// Verbs async events NCCL's IB transport reports: the NIC telling every
// process using it that a port, the device or a queue pair failed.

// asyncClass is what an async event means for the job.
type asyncClass struct {
	sev  Severity
	what string // the event in the title's words
	why  string
	fix  string
}

// asyncEventClass classifies ibv_event_type_str's text.
func asyncEventClass(event string) asyncClass {
	e := strings.ToLower(event)
	switch {
	case e == "port error":
		return asyncClass{Error, "the port went down",
			"IBV_EVENT_PORT_ERR: the NIC's link left the active state. Every queue pair on it stalls until the link returns; NCCL's connections then retry until they time out (completion status 12 on the peers). Repeated port errors are a flapping link: a cable, optic or switch port, or the switch shutting the port (PFC watchdog, errdisable).",
			"Find the port's link flaps: `dmesg | grep -i 'link down\\|link up'` and `ethtool -S <netdev> | grep -i 'link_down\\|symbol\\|fec'` on the host, the switch's interface error counters and logs; reseat or replace the cable or optic."}
	case e == "local catastrophic error":
		return asyncClass{Error, "the NIC reported a catastrophic error",
			"IBV_EVENT_DEVICE_FATAL (local catastrophic error): the HCA itself failed (firmware assert, hardware or PCIe error) and every queue pair on it is lost until the device is reset.",
			"Check dmesg for mlx5_core health/syndrome and PCIe AER lines on the host, update the NIC firmware, and reset the device (driver reload or reboot); a recurring catastrophic error is a card to replace."}
	case strings.Contains(e, "access violation") || strings.Contains(e, "invalid request") || e == "cq error" || e == "wq fatal" || strings.Contains(e, "path migration request error") || strings.Contains(e, "catastrophic"):
		return asyncClass{Error, "a queue pair failed",
			"A queue-pair level fatal event (a work queue, SRQ or CQ catastrophic error, an access or request error; the device itself stays up): the NIC moved the QP to the error state, most often because a work request broke its rules (a memory access outside a registration, a bad request). With GPUDirect RDMA this is usually the NIC failing to reach GPU memory (ACS or the IOMMU in the PCIe path, a peer-memory module mismatch); the peer sees the connection die (completion errors such as status 4, 9 or 10).",
			"Check ACS on the PCIe switches between NIC and GPU (`lspci -vvv | grep ACSCtl`: SrcValid- on the path), the IOMMU (iommu=pt), and the nvidia-peermem/dma-buf setup; retry with NCCL_NET_GDR_LEVEL=LOC to confirm GPUDirect RDMA is the trigger."}
	case e == "gid table change":
		return asyncClass{Warn, "the GID table changed",
			"IBV_EVENT_GID_CHANGE: an address on the RoCE netdev was added or removed while the job ran (DHCP renewal, a network manager, a container network attaching, the link going down and up). NCCL only logs the event (2.23-2.27 as 'unknown event type (18)', the number of enum ibv_event_type; 2.28 on as 'GID table changed'; through 2.30 it refreshes nothing, NVIDIA/nccl#1819): each connection takes its GID index when it connects, so the queue pairs already up keep the index they were built with, and when that entry went away or moved they cannot reach their peer (completion status 12, retry exceeded, NVIDIA/nccl#2157).",
			"Keep the RoCE netdevs' addresses static while jobs run (static IP, NetworkManager off for them), and check `show_gids` for the GID index NCCL uses before and after."}
	}
	return asyncClass{Info, "an IB async event", "NCCL's IB transport logged a verbs async event; events other than port, device and queue-pair errors (port active, LID or SM change, client reregistration) are state changes, not failures.", ""}
}

// checkAsyncEvents reports the verbs async events in NCCL logs, one
// finding per event and device. A failed ibv_get_async_event joins the
// device-level event of its log that caused it, or stands alone.
func checkAsyncEvents(inc *Incident) []Finding {
	var byEvent tally[ingest.AsyncEvent]
	var lost tally[ingest.AsyncEvent]
	for _, l := range All[*ingest.NCCLLog](inc) {
		var fatal *tallied[ingest.AsyncEvent]
		for _, e := range l.AsyncEvents {
			g := byEvent.add(e.Event+"\x00"+asyncDevice(e), e, e.Count, e.Host)
			g.ev.add(e.Evidence)
			if fatal == nil && asyncEventClass(e.Event).sev == Error {
				fatal = g
			}
		}
		if l.AsyncLost.Count == 0 {
			continue
		}
		if fatal == nil {
			fatal = lost.add("", ingest.AsyncEvent{}, l.AsyncLost.Count, "")
			fatal.hosts = append(fatal.hosts, l.AsyncLost.Hosts...)
		}
		for _, e := range l.AsyncLost.Lines {
			fatal.ev.add(e)
		}
	}
	var fs []Finding
	for _, g := range byEvent.groups {
		cls := asyncEventClass(g.first.Event)
		where := ""
		if dev := asyncDevice(g.first); dev != "" {
			where = " on " + dev
		}
		where += g.onHosts(" of ")
		times := ""
		if g.n > 1 {
			times = fmt.Sprintf(" (%d lines)", g.n)
		}
		fs = append(fs, Finding{
			ID: "nccl.ib.async_event", Severity: cls.sev, Layer: LayerRDMA,
			Title:     fmt.Sprintf("NIC async event '%s'%s%s: %s", g.first.Event, where, times, cls.what),
			Evidence:  g.ev.sorted(),
			Mechanism: cls.why + lostWhy(g.ev.list),
			Fix:       cls.fix,
		})
	}
	for _, g := range lost.groups {
		fs = append(fs, Finding{
			ID: "nccl.ib.async_event", Severity: Error, Layer: LayerRDMA,
			Title:     fmt.Sprintf("NCCL lost the NIC's async event channel%s (%s): the RDMA device failed or was reset under the job", g.onHosts(" on "), plural(g.n, "line", "lines")),
			Evidence:  g.ev.sorted(),
			Mechanism: "`Call to ibv_get_async_event failed` is NCCL's async thread failing to read the device's event channel; the read fails when the device context is dead (a fatal device error, a driver or firmware reset, the device removed), so every queue pair on it is gone. It is no queue-pair setup error, and the GID index has nothing to do with it.",
			Fix:       "Find what happened to the NIC at that time: `dmesg -T | grep -i 'mlx5\\|health\\|syndrome\\|AER\\|reset'` on the host, the NIC's firmware log (`mlxfwreset`/`mstfwmanager` queries, `devlink health show`), and whether a driver reload or a device plugin restart ran; update the firmware and replace a card whose resets recur.",
		})
	}
	return fs
}

// lostWhy says what a failed ibv_get_async_event beside an event means.
func lostWhy(ev []Evidence) string {
	if !slices.ContainsFunc(ev, func(e Evidence) bool { return strings.Contains(e.Text, "ibv_get_async_event") }) {
		return ""
	}
	return " NCCL's async thread then failed to read the device's event channel (`Call to ibv_get_async_event failed`): the device context is dead, which follows from the event, not a separate queue-pair setup failure."
}

// asyncDevice names the device and port an event came from ("mlx5_0:1"),
// as far as its line says.
func asyncDevice(e ingest.AsyncEvent) string {
	if e.Device != "" && e.Port > 0 {
		return fmt.Sprintf("%s:%d", e.Device, e.Port)
	}
	return e.Device
}
