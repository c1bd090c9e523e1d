package doctor

import (
	"os"
	"strings"
	"testing"
)

// The standard statistics of `ethtool -S IF --groups eth-mac` are read by
// concept as any driver's counters: bnxt's paste counts one frame with a
// bad FCS as eth-mac-FrameCheckSequenceErrors, which alone is a warning
// with its share of eth-mac-FramesReceivedOK (3.5e-9%). The paste also
// greps the driver's own rx_fcs_err_frames for the same frame: the whole
// paste gives one finding, the driver's.
func TestStandardStatsFCS(t *testing.T) {
	const rel = "corpus/ethtool/ethtool-s-groups-eth-mac-bnxt-fcs-error-1-netdev.txt"
	fs := nicFind(diagnoseFiles(t, Options{}, rel), "counters.phy.fcs")
	if len(fs) != 1 || !strings.HasPrefix(fs[0].Title, "eth0: 1 frames received with a bad FCS (rx_fcs_err_frames)") || fs[0].Evidence[0].Line != 11 {
		t.Errorf("findings %+v, want one, of rx_fcs_err_frames", fs)
	}
	data, err := os.ReadFile(nicTestdata(rel))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	i, j := strings.Index(text, "$ ethtool -S eth0 --groups"), strings.Index(text, "$ ethtool -S eth0 |")
	if i < 0 || j < i {
		t.Fatal("the paste changed: no standard statistics before the grep")
	}
	f := nicMustFind(t, synthFindings(t, Options{}, strings.Split(strings.TrimSpace(text[i:j]), "\n")...),
		"counters.phy.fcs", Warn, "eth0: 1 frames received with a bad FCS (eth-mac-FrameCheckSequenceErrors)", "of eth-mac-FramesReceivedOK")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 4 || f.Evidence[1].Line != 5 {
		t.Errorf("evidence %+v", f.Evidence)
	}
}

// eth-phy-SymbolErrorDuringCarrier above 0 is a warning naming the port
// (synthetic: the real pastes found all count 0); 0 is no finding.
func TestStandardStatsSymbolErrors(t *testing.T) {
	fs := synthFindings(t, Options{},
		"$ ethtool -S eth4 --all-groups",
		"Standard stats for eth4:",
		"eth-phy-SymbolErrorDuringCarrier: 4096",
		"eth-mac-FramesReceivedOK: 90033",
		"eth-mac-FrameCheckSequenceErrors: 0")
	f := nicMustFind(t, fs, "counters.phy.symbol_errors", Warn, "eth4: 4096 symbol errors during carrier (eth-phy-SymbolErrorDuringCarrier)")
	if !strings.Contains(f.Fix, "ethtool -m eth4") || len(f.Evidence) != 1 || f.Evidence[0].Line != 3 {
		t.Errorf("finding %+v", f)
	}
	wantReadNoFinding(t, "counters.phy",
		"corpus/ethtool/ethtool-s-all-groups-felix-swp0-pmac-phy-mac-ctrl-rmon-kselftest.txt",
		"corpus/ethtool/ethtool-show-fec-i-fbnic-rs-zero-blocks-and-eth-phy-group-netdev.txt",
		"corpus/ethtool/ethtool-s-all-groups-ice-e810-and-pause-statistics-iwl.txt")
}

// The JSON forms judge as the text ones do: `ethtool --json -I
// --show-fec`'s 145 uncorrectable blocks (lane 0 holds 88%), and
// `ethtool --json -S --groups`'s one symbol error. The FEC paste prints
// one moment twice, text then JSON: two readings of eth0 in which nothing
// moved, so the whole paste reports the 145 blocks as an info (counted
// since the driver started, none between the readings) and its FEC off
// once; its JSON alone warns of the blocks, citing its own key.
func TestEthtoolJSONJudged(t *testing.T) {
	const fec = "corpus/ethtool/ethtool-json-show-fec-i-lanes-uncorrectable-145-netdev.txt"
	fs := diagnoseFiles(t, Options{}, fec)
	if got := nicFind(fs, "counters.phy.fec_uncorrectable"); len(got) != 1 || got[0].Severity != Info ||
		!strings.HasPrefix(got[0].Title, "eth0: 145 FEC blocks uncorrectable since the driver started counting; none between the 2 readings") {
		t.Errorf("one moment read twice moved nothing, want one info of the 145: %+v", got)
	}
	if got := nicFind(fs, "counters.phy.fec_off", "eth0"); len(got) != 1 {
		t.Errorf("fec_off %+v, want one for eth0", got)
	}
	data, err := os.ReadFile(nicTestdata(fec))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	i := strings.Index(text, " # ethtool --json")
	if i < 0 {
		t.Fatal("the paste changed: no JSON command")
	}
	fs = synthFindings(t, Options{}, strings.Split(strings.TrimSpace(text[i:]), "\n")...)
	f := nicMustFind(t, fs, "counters.phy.fec_uncorrectable", Warn, "eth0: 145 FEC blocks uncorrectable beside 256 corrected", "lane 0 holds 88%")
	if ev := f.Evidence[len(f.Evidence)-1]; !strings.Contains(ev.Text, "uncorrectable_blocks") {
		t.Errorf("evidence %+v, want the JSON's uncorrectable_blocks key", f.Evidence)
	}
	fs = diagnoseFiles(t, Options{}, "corpus/ethtool/ethtool-json-s-groups-eth-phy-eth-mac-rmon-jq-netdev.txt")
	nicMustFind(t, fs, "counters.phy.symbol_errors", Warn, "eth0: 1 symbol errors during carrier (eth-phy-SymbolErrorDuringCarrier)")
}

// `ethtool -S eth4` then `ethtool -S eth4 --groups eth-mac` count the
// same bad frames twice (rx_crc_errors_phy, eth-mac-FrameCheckSequenceErrors):
// one counters.phy.fcs finding, the driver's. The standard counter alone,
// or beside another port's driver dump, is still reported (SYNTHETIC).
func TestStandardStatsFCSBesideDriverDump(t *testing.T) {
	driver := func(dev string) []string {
		return []string{"$ ethtool -S " + dev, "NIC statistics:", "     rx_packets_phy: 90033", "     rx_crc_errors_phy: 7"}
	}
	std := []string{"$ ethtool -S eth4 --groups eth-mac", "Standard stats for eth4:",
		"eth-mac-FramesReceivedOK: 90033", "eth-mac-FrameCheckSequenceErrors: 7"}
	fs := nicFind(synthFindings(t, Options{}, append(driver("eth4"), std...)...), "counters.phy.fcs")
	if len(fs) != 1 || !strings.Contains(fs[0].Title, "eth4: 7 frames received with a bad FCS (rx_crc_errors_phy)") {
		t.Errorf("findings %+v, want the driver dump's one", fs)
	}
	fs = nicFind(synthFindings(t, Options{}, append(driver("eth5"), std...)...), "counters.phy.fcs", "eth4", "eth-mac-FrameCheckSequenceErrors")
	if len(fs) != 1 {
		t.Errorf("eth5's driver dump hid eth4's standard counter: %+v", fs)
	}
}

// mlx5's rx_symbol_err_phy is the standard eth-phy-SymbolErrorDuringCarrier:
// `ethtool -S eth4` then `ethtool -S eth4 --groups eth-phy` count the same
// bits twice, one counters.phy.symbol_errors finding, the driver's. The
// standard counter beside another port's driver dump is still reported
// (SYNTHETIC).
func TestStandardStatsSymbolErrorsBesideDriverDump(t *testing.T) {
	driver := func(dev string) []string {
		return []string{"$ ethtool -S " + dev, "NIC statistics:", "     rx_packets_phy: 90033", "     rx_symbol_err_phy: 12"}
	}
	std := []string{"$ ethtool -S eth4 --groups eth-phy", "Standard stats for eth4:", "eth-phy-SymbolErrorDuringCarrier: 12"}
	fs := nicFind(synthFindings(t, Options{}, append(driver("eth4"), std...)...), "counters.phy.symbol_errors")
	if len(fs) != 1 || !strings.Contains(fs[0].Title, "eth4: 12 symbol errors during carrier (rx_symbol_err_phy)") {
		t.Errorf("findings %+v, want the driver dump's one", fs)
	}
	fs = nicFind(synthFindings(t, Options{}, append(driver("eth5"), std...)...), "counters.phy.symbol_errors", "eth4", "eth-phy-SymbolErrorDuringCarrier")
	if len(fs) != 1 {
		t.Errorf("eth5's driver dump hid eth4's standard counter: %+v", fs)
	}
}
