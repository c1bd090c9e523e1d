package ingest

import (
	"cmp"
	"strconv"
	"strings"
)

// KindDevlinkHealth is iproute2's `devlink health show` (and `devlink
// health diagnose`): the driver's health reporters.
const KindDevlinkHealth Kind = "devlink-health"

// DevlinkHealth holds the health reporters `devlink health [show]`
// prints, a devlink handle (the device, or a port of it) and under it
// each reporter with its state and counts:
//
//	pci/0000:00:0b.0:
//	  reporter fw_fatal
//	    state healthy error 0 recover 0 grace_period 1200000 auto_recover true auto_dump true
//	pci/0000:00:0b.0/1:
//	  reporter tx
//	    state healthy error 0 recover 0 grace_period 10000 auto_recover true auto_dump true
//
// (iproute2 before late 2019 printed "name tx" for "reporter tx"; `devlink
// mon health` puts "[health,status] " before the handle; a mail may wrap
// the state line, its last_dump_time on the next line). error counts the
// errors the driver reported to the reporter, recover the recoveries that
// succeeded; state is "error" while a recovery has not (devlink's
// net/devlink/health.c). The lines `devlink health diagnose DEV reporter
// NAME` prints after its command are kept with that reporter's
// diagnosis.
type DevlinkHealth struct {
	Scoped
	artifactHead
	// Reporters are the readings in input order; a reporter printed
	// again is a later reading of it.
	Reporters []DevlinkReporter
	// Diagnoses are the outputs of `devlink health diagnose`.
	Diagnoses []DevlinkDiagnosis
	// Garbled are state lines whose counts do not read.
	Garbled []Garble
}

// A DevlinkReporter is one reading of a health reporter.
type DevlinkReporter struct {
	Host string // pdsh prefix or prompt, else ""
	// Device is the devlink handle: "pci/0000:3b:00.0", a port's
	// "pci/0000:00:0b.0/1", "auxiliary/mlx5_core.eth.1/131071".
	Device string
	Name   string // "fw_fatal", "tx", ...
	State  string // "healthy" or "error"
	// Errors and Recovers are the reporter's error and recover counts.
	Errors, Recovers uint64
	// LastDump is when the driver last dumped the reporter's state
	// ("2024-03-17 09:29:29"), "" when the line says none.
	LastDump string
	// AutoRecover is "true" or "false" as printed, "" when not.
	AutoRecover string
	// Stamp is the time the input last stated before the state line,
	// zero when none.
	Stamp    Stamp
	Evidence Evidence // the state line
}

// A DevlinkDiagnosis is what `devlink health diagnose` printed for a
// reporter: its lines, as evidence.
type DevlinkDiagnosis struct {
	Host, Device, Name string
	Lines              []Evidence
}

// Kind returns KindDevlinkHealth.
func (d *DevlinkHealth) Kind() Kind { return KindDevlinkHealth }

// Bounds that keep memory bounded however large the input is.
const (
	maxDevlinkReporters = 4096
	maxDiagnosisLines   = 12
)

type devlinkParser struct {
	out DevlinkHealth
	// states are the reading states of each line origin (a pdsh or
	// clush prefix's host, "" for none): the hosts' lines may interleave.
	states originStates[devlinkState]
}

// devlinkState is what one origin's lines have said so far.
type devlinkState struct {
	dev      string // the handle of the block being read
	reporter string // the reporter named under it
	// handle and name are the handle and reporter lines, counted once a
	// state line reads; nil when none waits.
	handle, name *Line
	// last is the index in Reporters of the reading a wrapped state line
	// continues, -1 when none.
	last int
	// diag is the diagnosis being read, nil outside one.
	diag *DevlinkDiagnosis
}

// NewDevlinkParser returns a parser for devlink health output in the
// input src.
func NewDevlinkParser(src string) Parser {
	return &devlinkParser{out: DevlinkHealth{artifactHead: artifactHead{src: src}}, states: newOriginStates(func() *devlinkState { return &devlinkState{last: -1} })}
}

// Feed implements Parser.
func (p *devlinkParser) Feed(l Line) {
	if l.NCCL {
		return
	}
	st := p.states.get(l.Origin)
	if st == nil {
		return
	}
	t := strings.TrimSpace(l.Text)
	if c, ok := findCommand(t, "devlink"); ok {
		p.endDiagnosis(st)
		st.dev, st.reporter, st.last, st.handle, st.name = "", "", -1, nil, nil
		if d, ok := diagnoseCommand(c.Args); ok {
			d.Host = strings.Clone(cmp.Or(l.Origin, c.Host, l.Host))
			st.diag = &d
			p.out.lines.add(l)
		}
		return
	}
	if st.diag != nil {
		p.diagnosisLine(st, l, t)
		return
	}
	if dev, ok := devlinkHandle(t); ok {
		st.dev, st.reporter, st.last, st.name = dev, "", -1, nil
		st.handle = &l
		return
	}
	if st.dev == "" {
		return
	}
	if f := strings.Fields(t); len(f) == 2 && (f[0] == "reporter" || f[0] == "name") && isIdentName(f[1]) {
		st.reporter, st.last = strings.Clone(f[1]), -1
		st.name = &l
		return
	}
	if st.reporter == "" {
		return
	}
	if strings.HasPrefix(t, "state ") {
		p.readState(st, l)
		return
	}
	if st.last >= 0 && devlinkContinues(t) {
		p.fields(l, &p.out.Reporters[st.last])
		p.out.lines.add(l)
		return
	}
	if t != "" {
		st.last = -1
	}
}

// readState reads a reporter's state line.
func (p *devlinkParser) readState(st *devlinkState, l Line) {
	if len(p.out.Reporters) >= maxDevlinkReporters {
		return
	}
	r := DevlinkReporter{Host: strings.Clone(cmp.Or(l.Origin, l.Host)), Device: st.dev, Name: st.reporter, Stamp: l.Stamp, Evidence: At(p.out.src, l)}
	if !p.fields(l, &r) {
		return
	}
	for _, pl := range []*Line{st.handle, st.name} {
		if pl != nil {
			p.out.lines.add(*pl)
		}
	}
	st.handle, st.name = nil, nil
	p.out.lines.add(l)
	p.out.Reporters = append(p.out.Reporters, r)
	st.last = len(p.out.Reporters) - 1
}

// fields reads the "key value" pairs of a state line (or its wrapped
// rest) into r; it reports false, recording where, when a count does not
// read.
func (p *devlinkParser) fields(l Line, r *DevlinkReporter) bool {
	f, starts := fieldsAt(l.Text)
	for i := 0; i+1 < len(f); i += 2 {
		k, v := f[i], f[i+1]
		switch k {
		case "state":
			r.State = strings.Clone(v)
		case "error", "recover":
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				if len(p.out.Garbled) < maxEthtoolGarbled {
					p.out.Garbled = append(p.out.Garbled, garbleAt(l, starts[i+1], "the reporter's "+k+" count, a number"))
				}
				p.out.lines.add(l)
				return false
			}
			if k == "error" {
				r.Errors = n
			} else {
				r.Recovers = n
			}
		case "last_dump_date":
			r.LastDump = strings.TrimSpace(strings.Clone(v) + " " + timeOf(r.LastDump))
		case "last_dump_time":
			r.LastDump = strings.TrimSpace(dateOf(r.LastDump) + " " + strings.Clone(v))
		case "auto_recover":
			r.AutoRecover = strings.Clone(v)
		}
	}
	return r.State != ""
}

// dateOf is a last dump's date, of "date time".
func dateOf(s string) string {
	d, _, _ := strings.Cut(s, " ")
	return d
}

// timeOf is a last dump's time, of "date time".
func timeOf(s string) string {
	_, t, _ := strings.Cut(s, " ")
	return t
}

// devlinkContinues reports whether t is the rest of a state line a mail
// or terminal wrapped: it opens with one of the line's later keys.
func devlinkContinues(t string) bool {
	for _, k := range []string{"last_dump_date ", "last_dump_time ", "grace_period ", "auto_recover ", "auto_dump "} {
		if strings.HasPrefix(t, k) {
			return true
		}
	}
	return false
}

// devlinkHandle reads a handle line, "pci/0000:3b:00.0:" (after
// `devlink mon`'s "[health,status] "): a bus name, a slash, the device,
// and a colon.
func devlinkHandle(t string) (string, bool) {
	t = strings.TrimPrefix(t, "[health,status] ")
	if !strings.HasSuffix(t, ":") || strings.ContainsAny(t, " \t") {
		return "", false
	}
	h := strings.TrimSuffix(t, ":")
	bus, dev, ok := strings.Cut(h, "/")
	if !ok || dev == "" || bus == "" {
		return "", false
	}
	for _, c := range bus {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return "", false
		}
	}
	return strings.Clone(h), true
}

// diagnoseCommand reads `devlink health diagnose DEV reporter NAME` (or
// `devlink port health diagnose ...`).
func diagnoseCommand(args []string) (DevlinkDiagnosis, bool) {
	var d DevlinkDiagnosis
	for i, a := range args {
		switch {
		case a == "diagnose" && i+1 < len(args):
			d.Device = strings.Clone(args[i+1])
		case a == "reporter" && i+1 < len(args):
			d.Name = strings.Clone(args[i+1])
		}
	}
	return d, d.Device != "" && d.Name != ""
}

// diagnosisLine keeps a line of the diagnosis st is reading: it ends at
// a blank line after its first, or at the bound.
func (p *devlinkParser) diagnosisLine(st *devlinkState, l Line, t string) {
	switch {
	case t == "" && len(st.diag.Lines) > 0:
		p.endDiagnosis(st)
	case t == "":
	case len(st.diag.Lines) < maxDiagnosisLines:
		st.diag.Lines = append(st.diag.Lines, At(p.out.src, l))
		p.out.lines.add(l)
	}
}

// endDiagnosis keeps the diagnosis st is reading, if it printed anything.
func (p *devlinkParser) endDiagnosis(st *devlinkState) {
	if st.diag != nil && len(st.diag.Lines) > 0 && len(p.out.Diagnoses) < maxDevlinkReporters {
		p.out.Diagnoses = append(p.out.Diagnoses, *st.diag)
	}
	st.diag = nil
}

// Result implements Parser.
func (p *devlinkParser) Result() Artifact {
	for _, st := range p.states.sorted() {
		p.endDiagnosis(st)
	}
	if len(p.out.Reporters) == 0 && len(p.out.Diagnoses) == 0 && len(p.out.Garbled) == 0 {
		return nil
	}
	return &p.out
}
