package ingest

import (
	"fmt"
	"strconv"
	"strings"
)

// MlnxQoS is `mlnx_qos -i <if>` output: DCBX mode, trust state, the
// DSCP-to-priority map, receive buffers, cable length, the PFC table and the
// traffic classes (ETS) with their priorities.
//
//	DCBX mode: Firmware controlled
//	Priority trust state: dscp
//	dscp2prio mapping:
//	        prio:3 dscp:31,30,29,28,27,26,25,24,
//	Receive buffer size (bytes): 130944,130944,0,0,0,0,0,0,max_buffer_size=262016
//	Cable len: 7
//	PFC configuration:
//	        priority    0   1   2   3   4   5   6   7
//	        enabled     0   0   0   1   0   0   0   0
//	        buffer      0   0   0   1   0   0   0   0
//	tc: 3 ratelimit: unlimited, tsa: ets, bw: 50%
//	         priority:  3
//
// The condensed "pfc enabled: 0 0 0 1 0 0 0 0" form and "Priority trust
// mode:" (older tools) are read too. Several dumps in one input give several
// configs.
type MlnxQoS struct {
	Scoped
	artifactHead
	// Configs are the dumps in input order.
	Configs []QoSConfig
	// Omitted counts dumps dropped by the memory cap.
	Omitted int
}

// maxQoSConfigs bounds the dumps one artifact keeps.
const maxQoSConfigs = 256

// A QoSConfig is one interface's mlnx_qos dump.
type QoSConfig struct {
	Interface string // from the command line, when shown
	Host      string
	DCBX      string // "OS controlled" or "Firmware controlled"
	Trust     string // "dscp" or "pcp"
	// DSCP2Prio maps each DSCP to its priority; -1 where not printed.
	DSCP2Prio [64]int
	// PFC is the "enabled" row; PFCKnown is false when the dump has none.
	PFC      [8]bool
	PFCKnown bool
	// Buffer is the "buffer" row: the receive buffer each priority uses.
	Buffer      [8]int
	BufferKnown bool
	// RxBuffers are the receive buffer sizes in bytes; MaxBuffer is
	// max_buffer_size.
	RxBuffers []int64
	MaxBuffer int64
	CableLen  int // metres; -1 when not printed
	TCs       []QoSTC
	// Evidence holds lines by field: "dcbx", "trust", "pfc", "buffer",
	// "rxbuf", "cable", "dscp2prio:<prio>".
	Evidence map[string]Evidence
	Start    Evidence
}

// A QoSTC is one traffic class (ETS) block.
type QoSTC struct {
	TC       int
	TSA      string // "ets", "strict", "vendor"
	BW       int    // percent; -1 when not printed
	Prios    []int
	Evidence []Evidence
}

// DSCPPrio returns the priority DSCP d maps to, and whether the dump says.
func (c *QoSConfig) DSCPPrio(d int) (int, bool) {
	if d < 0 || d > 63 || c.DSCP2Prio[d] < 0 {
		return 0, false
	}
	return c.DSCP2Prio[d], true
}

// PFCPrios returns the priorities with PFC enabled.
func (c *QoSConfig) PFCPrios() []int {
	var out []int
	for p, on := range c.PFC {
		if on {
			out = append(out, p)
		}
	}
	return out
}

// RoCEDSCP is the DSCP RoCE is conventionally marked with: 26, i.e.
// NCCL_IB_TC or cma_roce_tos 106 (TOS = DSCP<<2 | ECT(0)).
const RoCEDSCP = 26

// RoCEPriority returns the priority RoCE marked with DSCP 26 lands on: the
// dscp2prio map's when the port trusts DSCP and the dump prints the map,
// else 3, the usual lossless priority. mapped says whether the dump said.
func (c *QoSConfig) RoCEPriority() (prio int, mapped bool) {
	if c.Trust == "dscp" {
		if p, ok := c.DSCPPrio(RoCEDSCP); ok {
			return p, true
		}
	}
	return 3, false
}

// PFCOn reports whether PFC is enabled on priority p.
func (c *QoSConfig) PFCOn(p int) bool { return p >= 0 && p < 8 && c.PFC[p] }

// Name is the interface, after the host when the prompt shows it, or
// "mlnx_qos" when the dump names neither.
func (c *QoSConfig) Name() string {
	n := c.Interface
	if n == "" {
		n = "mlnx_qos"
	}
	if c.Host != "" {
		n = c.Host + " " + n
	}
	return n
}

// Bottlenecks reports the configs that leave RoCE lossy: trust pcp (routed
// RoCE carries no PCP and falls to priority 0), PFC off on every priority,
// or PFC on priorities other than the one DSCP 26 lands on.
func (m *MlnxQoS) Bottlenecks() []Bottleneck {
	var out []Bottleneck
	for i := range m.Configs {
		c := &m.Configs[i]
		if c.Trust == "pcp" {
			out = append(out, Bottleneck{What: c.Name() + ": priority trust pcp, so routed RoCE falls to priority 0 outside PFC",
				Device: c.Interface, Evidence: []Evidence{c.Evidence["trust"]}})
		}
		if !c.PFCKnown {
			continue
		}
		prio, _ := c.RoCEPriority()
		switch {
		case len(c.PFCPrios()) == 0:
			out = append(out, Bottleneck{What: c.Name() + ": PFC disabled on every priority, so RoCE is lossy",
				Device: c.Interface, Evidence: []Evidence{c.Evidence["pfc"]}})
		case !c.PFCOn(prio):
			out = append(out, Bottleneck{What: fmt.Sprintf("%s: PFC not on priority %d, where DSCP %d lands, so RoCE is lossy", c.Name(), prio, RoCEDSCP),
				Device: c.Interface, Evidence: []Evidence{c.Evidence["pfc"]}})
		}
	}
	return out
}

// TCOf returns the traffic class priority p is in.
func (c *QoSConfig) TCOf(p int) (QoSTC, bool) {
	for _, tc := range c.TCs {
		for _, q := range tc.Prios {
			if q == p {
				return tc, true
			}
		}
	}
	return QoSTC{}, false
}

// Kind returns KindMlnxQoS.
func (m *MlnxQoS) Kind() Kind { return KindMlnxQoS }

type qosParser struct {
	out     MlnxQoS
	cfg     int // index of the current config, -1 for none
	section string
	cmdIf   string
	cmdHost string
	tc      int // index of the current tc in the config, -1 for none
}

// NewMlnxQoSParser returns a parser for mlnx_qos output in the input src.
func NewMlnxQoSParser(src string) Parser {
	return &qosParser{out: MlnxQoS{artifactHead: artifactHead{src: src}}, cfg: -1, tc: -1}
}

func (p *qosParser) cur() *QoSConfig {
	if p.cfg < 0 {
		return nil
	}
	return &p.out.Configs[p.cfg]
}

// start begins a new config.
func (p *qosParser) start(ev Evidence) *QoSConfig {
	p.section, p.tc = "", -1
	if len(p.out.Configs) >= maxQoSConfigs {
		p.out.Omitted++
		p.cfg = -1
		return nil
	}
	c := QoSConfig{Interface: p.cmdIf, Host: p.cmdHost, CableLen: -1, Evidence: map[string]Evidence{}, Start: ev}
	for i := range c.DSCP2Prio {
		c.DSCP2Prio[i] = -1
	}
	p.out.Configs = append(p.out.Configs, c)
	p.cfg = len(p.out.Configs) - 1
	return &p.out.Configs[p.cfg]
}

// field returns the config a top-level field belongs to, starting a new one
// when the current one already has the field.
func (p *qosParser) field(key string, ev Evidence) *QoSConfig {
	c := p.cur()
	if c == nil {
		return p.start(ev)
	}
	if _, seen := c.Evidence[key]; seen {
		p.cmdIf, p.cmdHost = "", ""
		return p.start(ev)
	}
	return c
}

// Feed implements Parser.
func (p *qosParser) Feed(l Line) {
	if l.NCCL {
		return
	}
	t := strings.TrimSpace(l.Text)
	ev := At(p.out.src, l)
	if c, ok := findCommand(t, "mlnx_qos"); ok {
		p.cmdIf = ""
		if i, ok := c.flagValue("-i", "--interface"); ok && isIdentName(i) {
			p.cmdIf = i
		}
		p.cmdHost = c.Host
		p.cfg, p.section, p.tc = -1, "", -1
		p.out.lines.add(l)
		return
	}
	if p.line(t, ev) {
		p.out.lines.add(l)
	}
}

func (p *qosParser) line(t string, ev Evidence) bool {
	key, val, hasColon := strings.Cut(t, ":")
	val = strings.TrimSpace(val)
	switch {
	case hasColon && key == "DCBX mode":
		if c := p.field("dcbx", ev); c != nil {
			c.DCBX, c.Evidence["dcbx"] = val, ev
		}
		return true
	case hasColon && (key == "Priority trust state" || key == "Priority trust mode"):
		if c := p.field("trust", ev); c != nil {
			c.Trust, c.Evidence["trust"] = val, ev
		}
		p.section = ""
		return true
	case t == "dscp2prio mapping:":
		p.section = "dscp"
		return p.cur() != nil
	case strings.HasPrefix(t, "Receive buffer size (bytes):"):
		if c := p.field("rxbuf", ev); c != nil {
			c.Evidence["rxbuf"] = ev
			for _, x := range strings.Split(strings.TrimPrefix(t, "Receive buffer size (bytes):"), ",") {
				x = strings.TrimSpace(x)
				if v, ok := strings.CutPrefix(x, "max_buffer_size="); ok {
					c.MaxBuffer, _ = strconv.ParseInt(v, 10, 64)
				} else if n, err := strconv.ParseInt(x, 10, 64); err == nil && len(c.RxBuffers) < 8 {
					c.RxBuffers = append(c.RxBuffers, n)
				}
			}
		}
		p.section = ""
		return true
	case hasColon && key == "Cable len":
		if c := p.field("cable", ev); c != nil {
			c.CableLen, c.Evidence["cable"] = atoiPrefixOr(val, -1), ev
		}
		return true
	case t == "PFC configuration:":
		p.section = "pfc"
		if p.cur() == nil {
			p.start(ev)
		}
		return true
	case hasColon && strings.EqualFold(key, "pfc enabled"):
		if bits, ok := qosRow(strings.FieldsFunc(val, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' })); ok {
			if c := p.field("pfc", ev); c != nil {
				c.PFCKnown, c.Evidence["pfc"] = true, ev
				for i, b := range bits {
					c.PFC[i] = b != 0
				}
			}
			return true
		}
		return false
	case strings.HasPrefix(t, "tc:"):
		return p.tcLine(t, ev)
	}
	c := p.cur()
	if c == nil {
		return false
	}
	f := strings.Fields(t)
	switch {
	case p.section == "dscp" && strings.HasPrefix(t, "prio:"):
		return p.dscpLine(c, t, ev)
	case p.section == "pfc" && len(f) == 9 && f[0] == "priority":
		return true
	case p.section == "pfc" && len(f) == 9 && (f[0] == "enabled" || f[0] == "buffer"):
		bits, ok := qosRow(f[1:])
		if !ok {
			return false
		}
		if f[0] == "enabled" {
			c.PFCKnown, c.Evidence["pfc"] = true, ev
			for i, b := range bits {
				c.PFC[i] = b != 0
			}
		} else {
			c.BufferKnown, c.Evidence["buffer"] = true, ev
			copy(c.Buffer[:], bits)
		}
		return true
	case p.tc >= 0 && len(f) == 2 && f[0] == "priority:":
		n, err := strconv.Atoi(f[1])
		if err != nil || n < 0 || n > 7 {
			return false
		}
		tc := &c.TCs[p.tc]
		tc.Prios = append(tc.Prios, n)
		tc.Evidence = append(tc.Evidence, ev)
		return true
	case hasColon && key == "default priority":
		return true
	}
	return false
}

// dscpLine parses "prio:3 dscp:31,30,29,28,27,26,25,24,".
func (p *qosParser) dscpLine(c *QoSConfig, t string, ev Evidence) bool {
	f := strings.Fields(t)
	if len(f) != 2 || !strings.HasPrefix(f[1], "dscp:") {
		return false
	}
	prio, err := strconv.Atoi(strings.TrimPrefix(f[0], "prio:"))
	if err != nil || prio < 0 || prio > 7 {
		return false
	}
	for _, x := range strings.Split(strings.TrimPrefix(f[1], "dscp:"), ",") {
		if x == "" {
			continue
		}
		d, err := strconv.Atoi(x)
		if err != nil || d < 0 || d > 63 {
			return false
		}
		c.DSCP2Prio[d] = prio
	}
	c.Evidence["dscp2prio:"+strconv.Itoa(prio)] = ev
	return true
}

// tcLine parses "tc: 3 ratelimit: unlimited, tsa: ets, bw: 50%".
func (p *qosParser) tcLine(t string, ev Evidence) bool {
	c := p.cur()
	if c == nil {
		return false
	}
	f := strings.Fields(strings.NewReplacer(",", " ", ":", " ").Replace(t))
	if len(f) < 2 || f[0] != "tc" {
		return false
	}
	n, err := strconv.Atoi(f[1])
	if err != nil || n < 0 || n > 15 || len(c.TCs) >= 16 {
		return false
	}
	tc := QoSTC{TC: n, BW: -1, Evidence: []Evidence{ev}}
	for i := 2; i+1 < len(f); i++ {
		switch f[i] {
		case "tsa":
			tc.TSA = f[i+1]
		case "bw":
			tc.BW = atoiPrefixOr(f[i+1], -1)
		}
	}
	c.TCs = append(c.TCs, tc)
	p.tc = len(c.TCs) - 1
	p.section = "tc"
	return true
}

// qosRow parses eight small integers.
func qosRow(f []string) ([]int, bool) {
	if len(f) != 8 {
		return nil, false
	}
	out := make([]int, 8)
	for i, x := range f {
		n, err := strconv.Atoi(x)
		if err != nil || n < 0 || n > 255 {
			return nil, false
		}
		out[i] = n
	}
	return out, true
}

// Result implements Parser.
func (p *qosParser) Result() Artifact {
	if p.out.lines.n == 0 || len(p.out.Configs) == 0 {
		return nil
	}
	return &p.out
}
