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
	src   string
	lines lineCount
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
	Evidence    Evidence // the state line
}

// A DevlinkDiagnosis is what `devlink health diagnose` printed for a
// reporter: its lines, as evidence.
type DevlinkDiagnosis struct {
	Host, Device, Name string
	Lines              []Evidence
}

// Kind returns KindDevlinkHealth.
func (d *DevlinkHealth) Kind() Kind { return KindDevlinkHealth }

// Source returns the input's name.
func (d *DevlinkHealth) Source() string { return d.src }

// Lines returns how many lines were recognised.
func (d *DevlinkHealth) Lines() int { return d.lines.n }

// Bounds that keep memory bounded however large the input is.
const (
	maxDevlinkReporters = 4096
	maxDiagnosisLines   = 12
)

type devlinkParser struct {
	out      DevlinkHealth
	dev      string // the handle of the block being read
	reporter string // the reporter named under it
	pending  []Line // the handle and reporter lines, counted once a state line reads
	// last is the reading a wrapped state line continues, nil when none.
	last *DevlinkReporter
	// diag is the diagnosis being read, nil outside one.
	diag *DevlinkDiagnosis
}

// NewDevlinkParser returns a parser for devlink health output in the
// input src.
func NewDevlinkParser(src string) Parser {
	return &devlinkParser{out: DevlinkHealth{src: src}}
}

// Feed implements Parser.
func (p *devlinkParser) Feed(l Line) {
	if l.NCCL {
		return
	}
	t := strings.TrimSpace(l.Text)
	if c, ok := findCommand(t, "devlink"); ok {
		p.endDiagnosis()
		p.dev, p.reporter, p.last, p.pending = "", "", nil, nil
		if d, ok := diagnoseCommand(c.Args); ok {
			d.Host = cmp.Or(l.Origin, c.Host, l.Host)
			p.diag = &d
			p.out.lines.add(l)
		}
		return
	}
	if p.diag != nil {
		p.diagnosisLine(l, t)
		return
	}
	if dev, ok := devlinkHandle(t); ok {
		p.dev, p.reporter, p.last = dev, "", nil
		p.pending = append(p.pending[:0], l)
		return
	}
	if p.dev == "" {
		return
	}
	if f := strings.Fields(t); len(f) == 2 && (f[0] == "reporter" || f[0] == "name") && isIdentName(f[1]) {
		p.reporter, p.last = strings.Clone(f[1]), nil
		p.pending = append(p.pending, l)
		return
	}
	if p.reporter == "" {
		return
	}
	if strings.HasPrefix(t, "state ") {
		p.state(l)
		return
	}
	if p.last != nil && devlinkContinues(t) {
		p.fields(l, p.last)
		p.out.lines.add(l)
		return
	}
	if t != "" {
		p.last = nil
	}
}

// state reads a reporter's state line.
func (p *devlinkParser) state(l Line) {
	if len(p.out.Reporters) >= maxDevlinkReporters {
		return
	}
	r := DevlinkReporter{Host: strings.Clone(cmp.Or(l.Origin, l.Host)), Device: p.dev, Name: p.reporter, Evidence: At(p.out.src, l)}
	if !p.fields(l, &r) {
		return
	}
	for _, pl := range p.pending {
		p.out.lines.add(pl)
	}
	p.pending = p.pending[:0]
	p.out.lines.add(l)
	p.out.Reporters = append(p.out.Reporters, r)
	p.last = &p.out.Reporters[len(p.out.Reporters)-1]
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
				p.out.Garbled = append(p.out.Garbled, garbleAt(l, starts[i+1], "the reporter's "+k+" count, a number"))
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

// diagnosisLine keeps a line of the diagnosis being read: it ends at a
// blank line after its first, or at the bound.
func (p *devlinkParser) diagnosisLine(l Line, t string) {
	switch {
	case t == "" && len(p.diag.Lines) > 0:
		p.endDiagnosis()
	case t == "":
	case len(p.diag.Lines) < maxDiagnosisLines:
		p.diag.Lines = append(p.diag.Lines, At(p.out.src, l))
		p.out.lines.add(l)
	}
}

// endDiagnosis keeps the diagnosis being read, if it printed anything.
func (p *devlinkParser) endDiagnosis() {
	if p.diag != nil && len(p.diag.Lines) > 0 && len(p.out.Diagnoses) < maxDevlinkReporters {
		p.out.Diagnoses = append(p.out.Diagnoses, *p.diag)
	}
	p.diag = nil
}

// Result implements Parser.
func (p *devlinkParser) Result() Artifact {
	p.endDiagnosis()
	if len(p.out.Reporters) == 0 && len(p.out.Diagnoses) == 0 && len(p.out.Garbled) == 0 {
		return nil
	}
	return &p.out
}
