package ingest

import (
	"fmt"
	"strings"
	"testing"
)

// TestRingSummaryOfOneNodeComm: a process that builds a one-node
// communicator after a multi-node one (ncclCommShrink, ncclCommSplit)
// prints a second "Connected all rings ... GDR 1" for rings that never
// touch the network (NVIDIA/nccl#2397). Only the multi-node
// communicator's GDR 0 tells of GPUDirect RDMA.
func TestRingSummaryOfOneNodeComm(t *testing.T) {
	l := ncclLog(t, "nccl-log/nccl-2.30.4-roce-2-hosts-gin-rma-ras-bind-in-use-ring-gdr0-then-shrink-one-node-gdr1-nccl2397.txt")
	g := l.GDRReport()
	if len(g.RingsOn) != 0 || len(g.RingsOff) == 0 {
		t.Errorf("rings on %+v off %+v, want only the two-node communicator's GDR 0", g.RingsOn, g.RingsOff)
	}
	for _, r := range l.Rings {
		if want := map[int]int{0: 2, 1: 1}[r.GDR]; r.Nodes != want {
			t.Errorf("line %d: GDR %d of a %d-node communicator, want %d nodes", r.Evidence.Line, r.GDR, r.Nodes, want)
		}
	}
	// Without a comm line the node count is unknown and the summary counts.
	l = parseLog(t, "h1:1:1 [0] NCCL INFO Connected all rings, use ring PXN 0 GDR 1\n")
	if g := l.GDRReport(); len(g.RingsOn) != 1 {
		t.Errorf("rings on %+v", g.RingsOn)
	}
}

// TestRingSummaryAfterSplitBeforeFirstUse: from NCCL 2.22 rings connect
// at first use, so a multi-node communicator's summary can follow the
// one-node "comm" line of a group split off before it ran (Megatron,
// vLLM). A one-node communicator never prints GDR 0: that one is kept.
func TestRingSummaryAfterSplitBeforeFirstUse(t *testing.T) {
	l := parseLog(t, "h1:1:1 [0] NCCL INFO comm 0x1 rank 0 nRanks 16 nNodes 2 localRanks 8 localRank 0 MNNVL 0\n"+
		"h1:1:1 [0] NCCL INFO comm 0x2 rank 0 nRanks 8 nNodes 1 localRanks 8 localRank 0 MNNVL 0\n"+
		"h1:1:1 [0] NCCL INFO Connected all rings, use ring PXN 0 GDR 0\n")
	if g := l.GDRReport(); len(g.RingsOff) != 1 {
		t.Errorf("rings off %+v, want the GDR 0 summary kept", g.RingsOff)
	}
}

// TestRingSummaryNodesWhenThreadsFull: once the per-thread node counts
// hold maxOrigins threads, a thread already held still takes its new
// communicator's node count.
func TestRingSummaryNodesWhenThreadsFull(t *testing.T) {
	var b strings.Builder
	b.WriteString("h0:1:1 [0] NCCL INFO comm 0x1 rank 0 nRanks 16 nNodes 2 localRanks 8 localRank 0 MNNVL 0\n")
	for i := range maxOrigins {
		fmt.Fprintf(&b, "h%d:2:2 [0] NCCL INFO comm 0x3 rank 0 nRanks 16 nNodes 2 localRanks 8 localRank 0 MNNVL 0\n", i+1)
	}
	b.WriteString("h0:1:1 [0] NCCL INFO comm 0x2 rank 0 nRanks 8 nNodes 1 localRanks 8 localRank 0 MNNVL 0\n")
	b.WriteString("h0:1:1 [0] NCCL INFO Connected all rings, use ring PXN 0 GDR 1\n")
	if g := parseLog(t, b.String()).GDRReport(); len(g.RingsOn) != 0 {
		t.Errorf("rings on %+v, want the one-node summary skipped", g.RingsOn)
	}
}
