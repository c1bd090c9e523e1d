package ingest

import (
	"reflect"
	"testing"
)

// Each rank prints its own connection lines: the receiver of a [receive]
// line, the sender of a [send] line and of a P2P or SHM line. The lines
// are those of nccl-tests#319 (NCCL 2.26, an RDMA plugin), aws-ofi-nccl
// over EFA (NCCL 2.29) and NCCL 2.4's "Ring" form (formats.md), the
// gIB one synthetic.
func TestConnRanks(t *testing.T) {
	l := parseLog(t, "lccn19:2471271:2471615 [4] NCCL INFO Channel 05/0 : 4[4] -> 12[4] [receive] via NET/NCCL RDMA Plugin v8/4/GDRDMA\n"+
		"gpu-st-ml-2:77729:77729 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [send] via NET/Libfabric/0\n"+
		"gpu-st-ml-2:77729:77729 [0] NCCL INFO Channel 01/0 : 1[0] -> 0[0] [send] via NET/Libfabric/0\n"+
		"a:1:1 [2] NCCL INFO Channel 00/0 : 2[2] -> 3[3] via P2P/IPC/read\n"+
		"a:1:1 [2] NCCL INFO Ring 00 : 6 -> 2 [send] via NET/IB/0\n"+
		"a:1:1 [7] NCCL INFO Channel 07/0 : 15[7] -> 7[7] [receive] via NET/gIB/7/GDRDMA\n")
	want := []HostRank{{"lccn19", 12}, {"gpu-st-ml-2", 1}, {"a", 2}, {"a", 6}, {"a", 7}}
	if !reflect.DeepEqual(l.ConnRanks, want) {
		t.Errorf("ConnRanks %v, want %v", l.ConnRanks, want)
	}
	devs := map[string]uint64{}
	for _, c := range l.Channels {
		devs[c.Host+" "+c.Net] |= c.Devs
	}
	if devs["lccn19 NCCL RDMA Plugin v8"] != 1<<4 || devs["a gIB"] != 1<<7 || devs["gpu-st-ml-2 Libfabric"] != 1 {
		t.Errorf("devices %v", devs)
	}
}
