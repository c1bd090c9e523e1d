package doctor

import "testing"

// NVIDIA/nccl-tests#373: a rank on HPC-X's IBext plugin with its four RoCE
// ports merged into two NCCL devices, and a socket-transport peer at its IB
// listener. The ports are named one by one (they read as '={[0]' before),
// and the WARN says the ranks chose different networks (it was dropped:
// no return code, no class).
func TestMergedNICsAndWrongSocketType(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/ibext-merged-nics-wrong-socket-type-nccltests373.txt")
	nicMustFind(t, fs, "nccl.transport.ib", Info, "over RoCE (mlx5_2:1, mlx5_3:1, mlx5_0:1, mlx5_1:1)")
	nicMustFind(t, fs, "nccl.warn.error", Warn, "The ranks use different networks", "socket transport (NET/Socket)", "IB transport (NET/IB)")
}

// A socket type mismatch other than the two transports' is a peer at the
// wrong socket: another job, or another NCCL version (synthetic line).
func TestWrongSocketTypeOther(t *testing.T) {
	rep := diagnoseText(t, "h1:7:9 [0] misc/socket.cc:486 NCCL WARN socketFinalizeAccept: wrong type 2 != 1\n")
	nicMustFind(t, rep.Findings, "nccl.warn.error", Warn, "A peer connected to the wrong NCCL socket (the proxy where this rank listens for the bootstrap)")
}
