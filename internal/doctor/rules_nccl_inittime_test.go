package doctor

import (
	"strings"
	"testing"
)

// NVIDIA/nccl#1646: ncclCommInitRankConfig took 55 s on a DGX B200, 52 s
// of it in the kernels phase on every rank: told as slow init that is not
// the network's. NVIDIA/nccl#534's 2.46 s (bootstrap 1.6 s) on one host is
// no finding.
func TestSlowInitKernels(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.25.1-b200-init-timings-kernels-52s-of-55s-nccl1646.txt")
	f := nicMustFind(t, fs, "nccl.init.slow", Warn, "55.17 s", "8 ranks", "rank 0 on d5618706-01", "kernels 52.33 s", "not the network")
	if !strings.Contains(f.Mechanism, "compile the code from PTX") || !strings.Contains(f.Fix, "architecture") {
		t.Errorf("mechanism %q fix %q", f.Mechanism, f.Fix)
	}
	nicMustNot(t, diagnoseFiles(t, Options{}, "corpus/nccl-log/nccl-2.22-init-timings-bootstrap-dominant-8-ranks-one-host-nccl534.txt"), "nccl.init.slow")
}

// SYNTHETIC lines in the forms of NCCL 2.26 (NVIDIA/nccl#1647's bootstrap
// line): a bootstrap that waited for the root (recv) is the slowest rank's
// arrival; at 2048 ranks the same time is info; a bootstrap line alone is
// read when no init line is there.
func TestSlowInitBootstrap(t *testing.T) {
	const p = "n1:1:2 [0] NCCL INFO "
	fs := synthFindings(t, Options{},
		p+"Bootstrap timings total 41.200000 (create 0.000033, send 0.000110, recv 41.190000, ring 0.009000, delay 0.000000)",
		p+"Init timings - ncclCommInitRank: rank 0 nranks 16 total 42.50 (kernels 0.30, alloc 0.20, bootstrap 41.21, allgathers 0.05, topo 0.40, graphs 0.01, connections 0.30, rest 0.03)",
		"n2:1:2 [0] NCCL INFO Init timings - ncclCommInitRank: rank 9 nranks 16 total 1.70 (kernels 0.30, alloc 0.20, bootstrap 0.41, allgathers 0.05, topo 0.40, graphs 0.01, connections 0.30, rest 0.03)",
		"n2:1:2 [0] NCCL INFO Init timings - ncclCommInitRank: rank 8 nranks 16 total 1.50 (kernels 0.30, alloc 0.20, bootstrap 0.21, allgathers 0.05, topo 0.40, graphs 0.01, connections 0.30, rest 0.03)",
		"n2:1:2 [0] NCCL INFO Init timings - ncclCommInitRank: rank 0 nranks 2 total 0.10 (kernels 0.01, alloc 0.01, bootstrap 0.01, allgathers 0.01, topo 0.01, graphs 0.01, connections 0.01, rest 0.03)")
	f := nicMustFind(t, fs, "nccl.init.slow", Warn, "42.50 s", "16 ranks", "on n1", "bootstrap 41.21 s", "rendezvous")
	if !strings.Contains(f.Mechanism, "slowest rank's arrival") || !strings.Contains(f.Mechanism, "Rank 8 on n2 spent only 0.21 s in its bootstrap against 41.21 s here") || len(f.Evidence) != 4 {
		t.Errorf("mechanism %q evidence %v", f.Mechanism, f.Evidence)
	}
	fs = synthFindings(t, Options{}, p+"Init timings - ncclCommInitRank: rank 0 nranks 2048 total 150.00 (kernels 0.30, alloc 0.20, bootstrap 20.00, allgathers 129.00, topo 0.40, graphs 0.01, connections 0.06, rest 0.03)")
	nicMustFind(t, fs, "nccl.init.slow", Info, "allgathers 129.00 s")
	fs = synthFindings(t, Options{}, p+"Bootstrap timings total 12.000000 (create 0.000033, send 0.000110, recv 11.990000, ring 0.009000, delay 0.000000)")
	nicMustFind(t, fs, "nccl.init.slow", Warn, "its bootstrap", "recv 11.99 s")
	fs = synthFindings(t, Options{}, p+"Init timings: rank 0 nranks 16 total 9.99 (kernels 0.30, bootstrap 9.00, allgathers 0.05, topo 0.40, graphs 0.01, connections 0.20, rest 0.03)")
	nicMustNot(t, fs, "nccl.init.slow")
	// Only the host's own Bootstrap timings line explains its bootstrap
	// (the line names no rank): another host's slower one is not told as
	// "this host's".
	fs = synthFindings(t, Options{},
		"n2:1:2 [0] NCCL INFO Bootstrap timings total 30.000000 (create 0.000033, send 0.000110, recv 29.990000, ring 0.009000, delay 0.000000)",
		p+"Init timings - ncclCommInitRank: rank 0 nranks 16 total 42.50 (kernels 0.30, alloc 0.20, bootstrap 41.21, allgathers 0.05, topo 0.40, graphs 0.01, connections 0.30, rest 0.03)")
	f = nicMustFind(t, fs, "nccl.init.slow", Warn, "on n1", "bootstrap 41.21 s")
	if strings.Contains(f.Mechanism, "This host's bootstrap took 30.00 s") {
		t.Errorf("n2's bootstrap told as n1's: %q", f.Mechanism)
	}
	// SYNTHETIC: a bootstrap spent in NCCL's own sleep before checking in
	// (delay: NCCL_UID_STAGGER_RATE) is no TCP rendezvous.
	fs = synthFindings(t, Options{}, p+"Bootstrap timings total 14.100000 (create 0.000033, send 0.000110, recv 0.090000, ring 0.009000, delay 14.000000)")
	nicMustFind(t, fs, "nccl.init.slow", Warn, "delay 14.00 s", "stagger of the check-ins: not the network")
	// At 2048 ranks, time the kernels took is no rendezvous's: a warning.
	fs = synthFindings(t, Options{}, p+"Init timings - ncclCommInitRank: rank 0 nranks 2048 total 60.00 (kernels 55.00, alloc 0.20, bootstrap 2.00, allgathers 2.50, topo 0.20, graphs 0.01, connections 0.06, rest 0.03)")
	if f := nicMustFind(t, fs, "nccl.init.slow", Warn, "kernels 55.00 s"); strings.Contains(f.Mechanism, "rendezvous alone") {
		t.Errorf("kernels time told as the rendezvous's: %q", f.Mechanism)
	}
}

// SYNTHETIC: the slowest init is found by comparing totals as int64
// milliseconds: a difference past 2^31 ms (a total in the thousands of
// hours, an hour-long one beside it) must not wrap where int is 32 bits
// (GOARCH=386), which told the shorter init as the slowest. On 64-bit
// targets it cannot fail: .ci/run runs it with GOARCH=386 where the kernel
// runs 32-bit binaries (and vets it for 386 where it does not).
func TestSlowInitOrderWide(t *testing.T) {
	fs := synthFindings(t, Options{},
		"n1:1:2 [0] NCCL INFO Init timings - ncclCommInitRank: rank 0 nranks 16 total 4294967.30 (kernels 0.30, alloc 0.20, bootstrap 4294966.00, allgathers 0.05, topo 0.40, graphs 0.01, connections 0.30, rest 0.04)",
		"n2:1:2 [0] NCCL INFO Init timings - ncclCommInitRank: rank 1 nranks 16 total 3600.00 (kernels 0.30, alloc 0.20, bootstrap 3598.70, allgathers 0.05, topo 0.40, graphs 0.01, connections 0.30, rest 0.04)")
	nicMustFind(t, fs, "nccl.init.slow", Warn, "4294967.30 s", "on n1")
}
