package doctor

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"rocelab/internal/ingest"
)

// Rules over `ethtool -m`: a pluggable module's own diagnostics. A lane
// that receives too little light, or none, passes frames with bit errors
// FEC cannot always correct, or passes none; a module past its
// temperature warning loses laser power and margin. Each dropped frame
// costs RoCE a go-back-N retransmission, so a marginal optic shows as
// lost bandwidth and CRC or FEC counters long before a link goes down.

func opticsRules() []Rule {
	return []Rule{
		{IDs: []string{"optics.dark", "optics.lanes", "optics.rx.dark", "optics.rx.power", "optics.tx.power", "optics.temperature", "optics.fault", "optics.ok", "optics.copper"}, Check: checkOptics},
		{IDs: []string{"input.garbled"}, Check: checkOpticsGarbled},
	}
}

// checkOpticsGarbled reports the diagnostics lines whose value did not
// read.
func checkOpticsGarbled(inc *Incident) []Finding {
	return garbledOf(inc, "a module's diagnostics", func(t *ingest.Transceiver) []ingest.Garble { return t.Garbled },
		"These lines carry a label the judge of the module reads (a lane's power or bias, a threshold, a flag, the temperature) with a value that is not as the tool prints it (a paste that cut or joined the line, or an edit), so that reading is unknown; the module's other lines are read.",
		"Pass the tool's unedited output: `ethtool -m <port> > module.txt`, `show interfaces transceiver eeprom --dom`, `mlxlink -d <dev> -m`.")
}

// opticsMarginDB is the margin over the module's low-warning threshold
// under which a receiver is called marginal: a connector's dirt or a
// fiber's ageing takes that much.
const opticsMarginDB = 1.0

// opticsAlarmMarginDB is the margin over the low-alarm threshold under
// which a receiver is called marginal when the module prints no warning
// threshold (mlxlink's range): warning thresholds sit 2 to 4 dB over the
// alarm ones.
const opticsAlarmMarginDB = 3.0

// weakRxDBm is the received power a module that prints no threshold (a
// switch's summary table, a grep of the dBm lines) is held against: the
// low-alarm thresholds of short-reach modules (SR4, DR4, their 400G
// kin) sit at -10.4 to -12 dBm, so under -10 dBm such a receiver is at
// its limit.
const weakRxDBm = -10.0

// checkOptics judges each module `ethtool -m` printed.
func checkOptics(inc *Incident) []Finding {
	var fs []Finding
	for _, t := range All[*ingest.Transceiver](inc) {
		for i, m := range t.Modules {
			name := m.Port
			if name == "" {
				name = fmt.Sprintf("module %d of %s", i+1, t.Source())
				if len(t.Modules) == 1 {
					name = "the module of " + t.Source()
				}
			}
			host := moduleHost(t, m)
			if host != "" {
				name = host + " " + name
			}
			fs = append(fs, withLinkErrors(inc, host, t.Source(), m, judgeModule(name, m))...)
		}
	}
	return fs
}

// dbm converts milliwatts to dBm.
func dbm(mw float64) float64 { return 10 * math.Log10(mw) }

// fmtDBm formats a power in dBm ("no light" for none).
func fmtDBm(mw float64) string {
	if mw <= 0 {
		return "no light"
	}
	return fmt.Sprintf("%.2f dBm", dbm(mw))
}

// noLight is the received power at or under which a lane receives
// nothing: -30 dBm (0.001 mW), with room for the rounding of a value
// printed in dBm. Modules floor their reading at -40 dBm and switches
// print -30 dBm for a dark receiver (Arista EOS); no optic decodes a
// signal that weak (even long-reach receivers' sensitivity is above -25
// dBm).
const noLight = 0.001001

// laneList formats lane numbers as runs: "1", "2-4", "1, 3".
func laneList(lanes []int) string {
	var parts []string
	for i := 0; i < len(lanes); {
		j := i
		for j+1 < len(lanes) && lanes[j+1] == lanes[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", lanes[i], lanes[j]))
		} else {
			parts = append(parts, strconv.Itoa(lanes[i]))
		}
		i = j + 1
	}
	s := strings.Join(parts, ", ")
	if len(lanes) == 1 {
		return "lane " + s
	}
	return "lanes " + s
}

// laneVerb agrees a verb with laneList's subject.
func laneVerb(lanes []int, one, many string) string {
	if len(lanes) == 1 {
		return one
	}
	return many
}

// moduleName says what the module is: "QSFP28 MMA1B00-C100D (100G
// Base-SR4)".
func moduleName(m ingest.Module) string {
	s := strings.TrimSpace(m.Identifier + " " + m.PN)
	if _, pmd, ok := strings.Cut(m.Type, ": "); ok {
		s += " (" + pmd + ")"
	} else if m.Type != "" {
		// NX-OS's "type is 10Gbase-SR": the PMD alone.
		s += " (" + m.Type + ")"
	}
	if s == "" {
		return "the module"
	}
	return s
}

// pmdLanes is the lane count an Ethernet PMD's name carries: SR4, DR4,
// XDR4, CR4 and LR4 use four lanes, SR8 and DR8 eight.
var pmdLanes = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:Base-|-)(?:[SLEFC]R|X?DR|PSM|SWDM)(\d)\b`) })

// wantLanes returns the lanes the module's type or part number says the
// PMD uses, 0 when neither says.
func wantLanes(m ingest.Module) int {
	for _, s := range []string{m.Type, m.PN} {
		if sm := pmdLanes().FindStringSubmatch(s); sm != nil {
			n, _ := strconv.Atoi(sm[1])
			return n
		}
	}
	return 0
}

// judgeModule returns one module's findings.
func judgeModule(name string, m ingest.Module) []Finding {
	what := moduleName(m)
	if m.Copper.Line > 0 {
		return judgeCopper(name, what, m)
	}
	var fs []Finding
	var lit, darkBoth, rxDark []int
	txKnown := false
	var rxDarkEv, darkEv []Evidence
	for _, ln := range m.Lanes {
		switch {
		case ln.TxKnown() && laserOff(m, ln) && ln.RxMW >= 0 && ln.RxMW <= noLight:
			darkBoth = append(darkBoth, ln.Lane)
			darkEv = append(darkEv, ln.BiasEv, ln.RxEv)
		case ln.RxMW >= 0 && ln.RxMW <= noLight:
			rxDark = append(rxDark, ln.Lane)
			txKnown = txKnown || ln.TxKnown()
			rxDarkEv = append(rxDarkEv, ln.TxEv, ln.RxEv)
		}
		if ln.TxOn() || ln.RxMW > noLight {
			lit = append(lit, ln.Lane)
		}
	}
	m = withoutLanes(m, darkBoth)
	for _, s := range m.Signals {
		if s.Name == "rx loss of signal" {
			rxDarkEv = append(rxDarkEv, s.Evidence)
		}
	}
	if len(m.Lanes) > 0 && len(darkBoth) == len(m.Lanes) {
		state := ""
		if m.State != "" {
			state = fmt.Sprintf(" (module state %s)", m.State)
		}
		fs = append(fs, Finding{
			ID: "optics.dark", Severity: Warn, Layer: LayerRDMA, Subject: name,
			Title:     fmt.Sprintf("%s: %s sends and receives no light on %s%s", name, what, map[bool]string{true: "its one lane", false: fmt.Sprintf("any of its %d lanes", len(m.Lanes))}[len(m.Lanes) == 1], state),
			Evidence:  opticsEvidence(darkEv),
			Mechanism: "Every laser of the module is off (no bias current, or a fraction of its working current with a transmitted power under the module's low alarm) and nothing arrives at its receivers: the port is down or disabled, or its transmitters are (TX_DISABLE, a module held in low power), and with them off the far end sees loss of signal and keeps the link down. A port meant to carry RoCE traffic here carries none: a job told to use its NIC fails to connect or runs on fewer NICs.",
			Fix:       "Check the link (`ethtool <port>`: Link detected; `ip link show`; on a switch `show interfaces <port> status`), bring the port up, and read the module again; if it stays dark, reseat or replace it (`ethtool --show-module <port>` for its power mode) and check the far end's port and optic.",
		})
	} else if len(darkBoth) > 0 {
		sev := Info
		detail := fmt.Sprintf("the port uses %d of the module's %d lanes (a breakout, a lower speed, or a module with fewer optical than electrical lanes)", len(lit), len(m.Lanes))
		if want := wantLanes(m); want > 0 && len(lit) < want {
			sev = Warn
			detail = fmt.Sprintf("its type names %d lanes, so the port runs on %d of them: at a lower speed or a breakout, or with lanes that failed", want, len(lit))
		}
		fs = append(fs, Finding{
			ID: "optics.lanes", Severity: sev, Layer: LayerRDMA, Subject: name,
			Title:     fmt.Sprintf("%s: %s on %s carry no light either way; %s", name, laneList(darkBoth), what, detail),
			Evidence:  opticsEvidence(darkEv),
			Mechanism: "A lane with no bias current and nothing received is one the port does not drive: lanes a 4-lane optic leaves unused in an 8-lane cage, the lanes of other ports in a breakout, or the lanes a port negotiated down to a lower speed leaves idle. When the port should use them, it runs at a fraction of its rate and NCCL's bus bandwidth over it drops in proportion.",
			Fix:       "Compare the port's speed (`ethtool <port>`: Speed) with the speed it should run at; a port at a fraction of it needs its speed and FEC set on both ends, or the module or cable replaced.",
		})
	}
	if len(rxDark) > 0 {
		tx := ""
		if txKnown {
			tx = " while the module transmits"
		}
		fs = append(fs, Finding{
			ID: "optics.rx.dark", Severity: Error, Layer: LayerRDMA, Subject: name,
			Title:     fmt.Sprintf("%s: %s of %s %s no light%s", name, laneList(rxDark), what, laneVerb(rxDark, "receives", "receive"), tx),
			Evidence:  opticsEvidence(rxDarkEv),
			Mechanism: "The module's laser is on but nothing arrives at its receiver on these lanes: the fiber is unplugged, broken or crossed (MPO polarity), or the far end's transmitter is off. The link cannot come up on those lanes; if it runs, it runs without them.",
			Fix:       "Read the far end's `ethtool -m` (or the switch's transceiver DOM) for its transmitted power on the same lanes; inspect and clean both connectors, check the fiber's polarity, and swap the fiber or the far-end optic.",
		})
	} else if sigs := signalNames(m, "rx loss of signal"); len(sigs) > 0 {
		fs = append(fs, Finding{
			ID: "optics.rx.dark", Severity: Error, Layer: LayerRDMA, Subject: name,
			Title:     fmt.Sprintf("%s: %s of %s %s loss of signal", name, laneList(sigs), what, laneVerb(sigs, "reports", "report")),
			Evidence:  opticsEvidence(rxDarkEv),
			Mechanism: "The module's receiver finds no signal on these lanes: the fiber or the far end sends nothing it can detect, and the link cannot come up on them.",
			Fix:       "Read the far end's transmitted power on the same lanes, inspect and clean the connectors, and swap the fiber or the far-end optic.",
		})
	}
	fs = append(fs, judgeRxPower(name, what, withoutRxFlags(m, rxDark))...)
	fs = append(fs, judgeTxPower(name, what, m)...)
	fs = append(fs, judgeModuleTemp(name, what, m)...)
	fs = append(fs, judgeModuleFaults(name, what, m)...)
	if len(fs) == 0 && len(lit) > 0 {
		fs = append(fs, opticsOK(name, what, m, lit))
	}
	return fs
}

// judgeCopper judges a copper cable: its temperature and faults, not its
// lanes' light.
func judgeCopper(name, what string, m ingest.Module) []Finding {
	fs := append(judgeModuleTemp(name, what, m), judgeModuleFaults(name, what, m)...)
	if len(fs) > 0 {
		return fs
	}
	return []Finding{{
		ID: "optics.copper", Severity: Info, Layer: LayerRDMA, Subject: name,
		Title:     fmt.Sprintf("%s: %s is a copper cable: no laser or optical receiver to judge, no temperature alarm or fault raised", name, what),
		Evidence:  opticsEvidence([]Evidence{m.Copper, m.TempEv}),
		Mechanism: "A direct-attach copper cable carries the signal electrically: the bias and optical powers its EEPROM prints for each lane are zeros or meaningless, so a lane that reads no light is not a dark lane. A copper link's faults show in the port's error counters and link state instead.",
	}}
}

// withoutLanes drops the flags and lane status (but a fault) of the
// lanes dark both ways: a lane the port does not drive has no signal to
// lose or lock onto, and a module may flag its power low; optics.dark
// and optics.lanes say what those lanes are.
func withoutLanes(m ingest.Module, dark []int) ingest.Module {
	if len(dark) == 0 {
		return m
	}
	isDark := func(lane int) bool { return slices.Contains(dark, lane) }
	var on []ingest.ModuleFlag
	for _, f := range m.On {
		if f.Lane == 0 || !isDark(f.Lane) {
			on = append(on, f)
		}
	}
	var sigs []ingest.LaneSignal
	for _, s := range m.Signals {
		if strings.HasSuffix(s.Name, "fault") {
			// A laser that failed is dark because it failed.
			sigs = append(sigs, s)
			continue
		}
		var lanes []int
		for _, l := range s.Lanes {
			if !isDark(l) {
				lanes = append(lanes, l)
			}
		}
		if len(lanes) > 0 {
			s.Lanes = lanes
			sigs = append(sigs, s)
		}
	}
	m.On, m.Signals = on, sigs
	return m
}

// laserOff reports whether a lane's laser sends no useful light: no bias
// and no power, or a power under the module's low-alarm threshold or
// flagged at it (a port shut down leaves a fraction of a milliampere of
// bias and -15 dBm or so, which the module flags as low alarms).
func laserOff(m ingest.Module, ln ingest.OpticLane) bool {
	if !ln.TxOn() || ln.TxMW >= 0 && m.Limits.TxLowAlarm.V > 0 && ln.TxMW < m.Limits.TxLowAlarm.V {
		return true
	}
	for _, f := range m.On {
		if f.Lane == ln.Lane && (f.Name == "laser tx power low alarm" || f.Name == "laser output power low alarm" || f.Name == "laser bias current low alarm") {
			return true
		}
	}
	return false
}

// withoutRxFlags drops the low receive flags of the lanes optics.rx.dark
// reports: a lane that receives nothing is flagged low by the module too.
func withoutRxFlags(m ingest.Module, dark []int) ingest.Module {
	var on []ingest.ModuleFlag
	for _, f := range m.On {
		if !slices.Contains(dark, f.Lane) || !strings.HasPrefix(f.Name, "laser rx power low ") {
			on = append(on, f)
		}
	}
	m.On = on
	return m
}

// opticsEvidence keeps the lines that are set, in input order.
func opticsEvidence(evs []Evidence) []Evidence {
	var out []Evidence
	for _, e := range evs {
		if e.Line > 0 {
			out = append(out, e)
		}
	}
	return evidenceInOrder(out)
}

// signalNames returns the lanes the named status line says Yes for.
func signalNames(m ingest.Module, name string) []int {
	var lanes []int
	for _, s := range m.Signals {
		if s.Name == name {
			lanes = append(lanes, s.Lanes...)
		}
	}
	return lanes
}

// flagsOn returns the module's raised flags whose label begins with
// prefix, the alarms apart from the warnings.
func flagsOn(m ingest.Module, prefix string) (alarms, warnings []ingest.ModuleFlag) {
	for _, f := range m.On {
		if !strings.HasPrefix(f.Name, prefix) {
			continue
		}
		if f.Alarm() {
			alarms = append(alarms, f)
		} else {
			warnings = append(warnings, f)
		}
	}
	return alarms, warnings
}

// judgeRxPower holds each lit lane's received power against the
// module's own thresholds and flags.
func judgeRxPower(name, what string, m ingest.Module) []Finding {
	lim := m.Limits
	// The lanes out of bounds, by the bound they break, in this order.
	type bound struct {
		sev    Severity
		text   string // what the lanes are against the limit
		lim    ingest.Limit
		lanes  []int
		powers []string
	}
	bounds := []*bound{
		{sev: Error, text: "under its low-alarm threshold", lim: lim.RxLowAlarm},
		{sev: Warn, text: "under its low-warning threshold", lim: lim.RxLowWarn},
		{sev: Warn, text: "over its high-warning threshold (an overloaded receiver)", lim: lim.RxHighWarn},
		{sev: Warn, text: fmt.Sprintf("less than %.0f dB over its low-warning threshold", opticsMarginDB), lim: lim.RxLowWarn},
		{sev: Warn, text: fmt.Sprintf("less than %.0f dB over its low-alarm threshold, the only one printed", opticsAlarmMarginDB), lim: lim.RxLowAlarm},
		{sev: Warn, text: fmt.Sprintf("under %.0f dBm, the level short-reach modules' low alarms sit just under (the module's own thresholds are not in the paste)", weakRxDBm)},
	}
	var parts []string
	var evs []Evidence
	sev := Severity(-1)
	for _, ln := range m.Lanes {
		if ln.RxMW <= noLight {
			continue
		}
		var b *bound
		switch {
		case lim.RxLowAlarm.V > 0 && ln.RxMW < lim.RxLowAlarm.V:
			b = bounds[0]
		case lim.RxLowWarn.V > 0 && ln.RxMW < lim.RxLowWarn.V:
			b = bounds[1]
		case lim.RxHighWarn.V > 0 && ln.RxMW > lim.RxHighWarn.V:
			b = bounds[2]
		case lim.RxLowWarn.V > 0 && dbm(ln.RxMW)-dbm(lim.RxLowWarn.V) < opticsMarginDB:
			b = bounds[3]
		case lim.RxLowWarn.V == 0 && lim.RxLowAlarm.V > 0 && dbm(ln.RxMW)-dbm(lim.RxLowAlarm.V) < opticsAlarmMarginDB:
			b = bounds[4]
		case lim.RxLowWarn.V == 0 && lim.RxLowAlarm.V == 0 && dbm(ln.RxMW) < weakRxDBm:
			b = bounds[5]
		default:
			continue
		}
		b.lanes = append(b.lanes, ln.Lane)
		p := fmtDBm(ln.RxMW)
		if b == bounds[3] || b == bounds[4] {
			p += fmt.Sprintf(" (%.2f dB over)", dbm(ln.RxMW)-dbm(b.lim.V))
		}
		b.powers = append(b.powers, p)
		evs = append(evs, ln.RxEv)
	}
	for _, b := range bounds {
		if len(b.lanes) == 0 {
			continue
		}
		sev = max(sev, b.sev)
		part := fmt.Sprintf("%s at %s, %s", laneList(b.lanes), strings.Join(b.powers, ", "), b.text)
		if b.lim.V > 0 {
			part += " " + fmtDBm(b.lim.V)
			evs = append(evs, b.lim.Ev)
		}
		parts = append(parts, part)
	}
	flags, flagEvs, flagSev := raisedFlags(m, "laser rx power")
	parts, evs, sev = append(parts, flags...), append(evs, flagEvs...), max(sev, flagSev)
	if sev < 0 {
		return nil
	}
	return []Finding{{
		ID: "optics.rx.power", Severity: sev, Layer: LayerRDMA, Subject: name,
		Title:     fmt.Sprintf("%s: %s, received power: %s", name, what, strings.Join(parts, "; ")),
		Evidence:  opticsEvidence(evs),
		Mechanism: "The module's thresholds bound the power its receiver decodes without errors. Too little light (a dirty or damaged connector, a bent or too long fiber, a weak far-end laser) raises the bit error rate until FEC no longer corrects every codeword; too much (a long-reach optic on a short fiber) saturates the receiver. Each frame lost costs RoCE a go-back-N retransmission of everything after it, so a marginal receiver shows as CRC or FEC errors on this port and lost bandwidth before it shows as a link down.",
		Fix:       "Inspect and clean both ends' connectors (and the patch panel's), check the fiber's length and bends, and compare with the far end's transmitted power (its `ethtool -m` or the switch's transceiver DOM); replace the fiber or the optic that is weak. Watch the port's CRC and FEC counters (`ethtool -S`, `mlxlink -c`) to confirm it has cleared.",
	}}
}

// raisedFlags says which of the module's flags under the prefixes are On,
// alarms before warnings for each prefix, with their lines and the
// severity they raise (Error for an alarm, Warn for a warning, -1 for
// none).
func raisedFlags(m ingest.Module, prefixes ...string) (texts []string, evs []Evidence, sev Severity) {
	sev = -1
	for _, prefix := range prefixes {
		alarms, warnings := flagsOn(m, prefix)
		for _, f := range append(alarms, warnings...) {
			texts = append(texts, flagText(f))
			evs = append(evs, f.Evidence)
			if f.Alarm() {
				sev = Error
			} else {
				sev = max(sev, Warn)
			}
		}
	}
	return texts, evs, sev
}

// flagText says which flag is On and on which lane.
func flagText(f ingest.ModuleFlag) string {
	if f.Lane > 0 {
		return fmt.Sprintf("%q On for lane %d", f.Name, f.Lane)
	}
	return fmt.Sprintf("%q On", f.Name)
}

// judgeTxPower holds each lane's transmitted power and bias against the
// module's thresholds and flags.
func judgeTxPower(name, what string, m ingest.Module) []Finding {
	var low []string
	var evs []Evidence
	sev := Severity(-1)
	for _, ln := range m.Lanes {
		if ln.BiasMA <= 0 || ln.TxMW < 0 || ln.RxMW >= 0 && ln.RxMW <= noLight {
			// A lane dark both ways is optics.dark's or optics.lanes'.
			continue
		}
		switch {
		case m.Limits.TxLowAlarm.V > 0 && ln.TxMW < m.Limits.TxLowAlarm.V:
			low = append(low, fmt.Sprintf("lane %d %s", ln.Lane, fmtDBm(ln.TxMW)))
			evs = append(evs, ln.TxEv, m.Limits.TxLowAlarm.Ev)
			sev = Error
		case m.Limits.TxLowWarn.V > 0 && ln.TxMW < m.Limits.TxLowWarn.V:
			low = append(low, fmt.Sprintf("lane %d %s", ln.Lane, fmtDBm(ln.TxMW)))
			evs = append(evs, ln.TxEv, m.Limits.TxLowWarn.Ev)
			sev = max(sev, Warn)
		}
	}
	flags, flagEvs, flagSev := raisedFlags(m, "laser tx power", "laser output power", "laser bias current")
	evs, sev = append(evs, flagEvs...), max(sev, flagSev)
	if sev < 0 {
		return nil
	}
	var parts []string
	if len(low) > 0 {
		parts = append(parts, "transmits "+strings.Join(low, ", ")+" with its laser biased, under the module's low threshold")
	}
	parts = append(parts, flags...)
	return []Finding{{
		ID: "optics.tx.power", Severity: sev, Layer: LayerRDMA, Subject: name,
		Title:     fmt.Sprintf("%s: %s %s", name, what, strings.Join(parts, "; ")),
		Evidence:  opticsEvidence(evs),
		Mechanism: "A laser that is biased but emits less than the module's own low threshold, or whose bias the module flags, is failing or ageing: the far end receives less than it needs and its errors grow with temperature.",
		Fix:       "Replace the module; read the far end's received power on the same lanes to confirm it is this side's laser.",
	}}
}

// judgeModuleTemp holds the module's temperature against its thresholds
// and flags.
func judgeModuleTemp(name, what string, m ingest.Module) []Finding {
	lim := m.Limits
	alarms, warnings := flagsOn(m, "module temperature high")
	sev := Severity(-1)
	switch {
	case len(alarms) > 0 || m.TempEv.Line > 0 && lim.TempHighAlarm.V > 0 && m.TempC >= lim.TempHighAlarm.V:
		sev = Error
	case len(warnings) > 0 || m.TempEv.Line > 0 && lim.TempHighWarn.V > 0 && m.TempC >= lim.TempHighWarn.V:
		sev = Warn
	}
	if sev < 0 {
		return nil
	}
	evs := []Evidence{m.TempEv, lim.TempHighWarn.Ev, lim.TempHighAlarm.Ev}
	for _, f := range append(alarms, warnings...) {
		evs = append(evs, f.Evidence)
	}
	t := "over its high-temperature threshold"
	if m.TempEv.Line > 0 {
		t = fmt.Sprintf("at %.2f C", m.TempC)
		if lim.TempHighWarn.V > 0 {
			t += fmt.Sprintf(", over its %.2f C high-warning threshold", lim.TempHighWarn.V)
		}
		if lim.TempHighAlarm.V > 0 {
			t += fmt.Sprintf(" (alarm %.2f C)", lim.TempHighAlarm.V)
		}
	}
	return []Finding{{
		ID: "optics.temperature", Severity: sev, Layer: LayerRDMA, Subject: name,
		Title:     fmt.Sprintf("%s: %s runs hot, %s", name, what, t),
		Evidence:  opticsEvidence(evs),
		Mechanism: "A module past its temperature warning loses laser power and receiver margin (its bit error rate rises with every degree), and past its alarm it may shut its lasers down: a link that drops frames or flaps under load, in the slots the airflow serves worst.",
		Fix:       "Check the airflow and fans of the chassis or server and the neighbouring high-power modules; move the module to a cooler cage or replace it if it runs hot where others do not.",
	}}
}

// judgeModuleFaults reports a module in fault, a laser the module calls
// faulty and lanes whose clock recovery cannot lock.
func judgeModuleFaults(name, what string, m ingest.Module) []Finding {
	var parts []string
	var evs []Evidence
	sev := Warn
	if m.State == "ModuleFault" {
		parts = append(parts, "module state ModuleFault")
		sev = Error
	}
	for _, s := range m.Signals {
		switch s.Name {
		case "tx fault", "tx adaptive eq fault":
			sev = Error
		case "rx loss of lock", "tx loss of lock", "tx loss of signal":
		default:
			continue
		}
		parts = append(parts, fmt.Sprintf("%s on %s", s.Name, laneList(s.Lanes)))
		evs = append(evs, s.Evidence)
	}
	if len(parts) == 0 {
		return nil
	}
	return []Finding{{
		ID: "optics.fault", Severity: sev, Layer: LayerRDMA, Subject: name,
		Title:     fmt.Sprintf("%s: %s reports %s", name, what, strings.Join(parts, ", ")),
		Evidence:  opticsEvidence(append(evs, m.Evidence)),
		Mechanism: "A Tx fault is a laser the module itself calls failed; loss of lock is a lane whose clock recovery cannot lock onto the signal (too weak or too distorted), and a Tx loss of signal is the host's electrical signal not reaching the module. Each leaves its lanes without a usable link.",
		Fix:       "Reseat the module and read it again; a fault that stays means replacing it. For loss of lock, check the received power and the far end; for a Tx loss of signal, the NIC or switch port's own state and speed.",
	}}
}

// opticsOK summarises a module whose lit lanes are within every
// threshold.
func opticsOK(name, what string, m ingest.Module, lit []int) Finding {
	lo := math.Inf(1)
	var evs []Evidence
	for _, ln := range m.Lanes {
		if ln.RxMW > noLight && ln.RxMW < lo {
			lo = ln.RxMW
			evs = []Evidence{ln.RxEv}
		}
	}
	rx := ""
	within := "within its own thresholds"
	if !math.IsInf(lo, 1) {
		rx = fmt.Sprintf(", weakest receive %s", fmtDBm(lo))
		switch {
		case m.Limits.RxLowWarn.V == 0 && m.Limits.RxLowAlarm.V == 0:
			rx += fmt.Sprintf(" (over %.0f dBm; the module's thresholds are not in the paste)", weakRxDBm)
			within = fmt.Sprintf("over %.0f dBm, above where short-reach modules' low alarms sit (the module's own thresholds were not printed: `show interfaces transceiver detail`, `ethtool -m`),", weakRxDBm)
		case m.Limits.RxLowWarn.V > 0:
			rx += fmt.Sprintf(" (%.1f dB over the low-warning threshold)", dbm(lo)-dbm(m.Limits.RxLowWarn.V))
			evs = append(evs, m.Limits.RxLowWarn.Ev)
		case m.Limits.RxLowAlarm.V > 0:
			rx += fmt.Sprintf(" (%.1f dB over the low-alarm threshold)", dbm(lo)-dbm(m.Limits.RxLowAlarm.V))
			evs = append(evs, m.Limits.RxLowAlarm.Ev)
		}
	}
	temp := ""
	if m.TempEv.Line > 0 {
		temp = fmt.Sprintf(", %.2f C", m.TempC)
		evs = append(evs, m.TempEv)
	}
	if len(evs) == 0 {
		// No received power or temperature printed: the lit lanes'
		// laser lines are what was read.
		for _, ln := range m.Lanes {
			if ln.TxOn() {
				evs = append(evs, ln.BiasEv, ln.TxEv)
			}
		}
	}
	return Finding{
		ID: "optics.ok", Severity: Info, Layer: LayerRDMA, Subject: name,
		Title:     fmt.Sprintf("%s: %s healthy on %s%s%s, no alarm or warning raised", name, what, laneList(lit), rx, temp),
		Evidence:  opticsEvidence(evs),
		Mechanism: "The module's lit lanes send and receive " + within + " and it raises no flag: the optic is not what slows or breaks this link; look at the port's error counters and the fabric instead.",
	}
}
