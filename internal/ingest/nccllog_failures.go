package ingest

import (
	"strconv"
	"strings"
)

// The failures an NCCL log records: verbs completions with an error, async
// events, failed queue-pair setup, PyTorch's watchdog timeouts and the
// other WARN lines.

// CompletionError is one "NET/IB : Got completion ... with error" line.
type CompletionError struct {
	Host string
	PID  int // -1 when the prefix does not say
	// Status is the ibv_wc_status (12 retry exceeded, 5 flushed, 4 local
	// protection, 13 RNR retry exceeded).
	Status int
	// Opcode, Len and VendorErr are as printed, -1 when absent.
	Opcode    int
	Len       int64
	VendorErr int
	// Direction is "Send", "Recv" or "".
	Direction string
	// Peer is the peer's socket address as printed ("10.1.2.3<54862>");
	// PeerIP its address part.
	Peer, PeerIP string
	// LocalGID, RemoteGID and HCA are printed by NCCL 2.21 and later.
	LocalGID, RemoteGID, HCA string
	// Where is the source location NCCL printed ("ib_plugin.c:1615").
	Where string
	// Net is the transport that reported it, as printed before "Got
	// completion": "IB", or a plugin's "IBext", "IBext_v8", "IBP"; "" when
	// not printed.
	Net string
	// Result is the ncclResult_t propagated after the WARN, -1 if none.
	Result   int
	Evidence Evidence
}

// AsyncEvent is a verbs async event NCCL's IB transport reported: the
// device's ("NET/IB : mlx5_0:1 Got async event : port error", before 2.2x
// without the device) or a queue pair's ("NET/IB : mlx5_ib0:1 async fatal
// event on QP (0x7f..): local access violation work queue error").
type AsyncEvent struct {
	Host   string
	Device string // "" when the line does not name it
	Port   int    // 0 when not named
	// Event is ibv_event_type_str's text: "port error", "local
	// catastrophic error", "GID table change", ...
	Event string
	// OnQP is set for an event NCCL tied to one queue pair.
	OnQP bool
	// Count counts the lines of this host, device and event.
	Count    int
	Evidence Evidence
}

// Conn identifies the connection (queue pair) an error belongs to, as far
// as the line says: process, peer and GIDs.
func (c CompletionError) Conn() string {
	return c.Host + "|" + strconv.Itoa(c.PID) + "|" + c.Peer + "|" + c.LocalGID + "|" + c.RemoteGID + "|" + c.HCA
}

// SetupError is a failed verbs call while NCCL connects a queue pair.
type SetupError struct {
	Host string
	// Call is "ibv_modify_qp", "ibv_create_qp", ... or
	// "ncclIbRoceGetVersionNum".
	Call string
	// Errno is the error number when printed, else -1; Message the error
	// text ("Connection timed out").
	Errno   int
	Message string
	// Dev, GIDIndex (-1 if absent), LocalGID, RemoteGID, FromState and
	// ToState are printed by NCCL 2.2x.
	Dev                 string
	GIDIndex            int
	LocalGID, RemoteGID string
	FromState, ToState  string
	Result              int
	Evidence            Evidence
}

// Allocates reports whether the failed call creates or registers a verbs
// resource (ibv_reg_mr*, ibv_create_qp, ibv_create_cq, ibv_alloc_pd, ...)
// rather than connecting a queue pair: such calls fail for the host's
// limits and memory, not for GIDs or routes.
func (s SetupError) Allocates() bool {
	for _, p := range []string{"ibv_reg_", "ibv_create_", "ibv_alloc_"} {
		if strings.HasPrefix(s.Call, p) {
			return true
		}
	}
	return false
}

// CollectiveTimeout is one line of PyTorch's ProcessGroupNCCL watchdog:
// "[Rank 0] Watchdog caught collective operation timeout:
// WorkNCCL(SeqNum=1580, OpType=ALLREDUCE, NumelIn=466119168,
// NumelOut=466119168, Timeout(ms)=600000) ran for 600060 milliseconds
// before timing out."
type CollectiveTimeout struct {
	// Rank is the rank that reported it, -1 when the line does not say:
	// its rank in the process group. Global is the job-wide rank PyTorch's
	// own tag before the line names ("[rank13]:"), -1 without one.
	Rank, Global int
	// PG and GUID are the process group's id and job-wide id as the line's
	// prefix prints them (WatchdogProgress), "" when it does not.
	PG, GUID string
	// SeqNum is the collective's sequence number in its process group,
	// -1 when not printed.
	SeqNum int64
	// OpType is the operation as printed: "ALLREDUCE", "_ALLGATHER_BASE".
	OpType string
	// NumelIn and NumelOut are the element counts, -1 when not printed
	// (PyTorch before 2.2).
	NumelIn, NumelOut int64
	// TimeoutMS is the process group's timeout and RanMS how long the
	// collective had run, in milliseconds (-1 when not printed).
	TimeoutMS, RanMS int64
	Evidence         Evidence
}

// Warning is any other NCCL WARN line.
type Warning struct {
	Host string
	// PID is the printing process's id, -1 when the prefix has none.
	PID int
	// TID is the printing thread's id, -1 when the prefix has none.
	TID int
	// Where is the source location NCCL printed ("misc/ibvwrap.cc:63").
	Where   string
	Message string
	Result  int
	// Chain holds the source locations the error was returned through
	// ("bootstrap.cc:256", "init.cc:516"), as the propagation lines after
	// the WARN print them: the first of each source file, up to maxChain
	// files.
	Chain    []string
	Evidence Evidence
	// Raised is the line of the framework that raised the error to the
	// application (PyTorch's "NCCL error in: ..."), Line 0 if none.
	Raised Evidence
	// Reason is the application's own words under the error it raised,
	// PyTorch's C10D_NCCL_CHECK message ("Failed to window register
	// segment with ptr ...", "ncclMemAlloc failed"): the call that failed.
	Reason string
	// More are the raised error's lines after Raised: the line that
	// completed a message wrapped over lines, and the Reason's line.
	More []Evidence
}

// maxChain bounds Warning.Chain.
const maxChain = 4
