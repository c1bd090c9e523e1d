package doctor

import (
	"fmt"
	"strings"

	"rocelab/internal/ingest"
	"rocelab/internal/unit"
)

// perftestRules lists the perftest rules.
func perftestRules() []Rule {
	return []Rule{
		{IDs: []string{"perftest.connect.failed"}, Check: checkPerftestFailures},
		{IDs: []string{"perftest.bw.low", "perftest.bw.ok", "perftest.bw.unjudged"}, Check: checkPerftestBW},
		{IDs: []string{"perftest.mtu.small", "devinfo.mtu.small", "devinfo.mtu.unjudged"}, Check: checkMTU},
		{IDs: []string{"input.garbled"}, Check: checkPerftestGarbled},
		{IDs: []string{"perftest.rows.none"}, Check: checkPerftestNoRows},
	}
}

// addrEvidence is the line of an address, or none.
func addrEvidence(a *ingest.PerftestAddress) Evidence {
	if a == nil {
		return Evidence{}
	}
	return a.Evidence
}

// checkPerftestNoRows says which runs end before their result table
// without a failure line: the paste was cut, or the test never got to
// measure. "No findings" about such a run would read as a clean result.
func checkPerftestNoRows(inc *Incident) []Finding {
	return perRun(inc, func(pf *ingest.Perftest, r *ingest.PerftestRun) []Finding {
		if len(r.Rows) > 0 || len(r.Failures) > 0 || len(pf.Garbled) > 0 {
			return nil // judged, failed, or its rows reported as garbled
		}
		var ev []Evidence
		for _, e := range []Evidence{r.Start, r.Waiting, addrEvidence(r.Local), addrEvidence(r.Remote), r.Table} {
			if e.Line > 0 {
				ev = append(ev, e)
			}
		}
		what := "bandwidth"
		if r.Latency {
			what = "latency"
		}
		where, hung := "before perftest's table", "hung in its first exchange"
		const fix = "Pass the run's whole output from both ends (`ib_write_bw ... | tee bw.txt`); if the test hangs after the addresses, check the path with the same GID index both ways and PFC on the RoCE priority."
		switch {
		case r.Table.Line > 0:
			// The header follows the connection: the ends are connected and
			// the first size is being measured.
			where, hung = "after the table's header, before its first row", "hung in its first message size, the queue pairs connected"
		case r.Waiting.Line > 0 && r.Local == nil:
			// perftest prints this banner line after rdma_cm has connected
			// the client (write_bw.c: create_rdma_cm_connection, then
			// ctx_print_test_info), so the client had reached the server.
			where = "after the rdma_cm server's banner, before the queue pairs' addresses"
			hung = "hung exchanging the addresses: perftest prints \"Waiting for client rdma_cm QP to connect\" in its banner only once rdma_cm has connected the client, so the client did reach this server"
		}
		return []Finding{perPerftest(Finding{
			ID: "perftest.rows.none", Severity: Info, Layer: LayerInput,
			Title:     r.Name() + ": no result row: the output ends " + where + ", so its " + what + " is not judged",
			Evidence:  evidenceInOrder(ev),
			Mechanism: "perftest prints its banner, then the queue pairs' addresses once the two ends have exchanged them, then the table's header once they are connected, then one row per message size as the test completes. This run shows the start and no row and no error: the output was cut (a paste, a log rotated, a process killed) or the test was still running or " + hung + ".",
			Fix:       fix,
		}, r, "perftest runs without results")}
	})
}

// checkPerftestGarbled reports result rows no rule could judge: a cell
// that is not a non-negative number.
func checkPerftestGarbled(inc *Incident) []Finding {
	return garbledOf(inc, "perftest results", func(a *ingest.Perftest) []ingest.Garble { return a.Garbled },
		"These lines have the shape of a perftest result row (#bytes, #iterations, then one cell per column of the header) but a cell is not a non-negative number: the row was edited in transit, or perftest printed a wrong figure (a negative BW average or t_avg, as perftest 5.60 printed with a dozen instances sharing a host, linux-rdma/perftest#82), so the row was judged by no rule.",
		"Rerun the test pinned to one core (`taskset -c <cpu> ib_write_bw ...`) with perftest's unedited output saved (`ib_write_bw ... | tee bw.txt`), one test per device and core at a time.")
}

// Bandwidth thresholds, as a share of the line rate. A single RC QP of
// ib_write_bw reaches 90–97% of line rate at 64 KiB messages on a healthy
// RoCE link.
const (
	bwLowFraction    = 0.80
	bwBrokenFraction = 0.50
)

// perRun runs check over every perftest run of the incident and collects
// the findings.
func perRun(inc *Incident, check func(pf *ingest.Perftest, r *ingest.PerftestRun) []Finding) []Finding {
	var fs []Finding
	for _, p := range All[*ingest.Perftest](inc) {
		for i := range p.Runs {
			fs = append(fs, check(p, &p.Runs[i])...)
		}
	}
	return fs
}

// perPerftest marks f as one of a set of per-run findings titled group.
func perPerftest(f Finding, r *ingest.PerftestRun, group string, names ...string) Finding {
	return f.per(r.Name(), "run", group, append([]string{r.Device, "<dev>"}, names...)...)
}

// checkPerftestFailures reports perftest runs that could not connect or
// whose completions failed.
func checkPerftestFailures(inc *Incident) []Finding {
	return perRun(inc, func(pf *ingest.Perftest, r *ingest.PerftestRun) []Finding {
		if len(r.Failures) == 0 {
			return nil
		}
		kinds := map[ingest.FailureKind]bool{}
		status := -1
		vendor := ""
		var ev []Evidence
		for _, f := range r.Failures {
			kinds[f.Kind] = true
			if f.Status >= 0 {
				status, vendor = f.Status, f.Vendor
			}
			ev = append(ev, f.Evidence)
		}
		for _, k := range []string{"GID index", "Link type", "Mtu"} {
			if e, ok := r.Fields[k]; ok {
				ev = append(ev, e)
			}
		}
		if kinds[ingest.FailMR] && r.GPUBuffer.Line > 0 {
			ev = append(ev, r.GPUBuffer)
		}
		title, mech, fix := perftestFailureText(r, kinds, status, vendor)
		return []Finding{perPerftest(Finding{
			ID: "perftest.connect.failed", Severity: Error, Layer: LayerRDMA,
			Title: r.Name() + ": " + title, Evidence: evidenceInOrder(ev),
			Mechanism: mech, Fix: fix,
		}, r, "perftest failed: "+title)}
	})
}

func perftestFailureText(r *ingest.PerftestRun, kinds map[ingest.FailureKind]bool, status int, vendor string) (string, string, string) {
	gid := "the RoCEv2 IPv4 GID index from show_gids (usually 3) on both ends, e.g. ib_write_bw -d <dev> -x 3"
	switch {
	case kinds[ingest.FailCompletion]:
		return completionText(r, status, vendor, gid)
	case kinds[ingest.FailPostSend]:
		return postSendText(status)
	case kinds[ingest.FailAbort]:
		return "the test loop aborted with no completion error printed",
			"perftest prints \"Failed to complete run_iter_* function successfully\" or \"Error occurred while running infinitely\" whenever its send and poll loop returns a failure: a work request it could not post, a poll of the completion queue that failed, a completion error, or the run's own timer. No completion error precedes it here, so the cause is another line of this output (perhaps cut off) or the other end.",
			"Capture the whole output of both ends (2>&1) and read the lines just before the abort (Couldn't post send, poll CQ failed, Completion with error) and the other end's output for the same run; fix the first failure."
	case (kinds[ingest.FailModifyQP] || kinds[ingest.FailConnect]) && zeroEnd(r) != "":
		end := zeroEnd(r)
		return "QP could not be connected: the " + end + " end's GID is all zeros (see gid.index.zero)",
			"The cause is the GID the " + end + " end exchanged: all zeros, the mark of an empty slot of the GID table, so ibv_modify_qp to RTR has no address to build the path from. perftest then prints \"Unable to Connect the HCA's through the link\".",
			"Start perftest on the " + end + " host with the -x index of its RoCE v2 IPv4 row (show_gids there; tables differ per host and per pod)."
	case kinds[ingest.FailModifyQP] || kinds[ingest.FailConnect]:
		return "QP could not be connected (modify QP to RTR/RTS failed)",
			"ibv_modify_qp to RTR fails when the remote address cannot be turned into a path: the GID index points at an empty, link-local or other-family entry, the two ends use different RoCE versions, or the MTU asked for exceeds the port's active MTU. perftest then prints \"Unable to Connect the HCA's through the link\".",
			"Use " + gid + "; make both ends use the same RoCE version; do not pass -m above ibv_devinfo's active_mtu."
	case kinds[ingest.FailGIDType]:
		return "the two ends' GIDs are of different types (RoCE v1 and v2)",
			"Each end exchanges the GID at its -x index; perftest refuses to connect when one is a RoCE v1 entry and the other a RoCE v2 one (show_gids' VER column): the default index, or the same -x number, points at rows of different versions on two hosts whose GID tables differ (an IPv6 address or a VLAN more on one of them).",
			"Pass each end the -x index of its own RoCE v2 row for the address it should use (show_gids on each host; the same number need not be the same row), or use -R to let rdma_cm pick it."
	case kinds[ingest.FailAH]:
		return "address handle could not be created for the peer",
			"UD, DC and rdma_cm tests address each message by an address handle built from the peer's GID and the local GID index; creating it fails when that index holds no GID (an empty or deleted row), when the peer's GID is of another family or not routable from that entry, or on InfiniBand with no path to the LID.",
			"Use " + gid + "; check that show_gids lists that index on the device and port, and for rdma_cm that the address given is the peer's RoCE or IPoIB interface address."
	case kinds[ingest.FailCM]:
		return "rdma_cm could not resolve or bind the address",
			"With -R (rdma_cm) perftest resolves the server address to an RDMA device and a path through the kernel's routing table: rdma_resolve_addr or rdma_resolve_route fails when the address is not reachable through an RDMA netdev (an address of a management or TCP-only interface, no route, a link down), and rdma_bind_addr when the local address is taken or belongs to no RDMA device (a previous run's listener still on the port).",
			"Give the server's address on its RoCE or IPoIB interface (ibdev2netdev, rdma link), check `ip route get <addr>` leaves through that interface, and start each server on a free port (-p)."
	case kinds[ingest.FailExchange] && exchangedFirst(r) && (r.Table.Line > 0 || len(r.Rows) > 0):
		return "the other end quit before the end-of-test handshake",
			"The two ends had exchanged their addresses over TCP and started the test (the result table's header comes first), so the socket and the address were good; perftest synchronises the ends again over the same socket between message sizes and when the test ends, and that read failed because the other end had gone: its own failure (a completion error, a crash, a timeout, a Ctrl-C) is the cause, and its output names it.",
			"Read the other end's output for this run (its Completion with error / Failed status line names the cause) and fix that; run both ends with the same test and options."
	case kinds[ingest.FailExchange] && exchangedFirst(r):
		return "the other end quit after the addresses were exchanged",
			"The two ends had exchanged their addresses over TCP (the remote address line comes first, no result table), so the socket and the address were good. Each end then moves its QP to RTR and the two handshake once more over the socket (perftest's write_bw.c and read_bw.c: \"An additional handshake is required after moving qp to RTR\"); that read failed because the other end had quit, most often on its own \"Unable to Connect the HCA's through the link\" (its QP could not move to RTR: a GID index, RoCE version or MTU it cannot use) or another failure its output names.",
			"Read the other end's output for this run and fix the failure it printed (for \"Unable to Connect the HCA's\": " + gid + "; the same RoCE version on both ends; no -m above the active MTU); run both ends with the same test and options."
	case kinds[ingest.FailExchange] && afterConnect(r):
		return "the exchange failed after the TCP connection was made",
			"perftest connects its TCP socket, exchanges the two ends' versions and MTUs over it, and only then prints the local address line; here the local address was printed or the failure is \"Failed to exchange data between server and clients\", which perftest also prints when the version or MTU exchange right after the connection fails (perftest_communication.c exchange_versions, check_mtu). So TCP reached the server: the other end quit (its own failure, a different perftest version or test) or closed the socket.",
			"Read the other end's output for this run and fix the failure it printed; run the same perftest version and test with the same options on both ends, the server first."
	case kinds[ingest.FailExchange]:
		return "out-of-band exchange failed",
			"Before any RDMA, perftest exchanges QP numbers, PSNs and GIDs over a TCP socket (port 18515 unless -p is given); this failed, so the problem is TCP reachability, not RDMA: the server was not listening yet, a firewall, or the wrong address or port.",
			"Start the server first, open TCP 18515 (or pass the same -p on both), and give the client the server's address on a reachable network."
	case kinds[ingest.FailPort]:
		return "port not active",
			"The port is not in ACTIVE state: the link is down (cable, switch port, speed/FEC mismatch) or, on InfiniBand, no subnet manager has configured it.",
			"Check ibv_devinfo state and ip link on the RoCE netdev; bring the link up (and on IB start opensm)."
	}
	if kinds[ingest.FailGPU] {
		return "the GPU for its buffers could not be set up (--use_cuda, --use_rocm, --use_musa, --use_opencl)",
			"perftest opens the GPU given to --use_cuda, --use_rocm, --use_musa or --use_opencl before any RDMA: the index is past the GPUs this process sees (CUDA_VISIBLE_DEVICES or HIP_VISIBLE_DEVICES, a container or Slurm allocation with fewer GPUs), or the GPU driver or runtime is not loaded (\"hipDeviceGetCount() returned N\": the ROCm runtime found no usable GPU).",
			"List the GPUs the process sees (nvidia-smi -L, rocm-smi) in the same container or job step and pass an index among them; check the GPU driver is loaded (nvidia or amdgpu in lsmod)."
	}
	if kinds[ingest.FailMR] && r.GPUBuffer.Line > 0 {
		errno := ""
		if status >= 0 {
			errno = fmt.Sprintf(", errno %d", status)
		}
		return "registering the GPU buffer failed (Couldn't allocate MR" + errno + ")",
			"perftest put its buffers in GPU memory (--use_cuda) and the NIC could not register them: GPUDirect RDMA needs nvidia-peermem loaded, or DMA-BUF (--use_cuda_dmabuf, an open GPU kernel module and a kernel and NIC driver with dma-buf support). Without either, ibv_reg_mr of device memory fails with EFAULT (errno 14); with --use_cuda_dmabuf on a stack without dma-buf it fails with EOPNOTSUPP or EPROTONOSUPPORT (95, 93). NCCL's GPUDirect RDMA fails the same way and falls back to host staging.",
			"Load nvidia-peermem (`modprobe nvidia-peermem`; lsmod shows it) or, with the open GPU kernel module, pass --use_cuda_dmabuf; then rerun and check NCCL's log for /GDRDMA."
	}
	if kinds[ingest.FailMR] && status == 12 {
		return "memory registration failed (Couldn't allocate MR, errno 12): the locked-memory limit",
			"ibv_reg_mr pins the buffer's host pages, and the pinned total counts against the process's locked-memory limit (RLIMIT_MEMLOCK): ENOMEM (errno 12) is that limit below perftest's buffers (ulimit -l, a container's default 64 KiB, a systemd unit's LimitMEMLOCK).",
			"Raise the locked-memory limit (`ulimit -l unlimited`, LimitMEMLOCK=infinity, or the container's memlock ulimit) where perftest runs, or use a smaller -s or fewer -q."
	}
	if kinds[ingest.FailMR] {
		return "memory registration failed (Couldn't allocate MR)",
			"perftest registers its buffers with the device (ibv_reg_mr) before any exchange; that fails when the locked-memory limit is below the buffers (ulimit -l, a container's default 64 KiB, a systemd unit's LimitMEMLOCK), when the device cannot register that memory (GPU memory with --use_cuda needs nvidia-peermem or DMA-BUF), or on a software device (siw, rxe) short of memory.",
			"Raise the locked-memory limit (`ulimit -l unlimited`, LimitMEMLOCK=infinity, or the container's memlock ulimit), use a smaller -s or fewer -q, and for GPU buffers load nvidia-peermem or pass --use_cuda_dmabuf."
	}
	return "RDMA device or resources unavailable",
		"perftest could not open the device or create its queues: the RDMA driver is not loaded (mlx5_ib), the -d name is wrong, or the memory-lock limit is too low.",
		"ibv_devices to list devices, modprobe mlx5_ib, pass an existing -d, and ulimit -l unlimited."
}

// afterConnect reports that the run's TCP connection was made before its
// exchange failed: the local address line was printed (perftest prints it
// after the first exchange), or perftest said the data exchange failed.
func afterConnect(r *ingest.PerftestRun) bool {
	if r.Local != nil {
		return true
	}
	for _, f := range r.Failures {
		if f.Kind == ingest.FailExchange && strings.Contains(f.Evidence.Text, "Failed to exchange data between server and client") {
			return true
		}
	}
	return false
}

// exchangedFirst reports that every failure of the run is an exchange
// failure printed after the remote address: the end-of-test handshake.
func exchangedFirst(r *ingest.PerftestRun) bool {
	for _, f := range r.Failures {
		if f.Kind != ingest.FailExchange || !f.Exchanged {
			return false
		}
	}
	return len(r.Failures) > 0
}

// zeroEnd names the end of a run ("local", "remote") that exchanged the
// all-zero GID, or "".
func zeroEnd(r *ingest.PerftestRun) string {
	for _, e := range []struct {
		name string
		a    *ingest.PerftestAddress
	}{{"local", r.Local}, {"remote", r.Remote}} {
		if e.a != nil && e.a.GID != "" {
			if c, _ := ingest.ClassifyGID(e.a.GID); c == ingest.GIDZero {
				return e.name
			}
		}
	}
	return ""
}

// checkPerftestBW compares perftest bandwidth with the NIC line rate.
func checkPerftestBW(inc *Incident) []Finding {
	return perRun(inc, func(pf *ingest.Perftest, r *ingest.PerftestRun) []Finding {
		if r.Latency || len(r.Rows) == 0 {
			return nil
		}
		best, ok := r.BestBW()
		if !ok {
			var bestAny ingest.PerftestRow
			for _, row := range r.Rows {
				if row.BWAvg > bestAny.BWAvg {
					bestAny = row
				}
			}
			if bestAny.BWAvg == 0 || len(r.Failures) > 0 {
				return nil
			}
			return []Finding{perPerftest(Finding{
				ID: "perftest.bw.unjudged", Severity: Info, Layer: LayerNCCL,
				Title: fmt.Sprintf("%s: best %s at %s (%.2f Mpps); no message of 64 KiB or more, so bandwidth is not judged against the link",
					r.Name(), rateText(bestAny.BWAvg), unit.Bytes(bestAny.Bytes).Human(), bestAny.MsgRateMpps),
				Evidence:  []Evidence{bestAny.Evidence},
				Mechanism: "Below about 64 KiB a single QP is bound by message rate (per-message work-request, doorbell and completion cost), not by the link, so these rows say nothing about the bandwidth the path sustains.",
				Fix:       "Rerun with -a (all sizes) or -s 1048576 to measure bandwidth at large messages.",
			}, r, "perftest without large messages")}
		}
		rate, rateEv, known := nicPortRate(inc, pf.Scope(), r.Host, r.Device)
		if r.PeakRate > 0 && inc.Options.NICSpeed == 0 {
			rate, rateEv, known = r.PeakRate, r.PeakRateEvidence, true
		}
		if !known {
			return []Finding{perPerftest(Finding{
				ID: "perftest.bw.unjudged", Severity: Info, Layer: LayerNCCL,
				Title:     fmt.Sprintf("%s: best %s; the NIC line rate is not known, so it is not judged", r.Name(), rateText(best.BWAvg)),
				Evidence:  []Evidence{best.Evidence},
				Mechanism: "No input states the port speed (ibv_devinfo -v active_speed×active_width, ethtool <if> Speed, a dmesg link-up line), and perftest bandwidth means little without it.",
				Fix:       "Pass --nic-speed (e.g. --nic-speed 100G) or add ibv_devinfo -v output.",
			}, r, "perftest bandwidth not judged")}
		}
		frac := float64(r.PerDirection(best.BWAvg)) / float64(rate)
		ev := evidenceInOrder([]Evidence{best.Evidence, rateEv})
		if frac >= bwLowFraction {
			return []Finding{perPerftest(Finding{
				ID: "perftest.bw.ok", Severity: Info, Layer: LayerNCCL,
				Title:     fmt.Sprintf("%s: best %s%s = %.0f%% of the %s link rate: the RDMA path itself is healthy", r.Name(), rateText(best.BWAvg), eachWay(r, best.BWAvg), 100*frac, rateText(rate)),
				Evidence:  ev,
				Mechanism: "A single QP near line rate rules out the NIC, PCIe, MTU and the path between the two hosts; if the job is still slow, look at the collective (NCCL transport, GPUDirect RDMA, channels) and at congestion that only many flows create.",
			}, r, "perftest near line rate")}
		}
		sev := Warn
		if frac < bwBrokenFraction {
			sev = Error
		}
		size := "(message size not given)"
		if best.Bytes > 0 {
			size = fmt.Sprintf("at %s messages", unit.Bytes(best.Bytes).Human())
		}
		dir := "unidirectional"
		if r.Bidirectional {
			dir = "bidirectional (both directions counted)"
		}
		mech := fmt.Sprintf("A single RC QP of ib_write_bw reaches 90–97%% of line rate at ≥64 KiB messages on a healthy RoCE link; this %s run reached %.0f%% of it. ", dir, 100*frac) +
			"Far less points below the application: PCIe width or generation, the NIC on a different NUMA node than the buffers, MTU 1024, a lossy fabric forcing go-back-N retransmission, or PFC pauses from a slow receiver."
		if strings.Contains(r.Test, "read") {
			mech += " ib_read_bw is also bounded by outstanding reads per QP (Outstand reads, max_qp_rd_atom)."
		}
		if r.GPUBuffer.Line > 0 {
			mech += " Its buffers are GPU memory (--use_cuda, --use_rocm), so the NIC moves every byte to or from the GPU over PCIe peer-to-peer: a GPU and NIC under different root ports or sockets, ACS redirecting their traffic through the root complex, an IOMMU in translation mode, or a GPU BAR not mapped large caps the run below what host memory reaches."
			ev = evidenceInOrder(append(ev, r.GPUBuffer))
		}
		if r.Summary {
			mech += " These numbers come from an author-made summary table; MB/s is read as perftest's MB/sec (2^20 bytes/s)."
		}
		return []Finding{perPerftest(Finding{
			ID: "perftest.bw.low", Severity: sev, Layer: LayerNCCL,
			Title:    fmt.Sprintf("%s: best %s %s%s = %.0f%% of the %s link rate", r.Name(), rateText(best.BWAvg), size, eachWay(r, best.BWAvg), 100*frac, rateText(rate)),
			Evidence: ev, Mechanism: mech,
			Fix: bwLowFix(r),
		}, r, "perftest bandwidth below line rate")}
	})
}

// bwLowFix is perftest.bw.low's fix; a run from GPU memory first compares
// against host memory.
func bwLowFix(r *ingest.PerftestRun) string {
	fix := "Check dmesg for the NIC's PCIe line (x16 at the card's generation), run perftest on the NIC's NUMA node (numactl -N <node> -m <node>), with --report_gbits -q 4 to rule out a single-QP limit, and read hw_counters before/after for out_of_sequence and CNPs; MTU must be 4096 on RoCE."
	if r.GPUBuffer.Line > 0 {
		fix = "Rerun the same test without --use_cuda/--use_rocm: if host memory reaches line rate, the GPU-NIC path is the limit (nvidia-smi topo -m or rocm-smi --showtopo: the pair should share a PCIe switch; disable ACS there, IOMMU passthrough, large BAR on). " + fix
	}
	return fix
}

// rateText formats a rate as "397.0 Gb/s".
func rateText(r unit.BitRate) string { return fmt.Sprintf("%.1f Gb/s", r.Gbps()) }

// eachWay says, for a bidirectional run (whose bandwidth adds both
// directions), what one direction carried: the figure judged against the
// link rate.
func eachWay(r *ingest.PerftestRun, bw unit.BitRate) string {
	if r.Bidirectional {
		return fmt.Sprintf(" (bidirectional: %s each way)", rateText(r.PerDirection(bw)))
	}
	return ""
}

// netdevOf returns the netdev show_gids maps an RDMA device to.
func netdevOf(inc *Incident, at ingest.Scope, dev string) string {
	far := ""
	// see weighs one mapping of dev to a netdev; it reports a mapping of
	// the same host, which settles it.
	see := func(sc ingest.Scope, netdev string) bool {
		r := reachOf(at, sc)
		if r == otherHost || netdev == "" {
			return false
		}
		if r != unknownHost {
			far = netdev
			return true
		}
		if far != "" && far != netdev {
			far = "\x00" // tables of unknown hosts disagree
		} else if far == "" {
			far = netdev
		}
		return false
	}
	for _, g := range All[*ingest.ShowGIDs](inc) {
		for _, e := range g.Entries {
			if e.Device == dev && see(g.Scope(), e.Netdev) {
				return far
			}
		}
	}
	// `rdma link` and ibdev2netdev name the netdev too.
	for _, d := range All[*ingest.Devinfo](inc) {
		for _, x := range d.Devices {
			for _, pt := range x.Ports {
				if x.Name == dev && see(d.Scope(), pt.Netdev) {
					return far
				}
			}
		}
	}
	if far == "\x00" {
		return ""
	}
	return far
}

const mtuMechanism = "RoCE's path MTU is the largest IB MTU (256–4096) that fits in the netdev MTU minus 96 bytes of headers: Ethernet MTU 1500 gives 1024, 9000 gives 4096. " +
	"At 1024 every large transfer needs four times the packets, with their headers, ACKs and per-packet processing, and NCCL uses the smaller active_mtu of the two ends."

// checkMTU reports RoCE ports and runs at an IB MTU below 4096.
func checkMTU(inc *Incident) []Finding {
	fs := perRun(inc, func(pf *ingest.Perftest, r *ingest.PerftestRun) []Finding {
		if !r.RoCE() || r.MTU <= 0 || r.MTU >= 4096 {
			return nil
		}
		nd := nameOr(netdevOf(inc, pf.Scope(), r.Device), "<netdev>")
		forced := ""
		if r.LinkType != "Ethernet" {
			forced = fmt.Sprintf("; %s is rdma-core's name for a RoCE device, which perftest printed as Link type %s", r.Device, r.LinkType)
			if r.ForcedLink != "" {
				forced += " because of --force-link " + r.ForcedLink
			}
		}
		return []Finding{perPerftest(Finding{
			ID: "perftest.mtu.small", Severity: Warn, Layer: LayerNCCL,
			Title:     fmt.Sprintf("%s: RoCE MTU %d (netdev MTU below 4192, e.g. 1500)%s", r.Name(), r.MTU, forced),
			Evidence:  evidenceInOrder([]Evidence{r.Fields["--force-link"], r.Fields["Mtu"], r.Fields["Link type"]}),
			Mechanism: mtuMechanism,
			Fix:       fmt.Sprintf("ip link set %s mtu 9000 on both hosts (and jumbo frames on every switch port in the path); ibv_devinfo must then show active_mtu: 4096 (5).", nd),
		}, r, "RoCE MTU below 4096", nd, "<netdev>")}
	})
	for _, d := range All[*ingest.Devinfo](inc) {
		for _, dev := range d.Devices {
			for _, pt := range dev.Ports {
				if pt.ActiveMTU <= 0 || pt.ActiveMTU >= 4096 || !strings.HasPrefix(pt.State, "PORT_ACTIVE") {
					continue
				}
				roce, how := portIsRoCE(inc, d, dev, pt)
				if how == "" {
					fs = append(fs, Finding{
						ID: "devinfo.mtu.unjudged", Severity: Info, Layer: LayerNCCL,
						Title:     fmt.Sprintf("%s port %d: active_mtu %d not judged: the output shows no link_layer and nothing tells RoCE from InfiniBand", nameOr(dev.Name, unnamedDevice), pt.Port, pt.ActiveMTU),
						Evidence:  evidenceInOrder([]Evidence{pt.Evidence["active_mtu"]}),
						Mechanism: "An active_mtu below 4096 costs RoCE throughput when the netdev MTU is below 4192, but on InfiniBand the MTU is the subnet manager's choice. This ibv_devinfo prints no link_layer (older rdma-core), the port shows no LID, and no NCCL log or perftest in the incident names the link layer of this device.",
						Fix:       "Run `ibv_devinfo -d " + dev.Name + "` with a current rdma-core, or `cat /sys/class/infiniband/" + dev.Name + "/ports/" + fmt.Sprint(pt.Port) + "/link_layer`.",
					}.per(gidWhere(dev.Host, dev.Name)+fmt.Sprintf(" port %d", pt.Port), "port", "active_mtu not judged", dev.Name, "<dev>"))
					continue
				}
				if !roce {
					continue
				}
				nd := nameOr(netdevOf(inc, d.Scope(), dev.Name), "<netdev>")
				linkEv, inferred := pt.Evidence["link_layer"], ""
				if linkEv.File == "" {
					linkEv, inferred = dev.Evidence, " ("+how+")"
				}
				fs = append(fs, Finding{
					ID: "devinfo.mtu.small", Severity: Warn, Layer: LayerNCCL,
					Title:     fmt.Sprintf("%s port %d: RoCE active_mtu %d (max_mtu %d): the netdev MTU is below 4192%s", nameOr(dev.Name, unnamedDevice), pt.Port, pt.ActiveMTU, pt.MaxMTU, inferred),
					Evidence:  evidenceInOrder([]Evidence{pt.Evidence["active_mtu"], linkEv}),
					Mechanism: mtuMechanism,
					Fix:       fmt.Sprintf("ip link set %s mtu 9000 on every host (and jumbo frames on the switches).", nd),
				}.per(gidWhere(dev.Host, dev.Name)+fmt.Sprintf(" port %d", pt.Port), "port", "RoCE active_mtu below 4096", dev.Name, "<dev>", nd, "<netdev>"))
			}
		}
	}
	return fs
}

// portIsRoCE says whether an ibv_devinfo port runs RoCE, and how that is
// known: its link_layer; else inferred from an rxe (Soft-RoCE) device, an
// active port without a LID (InfiniBand ports get one from the subnet
// manager), or an NCCL log or perftest that may belong to the same host
// naming the device's link layer. how is "" when nothing tells.
func portIsRoCE(inc *Incident, d *ingest.Devinfo, dev ingest.DevinfoDevice, pt ingest.DevinfoPort) (bool, string) {
	switch {
	case pt.LinkLayer != "":
		return pt.LinkLayer == "Ethernet", "link_layer " + pt.LinkLayer
	case softRoCE(dev.Name):
		return true, "link layer inferred: rxe is Soft-RoCE, which runs over an Ethernet netdev"
	case pt.LID == 0:
		return true, "link layer inferred: an active port with port_lid 0 is Ethernet (an InfiniBand port gets a LID from the subnet manager)"
	case pt.LID > 0:
		return false, "port_lid set: InfiniBand"
	}
	for _, l := range All[*ingest.NCCLLog](inc) {
		if reachOf(d.Scope(), l.Scope()) == otherHost {
			continue
		}
		for _, nd := range l.IBDevices {
			if nd.Name == dev.Name {
				return nd.LinkLayer == "RoCE", "link layer from NCCL (" + nd.Name + "/" + nd.LinkLayer + ")"
			}
		}
	}
	return false, ""
}
