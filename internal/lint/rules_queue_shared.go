package lint

import (
	"fmt"
	"slices"
	"strings"

	"rocelab/internal/doctor"
	"rocelab/internal/sonic"
	"rocelab/internal/textout"
)

// sharedQueues finds ports whose tc_to_queue_map sends another class in
// use to the queue RoCE's lossless class leaves by. PFC stops a queue,
// not a class: a pause of RoCE's priority holds every class of the queue.
// A class is in use when the port's DSCP map sends a code point to it, or
// is class 0 (where a code point the map leaves out lands); a port that
// classifies without a DSCP map (by the frame's priority) may carry any.
// Ports configured alike (maps and pfc_enable) give one finding.
func (m *Model) sharedQueues(db *sonic.ConfigDB) []doctor.Finding {
	type group struct {
		ports  []string
		p      portPath
		others []int
		at     []Evidence
	}
	var keys []string
	groups := map[string]*group{}
	for _, p := range m.rocePaths(db) {
		qm, ok := db.NumMap("TC_TO_QUEUE_MAP", p.pq.TCToQueue.Text)
		if !ok || qm.To[p.path.TC] < 0 {
			continue
		}
		var others []int
		at := []Evidence{atEv(db, p.path.QueueAt)}
		for tc := range 16 {
			if tc == p.path.TC || qm.To[tc] != p.path.Queue {
				continue
			}
			if p.dscp != nil && tc != 0 && !slices.Contains(p.dscp.To[:], tc) {
				continue
			}
			others = append(others, tc)
			at = append(at, atEv(db, qm.At[tc]))
		}
		if len(others) == 0 {
			continue
		}
		key := fmt.Sprintf("%d\x00%d\x00%v\x00%s\x00%v", p.path.TC, p.path.Queue, others, p.pq.TCToQueue.Text, p.pq.PFCEnable)
		g, ok := groups[key]
		if !ok {
			g = &group{p: p, others: others, at: at}
			groups[key] = g
			keys = append(keys, key)
		}
		g.ports = append(g.ports, p.pq.Port)
	}
	var fs []doctor.Finding
	for _, k := range keys {
		g := groups[k]
		var lossless, lossy []int
		for _, tc := range g.others {
			if slices.Contains(g.p.pq.PFCEnable, tc) {
				lossless = append(lossless, tc)
			} else {
				lossy = append(lossy, tc)
			}
		}
		var what []string
		if len(lossy) > 0 {
			what = append(what, "lossy "+classes(lossy))
		}
		if len(lossless) > 0 {
			what = append(what, "lossless "+classes(lossless))
		}
		fix := fmt.Sprintf("TC_TO_QUEUE_MAP|%s: each class in %s to a queue of its own, apart from RoCE's queue %d (SONiC's AZURE map is the identity).",
			g.p.pq.TCToQueue.Text, textout.Ints(g.others), g.p.path.Queue)
		if db.Vendor == sonic.VendorAOSCX {
			fix = fmt.Sprintf("In the queue profile, `map queue Q local-priority %d` with a queue Q that holds no other local priority; local priorities %s elsewhere.", g.p.path.TC, textout.Ints(g.others))
		}
		subject := db.File + " " + portList(g.ports)
		fs = append(fs, doctor.Finding{
			ID: "pfc.queue.shared", Severity: doctor.Warn, Layer: doctor.LayerFabric,
			Title: fmt.Sprintf("%s: RoCE's lossless class %d leaves by queue %d (tc_to_queue_map %s), which %s share: a pause of priority %d stops them too",
				subject, g.p.path.TC, g.p.path.Queue, g.p.pq.TCToQueue.Text, strings.Join(what, " and "), g.p.path.TC),
			Subject:  subject,
			Evidence: evs(append([]Evidence{atEv(db, g.p.pq.PFCEnableAt)}, g.at...)...),
			Mechanism: "PFC stops an egress queue, not a class: a pause of RoCE's priority holds every class that leaves by its queue, and (HPE's AOS-CX QoS guide) with two PFC priorities in one queue either one's pause stops both. " +
				"A lossy class there is held by pauses it did not cause, shares RoCE's ECN marking and scheduler weight though DCQCN does not slow it, and its bursts fill the queue RoCE's thresholds were sized for.",
			Fix: fix,
		})
	}
	return fs
}

// classes names one class or several.
func classes(tcs []int) string {
	if len(tcs) == 1 {
		return fmt.Sprintf("class %d", tcs[0])
	}
	return "classes " + textout.Ints(tcs)
}
