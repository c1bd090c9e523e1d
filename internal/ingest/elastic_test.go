package ingest

import "testing"

// torchrun's tee tag ("[default0]:", the role and local rank, no space
// after it) is cut like any launcher tag, alone or before PyTorch's own
// "[rank0]:", whose rank the line keeps. Real lines: NVIDIA/nccl#1837
// (torchrun roles "trainer3", "trainer0|0"); the NCCL line under the
// synthetic "[default0]:" is real (TestLauncherTags' nccl).
func TestElasticTag(t *testing.T) {
	const nccl = "node1:100:111 [3] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE ; OOB eth0:10.0.0.1<0>"
	for _, c := range []struct{ in, want string }{
		{"[default0]:" + nccl, nccl},
		{"[default7]:    raise RuntimeError(", "    raise RuntimeError("},
		{"[trainer0|0]:ncclSocketInit: connecting to address  with family 59936 is neither AF_INET(2) nor AF_INET6(10)", "ncclSocketInit: connecting to address  with family 59936 is neither AF_INET(2) nor AF_INET6(10)"},
		{"[default0]:", ""},                  // torchrun tags blank lines
		{"[default]: x", "[default]: x"},     // no local rank
		{"[0default0]: x", "[0default0]: x"}, // a role starts with a letter
		{"[a b0]: x", "[a b0]: x"},
	} {
		if got := readLines(t, c.in); len(got) != 1 || got[0] != c.want {
			t.Errorf("%q -> %q, want %q", c.in, got, c.want)
		}
	}
	ls := readAllLines("[default0]:[rank13]: Traceback (most recent call last):")
	if len(ls) != 1 || ls[0].Text != "Traceback (most recent call last):" || ls[0].WordRank() != 13 || ls[0].Col(0) != 22 {
		t.Errorf("torchrun tag before PyTorch's: %+v", ls)
	}
	l := readCorpus(t, "nccl-log/nccl-2.27.7-socket-ifname-eth2-missing-family-59936-trainer-tags-nccl1837.txt")[KindNCCLLog].(*NCCLLog)
	if h := l.Hosts(); len(h) != 1 || h[0] != "twshared1016" {
		t.Errorf("hosts %v, want twshared1016 alone", h)
	}
}
