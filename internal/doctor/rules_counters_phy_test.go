package doctor

import (
	"strings"
	"testing"
)

// Frames with a bad FCS are the link's own fault, named as such: an error
// at 0.01% of received packets in a before/after pair, a warn below it or
// in a single dump, nothing when the counter stays at zero.
func TestFCSErrors(t *testing.T) {
	pair := func(rx0, crc0, rx1, crc1 string) string {
		return "# synthetic: two ethtool -S dumps of one port\n" +
			"[root@gpu01 ~]# ethtool -S ens3np0\nNIC statistics:\n     rx_packets_phy: " + rx0 + "\n     rx_crc_errors_phy: " + crc0 + "\n     rx_prio3_bytes: 1000\n" +
			"[root@gpu01 ~]# ethtool -S ens3np0\nNIC statistics:\n     rx_packets_phy: " + rx1 + "\n     rx_crc_errors_phy: " + crc1 + "\n     rx_prio3_bytes: 2000\n"
	}
	nicMustFind(t, diagnoseText(t, pair("1000000", "10", "2000000", "260")).Findings, "counters.phy.fcs", Error,
		"ens3np0: 250 frames received with a bad FCS (rx_crc_errors_phy), 0.025% of rx_packets_phy")
	nicMustFind(t, diagnoseText(t, pair("1000000", "10", "2000000", "15")).Findings, "counters.phy.fcs", Warn,
		"ens3np0: 5 frames received with a bad FCS (rx_crc_errors_phy), 0.0005% of rx_packets_phy")
	nicMustNot(t, diagnoseText(t, pair("1000000", "10", "2000000", "10")).Findings, "counters.phy.fcs")
}

// A link that went down during the window is a warn, one that went down
// twice (a flap) an error; a single dump only says it went down at some
// time since the counters were cleared.
func TestLinkDownEvents(t *testing.T) {
	pair := func(d0, d1 string) string {
		return "# synthetic: two ethtool -S dumps of one port\n" +
			"[root@gpu01 ~]# ethtool -S ens3np0\nNIC statistics:\n     rx_packets_phy: 1000\n     link_down_events_phy: " + d0 + "\n" +
			"[root@gpu01 ~]# ethtool -S ens3np0\nNIC statistics:\n     rx_packets_phy: 2000\n     link_down_events_phy: " + d1 + "\n"
	}
	nicMustFind(t, diagnoseText(t, pair("1", "2")).Findings, "counters.phy.link_down", Warn, "ens3np0: the link went down 1 time (link_down_events_phy 1)")
	nicMustFind(t, diagnoseText(t, pair("1", "4")).Findings, "counters.phy.link_down", Error, "ens3np0: the link went down 3 times")
	nicMustNot(t, diagnoseText(t, pair("1", "1")).Findings, "counters.phy.link_down")
	single := "[root@gpu01 ~]# ethtool -S ens3np0\nNIC statistics:\n     rx_packets_phy: 2000\n     link_down_events_phy: 1\n"
	nicMustFind(t, diagnoseText(t, single).Findings, "counters.phy.link_down", Info, "ens3np0: the link went down 1 time")
}

// mlx5 counts the port's IEEE 802.3 symbol errors during carrier as
// rx_symbol_err_phy and, per receive lane, the bits in error before FEC
// corrected them as rx_err_lane_N_phy (counters.rst: "raw errors before
// FEC"). The real dump of a ConnectX-6 Dx whose third-party LR4 module the
// port would not power (testdata/corpus/ethtool/
// ethtool-s-grep-err-mlx5-cx6dx-*) has 13 M of each, alike on all four
// lanes. The FCS finding carries the symbol errors (no second finding for
// the same bits); with no lane holding half the errors it points at what
// the lanes share, says that the lane counts show FEC at work (no "FEC
// off" cause) and that mlx5 prints lanes 0-3 only.
func TestMlx5SymbolErrorsAndLanes(t *testing.T) {
	fs := nicDiagnose(t, Options{}, "corpus/ethtool/ethtool-s-grep-err-mlx5-cx6dx-crc-symbol-err-all-4-lanes-power-budget-vyos-notes.txt")
	f := nicMustFind(t, fs, "counters.phy.fcs", Warn, "eth5", "13147323 frames received with a bad FCS")
	if !evidenceHas(f, "rx_symbol_err_phy: 13115284") || !evidenceHas(f, "rx_err_lane_3_phy: 13115284") {
		t.Errorf("the symbol and lane errors are not in the evidence: %+v", f.Evidence)
	}
	for _, want := range []string{"13115284 symbol errors during carrier as well (rx_symbol_err_phy)", "bits in error before FEC corrected them",
		"No lane holds half of them", "the duplex connector", "the far end's transmitter", "mlx5 prints lanes 0-3 only"} {
		if !strings.Contains(f.Mechanism, want) {
			t.Errorf("mechanism lacks %q: %s", want, f.Mechanism)
		}
	}
	if strings.Contains(f.Mechanism, "FEC off") || strings.Contains(f.Fix, "rx_symbol_err_phy (pre-FEC") {
		t.Errorf("FEC blamed beside lanes FEC corrected, or the symbol errors called pre-FEC: %s / %s", f.Mechanism, f.Fix)
	}
	if got := nicFind(fs, "counters.phy.symbol_errors"); len(got) > 0 {
		t.Errorf("the same bits reported twice: %s", got[0].Title)
	}
}

// A dump a person annotated, "rx_crc_errors_phy: 386  # <note>" on every
// line (the real mlx5 dump of testdata/corpus/ethtool/ethtool-s-mlx5-
// annotated-zh-*, from Chinese notes), was no input rocelab read. Its
// lanes 0 (28116) and 3 (17722623) sum to rx_corrected_bits_phy: lane 3
// holds nearly all, which the finding names by its share, not "lanes 0
// and 3"; its fix says where that lane's receive path is on wavelength
// and on parallel optics.
func TestAnnotatedEthtoolDump(t *testing.T) {
	fs := nicDiagnose(t, Options{}, "corpus/ethtool/ethtool-s-mlx5-annotated-zh-crc-386-symbol-err-lanes-0-3-phy-excerpt-notes.txt")
	f := nicMustFind(t, fs, "counters.phy.fcs", Warn, "386 frames received with a bad FCS", "0.00257% of rx_packets_phy")
	for _, want := range []string{"(rx_err_lane_0_phy 28116, rx_err_lane_3_phy 17722623", "Lane 3 holds 99.8% of them", "mlx5 prints lanes 0-3 only"} {
		if !strings.Contains(f.Mechanism, want) {
			t.Errorf("mechanism lacks %q: %s", want, f.Mechanism)
		}
	}
	for _, want := range []string{"lane 3's receive path", "one wavelength's receiver", "that lane's own fibre or pair"} {
		if !strings.Contains(f.Fix, want) {
			t.Errorf("fix lacks %q: %s", want, f.Fix)
		}
	}
	if strings.Contains(f.Mechanism, "lanes 0 and 3") {
		t.Errorf("lane 0's 0.16%% named beside lane 3: %s", f.Mechanism)
	}
}

// A "# note" is cut only inside a dump opened by "NIC statistics:" or an
// `ethtool -S` command: a file of commented "name: value" lines with no
// such opening (alert thresholds, SYNTHETIC) stays unrecognized, as it was
// before annotated dumps were read, and no rule judges its numbers.
func TestCommentedCounterLinesOutsideDump(t *testing.T) {
	alerts := []string{"rx_crc_errors_phy: 100  # page when above", "rx_symbol_err_phy: 50  # page when above", "rx_err_lane_0_phy: 1000  # warn"}
	fs := synthFindings(t, Options{}, alerts...)
	if got := nicFind(fs, "counters.phy.fcs"); len(got) > 0 {
		t.Errorf("alert thresholds read as counters: %s", got[0].Title)
	}
	if nicFind(fs, "input.unrecognized") == nil {
		t.Errorf("want input.unrecognized, got %v", ids(fs))
	}
	headed := append([]string{"$ ethtool -S eth5", "NIC statistics:"}, alerts...)
	nicMustFind(t, synthFindings(t, Options{}, headed...), "counters.phy.fcs", Warn, "eth5: 100 frames received with a bad FCS")
}

// mlx5 counts the symbol errors FEC did not correct as
// rx_pcs_symbol_err_phy ("traffic is lost", the kernel's mlx5
// counters.rst), the counter a paste grepped for FEC keeps without
// rx_symbol_err_phy. Before, a SYNTHETIC `grep -E 'pcs|correc'` paste with
// 17 of them gave no finding.
func TestMlx5PCSSymbolErrorsGrep(t *testing.T) {
	fs := synthFindings(t, Options{},
		"$ ethtool -S eth2 | grep -E 'pcs|correc'",
		"     rx_pcs_symbol_err_phy: 17",
		"     rx_corrected_bits_phy: 88123")
	nicMustFind(t, fs, "counters.phy.symbol_errors", Warn, "eth2: 17 symbol errors during carrier (rx_pcs_symbol_err_phy)")
}

// Bits FEC corrected, however many, lose nothing: Dell's article on two
// ConnectX-6 Dx PAM4 ports (testdata/corpus/ethtool/ethtool-s-grep-correc-
// mlx5-cx6dx-*, 153303800 and 191025837 corrected bits on lanes 0 and 1)
// calls them normal with RS-FEC, and the real pastes give no finding.
func TestMlx5CorrectedBitsOnlyNormal(t *testing.T) {
	fs := nicDiagnose(t, Options{}, "corpus/ethtool/ethtool-s-grep-correc-mlx5-cx6dx-pam4-corrected-bits-lanes-0-1-normal-dellkb.txt")
	for _, f := range fs {
		t.Errorf("finding on corrected bits alone: %s %s: %s", f.Severity, f.ID, f.Title)
	}
}

// mlx5's rx_pcs_symbol_err_phy counts the symbol errors FEC left, not the
// IEEE SymbolErrorDuringCarrier (its rx_symbol_err_phy): a grep of the
// first at 0 beside `--groups eth-phy` at 500 is no driver view of the
// standard count, which is still reported. Before, the grep's
// rx_pcs_symbol_err_phy hid it. SYNTHETIC lines.
func TestMlx5PCSSymbolErrorsHideNoStandard(t *testing.T) {
	fs := synthFindings(t, Options{},
		"$ ethtool -S eth2 | grep -E 'pcs|correc'",
		"     rx_pcs_symbol_err_phy: 0",
		"     rx_corrected_bits_phy: 88123",
		"$ ethtool -S eth2 --groups eth-phy",
		"Standard stats for eth2:",
		"eth-phy-SymbolErrorDuringCarrier: 500")
	nicMustFind(t, fs, "counters.phy.symbol_errors", Warn, "eth2: 500 symbol errors during carrier (eth-phy-SymbolErrorDuringCarrier)")
}
