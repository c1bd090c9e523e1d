package doctor

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"rocelab/internal/ingest"
)

// ECN off on a switch's lossless queue, as its CLI says: `ecnconfig -q`
// (on/off per queue index, read or set) and an `ecnconfig -l` profile
// AZURE_LOSSLESS that does not mark green packets. The same id as lint's
// rule on a config_db whose RoCE queue has no marking WRED profile.

// ecnOnProfile is the profile `ecnconfig -q N on` puts on a queue and the
// only one its query calls on (sonic-utilities scripts/ecnconfig, ON).
const ecnOnProfile = "AZURE_LOSSLESS"

// checkECNOff reports lossless queues whose ECN ecnconfig says is off, and
// an AZURE_LOSSLESS profile that drops instead of marking.
func checkECNOff(inc *Incident) []Finding {
	lossless, from := switchLossless(inc)
	var fs []Finding
	for _, s := range All[*ingest.SwitchCounters](inc) {
		name := nameOr(s.Switch, s.Source())
		for _, q := range latestECNQueues(s.ECNQueues) {
			if q.On || !hasPrio(lossless, q.Queue) {
				continue
			}
			fs = append(fs, ecnQueueOff(inc, s.Switch, name, q, from))
		}
		for _, p := range s.ECN {
			if p.Name != ecnOnProfile || p.ECN == "" || marksGreen(p.ECN) {
				continue
			}
			fs = append(fs, Finding{
				ID: "ecn.disabled", Severity: Warn, Layer: LayerFabric,
				Title:     fmt.Sprintf("%s: WRED profile %s has ecn %s: the lossless queues it is put on drop instead of marking", name, p.Name, p.ECN),
				Evidence:  p.Evidence,
				Mechanism: "SONiC puts " + ecnOnProfile + " on its lossless queues (3 and 4; `ecnconfig -q N on` applies it by this name). Its `ecn` mode says which colours are marked rather than dropped: " + p.ECN + " leaves green out, and RoCE traffic is green unless a policer recolours it, so between the thresholds its packets are dropped (with wred_green_enable) or left to fill the queue until PFC, never marked. DCQCN then gets no CNPs.",
				Fix:       "`ecnconfig -p " + p.Name + " -m ecn_all` (and wred_green_enable true), then check `show queue wredcounters` for EcnMarked/pkts on the lossless queues under load.",
			}.per(name+" "+p.Name, "WRED profile", "ECN off on lossless queues"))
		}
	}
	return fs
}

// marksGreen reports whether a SONiC WRED `ecn` mode marks green packets.
func marksGreen(mode string) bool {
	return mode == "ecn_all" || strings.HasPrefix(mode, "ecn_green")
}

// latestECNQueues keeps the last state each (namespace, queue) has in the
// input: a later `ecnconfig -q 3 on` undoes an earlier off. A change with
// no namespace ran on every ASIC; a later state of one ASIC takes the
// ports it names out of it, or all of it when it names none (ecnconfig's
// query without -vv does not say which ports are that ASIC's).
func latestECNQueues(qs []ingest.ECNQueue) []ingest.ECNQueue {
	type key struct {
		ns string
		q  int
	}
	last := map[key]ingest.ECNQueue{}
	for _, q := range qs {
		if all, ok := last[key{"", q.Queue}]; ok && q.Namespace != "" {
			all.Ports = slices.DeleteFunc(slices.Clone(all.Ports), func(p string) bool { return slices.Contains(q.Ports, p) })
			if len(q.Ports) == 0 || len(all.Ports) == 0 {
				delete(last, key{"", q.Queue})
			} else {
				last[key{"", q.Queue}] = all
			}
		}
		last[key{q.Namespace, q.Queue}] = q
	}
	out := make([]ingest.ECNQueue, 0, len(last))
	for _, q := range last {
		out = append(out, q)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Evidence.Line < out[j].Evidence.Line })
	return out
}

// ecnQueueOff is the finding on one lossless queue ecnconfig calls off.
func ecnQueueOff(inc *Incident, sw, name string, q ingest.ECNQueue, from string) Finding {
	where := "every port"
	if len(q.Ports) > 0 {
		where = fmt.Sprintf("%d ports (%s)", len(q.Ports), list(q.Ports, 3))
	}
	if q.Namespace != "" {
		where += " of " + q.Namespace
	}
	subject := fmt.Sprintf("%s queue %d", name, q.Queue)
	if q.Namespace != "" {
		subject = fmt.Sprintf("%s %s queue %d", name, q.Namespace, q.Queue)
	}
	ev := []Evidence{q.Evidence}
	marks, markEv := ecnMarksOn(inc, sw, q.Namespace, q.Queue)
	misread := fmt.Sprintf("ecnconfig reads the queue on the first port of DEVICE_NEIGHBOR only and calls it on only when its wred_profile is %s: a queue with a marking profile of another name reads off too, and so does every queue on SONiC 202205 and later with ecnconfig before sonic-utilities#2889 (2023), which looked for the old \"[WRED_PROFILE|%s]\" form (sonic-buildimage#11879).", ecnOnProfile, ecnOnProfile)
	f := Finding{ID: "ecn.disabled", Severity: Warn, Layer: LayerFabric}
	if q.Set {
		f.Title = fmt.Sprintf("%s: ECN turned off on lossless queue %d of %s (ecnconfig -q %d off)", name, q.Queue, where, q.Queue)
		f.Mechanism = fmt.Sprintf("`ecnconfig -q %d off` removes the WRED profile from queue %d of every port DEVICE_NEIGHBOR names. Queue %d is lossless (%s): with no profile it is never marked, so the RoCE senders there get no CNPs and DCQCN never slows them; the queue fills until PFC pauses the ports upstream, which spreads the congestion (head-of-line blocking, pause storms).", q.Queue, q.Queue, q.Queue, from)
	} else {
		f.Title = fmt.Sprintf("%s: ECN off on lossless queue %d (ecnconfig -q %d)", name, q.Queue, q.Queue)
		f.Mechanism = fmt.Sprintf("Queue %d is lossless (%s) and `ecnconfig -q` says ECN is off on it: no WRED profile marks it, so the RoCE senders there get no CNPs and DCQCN never slows them; the queue fills until PFC pauses the ports upstream. ", q.Queue, from) + misread
	}
	f.Fix = fmt.Sprintf("`sudo ecnconfig -q %d on` (AZURE_LOSSLESS, or the QUEUE rows' wred_profile in config_db), then check `show queue wredcounters` for EcnMarked/pkts on queue %d under load.", q.Queue, q.Queue)
	if marks > 0 && !q.Set {
		// The queue marks: ecnconfig's answer is the one that is wrong.
		f.Severity = Info
		f.Title = fmt.Sprintf("%s: ecnconfig -q %d says ECN is off, yet queue %d marked %d packets (show queue wredcounters): ECN is on; ecnconfig misread its profile", name, q.Queue, q.Queue, marks)
		f.Mechanism = fmt.Sprintf("`ecnconfig -q %d` calls the queue off, but `show queue wredcounters` counts packets marked Congestion Experienced on it: a WRED profile marks it. ", q.Queue) + misread
		f.Fix = fmt.Sprintf("Nothing for ECN. To see the profile itself: `sonic-db-cli CONFIG_DB hget 'QUEUE|Ethernet0|%d' wred_profile` and `ecnconfig -l`.", q.Queue)
		ev = append(ev, markEv...)
	}
	f.Evidence = evidenceInOrder(ev)
	return f.per(subject, "queue", "ECN off on lossless queues")
}

// ecnMarksOn sums the ECN marks `show queue wredcounters` counted on
// unicast queue q of switch sw (or of a switch no prompt names) in
// namespace ns (or in one nothing names) in the incident, with the rows
// that count them: another ASIC's marks say nothing of this one's queue.
// The ports' rows and the --summary's sums of them count the same marks:
// the larger of the two totals is taken, never their sum.
func ecnMarksOn(inc *Incident, sw, ns string, q int) (int64, []Evidence) {
	var n [2]int64 // per port, summed over all ports
	var ev [2][]Evidence
	for _, s := range All[*ingest.SwitchCounters](inc) {
		if sw != "" && s.Switch != "" && s.Switch != sw {
			continue
		}
		for _, w := range s.WRED {
			if ns != "" && w.Namespace != "" && w.Namespace != ns {
				continue
			}
			if w.Queue == q && w.Type != "MC" && w.ECNMarks > 0 {
				i := 0
				if w.AllPorts {
					i = 1
				}
				n[i] += w.ECNMarks
				if len(ev[i]) < 3 {
					ev[i] = append(ev[i], w.Evidence)
				}
			}
		}
	}
	if n[1] > n[0] {
		return n[1], ev[1]
	}
	return n[0], ev[0]
}
