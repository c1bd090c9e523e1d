package ingest

import "testing"

// Rank lines whose host is redacted name one host with eight GPUs on
// devices 0-7: redacted to two words ("on NODE A device  0 [0000:04:00]
// NVIDIA H100 80GB HBM3", nccl-tests#347), the host is "NODE A", not
// "NODE" with GPUs "A device 0 ..." on device -1; blanked out ("on
// device  0 [0x01] NVIDIA A100 80GB PCIe", NVIDIA/nccl#841), it is one
// nameless host, not a host "device" with GPUs "0 [0x01] NVIDIA ...".
func TestRankLineHostRedacted(t *testing.T) {
	for _, c := range []struct{ file, host, gpu string }{
		{"allreduce-h100-1n-8rank-host-redacted-with-space-one-size-8g-480GBps-nccltests347.txt", "NODE A", "NVIDIA H100 80GB HBM3"},
		{"allreduce-a100-pcie-1n-g8-host-name-blank-header-cut-nccl841.txt", blankHost, "NVIDIA A100 80GB PCIe"},
	} {
		x := ncclTests(t, "nccl-tests/"+c.file)
		ranks := x.Runs[0].Ranks
		if len(ranks) != 8 {
			t.Fatalf("%s: ranks = %d, want 8", c.file, len(ranks))
		}
		for i, k := range ranks {
			if k.Host != c.host || k.Device != i || k.BusID == "" || k.GPU != c.gpu {
				t.Errorf("%s rank %d: host %q device %d bus %q GPU %q, want %q %d %q", c.file, k.Rank, k.Host, k.Device, k.BusID, k.GPU, c.host, i, c.gpu)
			}
		}
		if hosts, counts := x.Runs[0].RanksPerHost(); len(hosts) != 1 || counts[0] != 8 {
			t.Errorf("%s: hosts %v counts %v, want one host with 8 ranks", c.file, hosts, counts)
		}
	}
}

// A line cut inside its host ("on computeins") keeps the one word it has.
func TestRankLineHostCut(t *testing.T) {
	x := parseTests(t, "#  Rank  0 Group  0 Pid  12897 on   computeins\n")
	if got := x.Runs[0].Ranks; len(got) != 1 || got[0].Host != "computeins" || got[0].Device != -1 {
		t.Errorf("ranks %+v", got)
	}
}
