package doctor

import (
	"strings"
	"testing"
)

// lspci's own link marks, real: a PLX PEX 8725 port's LnkSta "Width x4
// (downgraded)" with its LnkCap cut from the paste (HeyMeco/Rockchip-
// pcie-devices#6), a ConnectX-7 whose LnkCap speed the lspci could not
// name beside a LnkSta of 16GT/s (MrBr-github/lshca#51: the card is
// Gen5, the link trained Gen4), and a Coral TPU's "Width x0
// (downgraded)", a link that trained no lanes (google-coral/edgetpu#742),
// each read as the downgrade lspci says it is.
func TestLspciOwnMarks(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/lspci/lspci-vvv-plx-pex8725-port-lnksta-x4-downgraded-lnkcap-cut-heymeco6.txt")
	f := nicMustFind(t, fs, "host.pcie.degraded", Info, "trained at 8GT/s x4 of its LnkCap (cut from the paste; lspci marks LnkSta downgraded against it)")
	if len(f.Evidence) != 1 || f.Evidence[0].Line != 4 {
		t.Errorf("evidence %v", f.Evidence)
	}

	fs = diagnoseFiles(t, Options{}, "corpus/lspci/lspci-grep-lnk-cx7-lnkcap-speed-unknown-lnksta-16gts-lshca51.txt")
	nicMustFind(t, fs, "host.pcie.degraded", Info, "trained at 16GT/s x16 of its speed unknown x16: a LnkCap speed this lspci cannot name, so above its LnkSta's 16 GT/s")

	fs = diagnoseFiles(t, Options{}, "corpus/lspci/lspci-vvv-coral-lnksta-speed-unknown-x0-link-down-edgetpu742.txt")
	nicMustNot(t, fs, "input.garbled")
	nicMustFind(t, fs, "host.pcie.degraded", Info, "trained at no lanes (x0: the link is down) of its 2.5GT/s x4; fewer lanes than the device has")

	// A PLX port's ACSCtl whose header is above the cut still warns, and
	// the ConnectX-5's two "Speed unknown" lines (pciutils#128) stay
	// unjudged: nothing says one is below the other.
	fs = diagnoseFiles(t, Options{}, "corpus/lspci/lspci-vvv-plx-pex8725-acsctl-redirect-cut-heymeco6.txt")
	f = nicMustFind(t, fs, "host.pcie.acs", Warn, "ACS redirects peer-to-peer traffic on 1 bridge")
	if !strings.Contains(f.Mechanism, "topology.servers acs") {
		t.Errorf("mechanism does not name the twin's key: %s", f.Mechanism)
	}
	// An Intel root port at 8GT/s x8 of x16 from an lspci that prints no
	// marks (openucx/ucx#9520): the numbers alone say it.
	fs = diagnoseFiles(t, Options{}, "corpus/lspci/lspci-vvv-rootport-8gts-x8-of-x16-cut-ucx9520.txt")
	nicMustFind(t, fs, "host.pcie.degraded", Info, "trained at 8GT/s x8 of its 8GT/s x16: 63.0 Gb/s of 126.0 Gb/s; fewer lanes than the device has")
	// A named device's fix names the twin's keys for its link: the RTX
	// 3090 at 8GT/s x4 (Gen3) is gpu_pcie: 3.
	fs = diagnoseFiles(t, Options{}, "corpus/lspci/lspci-vvvv-rtx3090-gpu-8gts-x4-downgraded-rockchip.txt")
	f = nicMustFind(t, fs, "host.pcie.degraded", Warn, "GPU 0000:01:00.0")
	if !strings.Contains(f.Fix, "topology.servers gpu_pcie: 3 ") {
		t.Errorf("fix does not name the twin's key: %s", f.Fix)
	}
	// And a NIC's, nic_pcie and nic_pcie_width: the synthetic ConnectX-7
	// at 16GT/s x16 is Gen4 x16.
	fs = diagnoseFiles(t, Options{}, "synthetic/lspci-vvv-switch-acs-cx7-gen4-synthetic.txt")
	f = nicMustFind(t, fs, "host.pcie.degraded", Warn, "ConnectX-7")
	if !strings.Contains(f.Fix, "topology.servers nic_pcie: 4, nic_pcie_width: 16 ") {
		t.Errorf("fix does not name the twin's keys: %s", f.Fix)
	}
	if fs := diagnoseFiles(t, Options{}, "corpus/lspci/lspci-grep-width-connectx5-socketdirect-speed-unknown-pciutils128.txt"); len(fs) != 0 {
		t.Errorf("speed unknown on both: %s", nicTitles(fs))
	}
}
