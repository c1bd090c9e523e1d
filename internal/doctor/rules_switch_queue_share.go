package doctor

import (
	"fmt"
	"slices"

	"rocelab/internal/ingest"
	"rocelab/internal/unit"
)

// minQueueSharePackets is the unicast traffic a port must have sent before
// how it splits over the queues says anything: control traffic alone
// (LLDP, BGP) rides a lossy queue on every port.
const minQueueSharePackets = 1_000_000

// checkQueueShare reports switch ports whose unicast traffic rides lossy
// queues while the lossless queues carry under 1% of it (`show queue
// counters`): RoCE there, if the port carries any, has neither PFC nor the
// WRED/ECN profile SONiC puts on its lossless queues. The switch-side
// counterpart of checkRoCEPriority on a host's per-priority counters.
func checkQueueShare(inc *Incident) []Finding {
	lossOf := losslessOf(inc)
	samples, _ := ctrSamples(inc)
	roce, roceEv := roceInUse(inc, samples)
	var fs []Finding
	for _, s := range All[*ingest.SwitchCounters](inc) {
		for _, qs := range queueKinds(s.Queues) {
			// Queues no input says are lossless or not (Dell OS10's,
			// Arista EOS's without its switch's PFC priorities:
			// queueLossless) have no lossless share to weigh; the others
			// are weighed against their own switch's lossless queues.
			lossless, from, known := lossOf(s, qs[0])
			if known {
				fs = append(fs, lossyShares(s, qs, lossless, from, roce, roceEv)...)
			}
		}
	}
	return fs
}

// queueKinds splits a switch input's queues by whose lossless queues
// speak of them (SONiC's, OS10's, each EOS switch's by its prompt), in
// the order each kind first appears.
func queueKinds(qs []ingest.QueueCount) [][]ingest.QueueCount {
	var out [][]ingest.QueueCount
	for _, q := range qs {
		i := slices.IndexFunc(out, func(g []ingest.QueueCount) bool {
			return g[0].OS10 == q.OS10 && g[0].EOS == q.EOS && g[0].Platform == q.Platform && (g[0].Host == q.Host || g[0].Host != "" && q.Host != "" && ingest.SameHostName(g[0].Host, q.Host))
		})
		if i < 0 {
			i = len(out)
			out = append(out, nil)
		}
		out[i] = append(out[i], q)
	}
	return out
}

// lossyShares reports the ports of qs whose unicast traffic rides lossy
// queues, lossless being the queues that speak of them (from).
func lossyShares(s *ingest.SwitchCounters, qs []ingest.QueueCount, lossless []int, from string, roce bool, roceEv []Evidence) []Finding {
	var fs []Finding
	words := queueWordsOf(qs[0])
	for _, p := range portQueueShares(qs, lossless) {
		if p.packets < minQueueSharePackets || p.top.Bytes == 0 || hasPrio(lossless, p.top.Queue) || p.losslessBytes*100 >= p.bytes {
			continue
		}
		name := queueSwName(s, qs[0], p.port)
		topShare := 100 * float64(p.top.Bytes) / float64(p.bytes)
		onLossless := fmt.Sprintf("%.1f%% on lossless queues %s", 100*float64(p.losslessBytes)/float64(p.bytes), prioList(lossless))
		sev := Info
		title := fmt.Sprintf("%s: %.1f%% of unicast bytes leave by lossy queue %d (%s), %s: if this port carries RoCE, RoCE is lossy here", name, topShare, p.top.Queue, unit.Bytes(p.top.Bytes).Human(), onLossless)
		ev := append([]Evidence{p.top.Evidence}, p.losslessEv...)
		if roce {
			sev = Warn
			title = fmt.Sprintf("%s: RoCE is in use, and %.1f%% of this port's unicast bytes leave by lossy queue %d (%s), %s", name, topShare, p.top.Queue, unit.Bytes(p.top.Bytes).Human(), onLossless)
			ev = append(ev, roceEv...)
		}
		fs = append(fs, Finding{
			ID: "switch.queue.lossy_traffic", Severity: sev, Layer: LayerFabric,
			Title:     title,
			Evidence:  evidenceInOrder(ev),
			Mechanism: fmt.Sprintf("%s Queues %s are lossless (%s): PFC pauses the sender there, and the WRED profile that marks ECN for DCQCN sits on them. This port sent %d unicast packets, almost all through queue %d and under 1%% through the lossless ones: RoCE among them is dropped under congestion instead of paused, recovered by go-back-N and timeouts, and never ECN-marked by a profile on the lossless queues only. TCP on a lossy queue is normal; RoCE there is the DSCP map or the NICs' traffic class disagreeing. Counted since the counters were last cleared.", words.classify, prioList(lossless), from, p.packets, p.top.Queue),
			Fix:       fmt.Sprintf("Find RoCE's DSCP (the NICs' traffic class: NCCL_IB_TC, `cma_roce_tos`, mlnx_qos's dscp2prio) and map it to queue %d on the switch (%s), or set the NICs to a DSCP the switch already sends there; then check that %s grows on %s%d under the job.", lossless[0], words.mapIt(lossless[0]), words.counters(p.port), words.queue, lossless[0]),
		}.per(name, "port", "Switch ports whose traffic rides lossy queues"))
	}
	return fs
}

// queueWords are a switch OS's words for how it queues a packet, how to
// map a DSCP to a queue and where to count a port's queues.
type queueWords struct {
	classify string
	mapIt    func(queue int) string
	counters func(port string) string
	queue    string // a queue's name in those counters: "UC", "TC"
}

// queueWordsOf gives the words of the OS whose counters q came from:
// Arista EOS's, else SONiC's.
func queueWordsOf(q ingest.QueueCount) queueWords {
	if q.EOS {
		return queueWords{
			classify: "An Arista EOS switch queues a packet by its DSCP (`qos trust dscp`, `qos map dscp … to traffic-class`), each traffic class on its transmit queue.",
			mapIt: func(tc int) string {
				return fmt.Sprintf("`qos map dscp <RoCE's DSCP> to traffic-class %d`; `show qos maps`", tc)
			},
			counters: func(port string) string { return "`show interfaces " + port + " counters queue`" },
			queue:    "TC",
		}
	}
	return queueWords{
		classify: "A SONiC switch queues a packet by its DSCP (DSCP_TO_TC_MAP, then TC_TO_QUEUE_MAP).",
		mapIt: func(int) string {
			return "config_db DSCP_TO_TC_MAP and TC_TO_QUEUE_MAP; `show qos map dscp-tc`"
		},
		counters: func(port string) string { return "`show queue counters " + port + "`" },
		queue:    "UC",
	}
}

// queueShare is one port's unicast traffic split over its queues.
type queueShare struct {
	port           string
	packets, bytes uint64
	losslessBytes  uint64
	losslessEv     []Evidence
	top            ingest.QueueCount // the queue that carried the most bytes
}

// portQueueShares sums each port's unicast egress (UC, ALL) queue
// counters, in the order the ports first appear; a chassis' VOQs, counted
// at ingress, are left out, and so are a Nexus 9000's qos-groups, which
// are no SONiC queues chosen by a DSCP map and whose no-drop groups the
// queuing output's own pause table names (qosGroupEgressDrop reads them).
func portQueueShares(qs []ingest.QueueCount, lossless []int) []queueShare {
	at := map[string]int{}
	var out []queueShare
	for _, q := range qs {
		if q.Type == "MC" || q.Type == "VOQ" || q.QoSGroup {
			continue
		}
		i, ok := at[q.Port]
		if !ok {
			i = len(out)
			at[q.Port] = i
			out = append(out, queueShare{port: q.Port})
		}
		p := &out[i]
		p.packets += q.Packets
		p.bytes += q.Bytes
		if hasPrio(lossless, q.Queue) {
			p.losslessBytes += q.Bytes
			p.losslessEv = append(p.losslessEv, q.Evidence)
		}
		if q.Bytes > p.top.Bytes {
			p.top = q
		}
	}
	return out
}
