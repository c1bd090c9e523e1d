package sonic

import (
	"strconv"
	"strings"

	"rocelab/internal/pos"
	"rocelab/internal/swcfg"
)

// The row builders every switch OS's conversion shares (FromEOS, FromNXOS,
// FromOS10, FromOnyx, FromAOSCX, FromTrafficConf).

// table returns the named table, made when absent.
func (db *ConfigDB) table(name string) Table {
	if db.Tables[name] == nil {
		db.Tables[name] = Table{}
	}
	return db.Tables[name]
}

// nosRED writes a switch OS's ECN or WRED thresholds as the WRED_PROFILE
// name on port's queue n: ecn_all when it marks (At.Text
// "ecn"), ecn_none when it drops; green enabled, as the line acts on every
// packet; the probability 100 % when not written.
func (db *ConfigDB) nosRED(port string, n int, name string, r *swcfg.RED) {
	at := r.At
	ecn := at
	ecn.Text = "ecn_none"
	if r.At.Text == "ecn" {
		ecn.Text = "ecn_all"
	}
	green := at
	green.Text = "true"
	prob := r.Prob
	if !r.Prob.Given() {
		prob = at
		prob.Text = "100"
	}
	db.table("WRED_PROFILE")[name] = map[string]Value{"ecn": ecn, "wred_green_enable": green,
		"green_min_threshold": r.Min, "green_max_threshold": r.Max, "green_drop_probability": prob}
	wp := at
	wp.Text = name
	db.table("QUEUE")[port+"|"+strconv.Itoa(n)] = map[string]Value{"wred_profile": wp}
}

// nosPort writes a port's speed (Mb/s) and MTU where the switch OS's
// configuration gives them.
func (db *ConfigDB) nosPort(port string, speed, mtu pos.Value) {
	row := map[string]Value{}
	if speed.Given() {
		row["speed"] = speed
	}
	if mtu.Given() {
		row["mtu"] = mtu
	}
	if len(row) > 0 {
		db.table("PORT")[port] = row
	}
}

// nosECN notes whether a switch OS's configuration writes no ECN: none
// of its lines holds one of the words that write ECN or WRED (or, as
// Onyx's `roce`, turn them on by default), and cut is false (a policy or
// profile the input applies but does not hold may write them).
func (db *ConfigDB) nosECN(cut bool, words ...string) {
	db.noECN = !cut && !swcfg.Mentions(db.lines, words...)
}

// ecnWords are the commands that write ECN or WRED in the switch OSes'
// configurations: EOS's, NX-OS's and OS10's `random-detect`, OS10's
// `wred` profiles and FTOS's `wred-profile`, Onyx's `congestion-control`,
// AOS-CX's `action ecn`, Junos's `explicit-congestion-notification` and
// `drop-profile`.
var ecnWords = []string{"ecn", "random-detect", "wred", "congestion-control", "explicit-congestion-notification", "drop-profile", "drop-profiles"}

// nosPFC notes whether a switch OS's configuration names no lossless
// class anywhere: none of its lines holds one of the words that turn PFC
// on, declare a class no-drop or keep a lossless pool (words, the OS's own
// beside pfcWords), and cut is false (a policy the input applies but does
// not hold may pause). PFC off on every port is then what the engineer
// wrote, not a priority left out of a PFC line (LossyByDesign).
func (db *ConfigDB) nosPFC(cut bool, words ...string) {
	db.noPFC = !cut && !swcfg.Mentions(db.lines, append(words, pfcWords...)...)
}

// pfcWords are the commands that turn PFC on or declare a class lossless
// in the switch OSes' configurations: `priority-flow-control` (EOS, NX-OS,
// OS10, Onyx's `dcb priority-flow-control`), `pfc…` (NX-OS's and OS10's
// `pause pfc-cos`, FTOS's `pfc on`, Junos's `pfc-priority` and `pfc;`),
// `pause`, EOS's `no-drop`, Junos's `no-loss`. AOS-CX's `flow-control
// priority` and `lossless` pools are its own words: Junos's
// `flow-control-queue` honours a pause and sends none, and its
// `buffer-partition lossless { percent 0; }` gives lossless traffic no
// buffer (Juniper's 5-stage EVPN-VXLAN JVD leaves). A line that turns PFC off names it too,
// and is taken as a class someone thought about: not lossy by design. A
// Junos congestion-notification-profile is not among them: with only
// `output … flow-control-queue` it honours pauses and sends none (Juniper's
// 5-stage EVPN-VXLAN JVD leaves), and its `input … pfc` says `pfc`.
var pfcWords = []string{"priority-flow-control", "pfc", "pause", "no-drop", "no-loss"}

// nosDone ends a config made from a switch OS's: the settings read but
// not judged, and each table at the file's head.
func (db *ConfigDB) nosDone(notJudged []pos.Value) {
	db.Skipped = append(db.Skipped, notJudged...)
	for t := range db.Tables {
		db.tablePos[t] = Value{Text: t, Line: 1, Col: 1}
	}
}

// RunningConfigHeader is the line by which a switch OS's input shows it is
// the whole configuration, as `show running-config` prints it: OS10's `!
// Version 10.…`, EOS's `! device: … EOS-…`, AOS-CX's `!Version
// ArubaOS-CX …`, Onyx's `## Running database` (or `## Active saved
// database`), NX-OS's `!Command: show running-config` with nothing after
// it, Junos's `version …;` (`set version …`) atop a whole configuration
// (junos.Whole). Without such a line, or for a part of the configuration
// (MarkExcerpt), ok is false: what the input leaves out may be elsewhere.
// Those OSes pause no priority and mark no ECN by default, so a whole
// configuration without QoS runs every class lossy.
func (db *ConfigDB) RunningConfigHeader() (Value, bool) {
	if db.excerpt.Given() {
		return Value{}, false
	}
	if db.Vendor == VendorJunos {
		return db.junosHeader()
	}
	heads := map[string][]string{
		VendorOS10:  {"! Version 10."},
		VendorEOS:   {"! device: "},
		VendorAOSCX: {"!Version ArubaOS-CX "},
		VendorOnyx:  {"## Running database ", "## Active saved database "},
		VendorNXOS:  {"!Command: show running-config"},
	}[db.Vendor]
	for i, l := range db.lines {
		t := strings.TrimSpace(l)
		for _, h := range heads {
			if !strings.HasPrefix(t, h) || db.Vendor == VendorEOS && !strings.Contains(t, ", EOS-") || db.Vendor == VendorNXOS && strings.TrimSpace(strings.TrimPrefix(t, h)) != "" {
				continue
			}
			return Value{Text: t, Line: i + 1, Col: strings.Index(l, t) + 1}, true
		}
	}
	return Value{}, false
}
