package scenario

import (
	"fmt"

	"github.com/goccy/go-yaml/ast"

	"rocelab/internal/topo"
	"rocelab/internal/unit"
)

// warn records a problem that does not stop the scenario but that its
// author should hear about, at the key's position.
func (c *conv) warn(n ast.Node, path, format string, args ...any) {
	save := c.errs
	c.fail(n, path, format, args...)
	c.warns = append(c.warns, c.errs[len(c.errs)-1])
	c.errs = save
}

// warnAt is warn at a position read earlier (a setting's line and column).
func (c *conv) warnAt(line, col int, path, format string, args ...any) {
	c.warns = append(c.warns, &Error{File: c.file, Line: line, Col: col, Path: path, Msg: fmt.Sprintf(format, args...)})
}

// hostRates returns each host's link rate.
func hostRates(t *topo.Topology) []unit.BitRate {
	rates := make([]unit.BitRate, len(t.Hosts))
	for _, l := range t.Links {
		if t.Nodes[l.A].Kind == topo.Host {
			rates[hostIndex(t, l.A)] = l.Rate
		}
	}
	return rates
}

// warnFlow warns when traffic sent by hosts srcs at rate cannot be what its
// author meant: a rate above the sender's link (the NIC cannot send faster
// than its link; the flow runs at line rate), or a start at or after the
// end of the run (it sends nothing).
func (c *conv) warnFlow(s *Scenario, path string, rateNode, startNode ast.Node, srcs []int, d flowDefaults) {
	if d.rate > 0 {
		rates := hostRates(s.Topo)
		for _, h := range srcs {
			if h >= 0 && d.rate > rates[h] {
				c.warn(rateNode, path+".rate", "%v is above h%d's %v link: the flow is sent at line rate", d.rate, h, rates[h])
				break
			}
		}
	}
	if d.start >= s.Duration {
		c.warn(startNode, path+".start", "starts at %v, at or after the end of the run (duration %v): it sends nothing", d.start, s.Duration)
	}
}

// MaxPorts caps the ports a topology may have, checked before it is
// built: a k=64 fat-tree (65,536 hosts) has 393,216; building the
// topology of a far larger one would take minutes and gigabytes before the
// cost estimate could refuse it.
const MaxPorts = 1 << 20

// tooLarge reports, at node, a topology of more than MaxPorts ports, given
// its host and link counts (every link has two ports).
func (c *conv) tooLarge(n ast.Node, kind string, hosts, links int64) bool {
	if 2*links <= MaxPorts {
		return false
	}
	c.fail(n, "topology", "too large: a %s of %d hosts and %d links has %d ports, more than the %d the twin builds", kind, hosts, links, 2*links, MaxPorts)
	return true
}
