package doctor

import (
	"strings"
	"testing"
)

// Artifacts of the twenty-third sweep.

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
