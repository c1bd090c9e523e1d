package ingest

import "testing"

// An issue's rank lines with the host redacted to two words ("on NODE A
// device  0 [0000:04:00] NVIDIA H100 80GB HBM3", nccl-tests#347) name one
// host "NODE A" with eight H100s on devices 0-7, not a host "NODE" whose
// GPUs are "A device 0 ..." on device -1.
func TestRankLineHostWithSpaces(t *testing.T) {
	x := ncclTests(t, "nccl-tests/allreduce-h100-1n-8rank-host-redacted-with-space-one-size-8g-480GBps-nccltests347.txt")
	ranks := x.Runs[0].Ranks
	if len(ranks) != 8 {
		t.Fatalf("ranks = %d, want 8", len(ranks))
	}
	for i, k := range ranks {
		if k.Host != "NODE A" || k.Device != i || k.GPU != "NVIDIA H100 80GB HBM3" {
			t.Errorf("rank %d: host %q device %d GPU %q, want \"NODE A\" %d \"NVIDIA H100 80GB HBM3\"", k.Rank, k.Host, k.Device, k.GPU, i)
		}
	}
	hosts, counts := x.Runs[0].RanksPerHost()
	if len(hosts) != 1 || counts[0] != 8 {
		t.Errorf("hosts %v counts %v, want one host with 8 ranks", hosts, counts)
	}
}

// A line cut inside its host ("on computeins") keeps the one word it has.
func TestRankLineHostCut(t *testing.T) {
	x := parseTests(t, "#  Rank  0 Group  0 Pid  12897 on   computeins\n")
	if got := x.Runs[0].Ranks; len(got) != 1 || got[0].Host != "computeins" || got[0].Device != -1 {
		t.Errorf("ranks %+v", got)
	}
}

// Rank lines with the host name blanked out ("on        device  0 [0x01]
// NVIDIA A100 80GB PCIe", NVIDIA/nccl#841) name one host that prints no
// name, with eight A100s on devices 0-7: not a host "device" whose GPUs
// are "0 [0x01] NVIDIA ..." on device -1.
func TestRankLineHostBlank(t *testing.T) {
	x := ncclTests(t, "nccl-tests/allreduce-a100-pcie-1n-g8-host-name-blank-header-cut-nccl841.txt")
	ranks := x.Runs[0].Ranks
	if len(ranks) != 8 {
		t.Fatalf("ranks = %d, want 8", len(ranks))
	}
	for i, k := range ranks {
		if k.Host != blankHost || k.Device != i || k.BusID == "" || k.GPU != "NVIDIA A100 80GB PCIe" {
			t.Errorf("rank %d: host %q device %d bus %q GPU %q", k.Rank, k.Host, k.Device, k.BusID, k.GPU)
		}
	}
	if hosts, counts := x.Runs[0].RanksPerHost(); len(hosts) != 1 || counts[0] != 8 {
		t.Errorf("hosts %v counts %v, want one host with 8 ranks", hosts, counts)
	}
}
