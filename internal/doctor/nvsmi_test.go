package doctor

import (
	"fmt"
	"strings"
	"testing"
)

// nvidia-smi -q, real (leptonai/gpud's testdata): eight H100s at Gen5 x16
// are fine, their 43 to 82 PCIe replays each without a rollover an info; three idle RTX 4090s in P8 at Gen1 x16 of Gen4 are one info
// (an idle GPU lowers its speed), never a warning; the default table
// names its GPU and raises nothing.
func TestNVSMICorpus(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nvsmi/nvidia-smi-q-h100x8-gen5-x16-gpud.txt")
	nicMustFind(t, fs, "host.pcie.ok", Info, "8 GPUs, each at its maximum PCIe link (NVIDIA H100 80GB HBM3 32GT/s x16)")
	nicMustNot(t, fs, "host.pcie.degraded")

	nicMustFind(t, fs, "host.pcie.replays", Info, "PCIe replays since reset on 8 GPUs: 00000000:19:00.0 NVIDIA H100 80GB HBM3 67, 00000000:3B:00.0 NVIDIA H100 80GB HBM3 63, 00000000:4C:00.0 NVIDIA H100 80GB HBM3 52 and 5 more")
	fs = diagnoseFiles(t, Options{}, "corpus/nvsmi/nvidia-smi-q-rtx4090x8-idle-gen1-gpud.txt")
	f := nicMustFind(t, fs, "host.pcie.degraded", Info, "3 GPUs idle, or in no state the paste shows, below their maximum PCIe link (00000000:81:00.0 at 2.5GT/s x16 of 16GT/s x16 (P8), 00000000:A1:00.0 at 2.5GT/s x16 of 16GT/s x16 (P8), 00000000:E1:00.0 at 2.5GT/s x16 of 16GT/s x16 (P8))")
	if len(f.Evidence) != 6 || f.Evidence[1].Line != 869 {
		t.Errorf("evidence %v", f.Evidence)
	}
	if len(fs) != 1 {
		t.Errorf("%s", nicTitles(fs))
	}

	if fs := diagnoseFiles(t, Options{}, "corpus/nvsmi/nvidia-smi-table-rtx4090-fan-err-gpud.txt"); len(fs) != 0 {
		t.Errorf("table: %s", nicTitles(fs))
	}
}

// The synthetic -q -d PCIE: a GPU trained x8 of x16 loses half its link
// (252 of 504 Gb/s) and one at Gen4 in P0 is slow while busy, both warn;
// one at Gen4 in no state the paste shows is left to info; their PCIe
// replays warn as one of them rolled over; a width without its "x" is
// reported with file:line:col.
func TestNVSMISynthetic(t *testing.T) {
	const rel = "synthetic/nvidia-smi-q-pcie-h100-x8-gen4-synthetic.txt"
	fs := diagnoseFiles(t, Options{}, rel)
	f := nicMustFind(t, fs, "host.pcie.degraded", Warn, "GPU 00000000:19:00.0: PCIe link at 32GT/s x8 of its 32GT/s x16: 252.1 Gb/s of 504.1 Gb/s (50% lost)")
	if !strings.Contains(f.Fix, "nvidia-smi -q -d PCIE -i 00000000:19:00.0") || !strings.Contains(f.Fix, "lspci -vvv -s 0000:19:00.0") || !strings.Contains(f.Fix, "Gen5") {
		t.Errorf("fix %s", f.Fix)
	}
	nicMustFind(t, fs, "host.pcie.degraded", Warn, "GPU 00000000:3B:00.0: PCIe link at 16GT/s x16 of its 32GT/s x16: 252.1 Gb/s of 504.1 Gb/s (50% lost) while busy (P0)")
	nicMustFind(t, fs, "input.garbled", Warn, rel+":72:45: expected a link width such as 16x")
	nicMustFind(t, fs, "host.pcie.degraded", Info, "1 GPU idle, or in no state the paste shows, below their maximum PCIe link (00000000:5D:00.0 at 16GT/s x16 of 32GT/s x16 (state not shown))")
	nicMustNot(t, fs, "host.pcie.ok")
	f = nicMustFind(t, fs, "host.pcie.replays", Warn, "PCIe replays since reset on 2 GPUs: 00000000:19:00.0 1385 (2 rollovers), 00000000:3B:00.0 12: a replay number rolled over, so the link retrained")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 30 || f.Evidence[1].Line != 57 {
		t.Errorf("evidence %v", f.Evidence)
	}
}

// A GPU in P8 on fewer lanes than its Max is idle, not mis-seated: a
// GeForce GTX 1650 laptop GPU (driver 575.57.08, in a public system dump)
// printed Current 8x of Max 16x at Gen1 of 3 in P8 with Idle Active; the
// same link in P0 is a warning. SYNTHETIC lines in its layout.
func TestNVSMINarrowParked(t *testing.T) {
	const q = "GPU 00000000:01:00.0\n    Product Name                          : NVIDIA GeForce GTX 1650\n        GPU Link Info\n            PCIe Generation\n                Max                       : 3\n                Current                   : 1\n            Link Width\n                Max                       : 16x\n                Current                   : 8x\n    Performance State                     : %s\n"
	fs := diagnoseText(t, fmt.Sprintf(q, "P8")).Findings
	nicMustFind(t, fs, "host.pcie.degraded", Info, "1 GPU idle, or in no state the paste shows, below their maximum PCIe link (00000000:01:00.0 at 2.5GT/s x8 of 8GT/s x16 (P8))")
	nicMustNot(t, fs, "host.pcie.ok")
	fs = diagnoseText(t, fmt.Sprintf(q, "P0")).Findings
	nicMustFind(t, fs, "host.pcie.degraded", Warn, "GPU 00000000:01:00.0 NVIDIA GeForce GTX 1650: PCIe link at 2.5GT/s x8 of its 8GT/s x16")
}

// host.pcie.ok names and cites the GPUs whose links were read, not the
// paste's first GPU: SYNTHETIC `nvidia-smi -q` lines in its layout, the
// first GPU's block cut before its GPU Link Info, the second's at Gen4 x16.
func TestNVSMIOKEvidenceReadGPUs(t *testing.T) {
	const q = "GPU 00000000:01:00.0\n    Product Name                          : NVIDIA A10\n" +
		"GPU 00000000:02:00.0\n    Product Name                          : NVIDIA A100-SXM4-80GB\n        GPU Link Info\n            PCIe Generation\n                Max                       : 4\n                Current                   : 4\n            Link Width\n                Max                       : 16x\n                Current                   : 16x\n    Performance State                     : P0\n"
	fs := diagnoseText(t, q).Findings
	f := nicMustFind(t, fs, "host.pcie.ok", Info, "1 GPU at its maximum PCIe link (NVIDIA A100-SXM4-80GB 16GT/s x16)")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 3 || f.Evidence[1].Line != 8 {
		t.Errorf("evidence %v", f.Evidence)
	}
}
