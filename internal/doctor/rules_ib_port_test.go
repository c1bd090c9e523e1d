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
