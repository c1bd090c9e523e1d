package doctor

import (
	"strings"
	"testing"

	"rocelab/internal/unit"
)

// lspci -vvv, real: an RTX 3090 trained at 8GT/s x4 of 16GT/s x16
// (HeyMeco/Rockchip-pcie-devices) loses 88% of its link; bridges that
// still redirect after the poster disabled ACS in the BIOS
// (NVIDIA/nccl#523) warn, an all-off grep (NVIDIA/nccl#1405) is fine, and
// cut pastes (NVIDIA/l2fwd-nv#6, open-mpi/hwloc#653) and pciutils 3.5's
// "Speed unknown" (pciutils/pciutils#128) raise nothing.
func TestLspciCorpus(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/lspci/lspci-vvvv-rtx3090-gpu-8gts-x4-downgraded-rockchip.txt")
	f := nicMustFind(t, fs, "host.pcie.degraded", Warn, "GPU 0000:01:00.0 NVIDIA Corporation GA102 [GeForce RTX 3090]: PCIe link trained at 8GT/s x4 of its 16GT/s x16: 31.5 Gb/s of 252.1 Gb/s (88% lost)")
	if len(f.Evidence) != 3 || f.Evidence[2].Line != 29 || !strings.Contains(f.Fix, "lspci -vvv -s 0000:01:00.0") || !strings.Contains(f.Fix, "Gen4") {
		t.Errorf("evidence %v fix %s", f.Evidence, f.Fix)
	}

	fs = diagnoseFiles(t, Options{}, "corpus/lspci/lspci-grep-acsctl-redirect-on-nccl523.txt")
	f = nicMustFind(t, fs, "host.pcie.acs", Warn, "on 5 bridges (lspci lines without their device); 2 more validate sources only")
	if len(f.Evidence) != 5 || !strings.Contains(f.Fix, "ECAP_ACS+0x6.w=0000") || !strings.Contains(f.Fix, "ATS") {
		t.Errorf("evidence %v fix %s", f.Evidence, f.Fix)
	}
	nicMustNot(t, fs, "host.pcie.ok")

	fs = diagnoseFiles(t, Options{}, "corpus/lspci/lspci-grep-acsctl-all-off-nccl1405.txt")
	nicMustFind(t, fs, "host.pcie.ok", Info, "ACS not redirecting on 14 bridges")
	nicMustNot(t, fs, "host.pcie.acs")

	for rel, want := range map[string]string{
		"corpus/lspci/lspci-vvv-connectx6dx-cut-after-lnkcap-l2fwdnv6.txt": "no LnkSta for 1 NIC, GPU or switch port (lspci -v only, or the paste ends before it): b3:00.0 Mellanox Technologies MT2892 Family [ConnectX-6 Dx]",
		"corpus/lspci/lspci-vvv-nn-a100-cut-hwloc653.txt":                  "no LnkSta for 1 NIC, GPU or switch port (lspci -v only, or the paste ends before it): da:00.0 NVIDIA Corporation GA100 [A100 SXM4 40GB] [10de:20b0]",
	} {
		fs := diagnoseFiles(t, Options{}, rel)
		nicMustFind(t, fs, "host.pcie.unread", Info, want)
		if len(fs) != 1 {
			t.Errorf("%s: %s", rel, nicTitles(fs))
		}
	}
	if fs := diagnoseFiles(t, Options{}, "corpus/lspci/lspci-grep-width-connectx5-socketdirect-speed-unknown-pciutils128.txt"); len(fs) != 0 {
		t.Errorf("speed unknown: %s", nicTitles(fs))
	}
}

// The synthetic switch: ACS on two PEX890xx downstream ports with the
// setpci commands at the capability's offset (0x1f0 + 6), a ConnectX-7 at
// Gen4 in a Gen5 slot; error once the port's line rate (400G) is known,
// as 252 Gb/s of PCIe cannot carry it.
func TestLspciSwitchSynthetic(t *testing.T) {
	const rel = "synthetic/lspci-vvv-switch-acs-cx7-gen4-synthetic.txt"
	fs := diagnoseFiles(t, Options{}, rel)
	f := nicMustFind(t, fs, "host.pcie.acs", Warn, "on 2 ports of PCIe switches or bridges (0000:16:01.0, 0000:16:02.0)")
	if !strings.Contains(f.Fix, "setpci -s 0000:16:01.0 1f6.w=0000; setpci -s 0000:16:02.0 1f6.w=0000") {
		t.Errorf("fix %s", f.Fix)
	}
	nicMustFind(t, fs, "host.pcie.degraded", Warn, "NIC gpu07 0000:17:00.0 Mellanox Technologies MT2910 Family [ConnectX-7] [15b3:1021]: PCIe link trained at 16GT/s x16 of its 32GT/s x16: 252.1 Gb/s of 504.1 Gb/s (50% lost)")
	nicMustFind(t, fs, "host.pcie.degraded", Warn, "the port above it (gpu07 0000:16:01.0 Broadcom / LSI PEX890xx PCIe Gen 5 Switch) can do 32GT/s x16: the card, its seating")
	nicMustNot(t, fs, "host.pcie.ok")
	fs = diagnoseFiles(t, Options{NICSpeed: 400 * unit.Gbps}, rel)
	nicMustFind(t, fs, "host.pcie.degraded", Error, "ConnectX-7", "below the 400.0 Gb/s port")
}

// An NCCL log of the same host names the GPU by its busId: the lspci
// finding quotes the line, and the ACS finding says whether NCCL uses
// GPUDirect RDMA; a log of another host is not joined (synthetic lines).
func TestLspciNCCLCrossReference(t *testing.T) {
	lspci := []string{
		"[root@gpu07 ~]# sudo lspci -vvv -s 18:00.0",
		"18:00.0 3D controller: NVIDIA Corporation GH100 [H100 SXM5 80GB] (rev a1)",
		"\tCapabilities: [60] Express (v2) Endpoint, MSI 00",
		"\t\tLnkCap:\tPort #0, Speed 32GT/s, Width x16, ASPM not supported",
		"\t\tLnkSta:\tSpeed 32GT/s, Width x8 (downgraded)",
		"16:01.0 PCI bridge: Broadcom / LSI PEX890xx PCIe Gen 5 Switch (rev b0)",
		"\tCapabilities: [68] Express (v2) Downstream Port (Slot+), MSI 00",
		"\tCapabilities: [1f0 v1] Access Control Services",
		"\t\tACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-",
	}
	for _, tc := range []struct {
		host   string
		joined bool
	}{{"gpu07", true}, {"gpu08", false}} {
		paths := writeFiles(t, map[string][]string{
			"lspci.txt": lspci,
			"nccl.log": {
				tc.host + ":4411:4470 [0] NCCL INFO GPU Direct RDMA Enabled for GPU 18000 / HCA 0 (distance 2 <= 2), read 1",
				tc.host + ":4411:4470 [0] NCCL INFO comm 0x55d0c8a0 rank 3 nranks 16 cudaDev 0 busId 18000 - Init COMPLETE",
			},
		})
		fs := Diagnose(paths, nil, Options{}).Findings
		f := nicMustFind(t, fs, "host.pcie.degraded", Warn, "GPU gpu07 18:00.0 NVIDIA Corporation GH100 [H100 SXM5 80GB]: PCIe link trained at 32GT/s x8 of its 32GT/s x16")
		a := nicMustFind(t, fs, "host.pcie.acs", Warn, "16:01.0")
		named := strings.Contains(f.Title, "; NCCL rank 3 (cudaDev 0) runs on it, NCCL has GPUDirect RDMA enabled for it") && len(f.Evidence) == 5
		gdr := strings.Contains(a.Mechanism, "uses GPUDirect RDMA")
		if named != tc.joined || gdr != tc.joined {
			t.Errorf("%s: named %v gdr %v: %s / %s", tc.host, named, gdr, f.Title, a.Mechanism)
		}
	}
}

// Garbled lspci lines are reported with file:line:col and what was
// expected, and the device is not judged on them.
func TestLspciGarbled(t *testing.T) {
	fs := synthFindings(t, Options{},
		"b3:00.0 Ethernet controller: Mellanox Technologies MT2892 Family [ConnectX-6 Dx]",
		"\t\tLnkCap:\tPort #0, Speed 16GT/s, Width x16",
		"\t\tLnkSta:\tSpeed 8GT/s (downgr",
	)
	f := nicMustFind(t, fs, "input.garbled", Warn, "<stdin>:3:22: expected 'Speed <n>GT/s, Width x<n>' after LnkSta:")
	if len(f.Evidence) != 1 || f.Evidence[0].Line != 3 {
		t.Errorf("evidence %v", f.Evidence)
	}
	nicMustNot(t, fs, "host.pcie.degraded")
}

// A NIC in a slot whose root port is wired x4: the slot, not the card, is
// the limit, and the fix says to move it (synthetic lines).
func TestLspciSlotLimit(t *testing.T) {
	fs := synthFindings(t, Options{},
		"00:03.2 PCI bridge: Advanced Micro Devices, Inc. [AMD] Device 150b (prog-if 00 [Normal decode])",
		"\tBus: primary=00, secondary=c1, subordinate=c1, sec-latency=0",
		"\tCapabilities: [58] Express (v2) Root Port (Slot+), MSI 00",
		"\t\tLnkCap:\tPort #0, Speed 16GT/s, Width x4, ASPM L1, Exit Latency L1 <64us",
		"\t\tLnkSta:\tSpeed 8GT/s, Width x4",
		"c1:00.0 Ethernet controller: Mellanox Technologies MT28800 Family [ConnectX-5 Ex]",
		"\tCapabilities: [60] Express (v2) Endpoint, MSI 00",
		"\t\tLnkCap:\tPort #0, Speed 16GT/s, Width x16, ASPM not supported",
		"\t\tLnkSta:\tSpeed 8GT/s (downgraded), Width x4 (downgraded)",
	)
	f := nicMustFind(t, fs, "host.pcie.degraded", Warn, "NIC c1:00.0 Mellanox Technologies MT28800 Family [ConnectX-5 Ex]: PCIe link trained at 8GT/s x4 of its 16GT/s x16: 31.5 Gb/s of 252.1 Gb/s (88% lost); the port above it (00:03.2 Advanced Micro Devices, Inc. [AMD] Device 150b) can do only 16GT/s x4: the slot is the limit")
	if !strings.HasPrefix(f.Fix, "Move the card to a slot wired x16 of its generation (16 GT/s)") || len(f.Evidence) != 4 || f.Evidence[0].Line != 4 {
		t.Errorf("fix %s evidence %v", f.Fix, f.Evidence)
	}
	nicMustNot(t, fs, "host.pcie.acs")
}

// lspci as another user than root prints no capabilities: the doctor
// says what it could not see instead of calling the host healthy
// (synthetic lines).
func TestLspciWithoutRoot(t *testing.T) {
	fs := synthFindings(t, Options{},
		"$ lspci -vvv -s 17:00.0",
		"17:00.0 Infiniband controller: Mellanox Technologies MT2910 Family [ConnectX-7]",
		"\tSubsystem: Mellanox Technologies MT2910 Family [ConnectX-7]",
		"\tControl: I/O- Mem+ BusMaster+ SpecCycle- MemWINV- VGASnoop- ParErr- Stepping- SERR- FastB2B- DisINTx+",
		"\tCapabilities: <access denied>",
		"\tKernel driver in use: mlx5_core",
	)
	nicMustFind(t, fs, "host.pcie.unread", Info, "lspci ran without root, so the PCIe links and ACS of 1 NIC, GPU or switch port were not printed: 17:00.0 Mellanox Technologies MT2910 Family [ConnectX-7]")
	nicMustNot(t, fs, "host.pcie.ok")
}

// A slow nccl-tests run beside an lspci dump names the NIC's PCIe link and
// the switch ports' ACS as likely causes (the synthetic 56 Gb/s run on
// 100G NICs; synthetic lspci lines). The PEX 8747's ACS capability at
// 0xf24 gives the register NVIDIA/nccl#304 clears by hand, f2a.
func TestLspciBusBWCauses(t *testing.T) {
	paths := writeFiles(t, map[string][]string{"lspci.txt": {
		"0000:16:01.0 PCI bridge: PLX Technology, Inc. PEX 8747 48-Lane, 5-Port PCI Express Gen 3 (8.0 GT/s) Switch (rev ca)",
		"\tCapabilities: [68] Express (v2) Downstream Port (Slot+), MSI 00",
		"\tCapabilities: [f24 v1] Access Control Services",
		"\t\tACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-",
		"0000:17:00.0 Ethernet controller: Mellanox Technologies MT27800 Family [ConnectX-5]",
		"\tCapabilities: [60] Express (v2) Endpoint, MSI 00",
		"\t\tLnkCap:\tPort #0, Speed 8GT/s, Width x16, ASPM not supported",
		"\t\tLnkSta:\tSpeed 8GT/s, Width x8 (downgraded)",
	}})
	rep := Diagnose(append(paths, nicTestdata("synthetic/allreduce-2node-7GBps-synthetic.txt")), nil, Options{NICSpeed: 100 * unit.Gbps})
	f := nicMustFind(t, rep.Findings, "nccltests.busbw.low", Warn)
	for _, want := range []string{
		"NIC 0000:17:00.0 Mellanox Technologies MT27800 Family [ConnectX-5] on a PCIe 8GT/s x8 link (capable of 8GT/s x16), capped at 63.0 Gb/s",
		"PCIe ACS redirecting peer-to-peer traffic (GPUDirect RDMA through the root complex)",
	} {
		if !strings.Contains(f.Fix, want) {
			t.Errorf("fix lacks %q: %s", want, f.Fix)
		}
	}
	if a := nicMustFind(t, rep.Findings, "host.pcie.acs", Warn, "0000:16:01.0"); !strings.Contains(a.Fix, "setpci -s 0000:16:01.0 f2a.w=0000") {
		t.Errorf("fix %s", a.Fix)
	}
}

// A management port on a narrow link is noted, not warned about: it is
// no RDMA NIC (synthetic lines in lspci's shape).
func TestLspciManagementNIC(t *testing.T) {
	fs := synthFindings(t, Options{},
		"03:00.0 Ethernet controller: Intel Corporation I350 Gigabit Network Connection (rev 01)",
		"\t\tLnkCap:\tPort #0, Speed 5GT/s, Width x4, ASPM L0s L1, Exit Latency L0s <4us, L1 <32us",
		"\t\tLnkSta:\tSpeed 5GT/s, Width x1 (downgraded)",
	)
	nicMustFind(t, fs, "host.pcie.degraded", Info, "NIC 03:00.0 Intel Corporation I350 Gigabit Network Connection: PCIe link trained at 5GT/s x1 of its 5GT/s x4: 4.0 Gb/s of 16.0 Gb/s (75% lost) (not an RDMA NIC family rocelab knows")
}

// The kernel's probe-time line and an lspci of the same NIC make one
// finding, the lspci's (today's link, with its port above); a NIC only
// dmesg names keeps dmesg's (synthetic lines).
func TestLspciAndDmesgOneFinding(t *testing.T) {
	paths := writeFiles(t, map[string][]string{
		"dmesg.txt": {
			"[   10.643346] mlx5_core 0000:17:00.0: 126.016 Gb/s available PCIe bandwidth, limited by 16.0 GT/s PCIe x8 link at 0000:16:01.0 (capable of 252.048 Gb/s with 16.0 GT/s PCIe x16 link)",
			"[   10.943346] mlx5_core 0000:31:00.0: 126.016 Gb/s available PCIe bandwidth, limited by 16.0 GT/s PCIe x8 link at 0000:30:01.0 (capable of 252.048 Gb/s with 16.0 GT/s PCIe x16 link)",
		},
		"lspci.txt": {
			"17:00.0 Ethernet controller: Mellanox Technologies MT28908 Family [ConnectX-6]",
			"\tCapabilities: [60] Express (v2) Endpoint, MSI 00",
			"\t\tLnkCap:\tPort #0, Speed 16GT/s, Width x16, ASPM not supported",
			"\t\tLnkSta:\tSpeed 16GT/s, Width x8 (downgraded)",
		},
	})
	fs := Diagnose(paths, nil, Options{}).Findings
	got := nicFind(fs, "host.pcie.degraded")
	if len(got) != 2 || !strings.Contains(nicTitles(fs), "17:00.0 Mellanox Technologies MT28908 Family [ConnectX-6]: PCIe link trained at 16GT/s x8") || !strings.Contains(nicTitles(fs), "mlx5_core 0000:31:00.0") || strings.Contains(nicTitles(fs), "mlx5_core 0000:17:00.0") {
		t.Errorf("%d host.pcie.degraded findings, want the lspci's for 17:00.0 and dmesg's for 31:00.0: %s", len(got), nicTitles(fs))
	}
}

// NCCL 2.27+ prints each NIC port's PCI path: a NIC whose link trained
// narrow is named as the device NCCL uses, and judged against the speed
// NCCL printed. The lspci lines are synthetic; the NCCL line is real
// (testdata/corpus/nccl-log/nccl-2.27.5-sglang-port-lines-400g-roce-pcipath-ib-hca-8-of-12.txt).
func TestLspciNCCLPortPath(t *testing.T) {
	paths := writeFiles(t, map[string][]string{
		"lspci.txt": {
			"3b:00.1 Ethernet controller: Mellanox Technologies MT2910 Family [ConnectX-7]",
			"\tCapabilities: [60] Express (v2) Endpoint, MSI 00",
			"\t\tLnkCap:\tPort #0, Speed 32GT/s, Width x16, ASPM not supported",
			"\t\tLnkSta:\tSpeed 32GT/s, Width x4 (downgraded)",
		},
		"nccl.log": {
			"tpgds-aihub0007:177790:177790 [3] NCCL INFO NET/IB: [2] mlx5_2:uverbs2:1/RoCE provider=Mlx5 speed=400000 context=0x5563d0080110 pciPath=/sys/devices/pci0000:37/0000:37:01.0/0000:38:00.0/0000:39:01.0/0000:3b:00.0 ar=0",
		},
	})
	fs := Diagnose(paths, nil, Options{}).Findings
	f := nicMustFind(t, fs, "host.pcie.degraded", Error, "3b:00.1", "below the 400.0 Gb/s port", "NCCL uses it as mlx5_2")
	if !strings.Contains(f.Evidence[len(f.Evidence)-1].Text, "pciPath=") {
		t.Errorf("port line not cited: %v", f.Evidence)
	}
}

// A paste that is one device's LnkCap and LnkSta alone (janhq/jan#183: an
// RTX 4090 on a riser, 2.5GT/s of 16GT/s at x16) is that device's link,
// though the paste does not say what it is: an info that tells the GPU's
// idle speed from a NIC's fault. Before, the two lines gave no finding.
func TestLspciGrepOneLink(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/lspci/lspci-grep-lnk-rtx4090-riser-2.5gts-of-16gts-jan183.txt")
	f := nicMustFind(t, fs, "host.pcie.degraded", Info, "a PCIe link the paste does not name trained at 2.5GT/s x16 of its 16GT/s x16: 32.0 Gb/s of 252.1 Gb/s; a GPU lowers its speed when idle")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 2 || f.Evidence[1].Line != 3 {
		t.Errorf("evidence %v", f.Evidence)
	}
	if len(fs) != 1 {
		t.Errorf("%s", nicTitles(fs))
	}
	// A grep over every device (bridges among them) is not one device.
	fs = synthFindings(t, Options{},
		"# synthetic: two devices' grepped links",
		"\tLnkCap:\tPort #0, Speed 16GT/s, Width x16, ASPM L1, Exit Latency L1 <16us",
		"\tLnkSta:\tSpeed 2.5GT/s (downgraded), Width x16 (ok)",
		"\tLnkCap:\tPort #8, Speed 16GT/s, Width x16, ASPM L1, Exit Latency L1 <16us",
		"\tLnkSta:\tSpeed 16GT/s, Width x4 (downgraded)")
	nicMustNot(t, fs, "host.pcie.degraded")
}
