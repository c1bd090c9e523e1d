package doctor

import (
	"fmt"
	"strings"

	"rocelab/internal/ingest"
)

// qosRules lists the mlnx_qos rules.
func qosRules() []Rule {
	return []Rule{
		{IDs: []string{"qos.pfc.disabled", "qos.trust.pcp", "qos.ok"}, Check: checkQoS},
	}
}

// checkQoS checks one mlnx_qos dump: PFC on the RoCE priority, trust
// dscp, and the priority DSCP 26 maps to.
func checkQoS(inc *Incident) []Finding {
	var fs []Finding
	for _, m := range All[*ingest.MlnxQoS](inc) {
		for i := range m.Configs {
			fs = append(fs, checkQoSConfig(&m.Configs[i])...)
		}
	}
	return fs
}

func checkQoSConfig(c *ingest.QoSConfig) []Finding {
	var fs []Finding
	dev := nameOr(c.Interface, "<if>")
	name := c.Name()
	rocePrio, mapped := c.RoCEPriority()
	roceDSCP := ingest.RoCEDSCP
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
				Title:    fmt.Sprintf("%s: PFC is on priority %s but not on %d, where DSCP %d (NCCL_IB_TC=106) lands", name, prioList(pfc), rocePrio, roceDSCP),
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
		mech := fmt.Sprintf("The NIC classifies by DSCP, DSCP %d maps to priority %d, and PFC protects exactly that priority, so RoCE marked with NCCL_IB_TC=106 is lossless on this host.", roceDSCP, rocePrio)
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
