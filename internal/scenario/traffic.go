package scenario

import (
	"fmt"
	"strconv"
	"strings"

	"rocelab/internal/perftest"

	"github.com/goccy/go-yaml/ast"

	"rocelab/internal/sim"
	"rocelab/internal/textout"
	"rocelab/internal/unit"
)

// flowDefaults are the per-flow settings a flow or generator may override.
type flowDefaults struct {
	start unit.Time
	dscp  uint8
	prio  uint8
	rate  unit.BitRate
}

func (c *conv) flowCommon(s *Scenario, path string, start, dscp, prio, rate ast.Node) flowDefaults {
	d := flowDefaults{
		start: c.duration(start, path+".start", 0),
		dscp:  uint8(c.integer(dscp, path+".dscp", int64(s.Host.DSCP), 0, 63)),
		rate:  0,
	}
	if rate != nil {
		d.rate = c.rate(rate, path+".rate", 0)
	}
	p := int(c.integer(prio, path+".priority", -1, 0, 7))
	switch {
	case p >= 0:
		d.prio = uint8(p)
	case s.Host.Priority >= 0:
		d.prio = uint8(s.Host.Priority)
	default:
		d.prio = s.Host.DSCPToPrio[d.dscp]
	}
	return d
}

// traffic resolves explicit flows and expands generators, in file order.
func (c *conv) traffic(s *Scenario, t *rawTraffic) {
	if t == nil || len(t.Flows)+len(t.Generators)+len(t.Perftest) == 0 {
		if c.description || s.Workload != nil {
			return
		}
		c.errs = append(c.errs, &Error{File: c.file, Line: 1, Col: 1, Path: "traffic", Msg: "missing: a scenario needs traffic (flows, generators or perftest) or a workload"})
		return
	}
	hosts := len(s.Topo.Hosts)
	for i, r := range t.Perftest {
		if r != nil {
			c.perftest(s, r, fmt.Sprintf("traffic.perftest[%d]", i), hosts)
		}
	}
	names := map[string]int{}
	for i, r := range t.Flows {
		path := fmt.Sprintf("traffic.flows[%d]", i)
		if r == nil {
			continue
		}
		d := c.flowCommon(s, path, r.Start, r.DSCP, r.Priority, r.Rate)
		f := FlowSpec{
			Name:  c.text(r.Name, path+".name", "flow"+strconv.Itoa(len(s.Flows))),
			Src:   c.hostRef(r.Src, path+".src", hosts),
			Dst:   c.hostRef(r.Dst, path+".dst", hosts),
			Bytes: c.bytes(r.Bytes, path+".bytes", 0),
			Start: d.start, DSCP: d.dscp, Priority: d.prio, Rate: d.rate,
		}
		if _, ok := c.scalar(r.Bytes, path+".bytes"); !ok {
			c.fail(r.Bytes, path+".bytes", "missing: expected a size such as 8MiB")
		}
		c.warnFlow(s, path, r.Rate, r.Start, []int{f.Src}, d)
		if f.Src >= 0 && f.Src == f.Dst {
			c.fail(r.Dst, path+".dst", "a flow needs two different hosts, got %s twice", quote("h"+strconv.Itoa(f.Src)))
		}
		if items, ok := c.list(r.After, path+".after"); ok {
			for j, it := range items {
				ref, _ := c.scalar(it, fmt.Sprintf("%s.after[%d]", path, j))
				k, found := names[ref]
				if !found {
					c.fail(it, fmt.Sprintf("%s.after[%d]", path, j), "expected the name of an earlier flow, got %s", quote(ref))
					continue
				}
				f.After = append(f.After, k)
			}
		}
		if _, ok := c.scalar(r.AfterN, path+".after_count"); ok {
			if len(f.After) == 0 {
				c.fail(r.AfterN, path+".after_count", "a count of the flows in after:, which this flow lacks")
			} else {
				f.AfterCount = int(c.integer(r.AfterN, path+".after_count", 0, 1, int64(len(f.After))))
			}
		}
		if _, dup := names[f.Name]; dup {
			c.fail(r.Name, path+".name", "flow name %s is used twice", quote(f.Name))
		}
		names[f.Name] = len(s.Flows)
		s.Flows = append(s.Flows, f)
	}
	for i, r := range t.Generators {
		if r != nil {
			c.generator(s, r, fmt.Sprintf("traffic.generators[%d]", i))
		}
	}
}

// GeneratorSpec is a validated traffic generator. Its random parts (the
// permutation, start jitter) are drawn when the scenario is expanded, from
// the seed in effect then.
type GeneratorSpec struct {
	Kind   string
	Name   string
	Bytes  unit.Bytes
	QPs    int
	Jitter unit.Time
	// Hosts are the members of a permutation or all-to-all; Senders and
	// Receiver those of an incast.
	Hosts    []int
	Senders  []int
	Receiver int
	Start    unit.Time
	DSCP     uint8
	Priority uint8
	Rate     unit.BitRate
}

// generator validates one generator.
func (c *conv) generator(s *Scenario, r *rawGenerator, path string) {
	hosts := len(s.Topo.Hosts)
	kind := c.choice(r.Kind, path+".kind", "", "permutation", "incast", "all-to-all")
	if kind == "" {
		if _, ok := c.scalar(r.Kind, path+".kind"); !ok {
			c.fail(r.Kind, path+".kind", "missing: expected permutation, incast or all-to-all")
		}
		return
	}
	d := c.flowCommon(s, path, r.Start, r.DSCP, r.Priority, r.Rate)
	g := GeneratorSpec{
		Kind: kind, Start: d.start, DSCP: d.dscp, Priority: d.prio, Rate: d.rate,
		Bytes:  c.bytes(r.Bytes, path+".bytes", 0),
		QPs:    int(c.integer(r.QPs, path+".qps", 1, 1, 64)),
		Jitter: c.duration(r.Jitter, path+".jitter", 0),
		Name:   c.text(r.Name, path+".name", fmt.Sprintf("g%d", len(s.Generators))),
	}
	if _, ok := c.scalar(r.Bytes, path+".bytes"); !ok || g.Bytes == 0 {
		c.fail(r.Bytes, path+".bytes", "missing: expected a positive size such as 8MiB")
	}
	switch kind {
	case "permutation", "all-to-all":
		g.Hosts = c.hostSet(r.Hosts, path+".hosts", hosts)
		if len(g.Hosts) < 2 {
			c.fail(r.Hosts, path+".hosts", "%s needs at least 2 hosts", textout.Article(kind))
		}
	case "incast":
		g.Receiver = c.hostRef(r.Receiver, path+".receiver", hosts)
		if g.Receiver < 0 {
			return
		}
		if items, ok := c.list(r.Senders, path+".senders"); ok && len(items) == 1 {
			if txt, _ := c.scalar(items[0], path+".senders"); txt != "" && txt[0] != 'h' {
				n := int(c.integer(items[0], path+".senders", 1, 1, int64(hosts-1)))
				for h := 0; len(g.Senders) < n && h < hosts; h++ {
					if h != g.Receiver {
						g.Senders = append(g.Senders, h)
					}
				}
			}
		}
		if g.Senders == nil {
			g.Senders = c.hostSet(r.Senders, path+".senders", hosts)
		}
		for _, h := range g.Senders {
			if h == g.Receiver {
				c.fail(r.Senders, path+".senders", "the receiver h%d cannot also be a sender", g.Receiver)
				return
			}
		}
		if len(g.Senders) == 0 && len(c.errs) == 0 {
			c.fail(r.Senders, path+".senders", "missing: expected a sender count or a list of hosts")
		}
	}
	srcs := g.Senders
	if kind != "incast" {
		srcs = g.Hosts
	}
	c.warnFlow(s, path, r.Rate, r.Start, srcs, d)
	s.Generators = append(s.Generators, g)
}

// Expand returns the scenario's flows: the explicit flows, then each
// generator's, drawn from the named stream "traffic/<index>" of s.Seed.
func (s *Scenario) Expand() []FlowSpec {
	flows := append([]FlowSpec(nil), s.Flows...)
	streams := sim.NewStreams(s.Seed)
	for i, g := range s.Generators {
		rng := streams.Stream("traffic/" + strconv.Itoa(i))
		add := func(src, dst int) {
			start := g.Start
			if g.Jitter > 0 {
				// Real NICs never start in the same picosecond: spread the
				// pair's start uniformly over [start, start+jitter).
				start += unit.Time(rng.Uint64() % uint64(g.Jitter))
			}
			for q := 0; q < g.QPs; q++ {
				b := g.Bytes / unit.Bytes(g.QPs)
				if q == 0 {
					b += g.Bytes % unit.Bytes(g.QPs)
				}
				flows = append(flows, FlowSpec{
					Name: flowName(g.Name, src, dst, q),
					Src:  src, Dst: dst, Bytes: b,
					Start: start, DSCP: g.DSCP, Priority: g.Priority, Rate: g.Rate,
				})
			}
		}
		switch g.Kind {
		case "permutation":
			for i, j := range derangement(len(g.Hosts), rng) {
				add(g.Hosts[i], g.Hosts[j])
			}
		case "all-to-all":
			for _, a := range g.Hosts {
				for _, b := range g.Hosts {
					if a != b {
						add(a, b)
					}
				}
			}
		case "incast":
			for _, h := range g.Senders {
				add(h, g.Receiver)
			}
		}
	}
	return flows
}

// hostSet parses a list of hosts; absent means every host.
func (c *conv) hostSet(n ast.Node, path string, hosts int) []int {
	items, ok := c.list(n, path)
	if !ok {
		all := make([]int, hosts)
		for i := range all {
			all[i] = i
		}
		return all
	}
	seen := map[int]bool{}
	var out []int
	for i, it := range items {
		h := c.hostRef(it, fmt.Sprintf("%s[%d]", path, i), hosts)
		if h < 0 {
			continue
		}
		if seen[h] {
			c.fail(it, fmt.Sprintf("%s[%d]", path, i), "host h%d is listed twice", h)
			continue
		}
		seen[h] = true
		out = append(out, h)
	}
	return out
}

// flowName names a generator's flow: "<generator>-h<src>-h<dst>-q<qp>".
// Built by concatenation: a run names every flow twice (the estimate and
// the workloads), and fmt's formatting cost about 1,600 instructions a name.
func flowName(gen string, src, dst, qp int) string {
	return gen + "-h" + strconv.Itoa(src) + "-h" + strconv.Itoa(dst) + "-q" + strconv.Itoa(qp)
}

// derangement returns a uniformly shuffled permutation of 0..n-1 with no
// fixed point (Sattolo's algorithm gives a single cycle, which is one).
func derangement(n int, rng *sim.Rand) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	for i := n - 1; i > 0; i-- {
		j := rng.IntN(i)
		p[i], p[j] = p[j], p[i]
	}
	return p
}

// PerftestSpec is one perftest run between two hosts.
type PerftestSpec struct {
	Opts           perftest.Options
	Client, Server int
}

// perftest reads one perftest run: its command line and its two hosts.
func (c *conv) perftest(s *Scenario, r *rawPerftest, path string, hosts int) {
	cmd, ok := c.scalar(r.Command, path+".command")
	if !ok {
		c.fail(r.Command, path+".command", "missing: expected a perftest command such as 'ib_write_bw -s 65536 -n 5000 --report_gbits'")
		return
	}
	o, err := perftest.Parse(strings.Fields(cmd))
	if err != nil {
		c.fail(r.Command, path+".command", "%v", err)
		return
	}
	p := PerftestSpec{Opts: o, Client: c.hostRef(r.Client, path+".client", hosts), Server: c.hostRef(r.Server, path+".server", hosts)}
	if p.Client >= 0 && p.Client == p.Server {
		c.fail(r.Server, path+".server", "perftest needs two different hosts")
	}
	s.Perftests = append(s.Perftests, p)
}
