package doctor

import (
	"slices"
	"strings"
)

// The rule book: one table of every finding the doctor and lint raise —
// its id, layer, the severities it may take, what it reports, the usual
// fix, the basis for lint's rules, and the front end that raises it. Both
// front ends emit findings under these ids with these layers and
// severities (conform checks and sets them), and the finding tables of
// docs/diagnose.md and docs/lint.md are generated from it
// (TestRuleBookDocs, -update rewrites them).

// Front names the front ends that raise a rule.
type Front uint8

// Front ends.
const (
	// Doctor: `rocelab diagnose`, over artifacts of a running fabric.
	Doctor Front = 1 << iota
	// Lint: `rocelab lint`, over configurations before traffic.
	Lint
)

// A Spec is one rule of the book.
type Spec struct {
	ID    string
	Layer Layer
	// Severities are the severities the rule may raise, least serious
	// first; the same fact gives the same severity in both front ends.
	Severities []Severity
	Front      Front
	// Text says what triggers it (Markdown).
	Text string
	// Fix is the usual remedy in one line; findings carry their own,
	// specific to the incident. Empty for rules that report a healthy
	// state or that only inform.
	Fix string
	// Source is the rule's basis, for lint's table (a standard, a vendor
	// guide, a paper).
	Source string
}

// Rules returns the rule book in documentation order.
func Rules() []Spec { return book }

// SpecOf returns the rule with the given id.
func SpecOf(id string) (Spec, bool) {
	i := slices.IndexFunc(book, func(s Spec) bool { return s.ID == id })
	if i < 0 {
		return Spec{}, false
	}
	return book[i], true
}

// Conform sets each finding's layer from the rule book, so that a rule's
// findings sit in one layer whichever front end raised them. Findings
// under ids the book does not know keep theirs (TestRuleBook fails on
// them).
func Conform(fs []Finding) {
	for i := range fs {
		if s, ok := SpecOf(fs[i].ID); ok {
			fs[i].Layer = s.Layer
		}
	}
}

// Nonconforming describes each finding whose id is not in the book or
// whose severity the book does not allow for it; tests of both front ends
// check their output with it.
func Nonconforming(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		s, ok := SpecOf(f.ID)
		switch {
		case !ok:
			out = append(out, f.ID+": not in the rule book ("+f.Title+")")
		case !slices.Contains(s.Severities, f.Severity):
			out = append(out, f.ID+": severity "+f.Severity.String()+", the book allows "+s.severityText()+" ("+f.Title+")")
		}
	}
	return out
}

// severityText is a spec's severities as the docs print them, most
// serious first: "error / warn".
func (s Spec) severityText() string {
	var parts []string
	for i := len(s.Severities) - 1; i >= 0; i-- {
		parts = append(parts, s.Severities[i].String())
	}
	return strings.Join(parts, " / ")
}

var book = []Spec{
	{ID: "input.unreadable", Layer: LayerInput, Severities: []Severity{Warn}, Front: Doctor,
		Text: "an input could not be opened or decoded (missing file, corrupt gzip or capture)",
		Fix:  "Check the path and pass the artifact as plain text (or a pcap/pcapng capture)."},
	{ID: "collect.missing", Layer: LayerInput, Severities: []Severity{Info}, Front: Doctor,
		Text: "a `rocelab collect` archive records sources it could not read (tool not installed, file absent, timeout)",
		Fix:  "Install the missing tools where they matter (mlnx_qos from MLNX_OFED or mstflint's mlnx-tools, rdma-core's ibv_devinfo and rdma, pciutils) and collect again, as root for dmesg and lspci -vv."},
	{ID: "input.unrecognized", Layer: LayerInput, Severities: []Severity{Info, Warn}, Front: Doctor,
		Text: "a named input holds nothing recognisable (warn, one per file); files found in directories that hold nothing recognisable (info, one finding for all)",
		Fix:  "Nothing to do if these are notes."},
	{ID: "input.garbled", Layer: LayerInput, Severities: []Severity{Warn}, Front: Doctor,
		Text: "lines that begin as an artifact's format prints them and do not go on as it does (an lspci `LnkSta:` without speed and width, an `ACSCtl:` without flags), each with file:line:col and what was expected there",
		Fix:  "Pass the tool's unedited output (`sudo lspci -vvv > lspci.txt`)."},
	{ID: "input.partial", Layer: LayerInput, Severities: []Severity{Warn}, Front: Doctor,
		Text: "counter dumps or counters beyond the memory caps (1024 dumps per input, 8192 counters per dump), or nccl-tests runs or rows beyond theirs (4096 runs per input, 1024 rows per run), were skipped",
		Fix:  "Split the input, or pass the runs of interest."},
	{ID: "collect.no_rdma_device", Layer: LayerRDMA, Severities: []Severity{Warn}, Front: Doctor,
		Text: "a `rocelab collect` archive of a host with no RDMA device under /sys/class/infiniband",
		Fix:  "If this host should do RoCE: `lspci | grep -i mellanox` (is the NIC there?), `lsmod | grep -E 'mlx5_ib|ib_uverbs'` (modprobe mlx5_ib), `rdma link`, and in a container pass the RDMA devices (/dev/infiniband, the RDMA device plugin)."},
	{ID: "nccl.transport.socket_fallback", Layer: LayerRDMA, Severities: []Severity{Info, Warn, Error}, Front: Doctor,
		Text: "NCCL moves data over TCP sockets (NET/Socket, no IB device, libibverbs missing, NCCL_IB_DISABLE=1): error when the job spans nodes, warn when the span is unknown, info on one node. NCCL 2.4–2.7 print `NET/Socket : Using` on every rank for bootstrap: those lines count only when this NCCL is 2.8 or later and no host prints them beside its IB devices",
		Fix:  ""},
	{ID: "nccl.transport.mismatch", Layer: LayerRDMA, Severities: []Severity{Error}, Front: Doctor,
		Text: "some hosts use NCCL's IB transport and others TCP sockets: the two cannot connect, and the mismatch (why IB did not start on the socket hosts) is the cause",
		Fix:  ""},
	{ID: "nccl.transport.none", Layer: LayerRDMA, Severities: []Severity{Error}, Front: Doctor,
		Text: "NCCL printed `Failed to initialize any NET plugin`: no network transport started (a net plugin failed and NCCL_NET left no fallback), so the communicator cannot span nodes; names the plugin's first failure",
		Fix:  "Fix the plugin's first failure (provider, devices, libfabric/plugin versions), or unset NCCL_NET so that NCCL can fall back to its own transports."},
	{ID: "nccl.transport.ib", Layer: LayerRDMA, Severities: []Severity{Info}, Front: Doctor,
		Text: "NCCL uses its IB verbs transport; states link layer, devices, GID index, NCCL_IB_TC, GDR, ranks, channels, version",
		Fix:  ""},
	{ID: "nccl.transport.plugin", Layer: LayerRDMA, Severities: []Severity{Info}, Front: Doctor,
		Text: "NCCL uses a net plugin (EFA/OFI, TCPX/FasTrak, ...) instead of its IB or socket transport",
		Fix:  ""},
	{ID: "nccl.ib.retry_exceeded", Layer: LayerRDMA, Severities: []Severity{Error}, Front: Doctor,
		Text: "a completion with status 12 (IBV_WC_RETRY_EXC_ERR) is the first error on a connection",
		Fix:  ""},
	{ID: "nccl.ib.async_event", Layer: LayerRDMA, Severities: []Severity{Info, Warn, Error}, Front: Doctor,
		Text: "NCCL's IB transport logged a verbs async event (`NET/IB : Got async event : port error`, `async fatal event on QP`): error for a port error (link down or flapping), a catastrophic device error or a queue-pair fatal event, warn for a GID table change, info for state changes",
		Fix:  "Port error: find the link flaps (dmesg, ethtool -S, the switch port); device error: dmesg health syndromes, firmware, reset; QP fatal: ACS/IOMMU on the GPUDirect path."},
	{ID: "nccl.warn.error", Layer: LayerNCCL, Severities: []Severity{Warn, Error}, Front: Doctor,
		Text: "an NCCL WARN no other rule reads, the first failing one of each process (the WARNs after it are counted as its fallout): an error when NCCL returned an error code after it (`-> 3`), a warning when the log has no return codes but the line says what failed (a bootstrap connection, an address family that is no IP family, a net plugin's error, a plugin's memory registration)",
		Fix:  "Fix the first WARN of the failing rank: for bootstrap, the launcher and NCCL_SOCKET_IFNAME; for memory registration, the memlock limit."},
	{ID: "nccl.host.config", Layer: LayerNCCL, Severities: []Severity{Warn}, Front: Doctor,
		Text: "a host setting RCCL warns about at init while the run goes on: automatic NUMA balancing on, the kernel command line without iommu=pt",
		Fix:  "kernel.numa_balancing=0; iommu=pt on the kernel command line."},
	{ID: "nccl.collective.timeout", Layer: LayerNCCL, Severities: []Severity{Error}, Front: Doctor,
		Text: "PyTorch's ProcessGroupNCCL watchdog timed out a collective (`Watchdog caught collective operation timeout: WorkNCCL(SeqNum=..., OpType=...)`): names the operation, sequence numbers, timeout and reporting ranks, and whether NCCL transport errors in the incident explain it",
		Fix:  "Find the rank that stopped first (last completed NCCL work per rank, TORCH_NCCL_DUMP_ON_TIMEOUT=1), and the NCCL WARN lines and RDMA counters of the same minutes; a longer timeout only hides the hang."},
	{ID: "nccl.ib.local_protection", Layer: LayerRDMA, Severities: []Severity{Error}, Front: Doctor,
		Text: "a completion with status 4 (IBV_WC_LOC_PROT_ERR) is the first error on a connection",
		Fix:  ""},
	{ID: "nccl.ib.completion_flushed", Layer: LayerRDMA, Severities: []Severity{Error}, Front: Doctor,
		Text: "only status 5 (WR flushed) errors are in the logs: the root cause was logged elsewhere",
		Fix:  "Collect NCCL_DEBUG=INFO logs from every rank and find the first completion error with status 12, 4 or 13 (or an ibv_modify_qp failure)."},
	{ID: "nccl.ib.completion_error", Layer: LayerRDMA, Severities: []Severity{Error}, Front: Doctor,
		Text: "a completion with any other status is the first error on a connection",
		Fix:  ""},
	{ID: "nccl.ib.qp_setup_failed", Layer: LayerRDMA, Severities: []Severity{Error}, Front: Doctor,
		Text: "`ibv_modify_qp` or a GID lookup failed while connecting, and no link-local GID finding explains it",
		Fix:  "Run `show_gids` on both hosts and set NCCL_IB_GID_INDEX to the RoCE v2 index of the address the peers route to (same version and family on every node)."},
	{ID: "topo.gpu_nic.far", Layer: LayerNCCL, Severities: []Severity{Warn}, Front: Doctor,
		Text: "nvidia-smi topo -m: GPUs whose nearest NIC is beyond PXB (PHB, NODE, SYS), so NCCL's default NCCL_NET_GDR_LEVEL (PXB) stages their traffic through host memory",
		Fix:  "Each GPU beside its own NIC (same PCIe switch); NCCL_NET_GDR_LEVEL=PHB where the platform supports GPUDirect RDMA across the host bridge."},
	{ID: "topo.gpu_nic.ok", Layer: LayerNCCL, Severities: []Severity{Info}, Front: Doctor,
		Text: "nvidia-smi topo -m: every GPU has a NIC at PIX or PXB"},
	{ID: "devinfo.port.down", Layer: LayerRDMA, Severities: []Severity{Warn, Error}, Front: Doctor,
		Text: "an RDMA port is not ACTIVE (ibv_devinfo PORT_DOWN/INIT, ibstat `State: Down`, `rdma link` `state DOWN`), with what its physical state says (POLLING: no link partner; LinkUp on InfiniBand: no subnet manager); error when the same port also reads ACTIVE in the input (the link flaps)",
		Fix:  "Check the cable, optic and switch port (and the subnet manager on InfiniBand, the netdev on RoCE); keep jobs off the port with NCCL_IB_HCA until it stays up."},
	{ID: "nccl.ib.alloc_failed", Layer: LayerRDMA, Severities: []Severity{Error}, Front: Doctor,
		Text: "a verbs call that creates or registers a resource failed (`Call to ibv_reg_mr`, `ibv_reg_mr_iova2`, `ibv_create_qp`, `ibv_create_cq`): Cannot allocate memory is the locked-memory limit, Invalid argument or Bad address on a registration is GPU memory the NIC cannot map",
		Fix:  "For Cannot allocate memory set memlock unlimited where the ranks start (limits.conf, `docker --ulimit memlock=-1`, Slurm's slurmd); for a refused registration check nvidia-peermem or DMA-BUF and retry with NCCL_NET_GDR_LEVEL=LOC."},
	{ID: "gid.index.link_local", Layer: LayerRDMA, Severities: []Severity{Error}, Front: Doctor,
		Text: "the GID index in use is the link-local (fe80::) row of the table; or index 0/1 is in use, no table is given and QP setup timed out; or NCCL printed link-local GIDs in its errors",
		Fix:  ""},
	{ID: "gid.index.roce_v1", Layer: LayerRDMA, Severities: []Severity{Error}, Front: Doctor,
		Text: "the GID index in use is a RoCE v1 row",
		Fix:  ""},
	{ID: "gid.index.zero", Layer: LayerRDMA, Severities: []Severity{Error}, Front: Doctor,
		Text: "the GID in use is the all-zero GID, an empty slot: a table row of zeros at the index in use, or perftest's `GID: 00:00:…:00` for the local or remote end (named as the cause of \"Failed to modify QP to RTR\")",
		Fix:  "On "},
	{ID: "gid.index.empty", Layer: LayerRDMA, Severities: []Severity{Error}, Front: Doctor,
		Text: "the GID index in use is not in the device's table at all (sparse container/SR-IOV tables)",
		Fix:  ""},
	{ID: "gid.index.default_zero", Layer: LayerRDMA, Severities: []Severity{Warn}, Front: Doctor,
		Text: "GID index 0 (NCCL's default before 2.21) is in use on RoCE and no table says what it holds",
		Fix:  ""},
	{ID: "gid.table.empty", Layer: LayerRDMA, Severities: []Severity{Warn, Error}, Front: Doctor | Lint,
		Text: "a GID table with no entry at all (`show_gids`: n_gids_found=0, as in a pod without an RDMA netdev): error when RoCE is in use on that host (an NCCL RoCE device, a perftest over Ethernet), warn otherwise",
		Fix:  "Give the pod or host an RDMA netdev with an IP address (macvlan/SR-IOV network on the HCA), then check show_gids again."},
	{ID: "gid.index.mismatch", Layer: LayerRDMA, Severities: []Severity{Warn}, Front: Doctor,
		Text: "hosts use different GID indices, or the routable RoCEv2 row (IPv4, else IPv6) sits at different indices in different tables (hosts, pods, or several tables of one device in one paste), with the value for each",
		Fix:  "Per host: "},
	{ID: "gid.index.roce_v2", Layer: LayerRDMA, Severities: []Severity{Info}, Front: Doctor,
		Text: "the GID index in use is a routable RoCEv2 row; or, with tables only, which index to use",
		Fix:  "NCCL_IB_GID_INDEX=<index> (or leave it unset on NCCL ≥ 2.21)."},
	{ID: "gid.index.ipv4", Layer: LayerRDMA, Severities: []Severity{Info}, Front: Doctor,
		Text: "the GID index in use is an IPv4-mapped GID but nothing shows its RoCE version (perftest's banner, older ibv_devinfo)",
		Fix:  ""},
	{ID: "perftest.connect.failed", Layer: LayerRDMA, Severities: []Severity{Error}, Front: Doctor,
		Text: "a perftest run failed: QP to RTR, completion error, out-of-band exchange, port down, device unavailable",
		Fix:  ""},
	{ID: "counters.roce.absent", Layer: LayerRDMA, Severities: []Severity{Info}, Front: Doctor,
		Text: "a full mlx5 ethtool dump counts no RDMA traffic (rx/tx_vport_rdma_unicast_packets zero or absent)",
		Fix:  "If RoCE was expected on this port: check NCCL's transport (NCCL_DEBUG=INFO shows 'Using network IB' and NET/IB channels), that NCCL_IB_HCA names this port's RDMA device, and `rdma link` / show_gids for the device-to-netdev mapping."},
	{ID: "counters.unreadable", Layer: LayerRDMA, Severities: []Severity{Info}, Front: Doctor,
		Text: "an RDMA port's sysfs counters read `N/A (no PMA)`: the device implements none of them (iWARP i40iw/irdma, some RoCE drivers)",
		Fix:  "Read the port's health from the netdev's `ethtool -S` and the switch's counters instead."},
	{ID: "capture.no_roce", Layer: LayerRDMA, Severities: []Severity{Warn}, Front: Doctor,
		Text: "a capture holds no UDP 4791 traffic (tcpdump on the netdev does not see RDMA)",
		Fix:  "Capture the RDMA traffic itself: NVIDIA ibdump, or tcpdump -i mlx5_0 with an RDMA-capable libpcap, or a switch port mirror."},
	{ID: "counters.pfc.not_on_roce_priority", Layer: LayerFabric, Severities: []Severity{Warn, Error}, Front: Doctor,
		Text: "less than 1% of a port's bytes ride a PFC priority (PFC per the mlx5 counters, else mlnx_qos, else 3 assumed): error for a before/after pair of a RoCE port, warn for a single dump or when RoCE is not shown",
		Fix:  ""},
	{ID: "counters.pfc.ok", Layer: LayerFabric, Severities: []Severity{Info}, Front: Doctor,
		Text: "a port's traffic rides its PFC priority; reports the pause frames",
		Fix:  ""},
	{ID: "counters.discards", Layer: LayerFabric, Severities: []Severity{Info, Warn, Error}, Front: Doctor,
		Text: "drop counters moved (rx_discards_phy, rx_prioN_discards, rx_prioN_buf_discard, rx_prioN_cong_discard, rx_out_of_buffer, out_of_buffer, bnxt/be2net equivalents): error at 0.1% of received packets or on a PFC priority; one level lower for a single dump below 1%",
		Fix:  ""},
	{ID: "counters.pause.global", Layer: LayerFabric, Severities: []Severity{Warn}, Front: Doctor,
		Text: "802.3x global pause counters moved, or `ethtool -a` shows pause enabled",
		Fix:  ""},
	{ID: "counters.retransmission", Layer: LayerFabric, Severities: []Severity{Warn, Error}, Front: Doctor,
		Text: "RC loss-recovery counters moved (out_of_sequence, packet_seq_err, local_ack_timeout_err, ...): error with ACK timeouts; one level lower for a single dump",
		Fix:  "Find where packets drop: PFC on the RoCE priority end to end (mlnx_qos -i <if> --trust dscp --pfc <vector> and the same priority on the switch), rx_discards_phy / rx_prioN_discards in ethtool -S <if> on both hosts, switch egress drops, and ECN marking (np_ecn_marked_roce_packets) starting before buffers fill."},
	{ID: "counters.ecn.host_marking", Layer: LayerFabric, Severities: []Severity{Info, Warn}, Front: Doctor,
		Text: "mlx5 rx_prioN_marked moved: the NIC marked received packets CE itself because its host could not drain the receive buffer (per-host congestion); warn, info for a single dump",
		Fix:  "Find what limits the receiving host's intake: PCIe link width and speed, NUMA locality, IOMMU (iommu=pt), memory bandwidth, GPUDirect RDMA off; not the switch's ECN thresholds."},
	{ID: "counters.efa.errors", Layer: LayerFabric, Severities: []Severity{Info, Warn, Error}, Front: Doctor,
		Text: "AWS EFA hw_counters (SRD, not RoCE) moved: unresponsive_remote_events or rdma_read/write_wr_err (error), impaired_remote_conn_events, retrans_timeout_events or rx_drops (warn); one level lower for a single dump",
		Fix:  "Find the peer named in NCCL/aws-ofi-nccl's log; the security group must allow all traffic to and from itself, instances in one placement group, every node up; take a before/after pair of `rdma -p statistic show` around the job."},
	{ID: "counters.efa.ok", Layer: LayerFabric, Severities: []Severity{Info}, Front: Doctor,
		Text: "AWS EFA hw_counters read with no drops, SRD retransmit timeouts, impaired or unresponsive connections or failed work requests; RoCE's PFC/ECN/GID checks do not apply to EFA"},
	{ID: "counters.retry_exceeded", Layer: LayerRDMA, Severities: []Severity{Info, Warn, Error}, Front: Doctor,
		Text: "hw_counters: queue pairs that ran out of transport retries (req_transport_retries_exceeded, mana_ib requester_retries_exceeded; error, one level lower on a single dump), or req_cqe_error: requests completed with an error; error when local_ack_timeout_err says the QP ran out of retry_cnt (IBV_WC_RETRY_EXC_ERR, status 12) and flushed the rest, else warn for errors that grew between two dumps and info for a count since driver load",
		Fix:  "Find the dead path between this host and its peer: a link or optic down (ethtool <if>, switch port state), a route withdrawn after a failure, a GID that is not routable (NCCL_IB_GID_INDEX pointing at a link-local GID), a firewall or MTU mismatch on the RoCE netdev."},
	{ID: "counters.pause.from_host", Layer: LayerFabric, Severities: []Severity{Warn, Error}, Front: Doctor,
		Text: "over a known window, a host NIC held a priority off at its switch (tx_prioN_pause_duration): a slow receiver or a pause storm; warn at 0.1%, error at 10%",
		Fix:  "Check the receiver: PCIe link width and speed (lspci -vv: LnkSta against LnkCap), NUMA placement, rx_out_of_buffer, and the NIC's own storm counters (tx_pause_storm_*)."},
	{ID: "counters.pause.ratio", Layer: LayerFabric, Severities: []Severity{Info, Warn, Error}, Front: Doctor,
		Text: "over a known window, the priority a port was paused longest (rx_prioN_pause_duration): warn at 0.1% of the window (the health target), error at 10%",
		Fix:  ""},
	{ID: "counters.dcqcn.slowed", Layer: LayerFabric, Severities: []Severity{Warn}, Front: Doctor,
		Text: "over a known window, NICs' QPs handle CNPs (rp_cnp_handled per second, over the QPs the NCCL log counts, else one per NIC) faster than DCQCN recovers a cut (four increase events of rpg_time_reset from the DCQCN sysfs dump, else mlx5's 300 µs), and the ports where the marks arise (the switch ports' ECN-marked counters) mark from thresholds below one BDP (`ecnconfig -l` beside an LLDP table that names the port) or, thresholds unknown, carry under half their line rate: DCQCN slowed by marking. Without switch counters: senders held down, the cause not told apart",
		Fix:  "Raise the ECN thresholds of the RoCE queue on the marking ports toward 1–3 × BDP and keep ROCE_CC_PRIO_MASK on the RoCE priority; check that each QP then gets fewer CNPs than one per recovery time."},
	{ID: "counters.dcqcn.hotspot", Layer: LayerFabric, Severities: []Severity{Info, Warn}, Front: Doctor,
		Text: "the same CNP rate with the marks arising from a real queue (thresholds not below a BDP): warn for an incast (4 or more held senders per marking port) or marking ports that face other switches (LLDP: an ECMP collision or oversubscription); info for a few senders sharing a host's port",
		Fix:  "An incast: reduce the fan-in (stagger, shard). A fabric link: more QPs per connection (NCCL_IB_QPS_PER_CONNECTION=4), hashing on the UDP source port, rail-optimised placement."},
	{ID: "counters.dcqcn.active", Layer: LayerFabric, Severities: []Severity{Info}, Front: Doctor,
		Text: "NICs handle CNPs over a known window, each QP slower than DCQCN recovers: congestion control acting without holding the senders down",
		Fix:  ""},
	{ID: "counters.ecn.heavy_marking", Layer: LayerFabric, Severities: []Severity{Warn}, Front: Doctor,
		Text: "(only when no NIC's CNP rate is known over a window; `counters.dcqcn.*` judge those) at least 1% of received RoCE packets carried ECN CE (RoCE packets from rx_vport_rdma_unicast_packets, port_rcv_packets or be2net rx_roce_frames)",
		Fix:  "Look for the hot spot: incast fan-in to this host, ECMP polarisation (RoCE entropy is only the UDP source port."},
	{ID: "counters.ecn.marking", Layer: LayerFabric, Severities: []Severity{Info, Warn}, Front: Doctor,
		Text: "(only when no NIC's CNP rate is known over a window) ECN marks and CNPs weighed against RoCE packets: \"light\" only with a ratio below 1% (rx_write_requests, a lower bound of the packets, gives an upper bound of the share); \"cannot be judged, take a before/after pair\" without a count; warn when retransmissions move beside the marks",
		Fix:  ""},
	{ID: "switch.pfcwd.storm", Layer: LayerFabric, Severities: []Severity{Warn, Error}, Front: Doctor,
		Text: "`show pfcwd stats`, or the twin's pfcwd_prioN_storms: the PFC watchdog detected a storm on a queue and dropped (error while stormed or detections exceed restorations; warn for past storms)",
		Fix:  "Find the device on <port> (LLDP: `show lldp table`): check its NIC for tx_pause_storm_* events and rx_prioN_pause_duration, the host for hangs (dmesg, a stuck process holding the RDMA receive queue), and the fabric for a cyclic buffer dependency."},
	{ID: "switch.pfcwd.stopped", Layer: LayerFabric, Severities: []Severity{Warn}, Front: Doctor,
		Text: "`show pfcwd stats`: the PFC watchdog does not run (status N/A) on lossless queues (the priorities the switch enables PFC on, else SONiC's 3 and 4): storms and deadlocks there are never broken; the storm counters beside N/A are history and raise no storm finding",
		Fix:  "pfcwd start_default (with default_pfcwd_status enable), or pfcwd start --action drop ports all detection-time 200."},
	{ID: "switch.counters.mismatch", Layer: LayerFabric, Severities: []Severity{Warn}, Front: Doctor,
		Text: "the switch CLI's PFC counters (`show pfc counters`, pfcstat) are 0 on every port for a priority while the ASIC's own counter dump beside them (the Mellanox SDK's per-port dump) counts PFC frames on it",
		Fix:  "Compare with the counter database (redis COUNTERS:<oid>), check counterpoll, clear the cached pfcstat snapshot."},
	{ID: "switch.pfc.tx_pause", Layer: LayerFabric, Severities: []Severity{Info, Warn}, Front: Doctor,
		Text: "`show pfc counters`: a switch port sends PFC pause on a priority (warn from 1000 frames): the congestion root when it receives none itself, or a stuck receiver downstream",
		Fix:  "Follow the pause to its root: the port that sends pause without receiving it is the congestion point (incast toward one receiver, an oversubscribed uplink, or a slow host)."},
	{ID: "switch.queue.drops", Layer: LayerFabric, Severities: []Severity{Warn, Error}, Front: Doctor,
		Text: "`show queue counters`: drops on a queue, error on a lossless one (the queues the watchdog watches, else SONiC's 3 and 4); `show interfaces counters`: RX_DRP (ingress), TX_DRP (egress: lossy queues full, or the PFC watchdog dropping a stormed queue, error when `show pfcwd stats` shows it dropped on that port)",
		Fix:  "For RoCE on a lossless queue: check PFC on the priority end to end (`show pfc counters`, the peer NIC's mlnx_qos), the PG headroom (`show priority-group watermark headroom`, `mmuconfig -l`) against the cable length, and `show pfcwd stats`."},
	{ID: "switch.headroom.exhausted", Layer: LayerFabric, Severities: []Severity{Info, Error}, Front: Doctor,
		Text: "`show priority-group watermark headroom`: a lossless PG used its headroom (info), and the same port dropped (error)",
		Fix:  "Compare the headroom profile (`mmuconfig -l`, `show buffer profile`) with the cable length and speed of this port (`config interface cable-length`, or SONiC's dynamic buffer model)."},
	{ID: "switch.headroom.short", Layer: LayerFabric, Severities: []Severity{Warn}, Front: Doctor,
		Text: "`show buffer information` / `mmuconfig -l`: a lossless profile named `pg_lossless_<speed>_<cable>_profile` has an xoff below what `buffer_headroom_mellanox.lua` gives for that speed and cable on any ASIC (SONiC's default lossless pattern, no cell overhead: package headroom, the function lint, `calc headroom` and the twin call)",
		Fix:  "Let SONiC's dynamic buffer model size the profile, or raise xoff to at least <value>; `rocelab calc headroom --asic <ASIC>` gives the ASIC's own figure."},
	{ID: "switch.ecn.thresholds", Layer: LayerFabric, Severities: []Severity{Info, Warn, Error}, Front: Doctor | Lint,
		Text:   "a RED/ECN profile on a lossless queue (`ecnconfig -l`; a config_db WRED_PROFILE on the lossless QUEUE rows; the description's switch.ecn) judged against the BDP at its port speed and a 20 µs RTT (the RTT lint and calc use): Kmax below one BDP (error; warn when no input states the speed and 100G is assumed), Kmin above 2 BDPs (warn: marks late, PFC first; at an assumed speed the doctor says so as info and lint not at all); the doctor also reports thresholds in range (info)",
		Fix:    "If marking starts late, lower Kmin toward one BDP: `ecnconfig -p <profile> -gmin <bytes> -gmax <bytes>`.",
		Source: "a queue of one round trip marked at 100 %: Huawei sizes Kmax at 2–3×BDP (CloudEngine AI Fabric guide, support.huawei.com EDOC1100155250); same id as the doctor's rule on `ecnconfig -l` output"},
	{ID: "switch.buffer.pool", Layer: LayerFabric, Severities: []Severity{Info, Warn}, Front: Doctor,
		Text: "SONiC `show buffer_pool watermark` with the pool sizes of `show buffer information` / `mmuconfig -l` (joined by switch and pool across files): a shared pool peaked at 90% of its size or more (warn); `show headroom-pool watermark`: the shared headroom pool was used (info)",
		Fix:  "Find the congested ports with `show queue watermark unicast` and `show priority-group watermark shared`."},
	{ID: "switch.lldp.host", Layer: LayerFabric, Severities: []Severity{Info}, Front: Doctor,
		Text: "`show lldp table`: a switch port whose neighbour is a host interface (port ID, or lldpd's \"Interface N as enp5s0f0\"); says when the incident holds that host or NIC; switch findings on the port name the NIC",
		Fix:  ""},
	{ID: "switch.pfc.port_off", Layer: LayerFabric, Severities: []Severity{Warn}, Front: Doctor,
		Text: "Arista EOS `show priority-flow-control`: ports with PFC disabled (status D), read by the collector lint uses",
		Fix:  "On ports that carry RoCE: `priority-flow-control on` and `priority-flow-control priority <value> no-drop`."},
	{ID: "switch.pfc.mismatch", Layer: LayerFabric, Severities: []Severity{Error}, Front: Doctor,
		Text: "the switch enables PFC on other priorities (NVIDIA Onyx `show roce`, Arista EOS `show priority-flow-control`) than a host NIC's mlnx_qos",
		Fix:  "Use one lossless priority end to end: mlnx_qos -i <if> --pfc <vector> on the host (or change the switch's), and map RoCE's DSCP to it on both."},
	{ID: "qos.lossy.by_design", Layer: LayerFabric, Severities: []Severity{Info, Warn, Error}, Front: Lint,
		Text:   "a SONiC config lossy on purpose (pfc_enable empty on every port, every class in one priority group or no buffer profile with xoff, as NVIDIA's Spectrum-X AI SKUs ship), with what RoCE's queue marks: warn; error when the NICs run PFC, info when they run none either",
		Fix:    "Keep it only with NICs that need no PFC (Spectrum-X SuperNICs: adaptive routing, their own congestion control, out-of-order placement); otherwise a lossless class for RoCE end to end",
		Source: "sonic-buildimage device/mellanox SN5600 C256S1, SN5640 C512S2 qos.json.j2 (LOSSLESS_TC left empty)"},
	{ID: "qos.pfc.disabled", Layer: LayerFabric, Severities: []Severity{Warn, Error}, Front: Doctor | Lint,
		Text:   "mlnx_qos: PFC off on every priority (error), or on priorities other than the one RoCE's DSCP maps to (warn): NCCL_IB_TC where an input of that host (or of no stated host) sets or echoes it, else 26 (NCCL_IB_TC=106), and the finding says it is assumed; lint: a switch class for RoCE that is not lossless, or, where the switch's DSCP map is not given (a PORT_QOS_MAP fragment), ports whose pfc_enable leaves out the NICs' RoCE priority, or PFC off on every priority of ports whose DSCP map and NICs are not given (warn)",
		Fix:    "mlnx_qos -i <if> --trust dscp --pfc <vector> on every host, PFC on priority <p> on the switch ports.",
		Source: "same id as the doctor's mlnx_qos rule: the same fact on the switch side"},
	{ID: "qos.trust.pcp", Layer: LayerFabric, Severities: []Severity{Warn, Error}, Front: Doctor | Lint,
		Text:   "mlnx_qos: priority trust is pcp",
		Fix:    "mlnx_qos -i <if> --trust dscp (DSCP 24–31 map to priority 3 by default).",
		Source: "same id as the doctor's"},
	{ID: "qos.ok", Layer: LayerFabric, Severities: []Severity{Info}, Front: Doctor,
		Text: "mlnx_qos: trust dscp and PFC on exactly the priority RoCE's DSCP maps to (as for qos.pfc.disabled)",
		Fix:  ""},
	{ID: "capture.retransmission", Layer: LayerFabric, Severities: []Severity{Warn, Error}, Front: Doctor,
		Text: "go-back-N episodes in a capture: error when one followed an inferred ACK timeout",
		Fix:  "Find the drop: ethtool -S for rx_discards_phy / rx_prioN_discards and the switch's drop counters."},
	{ID: "capture.cnp.storm", Layer: LayerFabric, Severities: []Severity{Info, Warn}, Front: Doctor,
		Text: "CNPs in a capture: warn at 20,000 CNPs/s or more at one reaction point",
		Fix:  "Find the congested port (switch ECN-marked counters, np_ecn_marked_roce_packets / np_cnp_sent on receivers)."},
	{ID: "capture.pfc.pause", Layer: LayerFabric, Severities: []Severity{Warn, Error}, Front: Doctor,
		Text: "PFC or 802.3x pause frames in a capture: error when a priority is paused half the capture or more",
		Fix:  "Find who is paused and why: rx/tx_prioN_pause and _pause_duration on the hosts, the switch's PFC counters per port."},
	{ID: "capture.ecn.marked", Layer: LayerFabric, Severities: []Severity{Info, Warn}, Front: Doctor,
		Text: "ECN CE marks in a capture: warn when no CNPs come back although the reverse direction is captured",
		Fix:  "None needed for occasional marks."},
	{ID: "capture.truncated", Layer: LayerInput, Severities: []Severity{Warn}, Front: Doctor,
		Text: "a capture ends inside a record (tcpdump killed before it flushed, a cut copy): every whole packet before it is analysed, and the finding says at which byte offset and after which packet it breaks off",
		Fix:  "Stop tcpdump with Ctrl-C or SIGTERM so that it flushes (or write with -U, packet-buffered), check free space, and copy the whole file."},
	{ID: "nccl.gdr.disabled", Layer: LayerNCCL, Severities: []Severity{Warn}, Front: Doctor,
		Text: "NCCL did not use GPUDirect RDMA for some or all GPUs (no peer-memory module, distance above NCCL_NET_GDR_LEVEL, GDR 0, channels without /GDRDMA)",
		Fix:  ""},
	{ID: "nccltests.busbw.low", Layer: LayerNCCL, Severities: []Severity{Warn, Error}, Front: Doctor,
		Text: "the busbw plateau of the largest sizes is below 90% of the limit the network sets for that collective and topology (error below 50%); the finding states the limit used: ring/tree collectives (AllReduce, AllGather, ReduceScatter, Broadcast, Reduce) ≤ the node's NIC bandwidth, NICs per node × line rate (at most GPUs per node × line rate); AlltoAll ≤ L·(k/G)·(n−1)/(n−G); Gather/Scatter ≤ L·(n−1)/(n−G); SendRecv ≤ one NIC; n ranks, G per node, k NICs per node",
		Fix:  ""},
	{ID: "nccltests.busbw.ok", Layer: LayerNCCL, Severities: []Severity{Info}, Front: Doctor,
		Text: "the plateau is at least 90% of that limit (or above it, with the reason: two-node Tree/NVLS AllReduce, or more NICs than the artifacts show)",
		Fix:  ""},
	{ID: "nccltests.busbw.unjudged", Layer: LayerNCCL, Severities: []Severity{Info}, Front: Doctor,
		Text: "no NIC speed is known (says which NIC speeds the plateau would be low for); or all ranks run on one node (no NIC on the path); or the NIC count per node is unknown and the plateau is above what one NIC per node allows; or the run's processes ran as independent jobs (nccltests.ranks.split)",
		Fix:  ""},
	{ID: "nccltests.sizes.small", Layer: LayerNCCL, Severities: []Severity{Info}, Front: Doctor,
		Text: "the table stops below the sizes where bandwidth shows",
		Fix:  "Run the sweep up to large sizes, e.g."},
	{ID: "nccltests.rows.none", Layer: LayerNCCL, Severities: []Severity{Warn}, Front: Doctor,
		Text: "the table's header is there but no size is: the first collective never finished, or the output was cut",
		Fix:  "Read the end of the job's output and its NCCL log (NCCL_DEBUG=INFO) for a WARN, a timeout or a crash at the first size; if the output was cut, give all of it."},
	{ID: "nccltests.ranks.split", Layer: LayerNCCL, Severities: []Severity{Error}, Front: Doctor,
		Text: "the output is of independent single-process jobs, not one multi-process run: several `Rank 0` lines, banners back to back, or sizes interleaved out of order (nccl-tests built without MPI, or `-g` misuse)",
		Fix:  "Rebuild with MPI: `make clean && make MPI=1 MPI_HOME=<mpi> CUDA_HOME=<cuda> NCCL_HOME=<nccl>`, and launch one process per GPU: `mpirun -np <nodes×gpus> -N <gpus per node> ./build/all_reduce_perf -b 8 -e 8G -f 2 -g 1` (or -np <nodes> with -g <gpus per node>)."},
	{ID: "nccltests.failed", Layer: LayerNCCL, Severities: []Severity{Error}, Front: Doctor,
		Text: "the test stopped on a failed NCCL or CUDA call (`Test NCCL failure common.cu:N 'unhandled system error'`, `Test CUDA failure`, the first versions' `NCCL failure`)",
		Fix:  "Rerun with NCCL_DEBUG=INFO and diagnose the log: the NCCL WARN line before the failure names the cause."},
	{ID: "nccltests.json.cut", Layer: LayerNCCL, Severities: []Severity{Warn}, Front: Doctor,
		Text: "an nccl-tests JSON document (-J) breaks off before nccl-tests closed it, at file:line:col: the job was killed mid-run, or an nccl-tests before 2.18.5 aborted on an error (NVIDIA/nccl-tests#387); the whole rows before the break are judged",
		Fix:  "Find why the run ended (stdout's failure line, the scheduler's record); keep the table too (`| tee`)."},
	{ID: "nccltests.json.stopped", Layer: LayerNCCL, Severities: []Severity{Warn}, Front: Doctor,
		Text: "an nccl-tests JSON document closed without its footer (no average_bus_bandwidth): nccl-tests 2.18.5 and later end a run that stopped on an error so; the rows present are judged",
		Fix:  "Find the failing call in the run's stdout (`Test NCCL failure ...`) and rerun with NCCL_DEBUG=INFO."},
	{ID: "nccltests.time.stall", Layer: LayerNCCL, Severities: []Severity{Warn}, Front: Doctor,
		Text: "a message size of an nccl-tests table took more than 5x (and 1 ms more than) the time of a larger size: the run stalled at those sizes (protocol/algorithm switch, loss recovered by timeout, other traffic)",
		Fix:  "Rerun those sizes alone with more iterations; pin NCCL_PROTO and NCCL_ALGO in turn; compare retransmission and discard counters around the run."},
	{ID: "nccltests.wrong", Layer: LayerNCCL, Severities: []Severity{Error}, Front: Doctor,
		Text: "`#wrong` above zero or out-of-bounds values: data was corrupted",
		Fix:  "Find the host: rerun the failing sizes on subsets of nodes and GPUs."},
	{ID: "perftest.bw.low", Layer: LayerNCCL, Severities: []Severity{Warn, Error}, Front: Doctor,
		Text: "perftest's best bandwidth at 64 KiB or more is below 80% of line rate (error below 50%)",
		Fix:  "Check dmesg for the NIC's PCIe line (x16 at the card's generation), run perftest on the NIC's NUMA node (numactl -N <node> -m <node>), with --report_gbits -q 4 to rule out a single-QP limit, and read hw_counters before/after for out_of_sequence and CNPs."},
	{ID: "perftest.bw.ok", Layer: LayerNCCL, Severities: []Severity{Info}, Front: Doctor,
		Text: "it is at least 80%",
		Fix:  ""},
	{ID: "perftest.bw.unjudged", Layer: LayerNCCL, Severities: []Severity{Info}, Front: Doctor,
		Text: "no line rate is known, or no message of 64 KiB or more was run",
		Fix:  "Rerun with -a (all sizes) or -s 1048576 to measure bandwidth at large messages."},
	{ID: "perftest.mtu.small", Layer: LayerNCCL, Severities: []Severity{Warn}, Front: Doctor,
		Text: "a RoCE perftest ran with an MTU below 4096",
		Fix:  "ip link set <if> mtu 9000 on both hosts (and jumbo frames on every switch port in the path)."},
	{ID: "devinfo.mtu.small", Layer: LayerNCCL, Severities: []Severity{Warn}, Front: Doctor,
		Text: "ibv_devinfo shows an active RoCE port with active_mtu below 4096: RoCE from link_layer, else inferred (rxe is Soft-RoCE; an active port with port_lid 0 is Ethernet; NCCL names the device /RoCE)",
		Fix:  "ip link set <if> mtu 9000 on every host (and jumbo frames on the switches)."},
	{ID: "devinfo.mtu.unjudged", Layer: LayerNCCL, Severities: []Severity{Info}, Front: Doctor,
		Text: "an active ibv_devinfo port with active_mtu below 4096 whose link layer nothing tells: no link_layer line (older rdma-core), no LID, no rxe device, no NCCL log or perftest naming it"},
	{ID: "host.mtu.mismatch", Layer: LayerNCCL, Severities: []Severity{Warn}, Front: Doctor,
		Text: "hosts' RoCE ports run at different path MTUs (ibv_devinfo active_mtu per host, NCCL 2.2x's per-QP `mtu N`): NCCL uses the smaller end's, so connections to the host with the smaller MTU run at it",
		Fix:  "Set the same netdev MTU on every host (ip link set <netdev> mtu 9000, and jumbo frames on every switch port), so ibv_devinfo shows active_mtu 4096 (5) everywhere."},
	{ID: "nccl.version.mismatch", Layer: LayerNCCL, Severities: []Severity{Warn}, Front: Doctor,
		Text: "hosts print different NCCL versions (the CUDA build suffix aside)",
		Fix:  "Run one NCCL build everywhere: the same container image or the same libnccl.so on every host (check `ldconfig -p | grep libnccl`, LD_LIBRARY_PATH, and what PyTorch bundles: `python -c 'import torch."},
	{ID: "host.pcie.degraded", Layer: LayerNCCL, Severities: []Severity{Info, Warn, Error}, Front: Doctor,
		Text: "dmesg or lspci -vvv (LnkSta below LnkCap): a NIC's or GPU's PCIe link runs narrower or slower than the device can; error when a NIC's link carries less than its port's line rate; info for a GPU whose speed alone is lower (GPUs slow their link when idle)",
		Fix:  "Move the device to a x<value> slot of its generation or fix the riser/BIOS bifurcation; reseat it."},
	{ID: "host.pcie.acs", Layer: LayerNCCL, Severities: []Severity{Info, Warn}, Front: Doctor,
		Text: "lspci -vvv: PCIe bridges whose ACSCtl redirects peer-to-peer requests or completions (ReqRedir+, CmpltRedir+, EgressCtrl+), sending GPUDirect RDMA between a GPU and its NIC through the root complex; warn on switch ports or bridges lspci does not name, info when only CPU root ports redirect",
		Fix:  "On bare metal, ACS off in the BIOS or `setpci -s <bdf> ECAP_ACS+0x6.w=0000` per bridge; in a VM keep ACS and enable ATS on the NIC."},
	{ID: "host.pcie.unread", Layer: LayerNCCL, Severities: []Severity{Info}, Front: Doctor,
		Text: "lspci output without the link lines of NICs, GPUs or switch ports: run without root ('Capabilities: <access denied>'), with -v only, or cut before LnkSta",
		Fix:  "`sudo lspci -vvv`."},
	{ID: "host.pcie.ok", Layer: LayerNCCL, Severities: []Severity{Info}, Front: Doctor,
		Text: "lspci -vvv: every NIC and GPU at its full PCIe link, and no bridge redirecting peer-to-peer traffic"},
	{ID: "qos.priority.mismatch", Layer: LayerFabric, Severities: []Severity{Error}, Front: Lint,
		Text:   "a NIC puts RoCE on priority a, a switch classifies the same DSCP into class b ≠ a",
		Fix:    "",
		Source: "the switch pauses b, the NIC stops only for a (issue 7's priority-mismatch failure)"},
	{ID: "qos.cnp.not_mapped", Layer: LayerFabric, Severities: []Severity{Warn}, Front: Lint,
		Text:   "CNPs (cnp_dscp, default 48) land in the RoCE class; judged only when a NIC-side input (description, mlxconfig, sysfs, mlnx_qos, NCCL settings) is given: a switch config alone does not say how the NICs mark CNPs",
		Fix:    "Map DSCP <value> to its own class on the switches (SONiC: DSCP_TO_TC_MAP \\\"<value>\\\": \\\"6\\\") with a STRICT scheduler, or set cnp_dscp on the NICs to a DSCP that is.",
		Source: "CNPs must not queue behind the congestion they report"},
	{ID: "qos.cnp.not_strict", Layer: LayerFabric, Severities: []Severity{Warn}, Front: Lint,
		Text:   "CNPs land in a class the switch schedules by weight (judged, like qos.cnp.not_mapped, only with a NIC-side input)",
		Fix:    "Serve class <value> strictly (SONiC: a SCHEDULER of type STRICT on QUEUE <port>|<value>.",
		Source: "mlx5 marks CNPs for a strict class (cnp_802p_prio 6); SONiC/Cumulus RoCE defaults serve it strictly"},
	{ID: "config.qos.absent", Layer: LayerInput, Severities: []Severity{Info}, Front: Lint,
		Text:   "a config_db with none of the tables that set RoCE's class (PORT_QOS_MAP, DSCP_TO_TC_MAP, BUFFER_PG, BUFFER_PROFILE, WRED_PROFILE, QUEUE, PFC_WD), or with WRED or buffer profiles but none of those that put them on ports and queues (PORT_QOS_MAP, DSCP_TO_TC_MAP, BUFFER_PG, QUEUE, PFC_WD)",
		Fix:    "Give the switch's whole CONFIG_DB: `show runningconfiguration all`, or /etc/sonic/config_db.json.",
		Source: "no finding is not a clean bill when PFC, ECN and the buffers were not in the input"},
	{ID: "config.buffers.unmapped", Layer: LayerInput, Severities: []Severity{Info}, Front: Lint,
		Text:   "switch CLI output with lossless buffer profiles (`mmuconfig -l`, `show buffer configuration`: xon and xoff) but not the ports and PGs that use them, so not their speed and cable: the headroom was not checked (a profile named pg_lossless_<speed>_<cable>_profile is judged by its name: switch.headroom.short)",
		Fix:    "Give the switch's CONFIG_DB (`show runningconfiguration all`), whose BUFFER_PG, PORT and CABLE_LENGTH say where each profile is used.",
		Source: "no finding is not a clean bill when the profiles could not be judged"},
	{ID: "nic.cc_prio_mask.missing", Layer: LayerFabric, Severities: []Severity{Error}, Front: Lint,
		Text:   "ROCE_CC_PRIO_MASK (or `roce_rp/enable`) leaves out RoCE's priority",
		Fix:    "mlxconfig -d <dev> set ROCE_CC_PRIO_MASK_P1=<value> (and _P2), then reboot or reset the firmware.",
		Source: "CNPs ignored: DCQCN off for RoCE (mlxconfig `ROCE_CC_PRIO_MASK`, bit p = priority p; NVIDIA DOCA \"DCQCN CC Parameters\")"},
	{ID: "nic.cc_prio_mask.wide", Layer: LayerFabric, Severities: []Severity{Warn}, Front: Lint,
		Text:   "the mask covers other priorities too (255 is the firmware default)",
		Fix:    "mlxconfig -d <value> set ROCE_CC_PRIO_MASK_P1=<value> (and _P2): priority <p> only.",
		Source: "RDMA QPs of other classes are rate-limited too; TCP is not (the seed's 0xFF → 0x8 fix)"},
	{ID: "ecn.kmin.above_pfc", Layer: LayerFabric, Severities: []Severity{Warn, Error}, Front: Lint,
		Text:   "Kmin at or above α/(1+α)·buffer (or the static threshold, `switch.static_th`), where one ingress port reaches XOFF (error: above the whole buffer)",
		Fix:    "Kmin below <value>.",
		Source: "ECN must mark before PFC pauses; the seed's \"50000 cells ≈ 25 MB\""},
	{ID: "ecn.kmax.above_buffer", Layer: LayerFabric, Severities: []Severity{Warn}, Front: Lint,
		Text:   "Kmax above the whole shared buffer",
		Fix:    "Kmax about 2–3×BDP (`rocelab calc ecn`), well inside the buffer.",
		Source: "the ramp never reaches Pmax"},
	{ID: "ecn.pmax.range", Layer: LayerFabric, Severities: []Severity{Error}, Front: Lint,
		Text:   "Pmax 0 (nothing marked between Kmin and Kmax), above 100 %, or Kmin > Kmax",
		Fix:    "Swap them.",
		Source: "published Pmax 1–30 % (DCQCN paper 1 %, SONiC `qos_config.j2` 5 %, HPCC ns-3 `run.py` 20 %, Huawei AI Fabric 10–30 %)"},
	{ID: "ecn.disabled", Layer: LayerFabric, Severities: []Severity{Warn, Error}, Front: Lint,
		Text:   "ECN marks other priorities but not RoCE's; config_db: the WRED profile on RoCE's queue drops instead of marking (ecn absent or ecn_none, the model's default, or a mode without green, with wred_green_enable true: error) or leaves green packets alone (wred_green_enable not true, SAI's default: warn, except on an NVIDIA Spectrum platform, which marks under the ECN mode without it)",
		Fix:    "switch.ecn.priorities: [<value>] (SONiC: wred_profile on QUEUE <port>|<value>).",
		Source: "no CNPs for RoCE; sonic-wred-profile.yang (ecn default ecn_none, wred_green_enable default false), sonic-buildimage#4545 (SAI leaves green packets out of WRED and ECN unless green is enabled), opencomputeproject/SAI#112 (Mellanox: ECN marking without WRED)"},
	{ID: "pfc.headroom.short", Layer: LayerFabric, Severities: []Severity{Info, Warn, Error}, Front: Lint,
		Text:   "headroom (xoff) below the vendor's formula for the port's speed, cable and MTU (package headroom: `buffer_headroom_mellanox.lua`, the function the twin's `headroom: auto`, `calc headroom` and the doctor call); a config_db is judged with the ASIC of its DEVICE_METADATA platform and its LOSSLESS_TRAFFIC_PATTERN, else with SONiC's defaults and no cell overhead (a lower bound, said as assumed). The peer response is IEEE 802.3 31B.3.7's budget, the lua's since sonic-swss #1930 (2021); on a Spectrum platform, an xoff that covers the ASIC's fixed 3.8 KiB peer response (what NVIDIA's static 2018–2020 tables were computed with) is info: it holds with NVIDIA peers",
		Fix:    "switch.pfc.headroom: auto (or at least <value>).",
		Source: "sonic-swss cfgmgr/buffer_headroom_mellanox.lua, tested on every row of NVIDIA's pg_profile_lookup.ini for Spectrum-3 to -6, and with the fixed peer response on Spectrum-1 to -3's static tables (internal/headroom); sonic-swss #1930"},
	{ID: "pfc.xoff.percent", Layer: LayerFabric, Severities: []Severity{Warn}, Front: Lint,
		Text:   "headroom ≥ 4× the formula and ≥ 5 % of the buffer",
		Fix:    "switch.pfc.headroom: auto (<value> here), the bytes in flight after XOFF.",
		Source: "xoff sized as a share of the buffer (the seed's 60–70 %) steals the shared pool"},
	{ID: "pfc.priorities.too_many", Layer: LayerFabric, Severities: []Severity{Warn}, Front: Lint,
		Text:   "more than two lossless priorities whose headroom takes over 25 % of the buffer (config_db: more than two in pfc_enable, one finding per file and set of priorities; SONiC's dual-ToR tunnel remap, 2,3,4,6 with the watchdog on 3,4, is its documented design and not flagged)",
		Fix:    "Keep one lossless class for RoCE (two at most: SONiC's 3 and 4) and run other traffic lossy.",
		Source: "SONiC runs two (3, 4)"},
	{ID: "pfc.watchdog.off", Layer: LayerFabric, Severities: []Severity{Warn}, Front: Lint,
		Text:   "PFC on without a PFC watchdog: a full config_db (DEVICE_METADATA and PORT) whose ports with pfc_enable have no PFC_WD row while DEVICE_METADATA|localhost default_pfcwd_status is not \"enable\" (so `pfcwd start_default` creates none at boot); a description with switch.watchdog off. Rendered fragments (qos.json) say nothing of the watchdog and are not judged",
		Fix:    "",
		Source: "storms and deadlocks freeze the class forever (Guo et al., \"RDMA over Commodity Ethernet at Scale\", SIGCOMM 2016; SONiC pfcwd)"},
	{ID: "pfc.watchdog.range", Layer: LayerFabric, Severities: []Severity{Warn, Error}, Front: Doctor | Lint,
		Text:   "PFC watchdog detection outside 100–5000 ms or restoration outside 100–60000 ms: config_db PFC_WD rows, `show pfcwd config` (error); a description whose watchdog times SONiC would refuse (warn: the twin runs them, `config gen` clamps them into range and says so)",
		Fix:    "detection_time 200, restoration_time 200 (the SONiC defaults).",
		Source: "orchagent pfcwdorch.h; sonic-pfcwd.yang"},
	{ID: "mtu.chain", Layer: LayerFabric, Severities: []Severity{Warn, Error}, Front: Lint,
		Text:   "RoCE MTU above what the netdev MTU allows (warn: NCCL runs the smaller active_mtu); netdev MTU or RoCE packet above the switch port MTU (error: dropped)",
		Fix:    "ip link set <if> mtu 9000 on the hosts (≥ <value> for RoCE MTU <value>), and a switch port MTU that carries it (9100 in SONiC).",
		Source: "RoCE MTU ≤ netdev MTU − 96 (Linux `include/rdma/ib_addr.h` `iboe_get_mtu`)"},
	{ID: "nccl.ib_tc.unset", Layer: LayerNCCL, Severities: []Severity{Warn}, Front: Lint,
		Text:   "an NCCL env file without NCCL_IB_TC",
		Fix:    "export NCCL_IB_TC=106 (DSCP 26 with ECT(0)), or the TOS of the lossless class: DSCP×4 + 2.",
		Source: "NCCL's traffic class defaults to 0 (NCCL `src/transport/net_ib`, v2.30.7)"},
	{ID: "nccl.ib_timeout.short", Layer: LayerNCCL, Severities: []Severity{Warn}, Front: Lint,
		Text:   "the ACK timeout 4.096 µs·2^t is within one maximal PFC pause at the slowest link, or the whole retry budget ends before the watchdog ends a storm",
		Fix:    "NCCL_IB_TIMEOUT=20 or 22 (4.3 s or 17 s per attempt).",
		Source: "IB spec §12.7.34; IEEE 802.1Qbb (a pause quantum is 512 bit times)"},
	{ID: "nccl.ib_timeout.infinite", Layer: LayerNCCL, Severities: []Severity{Warn}, Front: Lint,
		Text:   "NCCL_IB_TIMEOUT=0: the local ACK timeout is infinite, so a packet lost at the tail of a message is never retransmitted and the job hangs instead of failing",
		Fix:    "NCCL_IB_TIMEOUT=20 or 22 (4.3 s or 17 s per attempt).",
		Source: "IB spec §12.7.34; ibv_modify_qp(3)"},
	{ID: "nccl.ib_timeout.range", Layer: LayerNCCL, Severities: []Severity{Error}, Front: Lint,
		Text:   "NCCL_IB_TIMEOUT outside 0–31 or NCCL_IB_RETRY_CNT outside 0–7",
		Fix:    "NCCL_IB_TIMEOUT=22, NCCL_IB_RETRY_CNT=7.",
		Source: "the QP's 5-bit and 3-bit fields"},
	{ID: "config.duplicate_key", Layer: LayerFabric, Severities: []Severity{Warn}, Front: Lint,
		Text:   "a config_db.json gives a key of a table lint reads twice (a QUEUE row once for its scheduler and again for its WRED profile)",
		Fix:    "Merge the repeated rows into one.",
		Source: "SONiC loads config_db.json with Python's json module, which keeps the last value of a repeated key"},
	{ID: "nic.cc_prio_mask.off", Layer: LayerFabric, Severities: []Severity{Info}, Front: Lint,
		Text:   "ROCE_CC_PRIO_MASK (or `roce_rp/enable`) is 0: congestion control is off on every priority, PFC alone handles congestion",
		Source: "a design choice, not a mistake, when the fabric is built for it (Meta runs its 400G clusters so: Gangidi et al., \"RDMA over Ethernet for Distributed AI Training at Meta Scale\", SIGCOMM 2024)"},
}
