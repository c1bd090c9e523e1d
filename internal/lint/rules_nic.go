package lint

import (
	"fmt"
	"slices"
	"strconv"

	"rocelab/internal/calc"
	"rocelab/internal/doctor"
	"rocelab/internal/textout"
	"rocelab/internal/unit"
)

// mtuRules checks the MTU chain: RoCE path MTU ≤ netdev MTU − 96, and the
// frames within the switch port MTU.
func mtuRules(m *Model) []doctor.Finding {
	s := m.Desc
	if s == nil {
		return nil
	}
	var fs []doctor.Finding
	roce := int(s.Host.MTU)
	port := int(s.Switch.PFC.MTU)
	roceEv, portEv := m.at("host.mtu", "4096"), m.at("switch.pfc.mtu", "9100 (SONiC's default port MTU)")
	if nd := s.Host.NetdevMTU; nd > 0 {
		ndEv := m.at("host.netdev_mtu", "")
		if got := calc.RoCEMTU(nd); got < roce {
			fs = append(fs, doctor.Finding{
				ID: "mtu.chain", Severity: doctor.Warn, Layer: doctor.LayerFabric,
				Title:     fmt.Sprintf("hosts (%s): RoCE MTU %d needs a netdev MTU of at least %d; netdev MTU %d gives active_mtu %d", s.File, roce, roce+calc.RoCEOverhead, nd, got),
				Subject:   "hosts (" + s.File + ")",
				Evidence:  evs(roceEv, ndEv),
				Mechanism: "The RoCE path MTU is the largest IB MTU that fits in the netdev MTU less 96 bytes of RoCE headers (kernel iboe_get_mtu). NCCL and perftest use the port's active_mtu, so the fabric runs smaller RoCE packets than planned: more packets and headers per byte, and lower message rate.",
				Fix:       fmt.Sprintf("ip link set <if> mtu 9000 on the hosts (≥ %d for RoCE MTU %d), and a switch port MTU that carries it (9100 in SONiC).", roce+calc.RoCEOverhead, roce),
			})
		}
		if nd > port {
			fs = append(fs, doctor.Finding{
				ID: "mtu.chain", Severity: doctor.Error, Layer: doctor.LayerFabric,
				Title:     fmt.Sprintf("hosts (%s): netdev MTU %d is above the switch port MTU %d", s.File, nd, port),
				Subject:   "hosts (" + s.File + ") / switches",
				Evidence:  evs(ndEv, portEv),
				Mechanism: "A switch drops frames larger than its port MTU (RoCE packets cannot be fragmented). Every full-size RoCE packet the hosts send is lost, and RC retransmits the same oversized packet until the QP fails with IBV_WC_RETRY_EXC_ERR.",
				Fix:       fmt.Sprintf("Switch port MTU ≥ %d (SONiC PORT mtu 9100), or a smaller netdev MTU.", nd),
			})
		}
	}
	if roce+calc.RoCEOverhead > port {
		fs = append(fs, doctor.Finding{
			ID: "mtu.chain", Severity: doctor.Error, Layer: doctor.LayerFabric,
			Title:     fmt.Sprintf("switches (%s): port MTU %d cannot carry RoCE packets of MTU %d (%d with headers)", s.File, port, roce, roce+calc.RoCEOverhead),
			Subject:   "switches (" + s.File + ")",
			Evidence:  evs(roceEv, portEv),
			Mechanism: "Full-size RoCE packets exceed the switch port MTU and are dropped; RC retransmits them until the QP fails.",
			Fix:       fmt.Sprintf("Switch port MTU ≥ %d (9100 in SONiC), or host.mtu %d.", roce+calc.RoCEOverhead, calc.RoCEMTU(port)),
		})
	}
	return fs
}

// ncclRules checks NCCL_IB_TC, NCCL_IB_TIMEOUT and NCCL_IB_RETRY_CNT.
func ncclRules(m *Model) []doctor.Finding {
	if len(m.nccl) == 0 && m.Desc == nil {
		return nil
	}
	var fs []doctor.Finding
	_, forced := m.forcedTC()
	if _, ok := m.setting("NCCL_IB_TC"); !ok && len(m.nccl) > 0 && !m.given("host.dscp") && !forced {
		fs = append(fs, doctor.Finding{
			ID: "nccl.ib_tc.unset", Severity: doctor.Warn, Layer: doctor.LayerNCCL,
			Title:     "NCCL_IB_TC is not set: NCCL's RoCE traffic uses traffic class 0",
			Evidence:  evs(m.nccl[0].Evidence),
			Mechanism: "NCCL sets the GRH traffic class of its QPs from NCCL_IB_TC, which defaults to 0: DSCP 0, which NICs trusting DSCP put on priority 0, outside the lossless class (rdma_cm's default_roce_tos does not apply; NCCL does not use rdma_cm).",
			Fix:       "export NCCL_IB_TC=106 (DSCP 26 with ECT(0)), or the TOS of the lossless class: DSCP×4 + 2.",
		})
	}
	if f, ok := m.tcAsDSCP(); ok {
		fs = append(fs, f)
	}
	t, tEv, tGiven := 20, Evidence{}, false
	r, rEv := 7, Evidence{}
	if d := m.Desc; d != nil {
		t, r = int(d.Host.NIC.Timeout), d.Host.NIC.RetryCnt
		if m.given("host.qp.timeout") {
			tEv, tGiven = m.at("host.qp.timeout", ""), true
		}
		if m.given("host.qp.retry_cnt") {
			rEv = m.at("host.qp.retry_cnt", "")
		}
	}
	if s, ok := m.setting("NCCL_IB_TIMEOUT"); ok {
		if n, err := strconv.Atoi(s.Value); err == nil {
			t, tEv, tGiven = n, s.Evidence, true
		}
	}
	if s, ok := m.setting("NCCL_IB_RETRY_CNT"); ok {
		if n, err := strconv.Atoi(s.Value); err == nil {
			r, rEv = n, s.Evidence
		}
	}
	if t < 0 || t > 31 || r < 0 || r > 7 {
		fs = append(fs, doctor.Finding{
			ID: "nccl.ib_timeout.range", Severity: doctor.Error, Layer: doctor.LayerNCCL,
			Title:     fmt.Sprintf("NCCL_IB_TIMEOUT=%d / NCCL_IB_RETRY_CNT=%d outside the QP fields (timeout 0–31, retry_cnt 0–7)", t, r),
			Evidence:  evs(tEv, rEv),
			Mechanism: "The QP's local ACK timeout is a 5-bit exponent and its retry count 3 bits (IB spec §12.7.34, §12.7.38): ibv_modify_qp rejects larger values and NCCL fails to connect.",
			Fix:       "NCCL_IB_TIMEOUT=22, NCCL_IB_RETRY_CNT=7.",
		})
		return fs
	}
	if t == 0 {
		return append(fs, doctor.Finding{
			ID: "nccl.ib_timeout.infinite", Severity: doctor.Warn, Layer: doctor.LayerNCCL,
			Title:     "NCCL_IB_TIMEOUT=0: the QPs' local ACK timeout is infinite",
			Evidence:  evs(tEv),
			Mechanism: "Timeout 0 disables the local ACK timer (IB spec §12.7.34, ibv_modify_qp(3)): a packet lost at the tail of a message, with no later packet to draw a NAK, is never retransmitted, and the job hangs instead of failing with IBV_WC_RETRY_EXC_ERR (12).",
			Fix:       "NCCL_IB_TIMEOUT=20 or 22 (4.3 s or 17 s per attempt).",
		})
	}
	per := calc.ACKTimeout(t)
	budget := per * unit.Time(r+1)
	rate := 100 * unit.Gbps
	rateText := "an assumed 100Gbps (no link speed given)"
	quanta := 0xFFFF
	if s := m.Desc; s != nil {
		rate = slowestLink(m)
		rateText = rate.String()
		quanta = int(s.Switch.PFC.Quanta)
	}
	pause := unit.Time(float64(quanta) * 512 / float64(rate) * float64(unit.Second))
	tev := []Evidence{tEv}
	if !tGiven {
		tev = nil
	}
	if per <= pause {
		fs = append(fs, doctor.Finding{
			ID: "nccl.ib_timeout.short", Severity: doctor.Warn, Layer: doctor.LayerNCCL,
			Title:     fmt.Sprintf("NCCL_IB_TIMEOUT=%d gives an ACK timeout of %v, within one PFC pause of %d quanta at %s (%v)", t, per, quanta, rateText, pause),
			Evidence:  evs(tev...),
			Mechanism: "A packet held by a single pause frame outlasts the ACK timeout: the requester retransmits what was only delayed, and under sustained pauses uses up its retries and fails the QP with IBV_WC_RETRY_EXC_ERR (12).",
			Fix:       "NCCL_IB_TIMEOUT=20 or 22 (4.3 s or 17 s per attempt).",
		})
	}
	if s := m.Desc; s != nil && s.Switch.Watchdog.Detect > 0 {
		wd := s.Switch.Watchdog.Detect + s.Switch.Watchdog.Restore
		if budget < wd {
			fs = append(fs, doctor.Finding{
				ID: "nccl.ib_timeout.short", Severity: doctor.Warn, Layer: doctor.LayerNCCL,
				Title:     fmt.Sprintf("NCCL_IB_TIMEOUT=%d with NCCL_IB_RETRY_CNT=%d gives up after %v, before the PFC watchdog ends a storm (%v detection + restoration)", t, r, budget, wd),
				Evidence:  evs(append(tev, rEv, m.at("switch.watchdog.detection", "200ms"))...),
				Mechanism: "During a pause storm the lossless class is frozen until the watchdog acts; QPs whose whole retry budget is shorter fail with IBV_WC_RETRY_EXC_ERR and the job dies although the fabric recovers.",
				Fix:       fmt.Sprintf("A retry budget above %v: NCCL_IB_TIMEOUT ≥ %d with NCCL_IB_RETRY_CNT=7.", wd, minTimeoutFor(wd, 7)),
			})
		}
	}
	return fs
}

// minTimeoutFor is the smallest timeout exponent whose retry budget with
// retries exceeds d.
func minTimeoutFor(d unit.Time, retries int) int {
	for t := 0; t < 32; t++ {
		if calc.ACKTimeout(t)*unit.Time(retries+1) > d {
			return t
		}
	}
	return 31
}

// slowestLink is the slowest link of the description: a pause lasts
// longest there.
func slowestLink(m *Model) unit.BitRate {
	var r unit.BitRate
	for _, l := range m.Desc.Topo.Links {
		if r == 0 || l.Rate < r {
			r = l.Rate
		}
	}
	return r
}

// firmwareRules checks the priorities DCQCN acts on (ROCE_CC_PRIO_MASK or
// sysfs roce_rp/enable) against the RoCE priority.
func firmwareRules(m *Model) []doctor.Finding {
	var fs []doctor.Finding
	p := m.rocePriority()
	for _, c := range m.masks {
		switch {
		case c.Mask == 0:
			f := doctor.CCPrioOff(c.Name, c.What+" is 0", evs(c.Evidence))
			f.Subject = c.Name
			fs = append(fs, f)
		case c.Mask&(1<<p) == 0:
			dev, sysfs := devOf(c), c.What != "ROCE_CC_PRIO_MASK"
			if sysfs {
				dev = c.Name
			}
			f := doctor.CCPrioMissing(fmt.Sprintf("%s: %s %#02x", c.Name, c.What, c.Mask), c.Mask, p, "", dev, sysfs, evs(c.Evidence))
			f.Subject = c.Name
			fs = append(fs, f)
		case c.Mask != 1<<p:
			fs = append(fs, doctor.Finding{
				ID: "nic.cc_prio_mask.wide", Severity: doctor.Warn, Layer: doctor.LayerFabric,
				Title:    fmt.Sprintf("%s: %s %#02x makes DCQCN act on priorities %s, not only RoCE's %d", c.Name, c.What, c.Mask, textout.Ints(maskList(c.Mask&^(1<<p))), p),
				Subject:  c.Name,
				Evidence: evs(c.Evidence),
				Mechanism: fmt.Sprintf("Congestion control then also rate-limits RDMA QPs of the other priorities (storage, a second job) on CNPs meant for congestion they may not cause, and their traffic slows with the RoCE class's. TCP is not affected: DCQCN acts on RDMA QPs only. " +
					"255 is the firmware default; the seed's fix was 0x8, RoCE's priority 3 alone."),
				Fix: fmt.Sprintf("mlxconfig -d %s set ROCE_CC_PRIO_MASK_P1=%#x (and _P2): priority %d only.", devOf(c), 1<<p, p),
			})
		}
	}
	return fs
}

// devOf is the device of a mask for a command line, or <dev>.
func devOf(c ccMask) string {
	if c.What == "ROCE_CC_PRIO_MASK" && c.Device != "" {
		return c.Device
	}
	return "<dev>"
}

// tcAsDSCP reports NCCL_IB_TC written as a DSCP: a value below 64 that the
// NICs' or a switch's lossless DSCPs hold while the DSCP it gives (the
// value's top six bits) is not lossless there. No device may force the
// traffic class (it overrides NCCL_IB_TC).
func (m *Model) tcAsDSCP() (doctor.Finding, bool) {
	s, ok := m.setting("NCCL_IB_TC")
	tc, isNum := ncclInt(s)
	if _, forced := m.forcedTC(); !ok || !isNum || forced || tc < 0 || tc >= 64 {
		return doctor.Finding{}, false
	}
	v := int(tc)
	where := ""
	if nic, _ := m.nicLosslessDSCPs(); slices.Contains(nic, v) && !slices.Contains(nic, v>>2) {
		where = "the NICs' mlnx_qos"
	}
	for _, db := range m.Sonic {
		_, asDSCP := losslessDSCP(db, []int{v}, lowestDSCP)
		_, asTC := losslessDSCP(db, []int{v >> 2}, lowestDSCP)
		if where == "" && asDSCP && !asTC {
			where = db.File
		}
	}
	if where == "" {
		return doctor.Finding{}, false
	}
	return doctor.Finding{
		ID: "nccl.ib_tc.dscp", Severity: doctor.Warn, Layer: doctor.LayerNCCL,
		Title:     fmt.Sprintf("NCCL_IB_TC=%d looks like a DSCP: it is the traffic class byte, DSCP %d; DSCP %d is lossless in %s, DSCP %d is not", v, v>>2, v, where, v>>2),
		Evidence:  evs(s.Evidence),
		Mechanism: fmt.Sprintf("NCCL writes NCCL_IB_TC into the GRH traffic class, the whole IP TOS byte: DSCP in the top six bits, ECN in the low two. %d marks DSCP %d with ECN bits %02b, so RoCE lands in DSCP %d's class, not the lossless one DSCP %d is in.", v, v>>2, v&3, v>>2, v),
		Fix:       fmt.Sprintf("NCCL_IB_TC=%d (DSCP %d × 4 + 2: ECT(0), so switches can mark ECN).", v<<2|2, v),
	}, true
}
