package doctor

import "strings"

// reversePathClass is NCCL's (and RCCL's) path computation failing on a
// one-way link (graph/paths.cc, "Failed to find reverse path from remNode
// 0/41000 nlinks 2 to node 0/61000"): the topology NCCL built holds a link
// from one node to another without the link back. The topology comes from
// sysfs and the driver's NVLink/XGMI peer queries, so the asymmetry is
// theirs: NVIDIA/nccl#1253 and #1257 (driver 535.161.08 under vLLM), and
// ROCm/rccl#1728 (an Azure MI300X VM, whose VMBus PCI tree NCCL could not
// read whole).
func reversePathClass(m string) (failureClass, bool) {
	if !strings.HasPrefix(m, "failed to find reverse path from remnode ") {
		return failureClass{}, false
	}
	return failureClass{"NCCL's topology holds a link without its way back (Failed to find reverse path): the GPU, NVLink/XGMI or PCI tree the driver and sysfs describe is inconsistent",
		"NCCL builds the node's topology from sysfs (the PCI tree, each device's link width and speed) and the GPU driver's peer queries (NVLink or XGMI links between GPUs, NVSwitches), then computes the paths between every pair of nodes both ways; a link found from one end and not from the other stops init with an internal error before any network is used. It happens when the driver reports links one-sidedly (an NVLink down or disabled on one GPU, a driver release that misreports them, as 535.161.08 did under vLLM), when a VM or container shows only part of the PCI tree (Hyper-V's VMBus devices, whose sysfs lacks attributes NCCL reads: 'Topology detection : could not read ...'), or when an NCCL_TOPO_FILE describes another machine.",
		"Compare what the GPUs report: `nvidia-smi topo -m` and `nvidia-smi nvlink -s` (AMD: `rocm-smi --showtopo`) should be symmetric, with every link up. Update the GPU driver (and Fabric Manager) to a release without the fault, or reset the GPU whose links are down; in a VM, give NCCL the topology file its provider publishes for the instance type (NCCL_TOPO_FILE); to confirm the path is the cause, NCCL_P2P_DISABLE=1 lets init skip GPU-to-GPU links."}, true
}
