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
