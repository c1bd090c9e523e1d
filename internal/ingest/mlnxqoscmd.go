package ingest

import (
	"strconv"
	"strings"
)

// KindMlnxQoSCommands is mlnx_qos command lines that change settings.
const KindMlnxQoSCommands Kind = "mlnx-qos-commands"

// MlnxQoSCommands is what a script of `mlnx_qos -i IF --trust dscp --pfc
// 0,0,0,1,0,0,0,0 --dscp2prio set,26,3 ...` lines sets, one QoSConfig per
// interface (later commands update earlier ones). Fields a command does not
// set stay unknown: Trust "", PFCKnown false, DSCP2Prio -1.
type MlnxQoSCommands struct {
	Scoped
	artifactHead
	// Configs are the interfaces in the order first set.
	Configs []QoSConfig
}

// Kind implements Artifact.
func (m *MlnxQoSCommands) Kind() Kind { return KindMlnxQoSCommands }

type qosCmdParser struct{ out MlnxQoSCommands }

// NewMlnxQoSCommandParser returns a parser for mlnx_qos setting commands in
// the input src.
func NewMlnxQoSCommandParser(src string) Parser {
	return &qosCmdParser{out: MlnxQoSCommands{artifactHead: artifactHead{src: src}}}
}

func (p *qosCmdParser) config(iface, host string, ev Evidence) *QoSConfig {
	for i := range p.out.Configs {
		if c := &p.out.Configs[i]; c.Interface == iface && c.Host == host {
			return c
		}
	}
	if len(p.out.Configs) >= maxQoSConfigs {
		return nil
	}
	c := QoSConfig{Interface: iface, Host: host, CableLen: -1, Evidence: map[string]Evidence{}, Start: ev}
	for i := range c.DSCP2Prio {
		c.DSCP2Prio[i] = -1
	}
	p.out.Configs = append(p.out.Configs, c)
	return &p.out.Configs[len(p.out.Configs)-1]
}

// Feed implements Parser.
func (p *qosCmdParser) Feed(l Line) {
	if l.NCCL {
		return
	}
	t := strings.TrimSpace(l.Text)
	cmd, ok := findCommand(t, "mlnx_qos")
	if !ok {
		return
	}
	iface, ok := cmd.flagValue("-i", "--interface")
	if !ok || !isIdentName(iface) {
		return
	}
	ev := At(p.out.src, l)
	var c *QoSConfig
	get := func() *QoSConfig {
		if c == nil {
			c = p.config(iface, cmd.Host, ev)
		}
		return c
	}
	set := false
	if v, ok := cmd.flagValue("--trust"); ok && (v == "dscp" || v == "pcp") {
		if c := get(); c != nil {
			c.Trust, c.Evidence["trust"] = v, ev
		}
		set = true
	}
	if v, ok := cmd.flagValue("--pfc", "-f"); ok {
		if bits, ok := qosRow(strings.Split(v, ",")); ok {
			if c := get(); c != nil {
				c.PFCKnown, c.Evidence["pfc"] = true, ev
				for i, b := range bits {
					c.PFC[i] = b != 0
				}
			}
			set = true
		}
	}
	for k, a := range cmd.Args {
		var v string
		switch {
		case a == "--dscp2prio" && k+1 < len(cmd.Args):
			v = cmd.Args[k+1]
		case strings.HasPrefix(a, "--dscp2prio="):
			v = strings.TrimPrefix(a, "--dscp2prio=")
		default:
			continue
		}
		f := strings.Split(v, ",")
		if len(f) != 3 || f[0] != "set" && f[0] != "del" {
			continue
		}
		d, e1 := strconv.Atoi(f[1])
		pr, e2 := strconv.Atoi(f[2])
		if e1 != nil || e2 != nil || d < 0 || d > 63 || pr < 0 || pr > 7 {
			continue
		}
		if c := get(); c != nil {
			if f[0] == "set" {
				c.DSCP2Prio[d] = pr
				c.Evidence["dscp2prio:"+strconv.Itoa(pr)] = ev
			} else if c.DSCP2Prio[d] == pr {
				c.DSCP2Prio[d] = -1
			}
		}
		set = true
	}
	if set {
		p.out.lines.add(l)
	}
}

// Result implements Parser.
func (p *qosCmdParser) Result() Artifact {
	if p.out.lines.n == 0 {
		return nil
	}
	return &p.out
}
