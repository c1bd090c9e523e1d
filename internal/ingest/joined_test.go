package ingest

import "testing"

// A terminal paste that joined padded NCCL lines into one line
// (deepseek-ai/DeepEP#106) is split back at each NCCL prefix: before, the
// devices were read without their host and "Using network IBext", which
// followed padding mid-line, was lost.
func TestJoinedNCCLLinesCorpus(t *testing.T) {
	l := ncclLog(t, "nccl-log/nccl-roce-bond-joined-padded-lines-deepep106.txt")
	if len(l.Networks) != 1 || l.Networks[0].Name != "IBext" || l.Networks[0].Host != "VM-17-82-centos" {
		t.Fatalf("networks %+v, want IBext on VM-17-82-centos", l.Networks)
	}
	if len(l.IBDevices) != 8 || l.IBDevices[0].Host != "VM-17-82-centos" || l.IBDevices[7].Name != "mlx5_bond_7" || l.IBDevices[0].LinkLayer != "RoCE" {
		t.Fatalf("devices %+v", l.IBDevices)
	}
}

// SYNTHETIC: what is and is not a join.
func TestSplitJoinedNCCL(t *testing.T) {
	const a = "h:1:2 [0] NCCL INFO Using network IB"
	const w = "h:1:3 [1] net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer 10.0.0.2<1> with error 12"
	for _, c := range []struct {
		in   string
		want []string
	}{
		{a + "      " + w, []string{a, w}},
		{"tail of a wrapped line   " + a + "    " + a, []string{"tail of a wrapped line   " + a, a}},
		{a + " " + a, nil},                    // one space: not padding
		{a + "   rank 1[0] NCCL INFO x", nil}, // no host:pid:tid before the marker
		{"h:1:2 [0] NCCL INFO comm 0x1 rank 0 nranks 2", nil},
	} {
		got := splitJoinedNCCL(c.in, nil)
		if len(got) != len(c.want) {
			t.Errorf("%q -> %q, want %q", c.in, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%q piece %d = %q, want %q", c.in, i, got[i], c.want[i])
			}
		}
	}
}
