package ingest

import (
	"strconv"
	"strings"
)

// KindMlxConfig is `mlxconfig`/`mstconfig` firmware settings (NVConfig).
const KindMlxConfig Kind = "mlxconfig"

// MlxConfig is NIC firmware configuration: `mlxconfig -d DEV query` (or
// `mstconfig`) output, with one value column ("Next Boot"), three ("Default
// Current Next Boot", with -e; a leading "*" marks a changed value) or the
// "Next Boot New" table `set` prints; and `mlxconfig -d DEV [-y] set K=V ...`
// command lines.
//
//	Device #1:
//	----------
//	Device type:    ConnectX5
//	Device:         /dev/mst/mt4119_pciconf0
//
//	Configurations:                              Next Boot
//	         ROCE_CC_PRIO_MASK_P1                255
//	         CNP_DSCP_P1                         48
type MlxConfig struct {
	Scoped
	artifactHead
	// Devices are the devices in input order; settings seen before any
	// device header belong to a device with an empty name.
	Devices []MlxDevice
}

// maxMlxDevices and maxMlxParams bound what one artifact keeps.
const (
	maxMlxDevices = 256
	maxMlxParams  = 4096
)

// An MlxDevice is one device's settings.
type MlxDevice struct {
	// Device is the -d argument or the "Device:" line (a PCI address or an
	// mst path); Type the "Device type:" line.
	Device, Type string
	Params       []MlxParam
	Start        Evidence
}

// An MlxParam is one firmware setting.
type MlxParam struct {
	// Name is the name without its port suffix (ROCE_CC_PRIO_MASK); Port
	// is 1 or 2 for a _P1/_P2 name, 0 for a device-wide one.
	Name string
	Port int
	// Value is the effective text: Current when the table has it, else
	// Next Boot, or New for `set` output, or the value a set command gives.
	Value string
	// NextBoot differs from Value when a change waits for a reboot.
	NextBoot string
	Evidence Evidence
}

// Int returns the value as a number: "255", "0xff", "True(1)", "ETH(2)".
func (p MlxParam) Int() (int64, bool) { return mlxInt(p.Value) }

// Param returns the device's setting name for port (or a device-wide one).
func (d *MlxDevice) Param(name string, port int) (MlxParam, bool) {
	var found MlxParam
	ok := false
	for _, p := range d.Params {
		if p.Name == name && (p.Port == port || p.Port == 0) {
			found, ok = p, true
		}
	}
	return found, ok
}

// Kind implements Artifact.
func (m *MlxConfig) Kind() Kind { return KindMlxConfig }

type mlxParser struct {
	out    MlxConfig
	cols   []string // value columns of the current Configurations table
	inTab  bool
	dev    int // index of the current device, -1 for none
	params int
}

// NewMlxConfigParser returns a parser for mlxconfig/mstconfig output and
// set commands in the input src.
func NewMlxConfigParser(src string) Parser {
	return &mlxParser{out: MlxConfig{artifactHead: artifactHead{src: src}}, dev: -1}
}

func (p *mlxParser) device(name string, ev Evidence) *MlxDevice {
	if p.dev >= 0 {
		d := &p.out.Devices[p.dev]
		if name == "" || d.Device == "" || d.Device == name || len(d.Params) == 0 {
			if d.Device == "" {
				d.Device = name
			}
			return d
		}
	}
	if len(p.out.Devices) >= maxMlxDevices {
		return nil
	}
	p.out.Devices = append(p.out.Devices, MlxDevice{Device: name, Start: ev})
	p.dev = len(p.out.Devices) - 1
	return &p.out.Devices[p.dev]
}

func (p *mlxParser) add(name, value, next string, ev Evidence) {
	d := p.device("", ev)
	if d == nil || p.params >= maxMlxParams {
		return
	}
	n, port := splitPort(name)
	d.Params = append(d.Params, MlxParam{Name: n, Port: port, Value: value, NextBoot: next, Evidence: ev})
	p.params++
}

// splitPort splits "ROCE_CC_PRIO_MASK_P1" into the name and port 1.
func splitPort(name string) (string, int) {
	for _, s := range []struct {
		suf  string
		port int
	}{{"_P1", 1}, {"_P2", 2}} {
		if n, ok := strings.CutSuffix(name, s.suf); ok && n != "" {
			return n, s.port
		}
	}
	return name, 0
}

// Feed implements Parser.
func (p *mlxParser) Feed(l Line) {
	if l.NCCL {
		return
	}
	t := strings.TrimSpace(l.Text)
	ev := At(p.out.src, l)
	if p.command(t, ev) {
		p.out.lines.add(l)
		return
	}
	indented := l.Text != "" && (l.Text[0] == ' ' || l.Text[0] == '\t' || l.Text[0] == '*')
	if p.line(t, indented, ev) {
		p.out.lines.add(l)
	}
}

// command reads "mlxconfig -d DEV [-y] [-e] set K=V ..." and "query" lines.
func (p *mlxParser) command(t string, ev Evidence) bool {
	c, ok := findCommand(t, "mlxconfig")
	if !ok {
		if c, ok = findCommand(t, "mstconfig"); !ok {
			return false
		}
	}
	dev, _ := c.flagValue("-d", "--dev")
	verb := -1
	for i, a := range c.Args {
		if a == "set" || a == "s" || a == "query" || a == "q" {
			verb = i
			break
		}
	}
	if verb < 0 {
		return false
	}
	p.inTab, p.cols = false, nil
	p.dev = -1
	for i := range p.out.Devices {
		if dev != "" && p.out.Devices[i].Device == dev {
			p.dev = i
		}
	}
	if d := p.device(dev, ev); d == nil {
		return true
	}
	if c.Args[verb] != "set" && c.Args[verb] != "s" {
		return true
	}
	for _, a := range c.Args[verb+1:] {
		k, v, ok := strings.Cut(a, "=")
		if ok && isParamName(k) && v != "" {
			p.add(k, v, "", ev)
		}
	}
	return true
}

func (p *mlxParser) line(t string, indented bool, ev Evidence) bool {
	switch {
	case t == "":
		p.inTab = false
		return false
	case strings.HasPrefix(t, "Device #") && strings.HasSuffix(t, ":"):
		p.inTab = false
		if p.dev >= 0 && len(p.out.Devices[p.dev].Params) > 0 {
			p.dev = -1
		}
		p.device("", ev)
		return true
	case strings.HasPrefix(t, "Device type:"):
		if d := p.device("", ev); d != nil {
			d.Type = strings.TrimSpace(strings.TrimPrefix(t, "Device type:"))
		}
		return true
	case strings.HasPrefix(t, "Device:"):
		p.device(strings.TrimSpace(strings.TrimPrefix(t, "Device:")), ev)
		return true
	case strings.HasPrefix(t, "Configurations:"):
		p.inTab = true
		p.cols = tableColumns(strings.TrimPrefix(t, "Configurations:"))
		return true
	}
	f := strings.Fields(strings.TrimPrefix(t, "*"))
	if len(f) < 2 || len(f) > 4 || !isParamName(f[0]) {
		p.inTab = false
		return false
	}
	if !p.inTab && !(indented && knownMlxParam(f[0])) {
		return false
	}
	vals := f[1:]
	value, next := vals[len(vals)-1], ""
	switch {
	case len(p.cols) == 3 && len(vals) == 3: // Default Current Next Boot
		value, next = vals[1], vals[2]
	case len(p.cols) == 2 && len(vals) == 2 && p.cols[1] == "New": // Next Boot New
		value = vals[1]
	case len(p.cols) == 2 && len(vals) == 2: // Current Next Boot
		value, next = vals[0], vals[1]
	}
	if next == value {
		next = ""
	}
	p.add(f[0], value, next, ev)
	return true
}

// mlxCCPrefixes are the name prefixes of the RoCE congestion-control and
// QoS settings. An indented row with one of them is read even when the
// table header is not in the input (a pasted excerpt).
var mlxCCPrefixes = []string{"ROCE_", "RPG_", "CNP_", "DCE_TCP_", "CLAMP_TGT_RATE", "RATE_TO_SET_ON_FIRST_CNP",
	"RATE_REDUCE_MONITOR_PERIOD", "INITIAL_ALPHA_VALUE", "MIN_TIME_BETWEEN_CNPS", "LINK_TYPE_", "LLDP_NB_DCBX_", "DCBX_"}

func knownMlxParam(name string) bool {
	for _, p := range mlxCCPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// tableColumns names the value columns of a "Configurations:" header.
func tableColumns(h string) []string {
	var cols []string
	f := strings.Fields(h)
	for i := 0; i < len(f); i++ {
		if f[i] == "Next" && i+1 < len(f) && f[i+1] == "Boot" {
			cols = append(cols, "Next Boot")
			i++
			continue
		}
		cols = append(cols, f[i])
	}
	return cols
}

// isParamName reports whether s looks like an NVConfig name: upper-case
// letters, digits and underscores, starting with a letter, optionally
// indexed ("HOST_CHAINING_DESCRIPTORS[0]").
func isParamName(s string) bool {
	if i := strings.IndexByte(s, '['); i > 0 && strings.HasSuffix(s, "]") {
		if _, err := strconv.Atoi(s[i+1 : len(s)-1]); err != nil {
			return false
		}
		s = s[:i]
	}
	if s == "" || len(s) > 64 || s[0] < 'A' || s[0] > 'Z' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// mlxInt reads "255", "0xff", "True(1)" or "DEVICE_DEFAULT(0)".
func mlxInt(v string) (int64, bool) {
	if i := strings.LastIndexByte(v, '('); i >= 0 && strings.HasSuffix(v, ")") {
		v = v[i+1 : len(v)-1]
	}
	n, err := strconv.ParseInt(v, 0, 64)
	return n, err == nil
}

// Result implements Parser.
func (p *mlxParser) Result() Artifact {
	if p.out.lines.n == 0 || p.params == 0 {
		return nil
	}
	return &p.out
}
