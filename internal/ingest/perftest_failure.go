package ingest

import "strings"

// The failure lines perftest prints when a run cannot start or dies
// (a QP that will not move to RTR, a failed exchange, a completion
// error with its status and syndrome).

// A FailureKind classifies a perftest failure line.
type FailureKind string

// Failure kinds.
const (
	// FailModifyQP is "Failed to modify QP <n> to RTR" (or RTS/INIT).
	FailModifyQP FailureKind = "modify-qp"
	// FailConnect is "Unable to Connect the HCA's through the link".
	FailConnect FailureKind = "connect"
	// FailCompletion is "Completion with error" and its "Failed status"
	// line, and the test loop's abort after it ("Failed to complete
	// run_iter_bw function successfully", "Error occurred while running
	// infinitely! aborting ...").
	FailCompletion FailureKind = "completion"
	// FailPostSend is ibv_post_send refusing a work request ("Couldn't
	// post send: qp 0 scnt=0 || err=12 tx_depth=128"); Status is its err.
	FailPostSend FailureKind = "post-send"
	// FailAbort is the test loop's abort with no completion error before
	// it in the run: the cause is another line (a failed post) or the
	// other end.
	FailAbort FailureKind = "abort"
	// FailExchange is a failed out-of-band exchange ("Couldn't read remote
	// address", "Unable to read to socket/rdma_cm", "Couldn't connect to",
	// "Failed to exchange data between server and clients").
	FailExchange FailureKind = "exchange"
	// FailPort is "Port number 1 state is Down".
	FailPort FailureKind = "port"
	// FailSetup is a device or resource failure before the test.
	FailSetup FailureKind = "setup"
	// FailGPU is the GPU of --use_cuda, --use_rocm, --use_musa or
	// --use_opencl failing to set up ("Couldn't initialize ROCm device",
	// "hipDeviceGetCount() returned N", "Couldn't init GPU context").
	FailGPU FailureKind = "gpu"
	// FailMR is a memory registration that failed ("Couldn't allocate
	// MR", "Failed to create MR").
	FailMR FailureKind = "mr"
	// FailAH is an address handle that could not be made for a UD, DC or
	// rdma_cm peer ("Failed to create AH", "Unable to create AH from WC").
	FailAH FailureKind = "ah"
	// FailGIDType is "Found Incompatibility issue with GID types": the
	// two ends' GIDs are of different RoCE versions.
	FailGIDType FailureKind = "gid-type"
	// FailCM is rdma_cm failing to resolve or bind the address given
	// ("rdma_resolve_addr failed", "rdma_bind_addr failed", "Unable to
	// perform rdma_client function").
	FailCM FailureKind = "rdma-cm"
)

// A PerftestFailure is one failure line.
type PerftestFailure struct {
	Kind FailureKind
	// Status is the work-completion status of a "Failed status" line (12 =
	// IBV_WC_RETRY_EXC_ERR), or the errno of "Couldn't allocate MR with
	// error=N"; else -1.
	Status int
	Vendor string // the "syndrom" (vendor error) value, e.g. "0x81"
	// Exchanged is set when the run had printed the remote address before
	// this line: the start-up exchange over TCP had worked, so a failed
	// exchange is a later handshake with a peer that had quit.
	Exchanged bool
	Evidence  Evidence
}

// failure recognises perftest's failure lines.
func (p *perftestParser) failure(t string, ev Evidence) bool {
	f := PerftestFailure{Status: -1, Evidence: ev}
	switch {
	case strings.HasPrefix(t, "Failed to modify QP"):
		f.Kind = FailModifyQP
	case strings.HasPrefix(t, "Unable to Connect the HCA's through the link"):
		f.Kind = FailConnect
	case strings.HasPrefix(t, "Completion with error"):
		f.Kind = FailCompletion
		if i := strings.Index(t, "Failed status"); i >= 0 {
			// One line: "Completion with error at client Failed status 12: wr_id 0 syndrom 0x81".
			f.Status, f.Vendor = parseFailedStatus(t[i:])
		}
	case strings.HasPrefix(t, "Failed status"):
		f.Kind = FailCompletion
		f.Status, f.Vendor = parseFailedStatus(t)
	case strings.HasPrefix(t, "Failed to complete run_iter_"), strings.HasPrefix(t, "Error occurred while running infinitely"):
		f.Kind = FailAbort // a completion abort when one was printed before (below)
	case strings.HasPrefix(t, "Couldn't post send:"), strings.HasPrefix(t, "Couldn't post send qp"),
		strings.HasPrefix(t, "Couldn't post send during warm up"):
		// perftest_resources.c's send loops: "Couldn't post send: qp 0 scnt=0 || err=12 tx_depth=128".
		f.Kind = FailPostSend
		if _, e, ok := strings.Cut(t, "err="); ok {
			f.Status = atoiPrefixOr(e, -1)
		}
	case strings.Contains(t, "Couldn't read remote address"), strings.HasPrefix(t, "Unable to read to socket/rd"),
		strings.HasPrefix(t, "Couldn't connect to "), strings.HasPrefix(t, "Unable to open file descriptor for socket connection"),
		strings.HasPrefix(t, "Couldn't send local address"), strings.HasPrefix(t, "Unable to init the socket connection"),
		strings.HasPrefix(t, "Unable to set up socket connection"), strings.HasPrefix(t, "Problem in resolving basic address and port"),
		strings.HasPrefix(t, "Failed to exchange data between server and client"), strings.HasPrefix(t, "Failed to close connection between server and client"),
		strings.Contains(t, " for ai_family: ") && strings.Contains(t, " service: "):
		f.Kind = FailExchange
	case strings.HasPrefix(t, "Couldn't allocate MR"), strings.EqualFold(t, "Failed to create MR"), strings.HasPrefix(t, "Couldn't create null MR"):
		f.Kind = FailMR
		if _, e, ok := strings.Cut(t, "error="); ok {
			f.Status = atoiPrefixOr(e, -1)
		}
	case strings.HasPrefix(t, "Failed to create AH"), strings.HasPrefix(t, "Unable to create AH from WC"),
		strings.HasPrefix(t, "Bad wc status when trying to create AH"):
		f.Kind = FailAH
	case strings.HasPrefix(t, "Found Incompatibility issue with GID types"):
		f.Kind = FailGIDType
	case t == "rdma_resolve_addr failed", t == "rdma_resolve_route failed", t == "rdma_bind_addr failed",
		strings.HasPrefix(t, "Unable to perform rdma_client function"), strings.HasPrefix(t, "Unable to perform rdma_server function"),
		strings.HasPrefix(t, "Unable to create RDMA_CM resources"), strings.HasPrefix(t, "Failed to resolve RDMA CM "),
		strings.HasPrefix(t, "Failed to get RDMA CM address"):
		f.Kind = FailCM
	case strings.HasPrefix(t, "Port number ") && strings.Contains(t, " state is "):
		f.Kind = FailPort
	case t == "Couldn't initialize ROCm device", strings.HasPrefix(t, "Couldn't init GPU context"),
		strings.HasPrefix(t, "There are no available device(s) that support CUDA"), strings.HasPrefix(t, "Requested ROCm device "),
		strings.HasPrefix(t, "hipDeviceGetCount() returned "):
		f.Kind = FailGPU
	case t == "No IB devices found", strings.HasPrefix(t, "Couldn't create IB resources"),
		strings.HasPrefix(t, "Failed to create QP"), strings.HasPrefix(t, "Couldn't get context for"),
		strings.HasPrefix(t, "IB device ") && strings.HasSuffix(t, "not found"):
		f.Kind = FailSetup
	default:
		return false
	}
	r := p.cur()
	if r == nil {
		if r = p.newRun(ev); r == nil {
			return true
		}
		p.applyCommand(r)
	}
	f.Exchanged = r.Remote != nil
	if f.Kind == FailAbort && r.completionFailed() {
		f.Kind = FailCompletion
	}
	if len(r.Failures) < maxPerftestRows {
		r.Failures = append(r.Failures, f)
	}
	return true
}

// parseFailedStatus reads " Failed status 12: wr_id 0 syndrom 0x81" and
// " Failed status-transport retry counter exceeded (12): wr_id 0 syndrom 0x81".
func parseFailedStatus(t string) (int, string) {
	head, tail, _ := strings.Cut(t, ":")
	status := -1
	if i := strings.LastIndex(head, "("); i >= 0 {
		status = atoiPrefixOr(strings.TrimSuffix(head[i+1:], ")"), -1)
	} else {
		status = atoiPrefixOr(strings.TrimSpace(strings.TrimPrefix(head, "Failed status")), -1)
	}
	vendor := ""
	if i := strings.Index(tail, "syndrom"); i >= 0 {
		f := strings.Fields(tail[i:])
		if len(f) >= 2 {
			// A one-line paste runs the next line on: "syndrom 0x88. scnt=1".
			vendor = strings.TrimRight(f[1], ".,")
		}
	}
	return status, vendor
}

// completionFailed reports a completion error already printed in the run.
func (r *PerftestRun) completionFailed() bool {
	for _, f := range r.Failures {
		if f.Kind == FailCompletion {
			return true
		}
	}
	return false
}
