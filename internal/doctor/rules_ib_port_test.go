package doctor

import (
	"strings"
	"testing"
)

// Physical errors on an InfiniBand link that also went down are the cable
// or transceiver: an error in a before/after pair, a warn in one dump; a
// counter saturated in both dumps of a pair differs by zero and is said
// to count nothing; VL15_dropped alone is information.
func TestIBPortErrorsCableAndSaturation(t *testing.T) {
	dump := func(vals ...string) string {
		names := []string{"symbol_error", "link_downed", "port_rcv_errors", "port_xmit_discards", "VL15_dropped"}
		var b strings.Builder
		for i, n := range names {
			b.WriteString("/sys/class/infiniband/mlx5_3/ports/1/counters/" + n + ":" + vals[i] + "\n")
		}
		return b.String()
	}
	head := "# synthetic: grep -H . of one InfiniBand port's counters, before and after a job\n"
	fs := diagnoseText(t, head+dump("10", "1", "0", "0", "0")+dump("1510", "3", "287", "0", "0")).Findings
	f := nicMustFind(t, fs, "counters.ib.port_errors", Error, "mlx5_3 port 1: InfiniBand port error counters: symbol_error 1500, port_rcv_errors 287")
	if !strings.Contains(f.Mechanism, "link_downed 2") || !strings.Contains(f.Mechanism, "the cable or the transceiver") || !strings.Contains(f.Fix, "mlxlink -d mlx5_3 -p 1 -c -e") {
		t.Errorf("mechanism %s\nfix %s", f.Mechanism, f.Fix)
	}
	fs = diagnoseText(t, head+dump("1510", "3", "287", "0", "0")).Findings
	nicMustFind(t, fs, "counters.ib.port_errors", Warn, "symbol_error 1510, port_rcv_errors 287")
	fs = diagnoseText(t, head+dump("0", "0", "0", "65535", "0")+dump("0", "0", "0", "65535", "0")).Findings
	f = nicMustFind(t, fs, "counters.ib.port_errors", Warn, "port_xmit_discards stuck at 65535 (its 16-bit maximum: the window is not counted)")
	if strings.Contains(f.Fix, "mlxlink") || !strings.Contains(f.Mechanism, "differs by zero") {
		t.Errorf("mechanism %s\nfix %s", f.Mechanism, f.Fix)
	}
	nicMustFind(t, diagnoseText(t, head+dump("0", "0", "0", "0", "4")).Findings, "counters.ib.port_errors", Info, "VL15_dropped 4")
	// VL15_dropped at its 16-bit maximum, as a long-running host's port
	// may show, is still only subnet management packets.
	nicMustFind(t, diagnoseText(t, head+dump("0", "0", "0", "0", "65535")).Findings, "counters.ib.port_errors", Info, "VL15_dropped at least 65535 (its 16-bit maximum)")
	nicMustNot(t, diagnoseText(t, head+dump("0", "0", "0", "0", "0")).Findings, "counters.ib.port_errors")
}

// perfquery's legacy PortCounters stop at their IBTA widths; its extended
// counters are 64 bits wide, so the same value there is a count, not a
// maximum. The fix addresses the port by the LID perfquery printed.
func TestIBPortErrorsPerfqueryWidths(t *testing.T) {
	sec := func(head, sym string) string {
		return head + "\nPortSelect:......................1\nCounterSelect:...................0x0000\nSymbolErrorCounter:.............." + sym + "\nLinkDownedCounter:...............0\nLocalLinkIntegrityErrors:........15\n"
	}
	synth := "# synthetic: perfquery of one port\n"
	fs := diagnoseText(t, synth+sec("# Port counters: Lid 7 port 1 (CapMask: 0x1600)", "65535")).Findings
	f := nicMustFind(t, fs, "counters.ib.port_errors", Warn, "LID 7 port 1: InfiniBand port error counters: symbol_error at least 65535 (its 16-bit maximum), local_link_integrity_errors at least 15 (its 4-bit maximum)")
	if !strings.Contains(f.Fix, "`perfquery -x 7 1`") || !strings.Contains(f.Fix, "mlxlink -d <dev> -p 1") {
		t.Errorf("fix %s", f.Fix)
	}
	fs = diagnoseText(t, synth+sec("# Port extended counters: Lid 7 port 1 (CapMask: 0x1600 CapMask2: 0x0000000)", "65535")).Findings
	f = nicMustFind(t, fs, "counters.ib.port_errors", Info, "LID 7 port 1: InfiniBand port error counters: symbol_error 65535, local_link_integrity_errors 15")
	if strings.Contains(f.Title, "maximum") {
		t.Errorf("title %s", f.Title)
	}
	// ibqueryerrors of openucx/ucx#9590: discards on a port that went down.
	fs = diagnoseFiles(t, Options{}, "corpus/perfquery/ibqueryerrors-port-all-link-downed-xmit-discards-ucx9590.txt")
	f = nicMustFind(t, fs, "counters.ib.port_errors", Warn, "GUID 0x1070fd0300370ea2 port 255: InfiniBand port error counters: port_rcv_errors 26, port_xmit_discards 2846")
	if !strings.Contains(f.Mechanism, "link_downed 25") || !strings.Contains(f.Fix, "`perfquery -x -G 0x1070fd0300370ea2 255`") {
		t.Errorf("mechanism %s\nfix %s", f.Mechanism, f.Fix)
	}
	// A garbled counter is named with file:line:col.
	fs = diagnoseText(t, synth+sec("# Port counters: Lid 7 port 1 (CapMask: 0x1600)", "1e3")).Findings
	nicMustFind(t, fs, "input.garbled", Warn, ":5:34: expected a decimal counter value, got \"1e3\"")
}

// perfquery -x's link_downed is 64 bits wide: 255 there is a count.
func TestLinkDownPerfqueryExtendedNotSaturated(t *testing.T) {
	in := "# synthetic: perfquery -x of one port\n# Port extended counters: Lid 7 port 1 (CapMask: 0x1600 CapMask2: 0x0000000)\nPortSelect:......................1\nLinkDownedCounter:...............255\n"
	f := nicMustFind(t, diagnoseText(t, in).Findings, "counters.phy.link_down", Warn, "LID 7 port 1: the link went down 255 times (link_downed 255)")
	if strings.Contains(f.Mechanism, "maximum") || !strings.Contains(f.Fix, "ethtool -m <if>") {
		t.Errorf("mechanism %s\nfix %s", f.Mechanism, f.Fix)
	}
	in = strings.Replace(in, "# Port extended counters", "# Port counters", 1)
	nicMustFind(t, diagnoseText(t, in).Findings, "counters.phy.link_down", Warn, "the link went down at least 255 times (link_downed 255, the counter's maximum)")
}

// A shell loop over an InfiniBand port's counters directory
// (leptonai/gpud#943) was in no format rocelab recognises; its
// link_downed 255 is the 8-bit counter's maximum: the link went down at
// least 255 times, a flapping link, not the boot's one link-up.
func TestIBPortCountersLoopLinkDownedSaturated(t *testing.T) {
	rel := "corpus/hwcounters/ib-port-counters-shell-loop-banners-link-downed-255-saturated-gpud943.txt"
	rep := Diagnose([]string{nicTestdata(rel)}, nil, Options{})
	if len(rep.Inputs) != 1 || rep.Inputs[0].Type != "hw-counters" {
		t.Fatalf("inputs %+v", rep.Inputs)
	}
	f := nicMustFind(t, rep.Findings, "counters.phy.link_down", Warn, "mlx5_1 port 1: the link went down at least 255 times (link_downed 255, the counter's maximum)")
	if len(f.Evidence) != 1 || f.Evidence[0].Line != 53 || !strings.Contains(f.Mechanism, "8-bit counter's maximum") {
		t.Errorf("evidence %+v mechanism %s", f.Evidence, f.Mechanism)
	}
}

// The same dump's port_xmit_discards 65535 and
// excessive_buffer_overrun_errors 15 are their 16- and 4-bit counters'
// maximums: before, nothing was said of either. No physical counter
// moved, so the link's flaps are not blamed on its bits.
func TestIBPortErrorCountersSaturated(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/hwcounters/ib-port-counters-shell-loop-banners-link-downed-255-saturated-gpud943.txt")
	f := nicMustFind(t, fs, "counters.ib.port_errors", Warn, "mlx5_1 port 1: InfiniBand port error counters: port_xmit_discards at least 65535 (its 16-bit maximum), excessive_buffer_overrun_errors at least 15 (its 4-bit maximum)")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 44 || f.Evidence[1].Line != 59 {
		t.Errorf("evidence %+v", f.Evidence)
	}
	if !strings.Contains(f.Mechanism, "what was queued while it was down") || strings.Contains(f.Mechanism, "cable or the transceiver") {
		t.Errorf("mechanism %s", f.Mechanism)
	}
	if !strings.Contains(f.Fix, "perfquery -R -C mlx5_1 -P 1") || strings.Contains(f.Fix, "mlxlink") {
		t.Errorf("fix %s", f.Fix)
	}
	nicMustFind(t, fs, "counters.phy.link_down", Warn)
}
