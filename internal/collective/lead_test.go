package collective

import (
	"testing"

	"rocelab/internal/testnet"
	"rocelab/internal/unit"
	"rocelab/internal/workload"
)

// leadCheck runs a Workload and, at each batch's end, records the
// communicator's unposted network slices, and then, with the next batch
// started, whether Comm.Lead promises a lead.
type leadCheck struct {
	*Workload
	endUnposted []int64
	ahead       int // batch starts at which Lead promised
}

func (l *leadCheck) Start(t workload.Transport) {
	l.comm.Open(t, l)
	l.launch()
}

func (l *leadCheck) BatchDone(r Result) {
	l.endUnposted = append(l.endUnposted, l.comm.eng.unposted)
	l.Workload.BatchDone(r)
	if _, ok := l.comm.Lead(); ok && !l.done {
		l.ahead++
	}
}

// Comm.Lead promises that a batch does not end while one of its network
// slices is unposted (the run lets the NICs run ahead of the workloads on
// that promise: sim.Windows.Lead). So every batch must end with none
// unposted, whatever the algorithm, protocol or call; and the promise
// must hold at the start of a batch that crosses the network, or it
// gives nothing.
func TestLeadNoBatchEndsWithSlicesUnposted(t *testing.T) {
	for _, c := range []struct {
		name    string
		preset  string
		servers int
		ppn     int
		env     map[string]string
		call    Call
	}{
		{"ring simple", "a100-1nic", 4, 2, map[string]string{"NCCL_ALGO": "ring", "NCCL_PROTO": "simple"}, Call{Func: AllReduce, Bytes: 8 << 20}},
		{"ring LL", "a100-1nic", 4, 2, map[string]string{"NCCL_ALGO": "ring", "NCCL_PROTO": "LL"}, Call{Func: AllReduce, Bytes: 256 << 10}},
		{"tree LL128", "hgx-h100", 4, 8, map[string]string{"NCCL_ALGO": "tree", "NCCL_PROTO": "LL128"}, Call{Func: AllReduce, Bytes: 8 << 20}},
		{"allgather", "hgx-h100", 2, 8, nil, Call{Func: AllGather, Bytes: 4 << 20}},
		{"reducescatter", "a100-1nic", 4, 2, nil, Call{Func: ReduceScatter, Bytes: 4 << 20}},
		{"broadcast", "a100-1nic", 4, 2, nil, Call{Func: Broadcast, Bytes: 4 << 20, Root: 3}},
		{"alltoall", "hgx-h100", 2, 8, nil, Call{Func: AllToAll, Bytes: 4 << 20}},
		{"sendrecv", "hgx-h100", 2, 8, nil, Call{Func: SendRecv, Bytes: 4 << 20, Pairs: [][2]int{{0, 9}, {15, 2}}}},
		{"pat", "a100-1nic", 4, 1, map[string]string{"NCCL_ALGO": "pat"}, Call{Func: AllGather, Bytes: 4 << 20}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cm := mustComm(t, preset(t, c.preset), c.servers, c.ppn, c.env)
			srv := cm.Sys.Server
			n := testnet.New(testnet.Config{Hosts: len(cm.Sys.Hosts) * srv.NICs, Rate: srv.NICRate, Latency: testLatency})
			l := &leadCheck{Workload: NewWorkload(cm, 2, c.call, c.call)}
			if err := n.Run(100*unit.Second, l); err != nil {
				t.Fatal(err)
			}
			if l.Err != nil {
				t.Fatal(l.Err)
			}
			if len(l.endUnposted) != 2 {
				t.Fatalf("%d batches ended, want 2", len(l.endUnposted))
			}
			for i, u := range l.endUnposted {
				if u != 0 {
					t.Errorf("batch %d ended with %d network slices unposted", i, u)
				}
			}
			if l.ahead != 1 {
				t.Error("Lead promised no lead at the second batch's start")
			}
			if d, _ := cm.Lead(); d != cm.eng.tm.proxyOp || d <= 0 {
				t.Errorf("lead %v, want the proxy operation's %v", d, cm.eng.tm.proxyOp)
			}
		})
	}
}
