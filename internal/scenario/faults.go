package scenario

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"

	"rocelab/internal/topo"
	"rocelab/internal/unit"
)

// FaultSpec is one injected fault.
type FaultSpec struct {
	// Kind is pause_storm, loss, link_down or route.
	Kind       string
	Host       int
	Priority   int
	Start, End unit.Time
	// Link is the topology link a loss or link_down fault acts on (a loss
	// fault loses frames in both directions, each by its own draw);
	// LinkName is the name it was given by. A loss fault on link "hosts"
	// becomes one fault per host cable.
	Link     int
	LinkName string
	// Rate is a loss fault's long-run loss rate; Burst the mean length of
	// loss bursts in frames (1: independent losses).
	Rate, Burst float64
	// Reroute makes routing converge around a downed link after Converge.
	Reroute  bool
	Converge unit.Time
	// Switch, Hosts and Via are a route fault's switch (topology node),
	// the destination hosts it reroutes and the switch ports it sends them
	// to.
	Switch int
	Hosts  []int
	Via    []int16
}

// faultKinds are the fault kinds, with the keys each takes.
var faultKinds = map[string][]string{
	"pause_storm": {"host", "priority", "start", "end"},
	"loss":        {"link", "rate", "burst", "start", "end"},
	"link_down":   {"link", "start", "end", "reroute", "converge"},
	"route":       {"switch", "hosts", "via", "start", "end"},
}

func (c *conv) faults(s *Scenario, rs []*rawFault) {
	for i, r := range rs {
		path := fmt.Sprintf("faults[%d]", i)
		if r == nil {
			continue
		}
		f := FaultSpec{Kind: c.choice(r.Kind, path+".kind", "", "pause_storm", "loss", "link_down", "route")}
		if f.Kind == "" {
			if _, ok := c.scalar(r.Kind, path+".kind"); !ok {
				c.fail(r.Kind, path+".kind", "missing: expected pause_storm, loss, link_down or route")
			}
			continue
		}
		keys := map[string]ast.Node{
			"host": r.Host, "priority": r.Priority, "link": r.Link, "rate": r.Rate, "burst": r.Burst,
			"reroute": r.Reroute, "converge": r.Converge, "switch": r.Switch, "hosts": r.Hosts, "via": r.Via,
		}
		for _, k := range []string{"host", "priority", "link", "rate", "burst", "reroute", "converge", "switch", "hosts", "via"} {
			if Unwrap(keys[k]) != nil && !slices.Contains(faultKinds[f.Kind], k) {
				c.fail(keys[k], path+"."+k, "does not apply to a %s fault (its keys: %s)", f.Kind, strings.Join(faultKinds[f.Kind], ", "))
			}
		}
		f.Start = c.duration(r.Start, path+".start", 0)
		f.End = c.duration(r.End, path+".end", 0)
		if f.End != 0 && f.End <= f.Start {
			c.fail(r.End, path+".end", "must be after start")
		}
		t := s.Topo
		switch f.Kind {
		case "pause_storm":
			f.Host = c.hostRef(r.Host, path+".host", len(t.Hosts))
			f.Priority = int(c.integer(r.Priority, path+".priority", DefaultPFCPriority, 0, 7))
		case "loss":
			if txt, _ := c.scalar(r.Link, path+".link"); txt == "hosts" {
				f.Link, f.LinkName = -1, txt
			} else {
				f.Link, f.LinkName = c.linkRef(t, r.Link, path+".link")
			}
			f.Rate = c.float(r.Rate, path+".rate", 0, 0, 1)
			f.Burst = c.float(r.Burst, path+".burst", 1, 1, 1e9)
			if _, ok := c.scalar(r.Rate, path+".rate"); !ok {
				c.fail(r.Rate, path+".rate", "missing: expected a loss rate such as 0.001")
			}
			if f.Rate >= 1 && f.Burst > 1 {
				c.fail(r.Rate, path+".rate", "a bursty loss rate must be below 1")
			}
		case "link_down":
			f.Link, f.LinkName = c.linkRef(t, r.Link, path+".link")
			f.Reroute = c.boolean(r.Reroute, path+".reroute", true)
			f.Converge = c.duration(r.Converge, path+".converge", 0)
		case "route":
			f.Switch = c.switchRef(t, r.Switch, path+".switch")
			f.Hosts = c.hostSet(r.Hosts, path+".hosts", len(t.Hosts))
			if f.Switch >= 0 {
				f.Via = c.viaPorts(t, f.Switch, r.Via, path+".via")
			}
		}
		if f.Kind == "loss" && f.LinkName == "hosts" {
			// Every host's cable, each its own fault with its own draws.
			for _, h := range t.Hosts {
				f.Link, f.LinkName = hostLink(t, h), t.Nodes[h].Name
				s.Faults = append(s.Faults, f)
			}
			continue
		}
		s.Faults = append(s.Faults, f)
	}
}

// hostLink returns the link of host node h.
func hostLink(t *topo.Topology, h int) int {
	for i, l := range t.Links {
		if l.A == h || l.B == h {
			return i
		}
	}
	return -1
}

// linkRef resolves a link by one of its ports ("leaf0/p4", "leaf0:4"), by
// its two ends ("leaf0-spine1", the first such link), or by a host name
// (its only link).
func (c *conv) linkRef(t *topo.Topology, n ast.Node, path string) (int, string) {
	s, ok := c.scalar(n, path)
	if !ok {
		c.fail(n, path, "missing: expected a link such as leaf0/p4, leaf0-spine1 or h3")
		return -1, ""
	}
	node := func(name string) int {
		for i, nd := range t.Nodes {
			if nd.Name == name {
				return i
			}
		}
		return -1
	}
	if a, b, ok := strings.Cut(s, "-"); ok && node(a) >= 0 && node(b) >= 0 {
		na, nb := node(a), node(b)
		for i, l := range t.Links {
			if l.A == na && l.B == nb || l.A == nb && l.B == na {
				return i, s
			}
		}
		c.fail(n, path, "no link joins %s and %s", a, b)
		return -1, s
	}
	name, port := s, -1
	if a, b, ok := cutPort(s); ok {
		name, port = a, b
	}
	nd := node(name)
	if nd < 0 {
		c.fail(n, path, "expected a link such as leaf0/p4, leaf0-spine1 or h3: no node %s", quote(name))
		return -1, s
	}
	if port < 0 && t.Nodes[nd].Kind == topo.Host {
		port = 0
	}
	for i, l := range t.Links {
		if l.A == nd && l.PA == port || l.B == nd && l.PB == port {
			return i, s
		}
	}
	c.fail(n, path, "%s has no linked port %d (ports 0 to %d)", name, port, t.Nodes[nd].Ports-1)
	return -1, s
}

// cutPort splits "node/pN" or "node:N".
func cutPort(s string) (string, int, bool) {
	if a, b, ok := strings.Cut(s, "/p"); ok {
		if i, err := strconv.Atoi(b); err == nil {
			return a, i, true
		}
	}
	if a, b, ok := strings.Cut(s, ":"); ok {
		if i, err := strconv.Atoi(b); err == nil {
			return a, i, true
		}
	}
	return s, 0, false
}

// switchRef resolves a switch by name.
func (c *conv) switchRef(t *topo.Topology, n ast.Node, path string) int {
	s, ok := c.scalar(n, path)
	if !ok {
		c.fail(n, path, "missing: expected a switch name such as spine0")
		return -1
	}
	for i, nd := range t.Nodes {
		if nd.Name == s && nd.Kind == topo.Switch {
			return i
		}
	}
	c.fail(n, path, "expected a switch of this topology, got %s", quote(s))
	return -1
}

// viaPorts resolves a route fault's next hops: neighbours of the switch
// by name (every port toward them), or its ports as pN.
func (c *conv) viaPorts(t *topo.Topology, sw int, n ast.Node, path string) []int16 {
	items, ok := c.list(n, path)
	if !ok {
		c.fail(n, path, "missing: expected the neighbours or ports (pN) to route through")
		return nil
	}
	var out []int16
	for i, it := range items {
		p := fmt.Sprintf("%s[%d]", path, i)
		s, _ := c.scalar(it, p)
		found := false
		for _, l := range t.Links {
			for _, e := range [2][3]int{{l.A, l.PA, l.B}, {l.B, l.PB, l.A}} {
				if e[0] != sw {
					continue
				}
				if t.Nodes[e[2]].Name == s || "p"+strconv.Itoa(e[1]) == s {
					out = append(out, int16(e[1]))
					found = true
				}
			}
		}
		if !found {
			c.fail(it, p, "%s is neither a neighbour nor a port (pN) of %s", quote(s), t.Nodes[sw].Name)
		}
	}
	return out
}
