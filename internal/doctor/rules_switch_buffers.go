package doctor

import (
	"fmt"
	"strings"

	"rocelab/internal/ingest"
	"rocelab/internal/unit"
)

// Switch rules over buffer pools, LLDP neighbours and the PFC priorities a
// switch states: a shared pool run full, the shared headroom pool in use,
// which host NIC sits behind a switch port, and PFC on different
// priorities on the switch and the hosts.

func switchBufferRules() []Rule {
	return []Rule{
		{IDs: []string{"switch.buffer.pool"}, Check: checkBufferPools},
		{IDs: []string{"switch.lldp.host"}, Check: checkLLDPHosts},
		{IDs: []string{"switch.pfc.mismatch"}, Check: checkSwitchHostPFC},
	}
}

// poolFullFraction is the peak share of a shared pool above which the
// switch ran out of shared buffer for it: dynamic thresholds cap every
// queue well before the pool is full, so a peak near its size means many
// queues were congested at once.
const poolFullFraction = 0.9

// checkBufferPools reports pools whose peak occupancy came near their
// size, and a shared headroom pool that was used.
func checkBufferPools(inc *Incident) []Finding {
	// A pool's size and its watermark often come from two commands, two
	// files: join them by switch and pool name.
	type sized struct {
		size int64
		ev   Evidence
	}
	sizes := map[string]sized{}
	for _, s := range All[*ingest.SwitchCounters](inc) {
		for _, p := range s.Pools {
			if p.Size > 0 && len(p.Evidence) > 0 {
				sizes[s.Switch+"\x00"+p.Namespace+"\x00"+p.Name] = sized{p.Size, p.Evidence[0]}
			}
		}
	}
	var fs []Finding
	for _, s := range All[*ingest.SwitchCounters](inc) {
		for _, p := range s.Pools {
			name := swName(s, strings.TrimSpace(p.Namespace+" "+p.Name))
			if z, ok := sizes[s.Switch+"\x00"+p.Namespace+"\x00"+p.Name]; ok && p.Size <= 0 {
				p.Size = z.size
				p.Evidence = append(append([]Evidence(nil), p.Evidence...), z.ev)
			}
			if p.NVUE && p.Size > 0 && p.Peak > p.Size {
				fs = append(fs, nvuePoolOverSize(name, p))
				continue
			}
			if p.Peak >= 0 && p.Size > 0 && float64(p.Peak) >= poolFullFraction*float64(p.Size) {
				fix := "Find the congested ports with `show queue watermark unicast` and `show priority-group watermark shared`; spread the load (ECMP entropy, fewer senders per receiver) or let ECN mark earlier so senders slow before the pool fills."
				if p.NVUE {
					fix = "Find the congested queues with `nv show interface <swp> qos roce counters` (buffer-max-usage, tc-max-usage and no-buffer-discard of RoCE and of other traffic) and `nv show interface <swp> counters qos`; spread the load (ECMP entropy, fewer senders per receiver) or let ECN mark earlier so senders slow before the pool fills."
				}
				fs = append(fs, Finding{
					ID: "switch.buffer.pool", Severity: Warn, Layer: LayerFabric,
					Title:     fmt.Sprintf("%s: shared buffer peaked at %s of %s (%.0f%%)", name, unit.Bytes(p.Peak).Human(), unit.Bytes(p.Size).Human(), 100*float64(p.Peak)/float64(p.Size)),
					Evidence:  evidenceInOrder(append([]Evidence(nil), p.Evidence...)),
					Mechanism: "Queues draw on the shared pool up to a dynamic threshold (alpha times what is still free); a peak near the pool's size means many queues were congested at once, so each got little: lossy queues dropped and lossless PGs reached XOFF early, spreading PFC upstream.",
					Fix:       fix,
				}.per(name, "pool", "shared buffer pool near full"))
			}
			if p.HeadroomPeak > 0 {
				fs = append(fs, Finding{
					ID: "switch.buffer.pool", Severity: Info, Layer: LayerFabric,
					Title:     fmt.Sprintf("%s: the shared headroom pool held up to %s", name, unit.Bytes(p.HeadroomPeak).Human()),
					Evidence:  evidenceInOrder(append([]Evidence(nil), p.Evidence...)),
					Mechanism: "Headroom absorbs what is still in flight after a lossless priority group sends XOFF; data in the headroom pool means the switch did pause its senders. That is PFC working, and a sign of congestion at the ports whose PGs used it.",
					Fix:       "Look for the ports with `show priority-group watermark headroom` and the pause they sent with `show pfc counters`.",
				}.per(name+" headroom", "pool", "shared headroom pool used"))
			}
		}
	}
	return fs
}

// hostNetdevs returns the host names and netdevs the incident's host-side
// artifacts name.
func hostNetdevs(inc *Incident) (hosts, netdevs map[string]bool) {
	hosts, netdevs = map[string]bool{}, map[string]bool{}
	for _, l := range All[*ingest.NCCLLog](inc) {
		for _, h := range l.Hosts() {
			hosts[h] = true
		}
	}
	for _, g := range All[ingest.GIDTabler](inc) {
		for _, e := range g.GIDEntries() {
			hosts[e.Host] = e.Host != ""
			if e.Netdev != "" {
				netdevs[e.Netdev] = true
			}
		}
	}
	for _, q := range All[*ingest.MlnxQoS](inc) {
		for _, c := range q.Configs {
			hosts[c.Host] = c.Host != ""
			netdevs[c.Interface] = c.Interface != ""
		}
	}
	samples, _ := ctrSamples(inc)
	for _, s := range samples {
		hosts[s.Host] = s.Host != ""
		netdevs[s.Device] = s.Device != "" && s.Kind == ingest.KindEthtool
	}
	return hosts, netdevs
}

// checkLLDPHosts names the host NIC behind each switch port whose LLDP
// neighbour is a host interface, and says when the incident holds that
// host's or NIC's own artifacts.
func checkLLDPHosts(inc *Incident) []Finding {
	hosts, netdevs := hostNetdevs(inc)
	// A neighbour that is itself a switch of the incident is a fabric
	// link, not a host NIC, whatever its ports are called.
	switches := map[string]bool{}
	for _, s := range All[*ingest.SwitchCounters](inc) {
		switches[s.Switch] = s.Switch != ""
	}
	var fs []Finding
	for _, s := range All[*ingest.SwitchCounters](inc) {
		for _, n := range s.Neighbors {
			nd := n.Netdev()
			if nd == "" || switches[n.Device] {
				continue
			}
			var joined []string
			if hosts[n.Device] {
				joined = append(joined, "host "+n.Device)
			}
			if netdevs[nd] {
				joined = append(joined, "netdev "+nd)
			}
			port := n.Port
			if s.Switch != "" && !strings.HasPrefix(port, s.Switch+"-") {
				port = s.Switch + " " + port // Ethernet0 names no switch; the twin's leaf0-p0 does
			}
			title := fmt.Sprintf("%s leads to %s %s (LLDP)", port, n.Device, nd)
			// One mechanism for every port, so that the text report shows
			// the ports as one entry.
			mech := "The neighbour runs LLDP on a host interface, so switch-side findings on this port and host-side findings on that NIC describe the two ends of one link; where the incident holds the host's side too (the title says so), findings on that host and netdev are the link's host end."
			if len(joined) > 0 {
				title += "; the incident has the " + strings.Join(joined, " and ") + " side"
			}
			fs = append(fs, Finding{
				ID: "switch.lldp.host", Severity: Info, Layer: LayerFabric,
				Title: title, Evidence: []Evidence{n.Evidence}, Mechanism: mech,
			}.per(port, "port", "switch port to host NIC"))
		}
	}
	return fs
}

// checkSwitchHostPFC compares the priorities a switch enables PFC on
// (Onyx `show roce`, EOS `show priority-flow-control`, SONiC `show pfc
// priority`) with the hosts' mlnx_qos: a NIC priority with PFC the switch
// does not protect, or a NIC with PFC off, is a mismatch; a switch
// priority no NIC uses (SONiC's 3,4 beside a NIC's 3) is not.
func checkSwitchHostPFC(inc *Incident) []Finding {
	var sw []int
	var swEv []Evidence
	for _, s := range All[*ingest.SwitchCounters](inc) {
		prios, evs := s.LosslessPrios()
		sw = append(sw, prios...)
		swEv = append(swEv, evs...)
	}
	if len(sw) == 0 {
		return nil
	}
	var fs []Finding
	for _, q := range All[*ingest.MlnxQoS](inc) {
		for _, c := range q.Configs {
			if !c.PFCKnown {
				continue
			}
			host := c.PFCPrios()
			if coveredBy(host, sw) {
				continue
			}
			name := nameOr(strings.TrimSpace(c.Host+" "+c.Interface), "host NIC")
			fs = append(fs, Finding{
				ID: "switch.pfc.mismatch", Severity: Error, Layer: LayerFabric,
				Title:    fmt.Sprintf("PFC on priority %s on the switch but %s on %s", ingest.PrioList(distinctInts(sw)), ingest.PrioList(host), name),
				Evidence: evidenceInOrder(append(append([]Evidence(nil), swEv...), c.Evidence["pfc"])),
				Mechanism: "PFC works per priority and per hop: the receiver of a link pauses only the priorities it has PFC on, and the sender honours pause only on those. " +
					"Where the switch and the NIC disagree, one direction of the RoCE priority is lossy: the switch drops what the NIC will not stop sending, or the NIC drops what the switch keeps sending.",
				Fix: fmt.Sprintf("Use one lossless priority end to end: mlnx_qos -i %s --pfc %s on the host (or change the switch's), and map RoCE's DSCP to it on both.", nameOr(c.Interface, "<netdev>"), pfcVector(distinctInts(sw))),
			}.per(name, "host NIC", "PFC priorities differ from the switch's"))
		}
	}
	return fs
}

// coveredBy reports whether host has PFC on some priority and on none
// the switch leaves lossy.
func coveredBy(host, sw []int) bool {
	if len(host) == 0 {
		return false
	}
	for _, h := range host {
		if !hasPrio(sw, h) {
			return false
		}
	}
	return true
}

// distinctInts returns the distinct values in ascending order.
func distinctInts(xs []int) []int {
	var seen [256]bool
	var out []int
	for _, x := range xs {
		if x >= 0 && x < len(seen) && !seen[x] {
			seen[x] = true
		}
	}
	for i, ok := range seen {
		if ok {
			out = append(out, i)
		}
	}
	return out
}

// nvuePoolOverSize says (info) that an NVUE pool's max-usage is above its
// size, which no occupancy of the pool can be: NVIDIA's own example (the
// RoCE page, Cumulus Linux 5.4 to 5.15: swp16's lossy pools at 16.00 MB
// and 16.01 MB of 15.16 MB with nothing in them, beside that port's
// counters giving 144 bytes as the most non-RoCE traffic held) shows it
// on an idle pool, and NVUE documents no meaning for it, so it is not
// read as a pool run full.
func nvuePoolOverSize(name string, p ingest.BufferPool) Finding {
	return Finding{
		ID: "switch.buffer.pool", Severity: Info, Layer: LayerFabric,
		Title:     fmt.Sprintf("%s: max-usage %s is above the pool's size %s: not judged", name, unit.Bytes(p.Peak).Human(), unit.Bytes(p.Size).Human()),
		Evidence:  evidenceInOrder(append([]Evidence(nil), p.Evidence...)),
		Mechanism: "A pool cannot hold more than its size, so this max-usage is not the pool's occupancy: NVIDIA's RoCE page prints such rows (lossy pools at 16.00 MB of 15.16 MB with 0 Bytes in use, on a port whose `qos roce counters` say 144 bytes at most) and does not say what the figure counts. It is not taken as a pool run full.",
		Fix:       "Read the port's own buffer use with `nv show interface <swp> qos roce counters` (buffer-max-usage and no-buffer-discard of RoCE and of other traffic); those, not this row, show whether a pool ran short.",
	}.per(name, "pool", "NVUE pool max-usage above its size")
}
