package doctor

import (
	"strings"
	"testing"
)

// A priority-group watermark table without its title line
// (sonic-utilities#2568) may be the headroom or the shared watermark: a
// nonzero lossless PG is judged as the titled table's would be, with the
// ambiguity said (information), and a warning when the port dropped
// (headroom exhausted, if headroom). It was read and judged nothing.
// SYNTHETIC, in the formats of SONiC's priority-group watermark and drop tables.
func TestUntitledPGWatermarkJudged(t *testing.T) {
	table := []string{
		"     Port    PG0    PG3    PG4",
		"---------  -----  -----  -----",
		"Ethernet8      0  51200      0",
	}
	drops := []string{
		"",
		"Ingress PG dropped packets:",
		"     Port    PG0    PG3    PG4",
		"---------  -----  -----  -----",
		"Ethernet8      0    117      0",
	}
	fs := synthFindings(t, Options{}, table...)
	f := nicMustFind(t, fs, "switch.headroom.exhausted", Info, "Ethernet8 PG3", "peak 50KiB", "without its title", "headroom (PFC fired) or shared buffer")
	if !strings.Contains(f.Mechanism, "sonic-utilities#2568") || !strings.Contains(f.Fix, "show priority-group watermark headroom") {
		t.Errorf("mechanism %q\nfix %q", f.Mechanism, f.Fix)
	}
	if n := countID(fs, "switch.headroom.exhausted"); n != 1 {
		t.Errorf("%d findings, want PG3 alone (PG0 and PG4 hold 0 or are lossy): %s", n, nicTitles(fs))
	}
	fs = synthFindings(t, Options{}, append(append([]string{}, table...), drops...)...)
	nicMustFind(t, fs, "switch.headroom.exhausted", Warn, "Ethernet8 PG3", "the port dropped", "if it is the headroom watermark")
	// The titled tables are judged as before: used, exhausted; and the
	// shared one not at all.
	fs = synthFindings(t, Options{}, append([]string{"Ingress headroom per PG:"}, table...)...)
	nicMustFind(t, fs, "switch.headroom.exhausted", Info, "Ethernet8 PG3: PFC headroom used, peak 50KiB")
	fs = synthFindings(t, Options{}, append(append([]string{"Ingress headroom per PG:"}, table...), drops...)...)
	nicMustFind(t, fs, "switch.headroom.exhausted", Error, "PFC headroom exhausted")
	fs = synthFindings(t, Options{}, append([]string{"Ingress shared pool occupancy per PG:"}, table...)...)
	nicMustNot(t, fs, "switch.headroom.exhausted")
}
