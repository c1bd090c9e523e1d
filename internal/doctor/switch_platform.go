package doctor

import (
	"strings"

	"rocelab/internal/ingest"
)

// platformCmds are the counter names and commands a switch finding's
// text gives on one switch OS (ingest.Platform), for the records whose
// reader marks them so: a fix names the commands of the switch the
// evidence came from. PORT in a command stands for the port.
type platformCmds struct {
	// rxDrop, txDrop, rxErr, rxOK and txOK are the port counters' names.
	rxDrop, txDrop, rxErr, rxOK, txOK string
	// clear clears the port's counters, show shows them again.
	clear, show string
	// fec shows the port's FEC codewords and its FEC mode.
	fec string
	// optics shows the optic's power.
	optics string
	// pfc shows the PFC frames per priority.
	pfc string
	// queues splits the port's egress drops by queue; rxReasons its
	// ingress drops by reason.
	queues, rxReasons string
	// headroom is where a lossless priority's headroom is set.
	headroom string
	// watchdog shows the PFC watchdog's (or deadlock detection's) state
	// and counters, wdShows what it shows; wdConfig is how it is
	// configured, wdDetect how long a queue stays paused before it acts.
	watchdog, wdShows, wdConfig, wdDetect string
	// neighbors names the device on a port.
	neighbors string
	// fecUncorr names the uncorrectable codewords' counter.
	fecUncorr string
	// linkPause says what the interface's pause counter counts, and
	// which command splits it by priority.
	linkPause string
}

// switchPlatforms are the commands of each switch OS marked by its reader.
var switchPlatforms = map[ingest.Platform]platformCmds{
	ingest.IOSXR: {
		rxDrop: "total input drops", txDrop: "total output drops", rxErr: "input errors", rxOK: "packets input", txOK: "packets output",
		clear:     "`clear interface PORT`",
		show:      "`show interfaces PORT`",
		fec:       "`show controllers PORT`",
		optics:    "`show controllers optics LOC`",
		pfc:       "`show controllers PORT priority-flow-control`",
		queues:    "`show qos interface PORT output`",
		rxReasons: "`show drops all location all`",
		headroom:  "the pause threshold and headroom of the CoS (`hw-module profile priority-flow-control`)",
		watchdog:  "`show controllers PORT priority-flow-control`",
		wdShows:   "the watchdog's events, drops and state per traffic class and the PFC frames per CoS",
		wdDetect:  "the poll interval times the shutdown multiplier, 100 ms × 1 by default",
		wdConfig:  "`priority-flow-control watchdog` (mode on, interval, shutdown-multiplier, auto-restore-multiplier; global or under the interface)",
		neighbors: "`show lldp neighbors`",
		fecUncorr: "Uncorrected Codeword Count",
	},
	ingest.Comware: {
		rxDrop: "Input drops", txDrop: "Output drops", rxErr: "input errors", rxOK: "Input (total) packets", txOK: "Output (total) packets",
		clear:     "`reset counters interface PORT`",
		show:      "`display interface PORT`",
		optics:    "`display transceiver diagnosis interface PORT`",
		pfc:       "`display priority-flow-control interface PORT`",
		queues:    "`display qos queue-statistics interface PORT outbound`",
		rxReasons: "`display packet-drop interface PORT`",
		headroom:  "the priority's headroom (`priority-flow-control dot1p N headroom`)",
		watchdog:  "`display priority-flow-control interface PORT`",
		wdShows:   "the PFC frames per priority and the port's deadlock state",
		wdDetect:  "the deadlock detection interval of the CoS (`priority-flow-control deadlock cos N interval T`)",
		wdConfig:  "`priority-flow-control deadlock enable` on the port, with `priority-flow-control deadlock cos N interval T` and `priority-flow-control deadlock auto-recover cos N delay T`",
		neighbors: "`display lldp neighbor-information list`",
		linkPause: " The count is the pauses of Comware `display interface`: one count of the pause frames over every priority, which does not tell PFC from 802.3x pause. `display priority-flow-control interface PORT` counts the PFC frames per priority (Recv, Send), so pauses beyond their sum are 802.3x pause (the port's `flow-control`), which stops every queue of the link.",
	},
	// Huawei's commands as the CloudEngine 6800 V300R023C00 command
	// reference gives them (the DCB ones on the CE6855, CE6860, CE6863E,
	// CE6866, CE6885, CE8850, CE8851 and CE8855 only).
	ingest.HuaweiVRP: {
		rxDrop: "Input Discard", txDrop: "Output Discard", rxErr: "Input Total Error", rxOK: "Input packets", txOK: "Output packets",
		clear:     "`reset interface counters PORT` (`reset counters interface PORT` in some releases)",
		show:      "`display interface PORT`",
		optics:    "`display interface PORT transceiver verbose`",
		pfc:       "`display dcb pfc interface PORT`",
		queues:    "`display qos queue statistics interface PORT`",
		rxReasons: "`display qos buffer ingress-statistics interface PORT` (the packets the ingress buffer dropped, on the models that count them per interface)",
		headroom:  "the queue's headroom buffer (`dcb pfc buffer N hdrm VALUE kbytes` in the port's interface view, on the models that have it; `display dcb pfc buffer interface PORT` shows the thresholds in effect)",
		watchdog:  "`display dcb pfc interface PORT`",
		wdShows:   "the PFC frames each queue received and sent and the PFC deadlocks it detected and recovered from (DeadlockNum, RecoveryNum)",
		wdDetect:  "the hardware deadlock detection period, 100 ms by default",
		wdConfig:  "the DCB PFC profile's `priority N deadlock-detect time T` and `priority N deadlock-recovery time T` (`dcb pfc PROFILE`, in the unit `dcb pfc deadlock-detect interval` sets) or, on other models, the system view's `dcb pfc deadlock-detect timer T` and `dcb pfc deadlock-recovery timer T`",
		neighbors: "`display lldp neighbor brief`",
		linkPause: " The count is the Pause of Huawei VRP `display interface`: one count of the pause frames over every priority, which does not tell PFC from 802.3x pause. `display dcb pfc interface PORT` counts the PFC frames per queue (Received, Transmitted), so pauses beyond their sum are 802.3x pause (the port's `flow-control`), which stops every queue of the link.",
	},
}

// platformOf returns the commands of a switch OS, ok false for one no
// reader marks (SONiC and the OSes with flags of their own).
func platformOf(p ingest.Platform) (platformCmds, bool) {
	c, ok := switchPlatforms[p]
	return c, ok
}

// onPort puts port into a command: PORT, and LOC for IOS XR's location form
// (HundredGigE0/0/0/1 is 0/0/0/1 of `show controllers optics`).
func onPort(cmd, port string) string {
	loc := strings.TrimLeft(port, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-")
	return strings.ReplaceAll(strings.ReplaceAll(cmd, "PORT", port), "LOC", loc)
}
