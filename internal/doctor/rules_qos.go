package doctor

import (
	"fmt"
	"strconv"
	"strings"

	"rocelab/internal/ingest"
)

// qosRules lists the mlnx_qos rules.
func qosRules() []Rule {
	return []Rule{
		{IDs: []string{"qos.pfc.disabled", "qos.trust.pcp", "qos.ok", "qos.pfc.unshown"}, Check: checkQoS},
	}
}

// checkQoS checks one mlnx_qos dump: PFC on the RoCE priority, trust
// dscp, and the priority DSCP 26 maps to.
func checkQoS(inc *Incident) []Finding {
	var fs []Finding
	for _, m := range All[*ingest.MlnxQoS](inc) {
		dscp, from := roceDSCPFor(inc, m.Scope())
		for i := range m.Configs {
			fs = append(fs, checkQoSConfig(&m.Configs[i], dscp, from)...)
		}
	}
	return fs
}

// roceDSCPFor is the DSCP RoCE is marked with for a host in scope at: the
// traffic class an RDMA device forces on its port (sysfs
// tc/<port>/traffic_class, which overrides the queue pairs' own) when the
// same input or host states it (it is a setting of one device), else
// NCCL_IB_TC as an input that may belong to it sets or echoes it, else 26
// (NCCL_IB_TC=106) assumed, and the text that says which.
func roceDSCPFor(inc *Incident, at ingest.Scope) (int, string) {
	for _, d := range All[*ingest.DCQCNSysfs](inc) {
		if r := reachOf(at, d.Scope()); len(d.TrafficClasses) == 0 || r != sameFile && r != sameHost {
			continue
		}
		t := d.TrafficClasses[0]
		return t.DSCP(), fmt.Sprintf("%s port %d traffic_class %d (DSCP %d), %s:%d", t.Device, t.Port, t.TClass, t.DSCP(), t.Evidence.File, t.Evidence.Line)
	}
	for _, a := range inc.Artifacts {
		var vals []ingest.NCCLSetting
		switch v := a.(type) {
		case *ingest.NCCLLog:
			vals = v.EnvValues("NCCL_IB_TC")
		case *ingest.NCCLSettings:
			vals = v.Values("NCCL_IB_TC")
		}
		if len(vals) == 0 || reachOf(at, a.Scope()) == otherHost {
			continue
		}
		if tc, err := strconv.ParseInt(vals[0].Value, 0, 64); err == nil && tc >= 0 && tc < 256 {
			return int(tc) >> 2, fmt.Sprintf("NCCL_IB_TC=%s, %s:%d", vals[0].Value, vals[0].Evidence.File, vals[0].Evidence.Line)
		}
	}
	return ingest.RoCEDSCP, "NCCL_IB_TC=106 assumed: nothing here sets it"
}

func checkQoSConfig(c *ingest.QoSConfig, roceDSCP int, dscpFrom string) []Finding {
	var fs []Finding
	dev := nameOr(c.Interface, "<if>")
	name := c.Name()
	rocePrio, mapped := 3, false
	if c.Trust == "dscp" {
		rocePrio, mapped = c.DSCPPrio(roceDSCP)
		if !mapped {
			rocePrio = roceDSCP >> 3 // mlx5's default map
		}
	}
	pfc := c.PFCPrios()
	per := func(f Finding, group string) Finding { return f.per(name, "interface", group, c.Interface, "<if>") }
	if c.Trust == "pcp" {
		fs = append(fs, per(Finding{
			ID: "qos.trust.pcp", Severity: Warn, Layer: LayerFabric,
			Title:    name + ": priority trust is pcp",
			Evidence: []Evidence{c.Evidence["trust"]},
			Mechanism: "With trust pcp the NIC classifies received traffic by the VLAN PCP bits. RoCEv2 is IP/UDP: on a routed (L3) fabric frames are untagged or re-tagged at every hop, so PCP does not survive and RoCE falls to priority 0, outside PFC; DSCP in the IP header is what survives routing. " +
				"The switches must then classify on DSCP as well.",
			Fix: fmt.Sprintf("mlnx_qos -i %s --trust dscp (DSCP 24–31 map to priority 3 by default); mark RoCE with DSCP 26: NCCL_IB_TC=106, cma_roce_tos -d <dev> -t 106.", dev),
		}, "Priority trust is pcp"))
	}
	if !c.PFCKnown {
		var ev []Evidence
		for _, e := range []Evidence{c.Start, c.Evidence["trust"]} {
			if e.Line > 0 && (len(ev) == 0 || ev[0].Line != e.Line) {
				ev = append(ev, e)
			}
		}
		fs = append(fs, per(Finding{
			ID: "qos.pfc.unshown", Severity: Info, Layer: LayerInput,
			Title:     fmt.Sprintf("%s: the mlnx_qos dump has no PFC configuration, so whether PFC protects priority %d, where DSCP %d (%s) lands, is not judged", name, rocePrio, roceDSCP, dscpFrom),
			Evidence:  evidenceInOrder(ev),
			Mechanism: "mlnx_qos prints the PFC table (\"PFC configuration:\" with its priority, enabled and buffer rows) after the trust state and the DSCP map; this dump ends before it (cut, or filtered), so no rule could tell whether RoCE's priority is lossless on this NIC.",
			Fix:       fmt.Sprintf("Pass the whole output of `mlnx_qos -i %s`.", dev),
		}, "mlnx_qos without PFC configuration"))
	}
	if c.PFCKnown {
		var ev []Evidence
		if e, ok := c.Evidence["pfc"]; ok {
			ev = append(ev, e)
		}
		switch {
		case len(pfc) == 0:
			fs = append(fs, per(Finding{
				ID: "qos.pfc.disabled", Severity: Error, Layer: LayerFabric,
				Title:    name + ": PFC is disabled on every priority",
				Evidence: ev,
				Mechanism: "Without PFC the NIC neither honours nor sends per-priority pause, so RoCE is lossy: when a switch queue fills it drops, and RC recovers by go-back-N and ACK timeouts. " +
					"Unless the fabric is deliberately run lossy (Resilient RoCE with ECN only), RoCE needs PFC on its priority on the NICs and every switch port.",
				Fix: fmt.Sprintf("mlnx_qos -i %s --trust dscp --pfc %s on every host, PFC on priority %d on the switch ports, and %s.", dev, pfcVector([]int{rocePrio}), rocePrio, markInto(rocePrio)),
			}, "PFC disabled on every priority"))
		case !hasPrio(pfc, rocePrio):
			if mapped {
				ev = append(ev, c.Evidence[fmt.Sprintf("dscp2prio:%d", rocePrio)])
			}
			fs = append(fs, per(Finding{
				ID: "qos.pfc.disabled", Severity: Warn, Layer: LayerFabric,
				Title:    fmt.Sprintf("%s: PFC is on priority %s but not on %d, where DSCP %d (%s) lands", name, prioList(pfc), rocePrio, roceDSCP, dscpFrom),
				Evidence: evidenceInOrder(ev),
				Mechanism: fmt.Sprintf("RoCE marked DSCP %d maps to priority %d here, which PFC does not protect, so it is lossy; PFC protects priority %s instead. ", roceDSCP, rocePrio, prioList(pfc)) +
					"Either RoCE is marked into a protected priority by a non-default traffic class, or the lossless class is configured on the wrong priority.",
				Fix: fmt.Sprintf("Make them agree: mlnx_qos -i %s --pfc %s (and the switch), or %s.", dev, pfcVector([]int{rocePrio}), markInto(pfc[0])),
			}, "PFC not on the RoCE priority"))
		}
	}
	if c.Trust == "dscp" && c.PFCKnown && len(pfc) == 1 && pfc[0] == rocePrio {
		var ev []Evidence
		for _, k := range []string{"trust", "pfc", fmt.Sprintf("dscp2prio:%d", rocePrio), "dcbx"} {
			if e, ok := c.Evidence[k]; ok {
				ev = append(ev, e)
			}
		}
		extra := ""
		if tc, ok := c.TCOf(rocePrio); ok {
			extra += fmt.Sprintf("; priority %d in tc %d (%s", rocePrio, tc.TC, tc.TSA)
			if tc.BW >= 0 {
				extra += fmt.Sprintf(" %d%%", tc.BW)
			}
			extra += ")"
			ev = append(ev, tc.Evidence[0])
		}
		if tc, ok := c.TCOf(6); ok && (tc.TSA == "strict" || tc.TSA == "vendor") {
			extra += fmt.Sprintf("; priority 6 (CNPs) in tc %d %s", tc.TC, tc.TSA)
			ev = append(ev, tc.Evidence[0])
		}
		if c.BufferKnown && c.Buffer[rocePrio] < len(c.RxBuffers) && c.RxBuffers[c.Buffer[rocePrio]] > 0 {
			extra += fmt.Sprintf("; receive buffer %d = %d bytes", c.Buffer[rocePrio], c.RxBuffers[c.Buffer[rocePrio]])
			ev = append(ev, c.Evidence["rxbuf"])
		}
		mech := fmt.Sprintf("The NIC classifies by DSCP, DSCP %d (%s) maps to priority %d, and PFC protects exactly that priority, so RoCE marked so is lossless on this host.", roceDSCP, dscpFrom, rocePrio)
		if strings.HasPrefix(c.DCBX, "Firmware") {
			mech += " DCBX is firmware-controlled: the switch's DCBX/LLDP advertisements can override these settings, so the switch must advertise the same PFC priority."
		}
		fs = append(fs, per(Finding{
			ID: "qos.ok", Severity: Info, Layer: LayerFabric,
			Title:     fmt.Sprintf("%s: PFC on priority %d only, trust dscp%s: lossless config looks right", name, rocePrio, extra),
			Evidence:  evidenceInOrder(ev),
			Mechanism: mech,
		}, "Lossless config looks right"))
	}
	return fs
}
