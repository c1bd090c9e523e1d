package doctor

import (
	"path"
	"strings"

	"rocelab/internal/ingest"
)

// The SHARP CollNet plugin (nccl-rdma-sharp-plugins, shipped in HPC-X as
// libnccl-net.so beside its IB plugin): NCCL's CollNet algorithms hand the
// reduction to the IB switches through it. Its WARNs name its own source
// file ("sharp_plugin.c:302 NCCL WARN SHARP group create: Streaming Tree
// lock failed (-18)", Mellanox/nccl-rdma-sharp-plugins#151).

// sharpWarn reports whether a WARN is the SHARP plugin's: its source file
// is the plugin's, or its message names a SHARP call.
func sharpWarn(w ingest.Warning) bool {
	if strings.HasPrefix(strings.ToLower(path.Base(w.Where)), "sharp") {
		return true
	}
	m := strings.ToLower(w.Message)
	return strings.HasPrefix(m, "sharp ") || strings.Contains(m, "sharp_coll")
}

// sharpClass is a SHARP plugin WARN's failure: a streaming aggregation
// tree it could not lock, or any other SHARP call.
func sharpClass(w ingest.Warning) failureClass {
	msg := strings.TrimSpace(w.Message)
	where := path.Base(w.Where)
	if where == "." {
		where = "SHARP"
	}
	why := "NCCL's CollNet algorithms (CollNetDirect, CollNetChain) reduce in the InfiniBand switches through the SHARP plugin: for each communicator the plugin asks the SHARP Aggregation Manager (sharp_am, beside the subnet manager) for aggregation trees and creates a SHARP group on them. When that fails the communicator gets no in-network reduction: its collectives run NCCL's ring and tree over the network instead, or fail where CollNet was forced (NCCL_ALGO=CollNet). The fabric's data path is not at fault."
	fix := "Read the SHARP library's own lines beside the WARN (SHARP_COLL_LOG_LEVEL=3) for the call that failed; check that sharp_am runs on the subnet manager's host and that `sharp_hello` passes between the nodes. If CollNet is not wanted, NCCL_COLLNET_ENABLE=0 keeps NCCL from trying it."
	if strings.Contains(strings.ToLower(msg), "lock failed") {
		why += " Here the streaming aggregation tree (SAT, used for large messages) could not be locked: SAT trees serve one job at a time, so another job holds it, or the Aggregation Manager's quota gives this job none."
		fix = "Run one SHARP streaming job at a time on the trees, or leave streaming aggregation off (SHARP_COLL_ENABLE_SAT=0) so that SHARP uses its low-latency trees only; the SHARP library's lines beside the WARN (\"Failed to lock SAT tree\") name the tree. If CollNet is not wanted, NCCL_COLLNET_ENABLE=0 keeps NCCL from trying it."
	}
	return failureClass{"the SHARP CollNet plugin failed (" + where + "): " + msg, why, fix}
}
