package doctor

import (
	"fmt"
	"strings"

	"rocelab/internal/ingest"
)

// What a perftest "Failed status N" says: the verbs work-completion status
// (enum ibv_wc_status, named by wcName), grouped by where the fault lies,
// each group with its cause and fix.

// gpuRun reports that run r put its buffers in GPU memory: a buffer line,
// or --use_cuda / --use_rocm on its command.
func gpuRun(r *ingest.PerftestRun) bool {
	_, cuda := r.Fields["--use_cuda"]
	_, rocm := r.Fields["--use_rocm"]
	return r.GPUBuffer.Line > 0 || cuda || rocm
}

// completionText gives a completion error's title, mechanism and fix by
// the class of its status.
func completionText(r *ingest.PerftestRun, status int, vendor, gid string) (string, string, string) {
	t := "completion with error"
	if status >= 0 {
		t += fmt.Sprintf(" (status %d", status)
		if status < len(wcStatusNames) {
			t += ", " + wcName(status)
		}
		if vendor != "" {
			t += ", vendor syndrome " + vendor
		}
		t += ")"
	}
	const connected = "The QPs connected (they reached RTS), so the addresses and GIDs were good; then a work request failed. "
	pathFix := "Check the path with the same GID index both ways (" + gid + "), ping over the RoCE netdev, PFC on the RoCE priority end to end, and hw_counters out_of_sequence / local_ack_timeout_err on both hosts."
	switch status {
	case wcRetryExcErr: // transport retries ran out
		return t, "Status 12 is IBV_WC_RETRY_EXC_ERR: the requester retransmitted retry_cnt times without an ACK and moved the QP to error (mlx5 vendor syndrome 0x81 is this timeout). " +
				"The QPs connected, so the addresses resolved; packets are lost or not routed back: a lossy fabric (RoCE on a priority without PFC), a GID the network cannot route (link-local across a router), or an MTU larger than the path.",
			pathFix
	case wcRNRRetryExc: // receiver not ready
		return t, connected + "Status 13 is IBV_WC_RNR_RETRY_EXC_ERR: the other end kept answering Receiver Not Ready because it had no receive buffer posted for the SEND, and this end's RNR retries ran out. perftest asks for infinite RNR retries (rnr_retry 7 on its RC, DC and XRC QPs, rnr_retry_count 7 for its own rdma_cm exchange), so this happens only when -R passes a --retry_count below 7 as the RNR retry count, or on a device that does not treat 7 as infinite; the receiver was not running the same send test or posts receives more slowly than this end sends (a software device, a loaded CPU). The fabric delivered the packets.",
			"With -R, pass --retry_count 7 on both ends (7 is infinite); otherwise the device does not honour infinite RNR retries: check its driver and firmware (ethtool -i). In both cases start the server first with the same test and options (-s, -q, -c, --use_cuda/--use_rocm on both ends or neither), then the client."
	case 9, 10, 11, 15, 16: // the responder rejected the request
		return t, connected + "Statuses 9–11 (and 15, 16) say the responder rejected the request: an invalid request (a SEND larger than its posted receive, an operation its QP does not allow), a remote access error (an RDMA read or write outside the memory region it registered, or with access rights it did not grant: mlx5 vendor syndrome 0x88), or a remote operation error. The fabric delivered the packets. Either the two ends disagree: different tests on the two ends (an ib_read_bw server with an ib_write_bw client), different -s / -a / -q, or one end with --use_cuda/--use_rocm and the other without; or, for status 10, the responder's buffer is GPU memory its NIC cannot reach: ACS or the IOMMU redirecting the peer-to-peer traffic, a GPU BAR the host does not map, no peer-memory module (NVIDIA/nccl#214, #1353 show the same error from NCCL's GPUDirect RDMA).",
			"Run the same perftest binary and test with the same options on both ends (compare the two banners), the server first; with -a give -a to both. If the responder uses GPU buffers, rerun it from host memory: if that passes, fix its GPU-NIC path (nvidia-smi topo -m or rocm-smi --showtopo; ACS off, IOMMU passthrough, nvidia-peermem or DMA-BUF)."
	case 1, 2, 4, 8: // this end's own work request was rejected
		local := "Statuses 1, 2, 4 and 8 are this end's NIC rejecting its own work request (the local buffer's length, protection domain or access rights, or the QP's state), not the network."
		gpu := "With the buffers in GPU memory (--use_cuda, --use_rocm) a local protection or access error (4, 8) is the NIC failing to reach the GPU's pages over PCIe: the GPU BAR above what the host bridge or hypervisor maps (MMIO base or size in the BIOS), the IOMMU or ACS redirecting peer-to-peer traffic, or a stale peer-memory mapping."
		gpuFix := "Rerun without --use_cuda/--use_rocm on this end to confirm, then check `nvidia-smi topo -m` (or rocm-smi --showtopo) for the GPU-NIC path, disable ACS on the PCIe switches between them (or set the IOMMU to passthrough), and on a hypervisor raise the MMIO space for the GPU's BAR."
		hostFix := "Check dmesg for the NIC's errors and match driver and firmware (ethtool -i)."
		if status == 1 && strings.HasPrefix(r.Test, "ib_send_") {
			local = "Status 1 (IBV_WC_LOC_LEN_ERR) on an ib_send_* receiver is a SEND longer than the receive buffer it had posted: the two ends were given different -s (or one -a and the other not)."
			hostFix = "Give both ends the same -s (or -a on both), the server first; " + hostFix
		}
		if gpuRun(r) {
			return t, connected + gpu + " " + local, gpuFix + " With host buffers: " + hostFix
		}
		return t, connected + local + " " + gpu, hostFix + " With GPU buffers: " + gpuFix
	case 5: // flushed: the QP was already in error
		return t, connected + "Status 5 is IBV_WC_WR_FLUSH_ERR: the work request was flushed because the QP had already moved to the error state; an earlier completion error on this QP, or the other end's, is the cause.",
			"Find the first completion error (on either end; the server prints its own) and fix that one."
	}
	return t, connected + "The status says why the work request failed.", pathFix
}

// postSendText tells a failed ibv_post_send by its errno.
func postSendText(errno int) (string, string, string) {
	t := "posting a send failed (Couldn't post send"
	if errno >= 0 {
		t += fmt.Sprintf(", err=%d", errno)
	}
	t += ")"
	const tail = " The test loop then aborts (\"Failed to complete run_iter_*\"); no packet was lost on the fabric, so PFC and the GID are not the cause."
	if errno == 12 {
		return t, "ibv_post_send returned ENOMEM (12) before any completion error: the send queue had no room, because the tx depth asked for (-t) exceeds what the device gives a QP (ibv_devinfo -v max_qp_wr) or more sends were outstanding than the queue holds, or the QP had already moved to the error state and the driver refuses new work." + tail,
			"Lower -t below ibv_devinfo -v's max_qp_wr (or leave it at perftest's default) and rerun; if the other end printed a completion error first, fix that one."
	}
	return t, "ibv_post_send refused the work request before any completion error: the send queue was full or the QP in the error state (ENOMEM, 12), or the request was one the QP cannot take (EINVAL, 22: a size above the inline or message limit, too many scatter entries)." + tail,
		"Rerun with perftest's default -t and inline size, with a message size within ibv_devinfo -v's limits; if the other end printed a completion error first, fix that one."
}
