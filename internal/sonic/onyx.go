package sonic

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"rocelab/internal/onyx"
	"rocelab/internal/swcfg"
	"rocelab/internal/textout"
)

// VendorOnyx marks a ConfigDB made from an NVIDIA Onyx (MLNX-OS)
// configuration.
const VendorOnyx = "nvidia-onyx"

// FromOnyx writes what an Onyx configuration says of QoS as the CONFIG_DB
// rows lint judges a SONiC switch by, each value at its place in the Onyx
// text. A switch priority is SONiC's class and, by Onyx's default map,
// its traffic class (queue):
//
//   - A port with `qos trust L3` or `both` has Onyx's default DSCP map
//     (DSCP >> 3: DSCP 26 to switch priority 3, 48 to 6); with L2, the
//     default, no DSCP map: the class is the frame's priority, judged by
//     the NICs'.
//   - pfc_enable is the priorities `dcb priority-flow-control priority N
//     enable` turns on, where `dcb priority-flow-control enable` (or a
//     priority line, in a cut of the config) turns PFC on, on ports whose
//     mode is not off (auto, DCBX's choice, is taken as on and named).
//   - Each `traffic-class T congestion-control ecn` is a WRED_PROFILE on
//     queue T (`red`: a drop profile), thresholds in KB of 1024 bytes.
//
// Ports are the interfaces that set PFC, trust or ECN.
//
// `roce` (lossless, the mode when none is written) sets what Onyx's `show
// roce` prints (NVIDIA Onyx User Manual 3.10, "RoCE Commands"): trust L3
// on every port, PFC on switch priority 3, ECN on traffic class 3 from
// 150 to 1500 KB; `roce lossy` and `semi-lossless` the same without PFC.
// A port's own line wins; a configuration whose ports set nothing is one
// port, "every port (roce)", at the `roce` line.
func FromOnyx(c *onyx.Config) *ConfigDB {
	db := newDB(c.File, "")
	db.lines, db.Vendor = c.Lines, VendorOnyx
	// What the lines write, before what `roce` sets.
	db.onyxPFCOn, db.onyxPrios = c.PFCOn.Given(), len(c.Prios) > 0
	c = roceDefaults(c)
	prios := slices.Sorted(maps.Keys(c.Prios))
	on := c.PFCOn.Given() || len(prios) > 0
	auto := false
	if c.RoCE.Text == "semi-lossless" {
		db.Skipped = append(db.Skipped, Value{Text: "roce semi-lossless (honours pause, sends none: no class is lossless)", Line: c.RoCE.Line, Col: c.RoCE.Col})
	}
	for _, it := range c.Interfaces {
		if !it.PFC.Given() && !it.Trust.Given() && len(it.ECN) == 0 {
			continue
		}
		row := map[string]Value{}
		if it.Trust.Text == "L3" || it.Trust.Text == "both" {
			name := "Onyx default DSCP map (DSCP >> 3)"
			if db.table("DSCP_TO_TC_MAP")[name] == nil {
				m := map[string]Value{}
				for d := range 64 {
					m[strconv.Itoa(d)] = Value{Text: strconv.Itoa(d >> 3)}
				}
				db.table("DSCP_TO_TC_MAP")[name] = m
			}
			row["dscp_to_tc_map"] = Value{Text: name, Line: it.Trust.Line, Col: it.Trust.Col}
		}
		// pfc_enable is at the line that makes it: the first enabled
		// priority, else the global switch, else the port's own mode.
		pfc := c.PFCOn
		if len(prios) > 0 {
			pfc = c.Prios[prios[0]]
		}
		if !pfc.Given() {
			pfc = it.PFC
		}
		pfc.Text = ""
		if on && it.PFC.Text != "off" {
			pfc.Text = textout.Ints(prios)
			auto = auto || !it.PFC.Given() || it.PFC.Text == "auto"
		}
		if it.PFC.Text == "off" {
			pfc = it.PFC
			pfc.Text = ""
		}
		row["pfc_enable"] = pfc
		db.table("PORT_QOS_MAP")[it.Name] = row
		for _, tc := range slices.Sorted(maps.Keys(it.ECN)) {
			e := it.ECN[tc]
			r := &swcfg.RED{At: e.At, Min: e.Min, Max: e.Max}
			if e.At.Text == "red" {
				r.At.Text = "drop"
			}
			db.nosRED(it.Name, tc, fmt.Sprintf("traffic-class %d congestion-control %s (line %d)", tc, e.At.Text, e.At.Line), r)
		}
		db.nosPort(it.Name, it.Speed, it.MTU)
	}
	if auto && len(prios) > 0 {
		db.Skipped = append(db.Skipped, Value{Text: "dcb priority-flow-control mode auto (PFC left to DCBX negotiation)"})
	}
	// `roce` (Onyx 3.8.2000 on), in every mode, marks ECN on RoCE's
	// class; lossless (`roce`, `roce lossless`) turns PFC on, lossy
	// declares no class lossless. onyx.Parse reads it, prompted or not,
	// and `no roce` clears it.
	db.nosECN(false, ecnWords...)
	db.noECN = db.noECN && !c.RoCE.Given()
	db.nosPFC(false)
	db.noPFC = db.noPFC && c.RoCE.Text != "lossless"
	db.nosDone(c.NotJudged)
	return db
}

// OnyxPFCWritten reports, for a configuration made from Onyx, whether it
// turns PFC on for the switch (`dcb priority-flow-control enable`) and
// whether it enables a priority (`dcb priority-flow-control priority N
// enable`): Onyx pauses only the priorities that list enables, on ports
// whose mode is not off, so a fix names the one that is missing.
func (db *ConfigDB) OnyxPFCWritten() (on, prios bool) {
	return db.onyxPFCOn, db.onyxPrios
}

// roceDefaults returns c with what its `roce` line sets where the ports
// and the PFC lines do not say otherwise, on copies: c, the parsed
// configuration, is left as its lines wrote it.
func roceDefaults(c *onyx.Config) *onyx.Config {
	r := c.RoCE
	if !r.Given() {
		return c
	}
	out := *c
	out.Prios = maps.Clone(c.Prios)
	if out.Prios == nil {
		out.Prios = map[int]Value{}
	}
	if r.Text == "lossless" && len(out.Prios) == 0 {
		out.Prios[3] = r
	}
	out.Interfaces = nil
	for _, it := range c.Interfaces {
		cp := *it
		cp.ECN = maps.Clone(it.ECN)
		out.Interfaces = append(out.Interfaces, &cp)
	}
	if len(out.Interfaces) == 0 {
		out.Interfaces = append(out.Interfaces, &onyx.Interface{Name: "every port (roce)", At: r})
	}
	for _, it := range out.Interfaces {
		if it.ECN == nil {
			it.ECN = map[int]*onyx.ECN{}
		}
		if !it.Trust.Given() {
			it.Trust = r
			it.Trust.Text = "L3"
		}
		if !it.PFC.Given() && r.Text == "lossless" {
			it.PFC = r
			it.PFC.Text = "on"
		}
		if it.ECN[3] == nil {
			at, lo, hi := r, r, r
			at.Text, lo.Text, hi.Text = "ecn", strconv.Itoa(150*1024), strconv.Itoa(1500*1024)
			it.ECN[3] = &onyx.ECN{At: at, Min: lo, Max: hi}
		}
	}
	return &out
}
