package doctor

import (
	"fmt"

	"rocelab/internal/ingest"
)

// Rules over the priorities a host's NIC runs congestion control on:
// mlxconfig's ROCE_CC_PRIO_MASK (bit p: DCQCN on priority p) and the DCQCN
// sysfs roce_rp/enable/<p> files, held against the priority RoCE rides on
// the same host (its mlnx_qos dump and the traffic class RoCE is marked
// with). Lint judges the same settings in a configuration before traffic
// (the same rule ids); diagnose judges them as the host reports them.

func ccRules() []Rule {
	return []Rule{
		{IDs: []string{"nic.cc_prio_mask.missing", "nic.cc_prio_mask.off"}, Check: checkCCPrio},
	}
}

// ccSetting is one NIC port's congestion control by priority.
type ccSetting struct {
	name  string // "mlx5_0 ROCE_CC_PRIO_MASK_P1", "eth0 roce_rp/enable"
	dev   string // the mlxconfig device or the netdev, for the fix
	sysfs bool
	mask  uint8 // priorities with congestion control on
	shown uint8 // priorities the input shows (every one for a mask)
	ev    []Evidence
	scope ingest.Scope
}

// ccSettings returns the congestion-control settings of the incident:
// each ROCE_CC_PRIO_MASK of mlxconfig's query (or set) and each netdev's
// roce_rp/enable files.
func ccSettings(inc *Incident) []ccSetting {
	var out []ccSetting
	for _, m := range All[*ingest.MlxConfig](inc) {
		for i := range m.Devices {
			d := &m.Devices[i]
			for _, p := range d.Params {
				v, ok := p.Int()
				if p.Name != "ROCE_CC_PRIO_MASK" || !ok || v < 0 || v > 255 {
					continue
				}
				name := "ROCE_CC_PRIO_MASK"
				if p.Port > 0 {
					name += fmt.Sprintf("_P%d", p.Port)
				}
				if d.Device != "" {
					name = d.Device + " " + name
				}
				out = append(out, ccSetting{name: name, dev: nameOr(d.Device, "<dev>"), mask: uint8(v), shown: 0xff, ev: []Evidence{p.Evidence}, scope: m.Scope()})
			}
		}
	}
	for _, d := range All[*ingest.DCQCNSysfs](inc) {
		for _, ifc := range d.Interfaces {
			s := ccSetting{name: nameOr(ifc.Name, "<if>") + " roce_rp/enable", dev: nameOr(ifc.Name, "<if>"), sysfs: true, scope: d.Scope()}
			for p := 0; p < 8; p++ {
				v, ok := ifc.RPEnable[p]
				n, isNum := v.Int()
				if !ok || !isNum {
					continue
				}
				s.shown |= 1 << p
				if n != 0 {
					s.mask |= 1 << p
				}
				s.ev = append(s.ev, v.Evidence)
			}
			if s.shown != 0 {
				s.ev = evidenceInOrder(s.ev)
				out = append(out, s)
			}
		}
	}
	return out
}

// roceQoS is the priority RoCE rides on a host, as its mlnx_qos dump maps
// the DSCP RoCE is marked with, and the lines that say so.
type roceQoS struct {
	prio int
	from string
	ev   []Evidence
}

// roceQoSFor finds the priority RoCE rides for a setting: from an mlnx_qos
// dump of the same input or host that trusts DSCP (the same interface's,
// when the setting names one that a dump names too).
func roceQoSFor(inc *Incident, s ccSetting) (roceQoS, bool) {
	var found roceQoS
	ok := false
	for _, m := range All[*ingest.MlnxQoS](inc) {
		if r := reachOf(s.scope, m.Scope()); r != sameFile && r != sameHost {
			continue
		}
		dscp, dscpFrom := roceDSCPFor(inc, m.Scope())
		for i := range m.Configs {
			c := &m.Configs[i]
			if c.Trust != "dscp" {
				continue
			}
			p, mapped := c.DSCPPrio(dscp)
			if !mapped {
				p = dscp >> 3 // mlx5's default map
			}
			q := roceQoS{prio: p, from: fmt.Sprintf("%s maps DSCP %d (%s) to priority %d", c.Name(), dscp, dscpFrom, p)}
			for _, k := range []string{"trust", fmt.Sprintf("dscp2prio:%d", p)} {
				if e, has := c.Evidence[k]; has {
					q.ev = append(q.ev, e)
				}
			}
			if s.sysfs && c.Interface != "" && c.Interface == s.dev {
				return q, true
			}
			if !ok {
				found, ok = q, true
			}
		}
	}
	return found, ok
}

// checkCCPrio reports a NIC whose congestion control leaves out the
// priority RoCE rides on this host (an error: CNPs are ignored, PFC alone
// meets congestion), or that has it off on every priority (info: a design
// some fabrics choose).
func checkCCPrio(inc *Incident) []Finding {
	var fs []Finding
	for _, s := range ccSettings(inc) {
		if s.mask == 0 && s.shown == 0xff {
			what := fmt.Sprintf("%s is 0", s.name)
			if s.sysfs {
				what = s.name + " is 0 on every priority"
			}
			fs = append(fs, CCPrioOff(s.name, what, s.ev).per(s.name, "NIC", "Congestion control off on every priority"))
			continue
		}
		q, ok := roceQoSFor(inc, s)
		if !ok || s.shown&(1<<q.prio) == 0 || s.mask&(1<<q.prio) != 0 {
			continue
		}
		f := CCPrioMissing(s.name, s.mask, q.prio, q.from, s.dev, s.sysfs, evidenceInOrder(append(append([]Evidence{}, s.ev...), q.ev...)))
		fs = append(fs, f.per(s.name, "NIC", "DCQCN off on RoCE's priority"))
	}
	return fs
}

// CCPrioOff is nic.cc_prio_mask.off for diagnose and lint: the NIC's
// congestion control (name) is off on every priority; what says how the
// input shows it ("ROCE_CC_PRIO_MASK_P1 is 0").
func CCPrioOff(name, what string, ev []Evidence) Finding {
	return Finding{
		ID: "nic.cc_prio_mask.off", Severity: Info, Layer: LayerFabric,
		Title:    name + ": congestion control is off on every priority (" + what + "): PFC alone meets congestion",
		Evidence: ev,
		Mechanism: "With DCQCN off the NIC neither slows on the CNPs its peers send for ECN-marked packets nor, on some firmware, sends them: congestion is left to PFC (pauses that spread to victim flows) on a lossless fabric, or to drops and retransmissions on a lossy one. " +
			"Some fabrics are built so, as Meta runs its 400G clusters (Gangidi et al., \"RDMA over Ethernet for Distributed AI Training at Meta Scale\", SIGCOMM 2024); on others it is a mistake.",
	}
}

// CCPrioMissing is nic.cc_prio_mask.missing for diagnose and lint: mask,
// the priorities congestion control acts on (name), leaves out prio,
// where RoCE rides; from says how that priority is known ("" when the
// configuration gives it). dev is the device (sysfs: the interface) the
// fix names; sysfs is set when mask was read from roce_rp/enable. The fix
// adds prio to mask, keeping the other priorities' congestion control.
func CCPrioMissing(name string, mask uint8, prio int, from, dev string, sysfs bool, ev []Evidence) Finding {
	why := ""
	if from != "" {
		why = " (" + from + ")"
	}
	fix := fmt.Sprintf("mlxconfig -d %s set ROCE_CC_PRIO_MASK_P1=%#x (and _P2): priority %d added, then reboot or reset the firmware (mlxfwreset); or, until then, echo 1 into /sys/class/net/<if>/ecn/roce_rp/enable/%d and roce_np/enable/%d.", dev, int(mask)|1<<prio, prio, prio, prio)
	if sysfs {
		fix = fmt.Sprintf("echo 1 > /sys/class/net/%s/ecn/roce_rp/enable/%d and echo 1 > /sys/class/net/%s/ecn/roce_np/enable/%d (not kept over a reboot or driver reload: set them at boot, or set ROCE_CC_PRIO_MASK with mlxconfig).", dev, prio, dev, prio)
	}
	return Finding{
		ID: "nic.cc_prio_mask.missing", Severity: Error, Layer: LayerFabric,
		Title:    fmt.Sprintf("%s leaves out priority %d, where RoCE rides%s: DCQCN is off for RoCE", name, prio, why),
		Evidence: ev,
		Mechanism: fmt.Sprintf("Congestion control runs per priority: on priorities outside %s the NIC's reaction point ignores CNPs (rp_cnp_ignored counts them), so RoCE's senders never slow when switches mark ECN. ", name) +
			"Congestion then builds until PFC pauses the port (spreading to flows that share it) or, on a lossy fabric, until packets drop and queue pairs retransmit: busbw falls under load while the links look idle.",
		Fix: fix,
	}
}
