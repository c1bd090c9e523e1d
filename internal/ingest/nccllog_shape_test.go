package ingest

import "testing"

// The release range a log without a version line is dated to, from the
// shapes NCCL's sources give its lines (SYNTHETIC lines in each
// release's format, except the first case's, cut from
// pytorch/pytorch#81628).
func TestInferredVersion(t *testing.T) {
	for _, c := range []struct {
		name   string
		log    string
		lo, hi int
		ok     bool
	}{
		{"2.10-2.11", "tf144:143468:143535 [1] NCCL INFO Channel 00 : 0[2f000] -> 1[86000] [receive] via NET/IB/1\n" +
			"tf144:143468:143540 [1] transport/net_ib.cc:815 NCCL WARN NET/IB : Got completion from peer 192.168.17.147<38560> with error 12, opcode 0, len 0, vendor err 129\n", 10, 11, true},
		{"ring", "h:1:2 [0] NCCL INFO Ring 00 : 1[41000] -> 0[1b000] [receive] via NET/IB/0\n", 3, 6, true},
		{"2.12 on", "h:1:2 [0] NCCL INFO Channel 00/0 : 1[1] -> 0[0] [receive] via NET/IB/0\n", 12, -1, true},
		{"status=", "h:1:2 [0] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer 10.0.0.2<1> with status=12 opcode=0 len=0 vendor err 129 (Recv)\n", 20, -1, true},
		{"a plugin's wording dates nothing", "h:1:2 [0] ib_plugin.c:1615 NCCL WARN NET/IB : Got completion from peer 10.0.0.2<1> with status=12 opcode=0 len=0 vendor err 129 (Recv)\n", 0, 0, false},
		{"P2P lines date nothing", "h:1:2 [0] NCCL INFO Channel 00 : 0[1b000] -> 1[41000] via P2P/IPC\n", 0, 0, false},
		{"shapes that disagree", "h:1:2 [0] NCCL INFO Ring 00 : 1[41000] -> 0[1b000] [receive] via NET/IB/0\n" +
			"h:1:2 [0] NCCL INFO Channel 00/0 : 1[1] -> 0[0] [receive] via NET/IB/0\n", 0, 0, false},
		{"a printed version wins", "NCCL version 2.19.3+cuda12.3\nh:1:2 [0] NCCL INFO Channel 00 : 1[1] -> 0[0] [receive] via NET/IB/0\n", 0, 0, false},
	} {
		lo, hi, _, ok := parseLog(t, c.log).InferredVersion()
		if ok != c.ok || ok && (lo != c.lo || hi != c.hi) {
			t.Errorf("%s: got %d..%d ok=%v, want %d..%d ok=%v", c.name, lo, hi, ok, c.lo, c.hi, c.ok)
		}
	}
}
