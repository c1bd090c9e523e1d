package collective

import (
	"testing"

	"rocelab/internal/gpu"
	"rocelab/internal/unit"
)

// TestNVLSTreeProxyOps: NCCL connects NVLSTree's tree across servers on
// every NVLS channel (graph/connect.cc connectNvls; transport/nvls.cc
// ncclNvlsTreeConnect) and posts, per channel, a receive and a send on
// treeUp and on each treeDown[1..2] (proxy.cc ncclProxySaveOp,
// ncclPatternNvlsTree), unmerged (only shared p2p connections group a
// call's operations, proxy.cc ProxyAppend). Blackwell has 32 NVLS
// channels across servers (nvls.cc NVLS_NCHANNELS_SM100), so on 2 servers
// of 8 B200 each GPU's proxy serves 64 operations a call; on n servers
// every tree edge of every head's pipeline carries 4 (a send and a
// receive at each end), channels × heads × 4 × (n-1) in all.
func TestNVLSTreeProxyOps(t *testing.T) {
	srv := serverOf("B200", 8, 400*unit.Gbps, 5, gpu.PXB, gpu.Intel)
	for _, servers := range []int{2, 4} {
		c := mustComm(t, srv, servers, 8, nil)
		call := Call{Func: AllReduce, Bytes: 8 << 20}
		ch, err := c.Plan(call)
		if err != nil {
			t.Fatal(err)
		}
		if ch.Algo != NVLSTree || ch.Channels != 32 {
			t.Fatalf("%d servers, 8 MiB: %s/%s/%d, want NVLSTree on 32 channels", servers, ch.Algo, ch.Proto, ch.Channels)
		}
		e := builtEngine(c, call, ch)
		heads := len(c.nvlsHeads())
		total := 0
		for r, ops := range e.rankNet {
			total += len(ops)
			if servers == 2 && len(ops) != 2*ch.Channels {
				t.Errorf("2 servers: rank %d's proxy serves %d operations a call, want %d", r, len(ops), 2*ch.Channels)
			}
		}
		if want := ch.Channels * heads * 4 * (servers - 1); total != want {
			t.Errorf("%d servers: %d operations a call in all, want %d (%d channels × %d heads × 4 × %d tree edges)", servers, total, want, ch.Channels, heads, servers-1)
		}
	}
}

// builtEngine returns an engine with one iteration of call on c built as
// NCCL's choice ch, before it runs.
func builtEngine(c *Comm, call Call, ch Choice) *engine {
	e := &engine{}
	e.init(c)
	e.call, e.choice, e.iters = call, ch, 1
	e.plan()
	e.setTiming()
	e.build()
	return e
}
