package ingest

import (
	"strconv"
	"strings"

	"rocelab/internal/unit"
)

// KindMlxlink is NVIDIA's `mlxlink -d DEV` (MFT or mstflint).
const KindMlxlink Kind = "mlxlink"

// Mlxlink is what `mlxlink` prints about a port's physical link, read
// from its "Key : value" lines (MFT 4.x, mlxlink_commander.cpp):
//
//	Operational Info
//	----------------
//	State                           : Active
//	Physical state                  : LinkUp
//	Speed                           : IB-HDR
//	Width                           : 2x
//	Troubleshooting Info
//	Recommendation                  : No issue was observed
//	Physical Counters and BER Info          (mlxlink -c)
//	Effective Physical Errors       : 0
//	Link Down Counter               : 0
//
// A paste of several runs (a loop over devices, `| grep` of some keys)
// holds one port per run: a key seen again starts the next port.
type Mlxlink struct {
	Scoped
	artifactHead
	Ports []MlxlinkPort
}

// An MlxlinkPort is one run's port. Counters are -1 when not printed.
type MlxlinkPort struct {
	// Device is the -d argument of the command pasted above the output
	// (mlx5_0, /dev/mst/mt4123_pciconf0, a PCI address), or the device a
	// loop's banner names; "" when neither is pasted.
	Device string
	// State, PhysState, Speed, Width and FEC are the Operational Info
	// values as printed ("Active", "LinkUp", "IB-NDR", "4x").
	State, PhysState, Speed, Width, FEC string
	// Rate is the line rate Speed and Width give, 0 when unknown or the
	// port is an NVLink.
	Rate unit.BitRate
	// Recommendation is the Troubleshooting Info's; StatusOpcode its
	// opcode, -1 when not printed.
	Recommendation string
	StatusOpcode   int
	// EffectiveErrors are errors FEC could not correct; LinkDowns and
	// ErrorRecoveries the link's down events and recoveries since the
	// counters were cleared.
	EffectiveErrors, LinkDowns, ErrorRecoveries int64
	// EffectiveBER and RawBER as printed ("15E-255", "1E-8"), "" when not.
	EffectiveBER, RawBER string
	// Evidence holds each read key's line.
	Evidence map[string]Evidence
}

// Kind returns KindMlxlink.
func (m *Mlxlink) Kind() Kind { return KindMlxlink }

// LinkSpeeds returns each port's line rate.
func (m *Mlxlink) LinkSpeeds() []LinkSpeed {
	var out []LinkSpeed
	for _, p := range m.Ports {
		if p.Rate > 0 {
			out = append(out, LinkSpeed{Device: p.Device, Rate: p.Rate, Evidence: p.Evidence["Speed"]})
		}
	}
	return out
}

// maxMlxlinkPorts bounds one artifact (a loop over a switch's ports).
const maxMlxlinkPorts = 1024

// mlxlinkKeys are the keys read; the others ("Loopback Mode", the
// module's fields) are skipped.
var mlxlinkKeys = map[string]bool{
	"State": true, "Physical state": true, "Speed": true, "Width": true, "FEC": true,
	"Status Opcode": true, "Recommendation": true,
	"Effective Physical Errors": true, "Effective Physical BER": true, "Raw Physical BER": true,
	"Link Down Counter": true, "Link Error Recovery Counter": true,
}

// mlxlinkTitles are the section titles, which make "State : Active" an
// mlxlink line and not any tool's.
var mlxlinkTitles = map[string]bool{
	"Operational Info": true, "Troubleshooting Info": true, "Physical Counters and BER Info": true,
	"Supported Info": true, "Tool Information": true, "Module Info": true,
}

type mlxlinkParser struct {
	out    Mlxlink
	cur    *MlxlinkPort
	seen   bool   // a section title was read: key lines are mlxlink's
	device string // the device the next port belongs to
}

// NewMlxlinkParser returns a parser for mlxlink output in the input src.
func NewMlxlinkParser(src string) Parser {
	return &mlxlinkParser{out: Mlxlink{artifactHead: artifactHead{src: src}}}
}

// Feed implements Parser.
func (p *mlxlinkParser) Feed(l Line) {
	if l.NCCL {
		return
	}
	t := strings.TrimSpace(l.Text)
	if c, ok := findCommand(t, "mlxlink"); ok {
		p.finish()
		p.device = ""
		if d, ok := c.flagValue("-d", "--device"); ok && literalArg(d) {
			p.device = strings.Clone(d)
			// A switch's ports share one device: -p names the port.
			if port, ok := c.flagValue("-p", "--port"); ok && literalArg(port) {
				p.device += " port " + port
			}
		}
		return
	}
	if d, ok := loopBanner(t); ok {
		p.finish()
		p.device = d
		return
	}
	if mlxlinkTitles[t] {
		p.seen = true
		return
	}
	key, val, ok := strings.Cut(t, ":")
	key, val = strings.TrimSpace(key), strings.TrimSpace(val)
	if !ok || !p.seen || !mlxlinkKeys[key] || val == "" {
		return
	}
	if p.cur != nil {
		if _, again := p.cur.Evidence[key]; again {
			p.finish()
		}
	}
	if p.cur == nil {
		if len(p.out.Ports) >= maxMlxlinkPorts {
			return
		}
		p.cur = &MlxlinkPort{Device: p.device, StatusOpcode: -1, EffectiveErrors: -1, LinkDowns: -1, ErrorRecoveries: -1, Evidence: map[string]Evidence{}}
	}
	if !p.cur.set(key, val) {
		return
	}
	p.cur.Evidence[key] = At(p.out.src, l)
	p.out.lines.add(l)
}

// set stores one value; false when it does not read as mlxlink prints it.
func (m *MlxlinkPort) set(key, val string) bool {
	v := strings.Clone(val)
	count := func(dst *int64) bool {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return false
		}
		*dst = n
		return true
	}
	switch key {
	case "State":
		m.State = v
	case "Physical state":
		m.PhysState = v
	case "Speed":
		m.Speed = v
	case "Width":
		m.Width = v
	case "FEC":
		m.FEC = v
	case "Recommendation":
		m.Recommendation = v
	case "Status Opcode":
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return false
		}
		m.StatusOpcode = n
	case "Effective Physical Errors":
		return count(&m.EffectiveErrors)
	case "Link Down Counter":
		return count(&m.LinkDowns)
	case "Link Error Recovery Counter":
		return count(&m.ErrorRecoveries)
	case "Effective Physical BER":
		m.EffectiveBER = v
	case "Raw Physical BER":
		m.RawBER = v
	}
	return true
}

// loopBanner reads the device a shell loop's echo names before each run:
// "========== mt4123_pciconf0 ==========", "=== mlx5_3 FEC Counters ===".
func loopBanner(t string) (string, bool) {
	if !strings.HasPrefix(t, "===") || !strings.HasSuffix(t, "===") {
		return "", false
	}
	f := strings.Fields(strings.Trim(t, "= "))
	if len(f) == 0 {
		return "", false
	}
	d := f[0]
	if strings.HasPrefix(d, "mlx5_") || strings.Contains(d, "pciconf") || strings.Count(d, ":") >= 1 && strings.Contains(d, ".") {
		return strings.Clone(d), true
	}
	return "", false
}

// ibLaneGbps is each InfiniBand speed's rate per lane (IBTA; FDR is
// 14.0625 Gb/s a lane).
var ibLaneGbps = map[string]float64{
	"SDR": 2.5, "DDR": 5, "QDR": 10, "FDR10": 10, "FDR": 14.0625,
	"EDR": 25, "HDR": 50, "NDR": 100, "XDR": 200,
}

// rate works out the line rate: an InfiniBand speed times the width
// ("IB-HDR", "2x": 100 Gb/s), or an Ethernet speed as printed ("100G",
// "25GbE", "400G").
func (m *MlxlinkPort) rate() unit.BitRate {
	s := m.Speed
	if ib, ok := strings.CutPrefix(s, "IB-"); ok {
		lane, ok := ibLaneGbps[ib]
		w, err := strconv.Atoi(strings.TrimSuffix(m.Width, "x"))
		if !ok || err != nil || w <= 0 || w > 16 {
			return 0
		}
		return unit.BitRate(lane * float64(w) * float64(unit.Gbps))
	}
	s = strings.TrimSuffix(strings.TrimSuffix(s, "bE"), "BASE")
	n, ok := strings.CutSuffix(s, "G")
	if !ok {
		return 0
	}
	g, err := strconv.ParseFloat(n, 64)
	if err != nil || g <= 0 || g > 3200 {
		return 0
	}
	return unit.BitRate(g * float64(unit.Gbps))
}

// finish keeps the current port.
func (p *mlxlinkParser) finish() {
	if p.cur != nil && len(p.cur.Evidence) > 0 {
		p.cur.Rate = p.cur.rate()
		p.out.Ports = append(p.out.Ports, *p.cur)
	}
	p.cur = nil
}

// Result implements Parser.
func (p *mlxlinkParser) Result() Artifact {
	p.finish()
	if len(p.out.Ports) == 0 {
		return nil
	}
	return &p.out
}
