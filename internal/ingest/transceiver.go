package ingest

import (
	"strconv"
	"strings"
)

// KindTransceiver is `ethtool -m DEV`: a port's pluggable module and its
// digital diagnostics.
const KindTransceiver Kind = "transceiver"

// Transceiver is what `ethtool -m` (ethtool's sfpdiag.c for SFF-8472,
// qsfp.c for SFF-8636, cmis.c for QSFP-DD and OSFP) prints about each
// module, read from its "Label : value" lines:
//
//	Identifier                                : 0x11 (QSFP28)
//	Module temperature                        : 30.56 degrees C / 87.01 degrees F
//	Laser tx bias current (Channel 1)         : 6.750 mA
//	Transmit avg optical power (Channel 1)    : 1.3924 mW / 1.44 dBm
//	Rcvr signal avg optical power(Channel 1)  : 0.9720 mW / -0.12 dBm
//	Laser rx power low alarm    (Channel 1)   : Off
//	Laser rx power low warning threshold      : 0.0933 mW / -10.30 dBm
//	Rx loss of signal                         : [ Yes, No, No, No ]
//
// SFP modules print one lane without a channel ("Laser output power",
// "Receiver signal average optical power"). An "Identifier" line, a lane
// value seen again, or a pasted `ethtool -m DEV` command starts the next
// module, so a loop over ports or a `| grep` of some labels reads too.
type Transceiver struct {
	Scoped
	artifactHead
	Modules []Module
	// Garbled are the lines of a module's diagnostics whose label is one
	// the judge reads and whose value does not read as printed.
	Garbled []Garble
}

// A Module is one transceiver.
type Module struct {
	// Port is the interface the pasted command names ("eth2", "swp13"),
	// "" when none is pasted; Host the prompt's host.
	Port, Host string
	// Identifier is the form factor as printed inside the parentheses of
	// the Identifier line ("QSFP28", "SFP"), Type the first Transceiver
	// type ("100G Ethernet: 100G Base-SR4 or 25GBase-SR"), PN the vendor's
	// part number.
	Identifier, Type, Vendor, PN string
	// Copper is the line that says the module is a copper cable (its
	// transmitter technology "Copper cable unequalized", or a type
	// "40G Base-CR4" or "100G ACC"), Line 0 for an optic: a copper cable
	// has no laser and no optical receiver, so its lanes' bias and powers
	// read zero or noise.
	Copper Evidence
	// State is a CMIS module's state ("ModuleReady", "ModuleLowPwr",
	// "ModuleFault"), "" for other modules.
	State string
	// TempC is the module's temperature; TempEv its line (Line 0 when not
	// printed).
	TempC  float64
	TempEv Evidence
	// Lanes are the module's lanes in order of their number.
	Lanes []OpticLane
	// Limits are the thresholds the module holds in its EEPROM.
	Limits OpticLimits
	// On are the alarm and warning flags the module raises.
	On []ModuleFlag
	// Signals are the lane status lines (loss of signal, loss of lock,
	// Tx fault) that name at least one lane.
	Signals []LaneSignal
	// Evidence is the module's first line.
	Evidence Evidence
}

// An OpticLane is one channel's monitors. A value not printed is -1.
type OpticLane struct {
	Lane int
	// BiasMA is the laser's bias current; TxMW and RxMW the average
	// optical power sent and received, in milliwatts.
	BiasMA, TxMW, RxMW float64
	// OMA is set when the module reports the received power as OMA
	// ("Receiver signal OMA") rather than average power.
	OMA                bool
	BiasEv, TxEv, RxEv Evidence
}

// TxOn reports whether the lane's laser is on: a bias current or a
// transmitted power above zero.
func (l OpticLane) TxOn() bool { return l.BiasMA > 0 || l.TxMW > 0 }

// TxKnown reports whether the module printed the lane's bias or
// transmitted power.
func (l OpticLane) TxKnown() bool { return l.BiasMA >= 0 || l.TxMW >= 0 }

// A Limit is one threshold; V is 0 when the module holds none (ethtool
// prints an unset power threshold as "0.0000 mW / -inf dBm").
type Limit struct {
	V  float64
	Ev Evidence
}

// OpticLimits are a module's thresholds: received and transmitted power
// in mW, temperature in degrees C.
type OpticLimits struct {
	RxLowAlarm, RxLowWarn, RxHighAlarm, RxHighWarn Limit
	TxLowAlarm, TxLowWarn                          Limit
	TempHighAlarm, TempHighWarn                    Limit
}

// A ModuleFlag is an alarm or warning flag that is On: its label without
// the lane, lower case ("laser rx power low alarm", "module temperature
// high warning"), and its lane (0 for the module's).
type ModuleFlag struct {
	Name     string
	Lane     int
	Evidence Evidence
}

// Alarm reports whether the flag is an alarm (else a warning).
func (f ModuleFlag) Alarm() bool { return strings.HasSuffix(f.Name, " alarm") }

// A LaneSignal is a lane status line with the lanes it says Yes for:
// Name lower case ("rx loss of signal", "tx fault").
type LaneSignal struct {
	Name     string
	Lanes    []int
	Evidence Evidence
}

// Kind returns KindTransceiver.
func (t *Transceiver) Kind() Kind { return KindTransceiver }

// Bounds of one artifact: modules (a loop over a switch's ports) and
// lanes of one module (CMIS has up to four banks of eight).
const (
	maxModules     = 1024
	maxModuleLanes = 32
)

// moduleLabels are the labels ethtool -m prints that carry nothing read
// here; they count as the format's lines once a module has begun.
var moduleLabels = map[string]bool{
	"extended identifier": true, "extended identifier description": true, "connector": true,
	"transceiver codes": true, "encoding": true, "br, nominal": true, "rate identifier": true,
	"laser wavelength": true, "laser wavelength tolerance": true,
	"vendor oui": true, "vendor rev": true, "vendor sn": true, "date code": true,
	"revision compliance": true, "module voltage": true, "alarm/warning flags implemented": true,
	"optical diagnostics support": true, "power set": true, "power override": true,
	"power class": true, "max power": true, "cable assembly length": true, "option values": true,
	"option": true, "br margin, max": true, "br margin, min": true, "lowpwrallowrequesthw": true,
	"lowpwrrequestsw": true, "tx cdr": true, "rx cdr": true, "tx cdr bypass control": true,
	"rx cdr bypass control": true, "active firmware version": true, "inactive firmware version": true,
}

// laneSignals are the lane status lines (module_show_lane_status).
var laneSignals = map[string]bool{
	"rx loss of signal": true, "tx loss of signal": true, "rx loss of lock": true,
	"tx loss of lock": true, "tx fault": true, "tx adaptive eq fault": true,
}

type transceiverParser struct {
	out  Transceiver
	cur  *Module
	port string // the port the next module belongs to
	host string
	rule bool // the line before was a rule of dashes
	dom  domTable
	// nxIn is set inside an NX-OS port's block, nxLane the lane its
	// table is of.
	nxIn   bool
	nxLane int
}

// NewTransceiverParser returns a parser for `ethtool -m` output in the
// input src.
func NewTransceiverParser(src string) Parser {
	return &transceiverParser{out: Transceiver{artifactHead: artifactHead{src: src}}}
}

// Feed implements Parser.
func (p *transceiverParser) Feed(l Line) {
	if l.NCCL {
		return
	}
	t := strings.TrimSpace(l.Text)
	if c, ok := findCommand(t, "ethtool"); ok && len(c.Args) >= 2 && (c.Args[0] == "-m" || c.Args[0] == "--module-info" || c.Args[0] == "--dump-module-eeprom") {
		p.finish()
		p.port, p.host = "", c.Host
		// A placeholder ("<iface>") or a shell variable names no port.
		if literalArg(c.Args[1]) {
			p.port = strings.Clone(c.Args[1])
		}
		return
	}
	if c, ok := findCommand(t, "mlxlink"); ok {
		p.finish()
		p.port, p.host = "", c.Host
		if d, ok := c.flagValue("-d", "--device"); ok && literalArg(d) {
			p.port = strings.Clone(d)
		}
		return
	}
	if p.table(l, t) || p.nxos(l, t) {
		return
	}
	rule := p.rule
	p.rule = t != "" && strings.Trim(t, "-") == ""
	if port, ok := sonicPort(t, rule); ok {
		p.finish()
		p.port, p.host = port, l.Host
		if m := p.module(At(p.out.src, l)); m != nil {
			p.out.lines.add(l)
		}
		return
	}
	label, val, ok := strings.Cut(t, ":")
	if !ok {
		return
	}
	val = strings.TrimSpace(val)
	key, lane, ok := moduleLabel(label)
	if !ok || val == "" {
		return
	}
	if strings.HasPrefix(val, "N/A") {
		// A monitor the module does not have (KLISH's "N/A dBm").
		if p.cur != nil && domLabel(key, lane) {
			p.out.lines.add(l)
		}
		return
	}
	if !p.take(l, key, lane, val) {
		if p.cur != nil && domLabel(key, lane) && len(p.out.Garbled) < maxGarbled {
			at := strings.IndexByte(l.Text, ':')
			at += strings.Index(l.Text[at:], val)
			p.out.Garbled = append(p.out.Garbled, garbleAt(l, at, domExpected(key)))
		}
		return
	}
	p.out.lines.add(l)
}

// moduleLabel lowers a label and takes its lane off: "Laser rx power low
// alarm    (Channel 1)" is ("laser rx power low alarm", 1). It fails for
// labels that are not words as ethtool prints them.
func moduleLabel(label string) (string, int, bool) {
	s := strings.TrimSpace(label)
	lane := 0
	if i := strings.LastIndexByte(s, '('); i > 0 && strings.HasSuffix(s, ")") {
		in := s[i+1 : len(s)-1]
		n, ok := strings.CutPrefix(in, "Channel ")
		if !ok {
			n, ok = strings.CutPrefix(in, "Chan ")
		}
		if ok {
			v, err := strconv.Atoi(n)
			if err != nil || v < 1 || v > maxModuleLanes {
				return "", 0, false
			}
			lane, s = v, strings.TrimSpace(s[:i])
		}
	}
	if s == "" || len(s) > 64 {
		return "", 0, false
	}
	return strings.ToLower(strings.Join(strings.Fields(s), " ")), lane, true
}

// take stores one labelled value and reports whether the line is the
// format's.
func (p *transceiverParser) take(l Line, key string, lane int, val string) bool {
	ev := At(p.out.src, l)
	switch {
	case key == "identifier":
		// mlxlink prints the Identifier after the monitors, ethtool
		// before them: only a second Identifier starts a module.
		if p.cur != nil && p.cur.Identifier != "" {
			p.finish()
		}
		m := p.module(ev)
		if m == nil {
			return false
		}
		m.Identifier = strings.Clone(parenthesised(val))
		return true
	case key == "transceiver type":
		if p.cur == nil {
			return false
		}
		if p.cur.Type == "" {
			p.cur.Type = strings.Clone(val)
		}
		p.copper(ev, val)
		return true
	case key == "transmitter technology", key == "10/40g ethernet compliance code", key == "extended specification compliance", key == "media interface technology":
		// ethtool's, then SONiC's labels of the module's medium.
		if p.cur == nil {
			return false
		}
		p.copper(ev, val)
		return true
	case key == "vendor name" || key == "vendor pn":
		if p.cur == nil {
			return false
		}
		if key == "vendor name" {
			p.cur.Vendor = strings.Clone(val)
		} else {
			p.cur.PN = strings.Clone(val)
		}
		return true
	case key == "module state":
		if p.cur == nil {
			return false
		}
		p.cur.State = strings.Clone(parenthesised(val))
		return true
	case key == "module temperature":
		v, ok := leadingFloat(val)
		if !ok || !strings.Contains(val, "degrees C") {
			return false
		}
		m := p.module(ev)
		if m == nil {
			return false
		}
		m.TempC, m.TempEv = v, ev
		return true
	case laneSignals[key]:
		lanes, ok := signalLanes(val)
		if !ok {
			return false
		}
		m := p.module(ev)
		if m == nil {
			return false
		}
		if len(lanes) > 0 {
			m.Signals = append(m.Signals, LaneSignal{Name: key, Lanes: lanes, Evidence: ev})
		}
		return true
	case strings.HasSuffix(key, " threshold"):
		return p.limit(ev, strings.TrimSuffix(key, " threshold"), val)
	case strings.HasSuffix(key, " alarm") || strings.HasSuffix(key, " warning"):
		if val != "On" && val != "Off" {
			return false
		}
		m := p.module(ev)
		if m == nil {
			return false
		}
		if val == "On" {
			m.On = append(m.On, ModuleFlag{Name: key, Lane: lane, Evidence: ev})
		}
		return true
	}
	if q, ok := laneQuantity(key, lane); ok {
		var v float64
		if q == quantityBias {
			v, ok = withUnit(val, "mA")
		} else {
			v, ok = opticalPower(val)
		}
		return ok && p.monitor(ev, q, lane, v)
	}
	if handled, ok := p.sonic(ev, key, val); handled {
		return ok
	}
	if handled, ok := p.mlxlinkModule(ev, key, val); handled {
		return ok
	}
	if p.cur != nil && (moduleLabels[key] || strings.HasPrefix(key, "length (") || strings.HasPrefix(key, "attenuation at ")) {
		return true
	}
	return false
}

// copper marks the current module a copper cable when val, its type or
// technology, names one: SFF-8024's "40G Base-CR4" ("40GBASE-CR4" in
// SONiC's words), "25G Base-CR CA-L", "100G ACC or 25GAUI C2M ACC", or a
// transmitter technology "Copper cable unequalized".
func (p *transceiverParser) copper(ev Evidence, val string) {
	if p.cur.Copper.Line == 0 && (strings.Contains(strings.ToUpper(val), "BASE-CR") || strings.Contains(val, " ACC ") || strings.Contains(val, "Copper")) {
		p.cur.Copper = ev
	}
}

// The lane monitors.
const (
	quantityBias = iota
	quantityTx
	quantityRx
	quantityRxOMA
)

// laneQuantity names the monitor a label prints: per channel on QSFP and
// CMIS modules, once on an SFP's (lane 0).
func laneQuantity(key string, lane int) (int, bool) {
	switch {
	case key == "laser tx bias current" && lane > 0, key == "laser bias current" && lane == 0:
		return quantityBias, true
	case key == "transmit avg optical power" && lane > 0, key == "laser output power" && lane == 0:
		return quantityTx, true
	case key == "rcvr signal avg optical power" && lane > 0, key == "receiver signal average optical power" && lane == 0:
		return quantityRx, true
	case key == "receiver signal oma":
		return quantityRxOMA, true
	}
	return 0, false
}

// monitor stores a lane's bias (mA) or power (mW); false for a negative
// one, which no module reads (and -1 marks a value not printed).
func (p *transceiverParser) monitor(ev Evidence, q int, lane int, v float64) bool {
	if v < 0 {
		return false
	}
	if lane == 0 {
		lane = 1
	}
	m := p.module(ev)
	if m == nil {
		return false
	}
	ln := m.lane(lane)
	if q == quantityBias && ln.BiasMA >= 0 || q == quantityTx && ln.TxMW >= 0 || q >= quantityRx && ln.RxMW >= 0 {
		// The lane's value again: the next module of a paste that
		// prints no Identifier (a grep of some labels).
		p.finish()
		if m = p.module(ev); m == nil {
			return false
		}
		ln = m.lane(lane)
	}
	switch q {
	case quantityBias:
		ln.BiasMA, ln.BiasEv = v, ev
	case quantityTx:
		ln.TxMW, ln.TxEv = v, ev
	default:
		ln.RxMW, ln.RxEv, ln.OMA = v, ev, q == quantityRxOMA
	}
	return true
}

// limit stores a threshold the judge uses; the others count as lines.
func (p *transceiverParser) limit(ev Evidence, key, val string) bool {
	if p.cur == nil {
		return false
	}
	var v float64
	var ok bool
	switch {
	case strings.HasPrefix(key, "module temperature"):
		v, ok = leadingFloat(val)
		ok = ok && strings.Contains(val, "degrees C")
	case strings.HasPrefix(key, "module voltage"):
		_, ok = withUnit(val, "V")
		return ok
	case strings.HasPrefix(key, "laser bias current"):
		_, ok = withUnit(val, "mA")
		return ok
	default:
		v, ok = opticalPower(val)
	}
	if !ok {
		return false
	}
	lim := &p.cur.Limits
	dst := map[string]*Limit{
		"laser rx power low alarm": &lim.RxLowAlarm, "laser rx power low warning": &lim.RxLowWarn,
		"laser rx power high alarm": &lim.RxHighAlarm, "laser rx power high warning": &lim.RxHighWarn,
		"laser output power low alarm": &lim.TxLowAlarm, "laser output power low warning": &lim.TxLowWarn,
		"module temperature high alarm": &lim.TempHighAlarm, "module temperature high warning": &lim.TempHighWarn,
	}[key]
	switch {
	case dst != nil:
		*dst = Limit{V: v, Ev: ev}
		return true
	case strings.HasPrefix(key, "laser rx power ") || strings.HasPrefix(key, "laser output power ") || strings.HasPrefix(key, "module temperature "):
		return true
	}
	return false
}

// module returns the current module, starting one at ev; nil when the
// artifact holds as many as it may.
func (p *transceiverParser) module(ev Evidence) *Module {
	if p.cur == nil {
		if len(p.out.Modules) >= maxModules {
			return nil
		}
		p.cur = &Module{Port: p.port, Host: p.host, Evidence: ev}
	}
	return p.cur
}

// lane returns lane n of m, adding the lanes up to it.
func (m *Module) lane(n int) *OpticLane {
	for len(m.Lanes) < n {
		m.Lanes = append(m.Lanes, OpticLane{Lane: len(m.Lanes) + 1, BiasMA: -1, TxMW: -1, RxMW: -1})
	}
	return &m.Lanes[n-1]
}

// finish keeps the current module when it holds anything judged.
func (p *transceiverParser) finish() {
	m := p.cur
	p.cur, p.nxIn = nil, false
	if m != nil && m.trim() {
		p.out.Modules = append(p.out.Modules, *m)
	}
}

// trim drops the lanes the module padded in but never printed (a grep
// that kept lane 3 alone) and reports whether it holds anything judged:
// an Identifier alone is no diagnostics (mlxlink's Module Info prints one
// too).
func (m *Module) trim() bool {
	kept := m.Lanes[:0]
	for _, ln := range m.Lanes {
		if ln.TxKnown() || ln.RxMW >= 0 {
			kept = append(kept, ln)
		}
	}
	m.Lanes = kept
	return len(m.Lanes) > 0 || m.TempEv.Line > 0 || len(m.Signals) > 0 || len(m.On) > 0
}

// Result implements Parser.
func (p *transceiverParser) Result() Artifact {
	p.finish()
	p.tableFinish()
	if len(p.out.Modules) == 0 && len(p.out.Garbled) == 0 {
		return nil
	}
	return &p.out
}
