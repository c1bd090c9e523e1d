package doctor

import (
	"net/netip"
	"strings"
)

// Failures as an application saw them: PyTorch's "NCCL error in: ...,
// unhandled system error, NCCL version X" with NCCL's last error, or
// without it (NCCL before 2.13, or a paste that stops there); and the
// socket errors that last error most often holds.

// raisedResults say, per ncclResult_t, what an error raised without
// NCCL's last error usually is.
var raisedResults = map[int]string{
	1: "a CUDA call inside NCCL failed (a GPU fault, an out-of-memory, or a kernel launch the GPU refuses)",
	2: "a system call or external library inside NCCL failed: most often a socket of the bootstrap or of the proxy (an interface the peers cannot reach, a firewall), else memory registration or the verbs library",
	3: "NCCL failed in its own setup: often a topology or net plugin it cannot handle",
	4: "an NCCL call was given an invalid argument (a buffer, count or datatype the application passed)",
	5: "NCCL was used wrongly: most often two ranks on one GPU, or ranks calling different collectives or counts",
	6: "a peer process exited or the network to it failed; this rank only saw its connection end",
}

// raisedClass is the class of a PyTorch NCCL error with no last error
// text; where is the PyTorch file that raised it, reason PyTorch's own
// message under it (ingest.Warning.Reason). A window registration is told
// by its message (NCCLSymmetricMemory.cu and ProcessGroupNCCL's segment
// registration print the same one); the symmetric-memory file alone names
// the backend, not the call, which may be ncclMemAlloc, ncclSignal or
// ncclWaitSignal as well. A remote error is the peer's failure wherever
// it was raised.
func raisedClass(result int, where, reason string) failureClass {
	what, ok := raisedResults[result]
	if !ok {
		what = "NCCL returned an error"
	}
	symm := strings.HasPrefix(where, "NCCLSymmetricMemory.")
	switch {
	case result == 6:
	case strings.HasPrefix(reason, "Failed to window register segment"):
		return symmRegisterClass(what)
	case symm:
		return symmBackendClass(what, reason)
	}
	return failureClass{"PyTorch raised an NCCL error without NCCL's own reason: " + what,
		"PyTorch's ProcessGroupNCCL raises DistBackendError (RuntimeError before 2.1) with ncclResult_t's name when an NCCL call returns an error; NCCL from 2.13 adds its last WARN under 'Last error:', and older NCCL or a paste cut there gives only the result, which names a class of failure, not its cause.",
		"Rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET (on every rank) and give the log: the first NCCL WARN on any rank names the call that failed; for a remote error, the first failing rank is another one."}
}

// peerGoneClass is a socket NCCL found closed by its peer ("Connection
// reset by peer", "Connection closed by remote peer", "Broken pipe"):
// NVIDIA/nccl#2076, where some nodes' IB links were down.
var peerGoneClass = failureClass{"a peer closed its NCCL connection: the remote process exited, or the network to it failed",
	"NCCL's bootstrap and proxy talk over TCP sockets between the ranks; this rank found one closed by the other end, which happens when the peer process died (a crash, an out-of-memory kill, a failure of its own NCCL call that aborted it) or its host lost the network. The error on this rank is fallout: the cause is on the peer.",
	"Find the first failure among all ranks' logs (the earliest WARN, a Python traceback, an OOM kill or Xid in dmesg on the peer's host) and check the peer host's links (`ibstat`, `ip link`, dmesg link down); rerun with NCCL_DEBUG=INFO on every rank so that the peer's own error is logged."}

// loopbackConnect classifies a connect to a loopback or link-local
// address ("Connect to 127.0.0.1<45069> failed : Software caused
// connection abort", awslabs/awsome-distributed-ai#192; "fe80::...%ib1",
// NVIDIA/nccl#975): an address other hosts cannot reach.
func loopbackConnect(m string) (failureClass, bool) {
	_, rest, ok := strings.Cut(m, "connect to ")
	if !ok {
		return failureClass{}, false
	}
	host, _, ok := strings.Cut(rest, "<")
	if !ok {
		return failureClass{}, false
	}
	host, _, _ = strings.Cut(strings.Trim(host, "[]"), "%")
	a, err := netip.ParseAddr(host)
	if err != nil {
		return failureClass{}, false
	}
	kind := ""
	switch {
	case a.IsLoopback():
		kind = "a loopback address (" + a.String() + ")"
	case a.IsLinkLocalUnicast():
		kind = "a link-local address (" + a.String() + ")"
	default:
		return failureClass{}, false
	}
	return failureClass{"NCCL's ranks connect to " + kind + ", which no other host can reach",
		"Each rank advertises the address of the interface NCCL picks for its sockets (NCCL_SOCKET_IFNAME, else the first that is up); when that is lo, or an IPv6 link-local address on an IB or RoCE netdev, a peer on another host connects to itself or to nothing, and the connect fails (refused, aborted, timed out) at init or at the first collective.",
		"Set NCCL_SOCKET_IFNAME to the interface the hosts reach each other on (e.g. ^lo,docker or the name of the routed Ethernet, such as enp on AWS P5), the same on every rank, and check that its address is a routable one on every host (`ip -br addr`)."}, true
}

// symmBackendClass is a PyTorch NCCL error raised by its NCCL
// symmetric-memory backend for a call other than a window registration,
// or for one it does not name (reason "").
func symmBackendClass(what, reason string) failureClass {
	call := "an NCCL call"
	if c, _, _ := strings.Cut(reason, " "); strings.HasPrefix(c, "nccl") {
		call = c
	}
	return failureClass{"PyTorch's NCCL symmetric-memory backend failed in " + call + ": " + what,
		"torch.distributed._symmetric_memory with the NCCL backend (NCCLSymmetricMemory.cu) allocates its pool with ncclMemAlloc, registers it as NCCL windows at rendezvous and signals between ranks with ncclSignal/ncclWaitSignal; each needs a communicator that exists and supports symmetric memory (cuMem on, CUDA P2P or GIN between its ranks). PyTorch's message under the error names the call; without it the file names only the backend. It is not the network.",
		"Create the communicator before the rendezvous (init_process_group with device_id for eager init, or one collective first), allocate the tensors with symm_mem.empty, and rerun with NCCL_DEBUG=WARN on every rank: NCCL's WARN names why the call failed."}
}

// symmRegisterClass is a PyTorch NCCL error raised by its NCCL backend of
// symmetric memory (symm_mem/NCCLSymmetricMemory.cu), which registers the
// tensors of a rendezvous as NCCL windows: pytorch/pytorch#188567,
// "Failed to window register segment" with invalid argument when the
// rendezvous is the first NCCL operation of the process group.
func symmRegisterClass(what string) failureClass {
	return failureClass{"PyTorch's NCCL symmetric memory failed to register a buffer as an NCCL window: " + what,
		"torch.distributed._symmetric_memory with the NCCL backend registers each segment of its pool with ncclCommWindowRegister at rendezvous. The registration needs a communicator that exists and supports symmetric memory (cuMem on, CUDA P2P or GIN between its ranks) and a buffer from NCCL's allocator on NCCL's 4096-byte window alignment; a rendezvous that is the process group's first NCCL operation has been seen to fail with invalid argument where the same rendezvous after a barrier succeeds (pytorch/pytorch#188567). It is not the network.",
		"Create the communicator before the rendezvous (init_process_group with device_id for eager init, or one collective such as a barrier first), allocate the tensors with symm_mem.empty, and rerun with NCCL_DEBUG=WARN on every rank: NCCL's WARN names why ncclCommWindowRegister refused the window."}
}
