package doctor

import "fmt"

// SONiC's PFC watchdog limits (sonic-swss orchagent pfcwdorch.h; the
// sonic-pfcwd YANG model): detection 100–5000 ms, restoration 100–60000 ms.
const (
	WatchdogDetectMin, WatchdogDetectMax   = 100, 5000
	WatchdogRestoreMin, WatchdogRestoreMax = 100, 60000
)

// JudgeWatchdogTimes returns pfc.watchdog.range for watchdog times outside
// SONiC's limits (-1: not given), for both front ends: the doctor on `show
// pfcwd config`, lint on PFC_WD rows.
func JudgeWatchdogTimes(subject string, detection, restoration int64, ev []Evidence) []Finding {
	if (detection < 0 || detection >= WatchdogDetectMin && detection <= WatchdogDetectMax) &&
		(restoration < 0 || restoration >= WatchdogRestoreMin && restoration <= WatchdogRestoreMax) {
		return nil
	}
	return []Finding{Finding{
		ID: "pfc.watchdog.range", Severity: Error, Layer: LayerFabric,
		Title:     fmt.Sprintf("%s: PFC watchdog detection %d ms / restoration %d ms outside SONiC's limits (%d–%d / %d–%d ms)", subject, detection, restoration, WatchdogDetectMin, WatchdogDetectMax, WatchdogRestoreMin, WatchdogRestoreMax),
		Evidence:  evidenceInOrder(ev),
		Mechanism: "orchagent refuses watchdog times outside these limits, so the port runs without a watchdog.",
		Fix:       "detection_time 200, restoration_time 200 (the SONiC defaults).",
	}.per(subject, "port", "PFC watchdog times out of range")}
}

// JudgeBigRedSwitch returns pfc.watchdog.big_red_switch for the PFC
// watchdog's emergency mode left on (subject: where it is set; on: which
// ports it holds), for both front ends: lint on PFC_WD|GLOBAL
// BIG_RED_SWITCH, the doctor on `show pfcwd config`'s "BIG_RED_SWITCH
// status is enable". orchagent then stops detecting storms and puts every
// lossless queue in the storm action at once (sonic-swss pfcwdsworch.cpp,
// enableBigRedSwitchMode).
func JudgeBigRedSwitch(subject, on string, ev Evidence) Finding {
	return Finding{
		ID: "pfc.watchdog.big_red_switch", Severity: Error, Layer: LayerFabric,
		Title:    fmt.Sprintf("%s: BIG_RED_SWITCH is enable: the PFC watchdog's emergency mode holds every lossless queue in its storm action on %s", subject, on),
		Subject:  subject,
		Evidence: []Evidence{ev},
		Mechanism: "Big red switch mode is the PFC watchdog's fabric-wide emergency stop: orchagent stops detecting storms and applies the storm action to every lossless queue of every port at once, as if each were stormed. With the default action drop, those queues ignore the pause frames they receive and drop what they hold; with forward, they ignore pauses and send on. " +
			"Either way RoCE's class is no longer lossless anywhere on the switch, for as long as the mode stays on: RC recovers each loss by go-back-N and ACK timeouts.",
		Fix: "`pfcwd big_red_switch disable` (or BIG_RED_SWITCH disable in PFC_WD|GLOBAL) once the storm it was switched on for is over; find the storm's source with `show pfcwd stats` and `show pfc counters` first.",
	}
}
