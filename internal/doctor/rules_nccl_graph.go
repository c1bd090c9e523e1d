package doctor

// ringLoopClass is NCCL's graph check failing at init: "graph/rings.cc:38
// NCCL WARN Error : ring 0 does not loop back to start (48 != 52)" (NVIDIA/nccl
// #520 on p4d, #577 under Slurm and pyxis, #879 with NCCL_HOSTID set,
// #1020: 2.19's uninitialised PCI link speeds, fixed in 2.20). Every rank
// computes the rings itself from the topology all ranks exchanged, and
// NCCL connects them trusting that all computed the same; following the
// next rank from this one not coming back means they did not.
var ringLoopClass = failureClass{"the ranks computed rings that do not agree (ring does not loop back to start)",
	"Each rank builds the communicator's rings itself, from the topology and settings every rank shared at init, and NCCL connects them trusting that all built the same ones; this rank found that following its ring's next ranks does not come back to it, so the ranks' rings differ. They differ when the ranks do not see the same machine or settings: NCCL_* variables that differ per rank (NCCL_IB_HCA or NCCL_TOPO_FILE set per local rank, which NCCL's maintainers say must not differ, NVIDIA/nccl#1478), NCCL_HOSTID that makes ranks of one node look like several nodes or several nodes like one (#879), GPUs or NICs visible to some ranks only, different NCCL versions, or NCCL before 2.20 reading a PCI link speed sysfs does not give and computing from an uninitialised value (#1020). It is not the network: no connection was tried.",
	"Give every rank the same NCCL environment (unset per-rank NCCL_IB_HCA, NCCL_TOPO_FILE, NCCL_HOSTID; the same CUDA_VISIBLE_DEVICES order on every node) and one NCCL version; use NCCL 2.20 or later. To find the disagreement, rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,GRAPH and compare the 'Channel 00/..' ring lines and 'Trees' of the ranks on different hosts."}
