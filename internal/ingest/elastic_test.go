package ingest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

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
		{"[|0]:x", "[|0]:x"}, // no role before the '|'
		{"[|00]:", "[|00]:"},
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

// A real torchrun log, every line teed under "[defaultN]:", reads as the
// same log without the tags: what NCCL printed, and libfabric's warnings.
func TestElasticTagCorpus(t *testing.T) {
	const rel = "nccl-log/nccl-2.27.3-torchrun-tee-default-tags-aws-ofi-1.16-efa-p6-b200-tp4-dp2-hyperpod.txt"
	b, err := os.ReadFile(filepath.Join(corpusDir, rel))
	if err != nil {
		t.Fatal(err)
	}
	untagged := regexp.MustCompile(`(?m)^\[default[0-9]\]:`).ReplaceAllString(string(b), "")
	for _, l := range readAllLines(string(b)) {
		if strings.HasPrefix(l.Text, "[default") {
			t.Errorf("line %d keeps its tag: %q", l.Num, l.Text)
		}
	}
	tagged, err := Read("f", strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := Read("f", strings.NewReader(untagged))
	if err != nil {
		t.Fatal(err)
	}
	tl, pl := tagged.Artifacts[0].(*NCCLLog), plain.Artifacts[0].(*NCCLLog)
	if fmt.Sprint(tl.Hosts()) != fmt.Sprint(pl.Hosts()) || tl.Lines() != pl.Lines() || tl.Lines() < 50 {
		t.Errorf("tagged log: hosts %v, %d lines; want hosts %v, %d lines", tl.Hosts(), tl.Lines(), pl.Hosts(), pl.Lines())
	}
}
