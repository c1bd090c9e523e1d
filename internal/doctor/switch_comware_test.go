package doctor

import (
	"strings"
	"testing"
)

// SYNTHETIC Comware block: CRC errors are the link's, the output drops
// the port's egress drops, the pauses sent one count of PFC and 802.3x
// pause; each fix names Comware's commands (reset counters interface,
// display ...), none of SONiC's, EOS's or NX-OS's.
func TestComwareDisplayInterfaceErrors(t *testing.T) {
	rep := diagnoseText(t, strings.Join([]string{
		"HundredGigE1/0/1",
		"Current state: UP",
		" Input (total):  100000000 packets, 90000000000 bytes",
		"         99000000 unicasts, 0 broadcasts, 0 multicasts, 0 pauses",
		" Input:  1200 input errors, 0 runts, 0 giants, - throttles",
		"         1200 CRC, - frame, 0 overruns, - aborts",
		" Output (total): 200000000 packets, 180000000000 bytes",
		"         199000000 unicasts, 0 broadcasts, 0 multicasts, 90000 pauses",
		" Output: 0 output errors, - underruns, - buffer failures",
		" Output: 200000000 packets, 180000000000 bytes, 30000 drops",
	}, "\n")+"\n")
	nicMustFind(t, rep.Findings, "switch.link.errors", Warn, "HundredGigE1/0/1")
	nicMustFind(t, rep.Findings, "switch.queue.drops", Warn, "HundredGigE1/0/1: 30000 packets dropped at egress (Output drops; Output (total) packets 200000000)")
	p := nicMustFind(t, rep.Findings, "switch.pfc.tx_pause", Warn, "HundredGigE1/0/1: sent 90000 pause frames")
	if strings.Contains(p.Mechanism, "sends PFC pause") || !strings.Contains(p.Mechanism, "display priority-flow-control interface HundredGigE1/0/1") {
		t.Errorf("pause mechanism %q calls Comware's pauses PFC or names no command that tells them apart", p.Mechanism)
	}
	mustNameOnly(t, rep.Findings, "reset counters interface", "display ")
}
