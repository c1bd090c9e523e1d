package ingest

import (
	"strings"
	"testing"
)

func lspciCorpus(t *testing.T, rel string) *Lspci {
	t.Helper()
	return corpusAs[*Lspci](t, rel, KindLspci)
}

// An RTX 3090 on a Rockchip root port trained at 8GT/s x4 of its 16GT/s
// x16 (HeyMeco/Rockchip-pcie-devices): one GPU, downgraded, and the
// whole dump is read as lspci.
func TestLspciGPUDowngraded(t *testing.T) {
	res := readFile(t, corpusDir+"/lspci/lspci-vvvv-rtx3090-gpu-8gts-x4-downgraded-rockchip.txt", "rtx3090")
	if res.Type() != string(KindLspci) {
		t.Fatalf("type %s", res.Type())
	}
	p := lspciCorpus(t, "lspci/lspci-vvvv-rtx3090-gpu-8gts-x4-downgraded-rockchip.txt")
	if len(p.Devices) != 1 || len(p.Garbled) != 0 {
		t.Fatalf("%d devices, garbled %v", len(p.Devices), p.Garbled)
	}
	d := p.Devices[0]
	if d.BDF != "0000:01:00.0" || d.Class != "VGA compatible controller" || d.Role != RoleGPU || d.Port != "Legacy Endpoint" {
		t.Fatalf("%+v", d)
	}
	if d.Cap.GTs != 16 || d.Cap.Width != 16 || d.Sta.GTs != 8 || d.Sta.Width != 4 || !d.Downgraded() {
		t.Fatalf("cap %v sta %v", d.Cap, d.Sta)
	}
	// 16 GT/s x16 after 128b/130b: 252 Gb/s; 8 GT/s x4: 31.5 Gb/s.
	if c, s := d.Cap.Rate().Gbps(), d.Sta.Rate().Gbps(); !near(float64(int(c*10))/10, 252) || !near(float64(int(s*100))/100, 31.5) {
		t.Fatalf("rates %.3f %.3f", c, s)
	}
	if !strings.Contains(d.Sta.Evidence.Text, "LnkSta:\tSpeed 8GT/s (downgraded)") {
		t.Fatalf("evidence %+v", d.Sta.Evidence)
	}
	if b := p.Bottlenecks(); len(b) != 1 || b[0].What != "GPU 0000:01:00.0 NVIDIA Corporation GA102 [GeForce RTX 3090] on a PCIe 8GT/s x4 link (capable of 16GT/s x16)" {
		t.Fatalf("a GPU that lost lanes caps what it moves: %+v", b)
	}
}

// `lspci -vvv | grep ACSCtl` from NVIDIA/nccl#523: eleven bridges without
// addresses, five redirecting, two validating sources only.
func TestLspciGrepACS(t *testing.T) {
	p := lspciCorpus(t, "lspci/lspci-grep-acsctl-redirect-on-nccl523.txt")
	var redirect, src, off int
	for _, d := range p.Devices {
		switch {
		case d.ACS == nil || d.BDF != "":
			t.Fatalf("%+v", d)
		case d.ACS.Redirects():
			redirect++
		case d.ACS.SrcValid:
			src++
		default:
			off++
		}
	}
	if redirect != 5 || src != 2 || off != 4 {
		t.Fatalf("redirect %d src %d off %d", redirect, src, off)
	}
	p = lspciCorpus(t, "lspci/lspci-grep-acsctl-all-off-nccl1405.txt")
	for _, d := range p.Devices {
		if d.ACS.Any() {
			t.Fatalf("%+v", d.ACS)
		}
	}
	if len(p.Devices) != 14 {
		t.Fatalf("%d devices", len(p.Devices))
	}
}

// Cut pastes: a ConnectX-6 Dx indented with spaces and cut after LnkCap
// (NVIDIA/l2fwd-nv#6), an A100 in -nn form cut before its link
// (open-mpi/hwloc#653), and pciutils 3.5's "Speed unknown" for Gen4
// (pciutils/pciutils#128): devices read, nothing downgraded.
func TestLspciCutAndUnknown(t *testing.T) {
	p := lspciCorpus(t, "lspci/lspci-vvv-connectx6dx-cut-after-lnkcap-l2fwdnv6.txt")
	d := p.Devices[0]
	if len(p.Devices) != 1 || d.BDF != "b3:00.0" || d.Role != RoleNIC || d.Port != "Endpoint" || d.Cap.Width != 16 || d.Sta.Set() || d.Downgraded() {
		t.Fatalf("%+v", p.Devices)
	}
	p = lspciCorpus(t, "lspci/lspci-vvv-nn-a100-cut-hwloc653.txt")
	d = p.Devices[0]
	if d.BDF != "da:00.0" || d.Class != "3D controller" || d.Role != RoleGPU || !strings.HasPrefix(d.Name, "NVIDIA Corporation GA100 [A100 SXM4 40GB] [10de:20b0]") {
		t.Fatalf("%+v", d)
	}
	p = lspciCorpus(t, "lspci/lspci-grep-width-connectx5-socketdirect-speed-unknown-pciutils128.txt")
	d = p.Devices[0]
	if len(p.Devices) != 1 || d.Cap.GTs != 0 || d.Cap.Width != 8 || d.Sta.Width != 8 || d.Downgraded() || len(p.Garbled) != 0 {
		t.Fatalf("%+v %v", p.Devices, p.Garbled)
	}
}

// The synthetic switch fixture: roles from names and port types, the ACS
// capability's offset, the NIC's downgrade as a bottleneck.
func TestLspciSwitchSynthetic(t *testing.T) {
	var p *Lspci
	for _, a := range readSynthetic(t, "lspci-vvv-switch-acs-cx7-gen4-synthetic.txt").Artifacts {
		if l, ok := a.(*Lspci); ok {
			p = l
		}
	}
	if p == nil {
		t.Fatal("not read as lspci")
	}
	if len(p.Devices) != 5 {
		t.Fatalf("%d devices", len(p.Devices))
	}
	roles := ""
	for _, d := range p.Devices {
		roles += d.Role + ","
	}
	if roles != "switch,switch,switch,NIC,GPU," {
		t.Fatalf("roles %s", roles)
	}
	if d := p.Devices[1]; d.Port != "Downstream Port" || d.ACSOffset != "1f0" || !d.ACS.Redirects() {
		t.Fatalf("%+v", d)
	}
	if up, ok := p.Above(p.Devices[3]); !ok || up.BDF != "0000:16:01.0" {
		t.Fatalf("above the NIC: %+v %v", up, ok)
	}
	if _, ok := p.Above(p.Devices[0]); ok {
		t.Fatal("the switch's upstream port has no bridge above it in the input")
	}
	b := p.Bottlenecks()
	if len(b) != 2 || b[0].Device != "0000:17:00.0" || int(b[0].Cap.Gbps()) != 252 || b[1].Cap != 0 || len(b[1].Evidence) != 2 {
		t.Fatalf("%+v", b)
	}
	if p.Scope().Host.Name != "gpu07" {
		t.Fatalf("host %+v", p.Scope().Host)
	}
}

// Lines that start as lspci's and do not go on as it prints them are
// reported with their line and column, never read as a link.
func TestLspciGarbled(t *testing.T) {
	in := "01:00.0 Ethernet controller: Mellanox Technologies MT28908 Family [ConnectX-6]\n" +
		"\t\tLnkCap:\tPort #0, Speed fastGT/s, Width x16\n" +
		"\t\tLnkSta:\tSpeed 8GT/s, Width xx\n" +
		"\t\tACSCtl:\tall on\n"
	p := readOne[*Lspci](t, "bad.txt", in)
	if len(p.Garbled) != 3 || p.Devices[0].Cap.Set() || p.Devices[0].Sta.Set() || p.Devices[0].ACS != nil {
		t.Fatalf("%+v %+v", p.Garbled, p.Devices)
	}
	want := []string{
		`bad.txt:2:26: expected 'Speed <n>GT/s, Width x<n>' after LnkCap:, got "fastGT/s, Width x16"`,
		`bad.txt:3:31: expected 'Speed <n>GT/s, Width x<n>' after LnkSta:, got "x"`,
		`bad.txt:4:11: expected ACS control flags (SrcValid+/- ReqRedir+/- CmpltRedir+/- ...) after ACSCtl:, got "all on"`,
	}
	for i, g := range p.Garbled {
		if got := g.Error("bad.txt"); got != want[i] {
			t.Errorf("got  %s\nwant %s", got, want[i])
		}
	}
}

// lspci's "(downgraded)" marks and "Width x0": the mark stands for a cut
// LnkCap, x0 is a link that trained no lanes rather than a garble, and a
// LnkCap speed lspci cannot name beside a LnkSta speed it can is a faster
// capability.
func TestLspciMarks(t *testing.T) {
	d := lspciCorpus(t, "lspci/lspci-vvv-plx-pex8725-port-lnksta-x4-downgraded-lnkcap-cut-heymeco6.txt").Devices[0]
	if d.Cap.Set() || d.Sta.SpeedMarked || !d.Sta.WidthMarked || d.Sta.Width != 4 || !d.Downgraded() || !d.WidthLost() {
		t.Errorf("marked: %+v", d)
	}
	d = lspciCorpus(t, "lspci/lspci-grep-lnk-cx7-lnkcap-speed-unknown-lnksta-16gts-lshca51.txt").Devices[0]
	if d.Cap.GTs != 0 || d.Sta.GTs != 16 || d.Sta.SpeedMarked || d.Sta.WidthMarked || !d.CapBeyondLspci() || !d.Downgraded() || d.WidthLost() {
		t.Errorf("unknown cap: %+v", d)
	}
	p := lspciCorpus(t, "lspci/lspci-vvv-coral-lnksta-speed-unknown-x0-link-down-edgetpu742.txt")
	d = p.Devices[0]
	if len(p.Garbled) != 0 || !d.Sta.Down || !d.Sta.Set() || d.Sta.Rate() != 0 || !d.Downgraded() || d.Sta.String() != "no lanes (x0: the link is down)" {
		t.Errorf("link down: %+v %v", d, p.Garbled)
	}
	// The mark is read per field: a speed marked alone (pciutils 3.8+, an
	// idle GPU) has lost no lanes.
	p = readOne[*Lspci](t, "speed.txt", "\t\tLnkSta:\tSpeed 2.5GT/s (downgraded), Width x16\n")
	if d := p.Devices[0]; !d.Sta.SpeedMarked || d.Sta.WidthMarked || d.WidthLost() || !d.Downgraded() {
		t.Errorf("speed marked: %+v", d)
	}
	// LnkCap is never marked, and a capability of no lanes is no form
	// lspci prints for a device that answers.
	p = readOne[*Lspci](t, "cap.txt", "LnkCap:\tPort #0, Speed 8GT/s, Width x0\n")
	if len(p.Garbled) != 1 {
		t.Errorf("LnkCap x0: %+v", p.Garbled)
	}
}

// An unmarked "Width x0" is what lspci prints for a link that trained no
// lanes before pciutils 3.6 (a Xeon E5's root ports, jrgp/linfo#114) and
// on a root port from 3.8 on (an empty hot-plug slot,
// batocera-linux/batocera.linux#8041): a link down, not a garble.
func TestLspciUnmarkedX0(t *testing.T) {
	p := lspciCorpus(t, "lspci/lspci-grep-lnksta-xeon-e5-rootports-x0-unmarked-linfo114.txt")
	if len(p.Garbled) != 0 || len(p.Devices) != 4 {
		t.Fatalf("%d devices, garbled %+v", len(p.Devices), p.Garbled)
	}
	for _, d := range p.Devices {
		if !d.Sta.Down || d.Sta.GTs != 2.5 || d.Sta.SpeedMarked || d.Sta.WidthMarked || d.Role == RoleNIC || d.Role == RoleGPU {
			t.Errorf("%+v", d)
		}
	}
	p = lspciCorpus(t, "lspci/lspci-vvv-rootport-lnksta-x0-unmarked-hotplug-empty-batocera8041.txt")
	if d := p.Devices[0]; len(p.Garbled) != 0 || !d.Sta.Down || d.Cap.Width != 1 || d.Cap.GTs != 5 || !d.WidthLost() {
		t.Errorf("%+v garbled %+v", d, p.Garbled)
	}
}

// A NIC's link read only through lspci's mark, or down, sets no rate cap
// on a collective: the mark says the link is below LnkCap without saying
// what LnkCap is, and a link down carries nothing to cap.
func TestLspciBottleneckMarked(t *testing.T) {
	const hdr = "0000:17:00.0 Ethernet controller: Mellanox Technologies MT2910 Family [ConnectX-7]\n"
	p := readOne[*Lspci](t, "cut.txt", hdr+"\t\tLnkSta:\tSpeed 16GT/s, Width x8 (downgraded)\n")
	b := p.Bottlenecks()
	if len(b) != 1 || !strings.Contains(b[0].What, "16GT/s x8 link (capable of more: lspci marks it downgraded)") || b[0].Cap == 0 {
		t.Errorf("marked: %+v", b)
	}
	p = readOne[*Lspci](t, "down.txt", hdr+"\t\tLnkCap:\tPort #0, Speed 32GT/s, Width x16\n\t\tLnkSta:\tSpeed 2.5GT/s (downgraded), Width x0 (downgraded)\n")
	if b := p.Bottlenecks(); len(b) != 0 || !p.Devices[0].Sta.Down {
		t.Errorf("down: %+v", b)
	}
}

// lspci's marks for a LnkSta field above LnkCap's (ls-caps.c
// link_compare, sta > cap): "(overdriven)" from pciutils 3.8, "(strange)"
// in 3.6 and 3.7 (synthetic lines in those forms). Beside a LnkCap
// "Speed unknown" the mark says the capability's speed field is below
// the link's (a value lspci has no name for), not a generation newer than
// its table, so the device is not read as downgraded.
func TestLspciOverMarks(t *testing.T) {
	const hdr = "0000:17:00.0 Ethernet controller: Mellanox Technologies MT2910 Family [ConnectX-7]\n\t\tLnkCap:\tPort #0, Speed unknown, Width x16\n"
	for _, sta := range []string{
		"\t\tLnkSta:\tSpeed 16GT/s (overdriven), Width x16\n",
		"\t\tLnkSta:\tSpeed 16GT/s (strange), Width x16 (ok)\n",
	} {
		d := readOne[*Lspci](t, "over.txt", hdr+sta).Devices[0]
		if !d.Sta.SpeedOver || d.Sta.WidthOver || d.Sta.SpeedMarked || d.CapBeyondLspci() || d.Downgraded() {
			t.Errorf("%q: %+v", sta, d.Sta)
		}
	}
	d := readOne[*Lspci](t, "width.txt", "\t\tLnkSta:\tSpeed 8GT/s, Width x16 (overdriven)\n").Devices[0]
	if d.Sta.SpeedOver || !d.Sta.WidthOver || d.Downgraded() || d.WidthLost() {
		t.Errorf("width over: %+v", d.Sta)
	}
}

// SltSta's PresDet is read onto the port whose block prints it (the real
// empty hot-plug slot of batocera-linux/batocera.linux#8041: PresDet-);
// a SltSta line without PresDet is a garble at its column.
func TestLspciSlotStatus(t *testing.T) {
	p := lspciCorpus(t, "lspci/lspci-vvv-rootport-lnksta-x0-unmarked-hotplug-empty-batocera8041.txt")
	d := p.Devices[0]
	if len(p.Devices) != 1 || d.Slot == nil || d.Slot.Present || d.Slot.Evidence.Line != 12 {
		t.Fatalf("%d devices, slot %+v", len(p.Devices), d.Slot)
	}
	p = readOne[*Lspci](t, "slot.txt", "0000:00:1c.0 PCI bridge: Intel Corporation Device a33c\n\t\tLnkSta:\tSpeed 2.5GT/s, Width x0\n\t\tSltSta:\tStatus: AttnBtn- PowerFlt- MRL- CmdCplt- PresDet+ Interlock-\n\t\t\tChanged: MRL- PresDet+ LinkState-\n")
	if d := p.Devices[0]; len(p.Devices) != 1 || d.Slot == nil || !d.Slot.Present || !d.Sta.Down {
		t.Fatalf("%d devices: %+v", len(p.Devices), p.Devices)
	}
	p = readOne[*Lspci](t, "bad.txt", "\t\tSltSta:\tStatus: AttnBtn- PowerFlt-\n")
	if len(p.Garbled) != 1 || p.Garbled[0].Col != 11 || !strings.Contains(p.Garbled[0].Expected, "PresDet") {
		t.Errorf("garbled %+v", p.Garbled)
	}
}

// A mail client wrapped a real lspci -vvv at about 80 columns
// (linux-pci, "PCI device hot insert is not detected", 2023): each cut
// line goes on at column 0, and the wrap moved SltSta's PresDet+ and
// ACSCtl's UpstreamFwd+ onto lines of their own, the device's name onto
// a second line. Each is read with the line it carries on; before, the
// SltSta line was a garble and the ACS flags after the wrap were lost.
func TestLspciMailWrapped(t *testing.T) {
	p := lspciCorpus(t, "lspci/lspci-vvv-mail-wrapped-80col-rootport-sltsta-presdet-wrapped-acs-linuxpci-hotinsert.txt")
	if len(p.Garbled) != 0 || len(p.Devices) != 1 {
		t.Fatalf("%d devices, garbled %+v", len(p.Devices), p.Garbled)
	}
	d := p.Devices[0]
	if d.Name != "Advanced Micro Devices, Inc. [AMD] Starship/Matisse GPP Bridge" || d.Role != RoleRoot || d.Secondary != "83" {
		t.Errorf("header %q role %q secondary %q", d.Name, d.Role, d.Secondary)
	}
	if d.Slot == nil || !d.Slot.Present || d.Slot.Evidence.Line != 37 {
		t.Errorf("slot %+v", d.Slot)
	}
	if d.Cap.GTs != 16 || d.Cap.Width != 4 || d.Sta.GTs != 16 || d.Sta.Width != 4 || d.Downgraded() {
		t.Errorf("link %+v / %+v", d.Cap, d.Sta)
	}
	if d.ACS == nil || !d.ACS.ReqRedir || !d.ACS.UpstreamFwd || d.ACS.DirectTrans || d.ACS.Evidence.Line != 47 {
		t.Errorf("ACSCtl %+v", d.ACS)
	}
	if d.ACSCap == nil || !d.ACSCap.DirectTrans || d.ACSCap.EgressCtrl {
		t.Errorf("ACSCap %+v", d.ACSCap)
	}
}

// Synthetic, in lspci's forms wrapped as a mail client wraps them: a
// LnkSta cut before its width is read whole with its marks, a line that
// opens with a key of its own (grepped lines pasted without their indent)
// is never the rest of the one above, and a garble whose next line does
// not carry it on is still reported.
func TestLspciWrapForms(t *testing.T) {
	const hdr = "0000:17:00.0 Ethernet controller: Mellanox Technologies MT2910 Family\n[ConnectX-7]\n"
	p := readOne[*Lspci](t, "wrap.txt", hdr+"\t\tLnkCap:\tPort #0, Speed 32GT/s, Width x16, ASPM not supported\n\t\tLnkSta:\tSpeed 32GT/s (ok),\nWidth x8 (downgraded)\n\t\t\tTrErr- Train- SlotClk+ DLActive- BWMgmt- ABWMgmt-\n")
	if d := p.Devices[0]; len(p.Garbled) != 0 || len(p.Devices) != 1 || d.Sta.Width != 8 || !d.Sta.WidthMarked || d.Sta.GTs != 32 || !d.RDMA() || d.Name != "Mellanox Technologies MT2910 Family [ConnectX-7]" {
		t.Errorf("wrapped LnkSta: %+v garbled %+v", p.Devices, p.Garbled)
	}
	p = readOne[*Lspci](t, "grep.txt", "LnkCap: Port #0, Speed unknown, Width x16\nLnkSta: Speed 16GT/s, Width x16\n")
	if d := p.Devices[0]; len(p.Devices) != 1 || d.Cap.Width != 16 || d.Sta.GTs != 16 {
		t.Errorf("grepped lines: %+v", p.Devices)
	}
	p = readOne[*Lspci](t, "cut.txt", hdr+"\t\tSltSta:\tStatus: AttnBtn- PowerFlt-\n\t\t\tChanged: MRL- PresDet- LinkState-\n")
	if len(p.Garbled) != 1 || p.Garbled[0].Line != 3 || p.Devices[0].Slot != nil {
		t.Errorf("held garble: %+v", p.Garbled)
	}
}

// Synthetic, in lspci's forms: a line at column 0 that opens with one of
// lspci's own keys with a space in it (a paste that lost every indent,
// where a bridge without a Subsystem line has its Physical Slot next) or
// with a shell prompt (the next command after `lspci | grep`) is a line
// of its own, never the rest of the device's name.
func TestLspciWrapNotSwallowed(t *testing.T) {
	const name = "Advanced Micro Devices, Inc. [AMD] Starship/Matisse GPP Bridge"
	for _, next := range []string{"Physical Slot: 0-1", "Device tree node: /sys/firmware/devicetree/base/pcie@0", "Kernel driver in use: pcieport", "$ ibdev2netdev", "[root@gpu3 ~]# ibstat"} {
		p := readOne[*Lspci](t, "flat.txt", "80:03.1 PCI bridge: "+name+" (prog-if 00 [Normal decode])\n"+next+"\nControl: I/O+ Mem+ BusMaster+\n")
		if len(p.Devices) != 1 || p.Devices[0].Name != name {
			t.Errorf("%q after the header: %+v", next, p.Devices)
		}
	}
}

// Synthetic, in lspci's forms: a LnkSta line a narrow wrap cut twice is
// read whole, and each of its three lines counts once (the second
// rejoin read the first line again after the second was counted, and
// counted it again: 5 lines of 4).
func TestLspciWrappedTwiceCountsOnce(t *testing.T) {
	p := readOne[*Lspci](t, "twice.txt", "0000:17:00.0 Ethernet controller: Mellanox Technologies MT2910 Family [ConnectX-7]\n\t\tLnkSta:\tSpeed 32GT/s (ok),\nWidth x8\n(downgraded)\n")
	if d := p.Devices[0]; p.Lines() != 4 || len(p.Garbled) != 0 || d.Sta.Width != 8 || !d.Sta.WidthMarked {
		t.Errorf("%d lines, garbled %+v, LnkSta %+v", p.Lines(), p.Garbled, d.Sta)
	}
}
