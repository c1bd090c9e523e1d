package doctor

import (
	"rocelab/internal/ingest"
)

// intraNodeOff says how NCCL settings in effect move the traffic between
// the GPUs of one node of a multi-node run off NVLink or PCIe peer access:
// NCCL_P2P_DISABLE=1 sends it through host shared memory, and with
// NCCL_SHM_DISABLE=1 as well through the network transport, over the
// node's own NICs. A ring then crosses a NIC at every hop, not only where
// it leaves the node, so the plateau measures the NICs' loopback and host
// memory, not the fabric between the nodes. text explains it, fix says
// what to do; both "" when neither is in effect.
func intraNodeOff(inc *Incident) (text, fix string, ev []Evidence) {
	p2p, ok := settingInEffect(inc, "NCCL_P2P_DISABLE")
	if !ok || !ingest.IntNonZero(p2p.Value) {
		return "", "", nil
	}
	ev = append(ev, p2p.Evidence)
	if shm, ok := settingInEffect(inc, "NCCL_SHM_DISABLE"); ok && ingest.IntNonZero(shm.Value) {
		ev = append(ev, shm.Evidence)
		return "NCCL_P2P_DISABLE=1 and NCCL_SHM_DISABLE=1 are set: the GPUs of one node reach each other through NCCL's network transport, over the node's NICs, so every hop of a ring is a network hop and each NIC also carries the traffic that NVLink or PCIe would; the plateau measures that, not the fabric between the nodes",
			"Rerun without NCCL_P2P_DISABLE=1 and NCCL_SHM_DISABLE=1, so that the node's own GPU traffic stays on NVLink or PCIe, before judging the fabric. " + p2pHangCheck, ev
	}
	return "NCCL_P2P_DISABLE=1 is set: the GPUs of one node exchange data through host shared memory, two copies over PCIe and host memory per hop, which can hold the plateau below what the NICs carry",
		"Rerun without NCCL_P2P_DISABLE=1, so that the node's own GPU traffic stays on NVLink or PCIe, before judging the fabric. " + p2pHangCheck, ev
}

// p2pHangCheck is what to check before turning PCIe peer access back on:
// NCCL_P2P_DISABLE=1 is often the workaround for a test that hung.
const p2pHangCheck = "NCCL_P2P_DISABLE=1 is often set because PCIe peer-to-peer hung or corrupted data: check that first, or the rerun hangs. ACS must be off on the PCIe switches and root ports between the GPUs (`lspci -vvv | grep ACSCtl` shows SrcValid- on each) and the IOMMU in passthrough (`iommu=pt` on the kernel command line, or off), and CUDA's p2pBandwidthLatencyTest should pass between every GPU pair."
