package doctor

import (
	"strings"
	"testing"
)

// SYNTHETIC Comware block: CRC errors are the link's, the output drops
// the port's egress drops.
func TestComwareDisplayInterfaceErrors(t *testing.T) {
	rep := diagnoseText(t, strings.Join([]string{
		"HundredGigE1/0/1",
		"Current state: UP",
		" Input (total):  100000000 packets, 90000000000 bytes",
		"         99000000 unicasts, 0 broadcasts, 0 multicasts, 0 pauses",
		" Input:  1200 input errors, 0 runts, 0 giants, - throttles",
		"         1200 CRC, - frame, 0 overruns, - aborts",
		" Output (total): 200000000 packets, 180000000000 bytes",
		" Output: 0 output errors, - underruns, - buffer failures",
		" Output: 200000000 packets, 180000000000 bytes, 30000 drops",
	}, "\n")+"\n")
	nicMustFind(t, rep.Findings, "switch.link.errors", Warn, "HundredGigE1/0/1")
	nicMustFind(t, rep.Findings, "switch.queue.drops", Warn, "HundredGigE1/0/1")
}
