package doctor

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"rocelab/internal/ingest"
)

// Rules over the switch's PFC watchdog (SONiC `show pfcwd stats` and
// `show pfcwd config`, IOS XR's watchdog rows): queues in a pause storm,
// lossless queues it does not watch, and its configuration.

// vrpDeadlockWords words a watchdog's storm state as Huawei CloudEngine's
// deadlock detection counts it (DeadlockNum, RecoveryNum).
var vrpDeadlockWords = strings.NewReplacer("a storm", "a deadlock", "storms", "deadlocks", "restored", "recovered")

// vrpDeadlockRecovery is what CloudEngine does with a queue in a deadlock,
// as the CloudEngine 6800 V300R023C00 command reference's `dcb pfc deadlock
// recovery-behavior` gives it: not the watchdog's drop on every model.
const vrpDeadlockRecovery = "For its recovery period the switch then ignores PFC on that queue and, by each model's default, forwards its packets (CE6855-48XS8CQ, CE6863E-48S8CQ, CE6885 series, CE8851-32CQ4BQ, CE8855: they may then be dropped downstream, where the buffer is full) or discards them (CE6860, CE6866, CE8850 series, CE8851K, CE8851-32CQ8DQ-P); `dcb pfc deadlock recovery-behavior` sets which. Either way PFC does not protect this priority meanwhile: a RoCE packet lost is resent by RC only after its timeout."

// checkWatchdog reports queues the PFC watchdog found in a pause storm.
func checkWatchdog(inc *Incident) []Finding {
	var fs []Finding
	for _, s := range All[*ingest.SwitchCounters](inc) {
		for _, w := range s.WD {
			stormed := strings.EqualFold(w.Status, "stormed")
			if !stormed && w.Detected == 0 || !w.Running() {
				// A watchdog that does not run (N/A) is in no storm now;
				// switch.pfcwd.stopped reports it.
				continue
			}
			sev := Warn
			state := fmt.Sprintf("%d storms detected, %d restored", w.Detected, w.Restored)
			// STATUS is the queue's state now; the counts only stand in for
			// it when the status is neither (a detection past the
			// restorations while "operational" is a count the watchdog
			// lost, not a storm).
			if stormed || w.Detected > w.Restored && !strings.EqualFold(w.Status, "operational") {
				sev = Error
				state = "in a storm now (" + state + ")"
			}
			name := fmt.Sprintf("%s queue %d", swName(s, w.Port), w.Queue)
			detect := "for its detection time (200 ms by default)"
			fix := fmt.Sprintf("Find the device on %s (LLDP: `show lldp table`): check its NIC for tx_pause_storm_* events and rx_prioN_pause_duration, the host for hangs (dmesg, a stuck process holding the RDMA receive queue), and the fabric for a cyclic buffer dependency. `show pfcwd config` shows the action and times; `show pfc counters` which ports send pause.", w.Port)
			if c, ok := platformOf(w.Platform); ok {
				detect = "for its detection time (" + string(w.Platform) + ": " + c.wdDetect + ")"
				fix = "Find the device on " + w.Port + " (LLDP: " + c.neighbors + "): check its NIC for tx_pause_storm_* events and rx_prioN_pause_duration, the host for hangs (dmesg, a stuck process holding the RDMA receive queue), and the fabric for a cyclic buffer dependency. " + onPort(c.watchdog, w.Port) + " shows " + c.wdShows + "; " + onPort(c.wdConfig, w.Port) + " sets its times."
			}
			title := fmt.Sprintf("%s: PFC watchdog: %s; dropped TX %d, RX %d", name, state, w.TxDrop, w.RxDrop)
			mech := "The PFC watchdog declares a storm when a lossless queue stays paused " + detect + " while PFC frames keep arriving: the device downstream sends pause and never resumes (a stuck NIC or host, a pause storm, or a PFC deadlock). With the default action `drop` the switch then ignores the pause and drops that queue's traffic (TX OK/DROP) and what arrives for it (RX OK/DROP), so RoCE on this priority is no longer lossless and RC recovers by timeouts. " +
				"Storms restored are past episodes; a count of detections above restorations is a storm now."
			if w.Platform == ingest.HuaweiVRP {
				// `display dcb pfc` counts deadlocks and recoveries, not
				// the packets dropped meanwhile.
				title = fmt.Sprintf("%s: PFC deadlock detection: %s", name, vrpDeadlockWords.Replace(state))
				mech = "CloudEngine's PFC deadlock detection counts a deadlock when a queue PFC protects stays paused " + detect + " while PFC frames keep arriving: the device downstream sends pause and never resumes (a stuck NIC or host, a pause storm, or a cyclic buffer dependency). " + vrpDeadlockRecovery + " " +
					"Deadlocks recovered from are past episodes; a count of deadlocks above recoveries is one now."
			}
			fs = append(fs, Finding{
				ID: "switch.pfcwd.storm", Severity: sev, Layer: LayerFabric,
				Title:     title,
				Evidence:  []Evidence{w.Evidence},
				Mechanism: mech,
				Fix:       fix,
			}.per(name, "queue", "PFC watchdog storms"))
		}
	}
	return fs
}

// checkWatchdogStopped reports lossless queues on which `show pfcwd stats`
// shows the watchdog not running (status N/A): a pause storm or deadlock
// there is never broken.
func checkWatchdogStopped(inc *Incident) []Finding {
	lossless, from := switchLossless(inc)
	var fs []Finding
	for _, s := range All[*ingest.SwitchCounters](inc) {
		var ports []string
		var ev []Evidence
		queues := map[int]bool{}
		running := 0
		for _, w := range s.WD {
			if w.Running() {
				running++
				continue
			}
			if !hasPrio(lossless, w.Queue) {
				continue
			}
			queues[w.Queue] = true
			if !slices.Contains(ports, w.Port) {
				ports = append(ports, w.Port)
			}
			if len(ev) < 4 {
				ev = append(ev, w.Evidence)
			}
		}
		if len(ports) == 0 {
			continue
		}
		var qs []int
		for q := range queues {
			qs = append(qs, q)
		}
		sort.Ints(qs)
		also := ""
		if running > 0 {
			also = fmt.Sprintf("; it runs on %d other queues", running)
		}
		name := nameOr(s.Switch, s.Source())
		fs = append(fs, Finding{
			ID: "switch.pfcwd.stopped", Severity: Warn, Layer: LayerFabric,
			Title:     fmt.Sprintf("%s: PFC watchdog not running (status N/A) on lossless queue %s of %d ports (%s)%s", name, prioList(qs), len(ports), list(ports, 4), also),
			Evidence:  ev,
			Mechanism: fmt.Sprintf("`show pfcwd stats` prints N/A where no watchdog runs on a queue: it was stopped (`pfcwd stop`), never started (DEVICE_METADATA default_pfcwd_status not \"enable\", so `pfcwd start_default` did nothing), or the port has no PFC_WD entry. Queues %s are lossless (%s): a NIC stuck sending pause or a PFC deadlock then freezes them, and every queue upstream, indefinitely. The storm and drop counters beside N/A are left from an earlier run and say nothing now.", prioList(qs), from),
			Fix:       "`pfcwd start_default` (after `config pfcwd start_default` / default_pfcwd_status enable), or `pfcwd start --action drop ports all detection-time 200 --restoration-time 200`; check with `show pfcwd config` and `show pfcwd stats` (status operational).",
		}.per(name, "switch", "PFC watchdog not running"))
	}
	return fs
}

// checkWatchdogConfig judges `show pfcwd config` times against SONiC's
// limits (JudgeWatchdogTimes, shared with lint).
func checkWatchdogConfig(inc *Incident) []Finding {
	var fs []Finding
	for _, s := range All[*ingest.SwitchCounters](inc) {
		for _, c := range s.WDConfig {
			fs = append(fs, JudgeWatchdogTimes(swName(s, c.Port), c.Detection, c.Restoration, []Evidence{c.Evidence})...)
		}
		for _, b := range s.BigRedSwitch {
			if b.Status != "enable" {
				continue
			}
			where := "show pfcwd config"
			if b.Namespace != "" {
				where += " " + b.Namespace
			}
			fs = append(fs, JudgeBigRedSwitch(swName(s, where), "every port with PFC", b.Evidence))
		}
	}
	return fs
}
