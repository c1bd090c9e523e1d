package doctor

import (
	"path"
	"strings"

	"rocelab/internal/ingest"
)

// The WARNs of ranks out of step: a receive that got more data than it
// posted ("NET/Socket : message truncated : receiving 696320 bytes instead
// of 32768", "NET/IB : req 0/1 tag 0 peer ... collective mismatch error,
// local size 496640 remote size 65536"), NCCL 2.4's own check
// ("Mismatched collective detected, please check your collective calls"),
// and a bootstrap message of another size than expected ("Message
// truncated : received 256 bytes instead of 4", bootstrap.cc). The bytes
// arrived: these are never the network's fault.

// mismatchClass classifies such a WARN; ok is false for any other. m is
// the lower-cased message.
func mismatchClass(w ingest.Warning, m string) (failureClass, bool) {
	if !strings.Contains(m, "message truncated") && !strings.Contains(m, "collective mismatch") && !strings.Contains(m, "mismatched collective") {
		return failureClass{}, false
	}
	text := strings.TrimSpace(w.Message)
	if bootstrapped(w) {
		return failureClass{"two ranks' bootstrap messages crossed: this rank received a message of another size than it expected (" + text + ")",
			"Once the ranks are connected, NCCL exchanges its setup data (each rank's information, the handles of every channel's connections) over the bootstrap sockets, each message read with the size the receiver expects next. One of another size means the two ranks were not at the same step of setup: ranks that load different NCCL versions, communicators set up concurrently and in a different order on different ranks (framework sub-groups, point-to-point connections made on first use), or a defect of the NCCL release: NCCL 2.19 and 2.20 failed so, intermittently, at init where 2.18 passed (NVIDIA/nccl#1176, #1273). The sockets delivered the data: it is not a network fault.",
			"Check that every rank loads the same NCCL (the 'NCCL version' line of each rank's log; PyTorch wheels bundle their own libnccl), and that every rank creates its communicators and sub-groups in the same order; if it happens intermittently at init with NCCL 2.19 or 2.20, run another release (the reporter of NVIDIA/nccl#1176 went back to 2.18.6)."}, true
	}
	return failureClass{"the ranks did not make the same NCCL calls (" + text + ")",
		"NCCL sizes every transfer between two ranks from the collective both of them called: the receiver posts buffers for the count, datatype, algorithm and protocol it computed, the sender sends what it computed. A receive that gets more than it posted, or NCCL's own check of the calls, means the two ranks did not make the same call: a collective of another size, datatype or order on some rank (a rank-dependent branch, an uneven last batch, tensors of different shapes), or the same call run with another protocol or buffer size because NCCL's settings or versions differ between ranks (NCCL_PROTO, NCCL_ALGO, NCCL_BUFFSIZE set on some ranks only). NCCL's maintainers name these two causes (NVIDIA/nccl#626, #605). The bytes arrived: it is not a network fault.",
		"Compare the ranks' calls: NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=COLL logs every collective with its opCount, count and datatype (PyTorch: TORCH_DISTRIBUTED_DEBUG=DETAIL checks each collective's shape across ranks). Make the NCCL_* settings and the NCCL version the same on every rank; if NCCL_PROTO=Simple makes the error go away, the settings differ, otherwise the program's calls do."}, true
}

// bootstrapped reports whether a WARN was printed by, or returned
// through, NCCL's bootstrap.
func bootstrapped(w ingest.Warning) bool {
	for _, c := range append([]string{w.Where}, w.Chain...) {
		if strings.HasPrefix(path.Base(c), "bootstrap.") {
			return true
		}
	}
	return false
}
