package nvue

import (
	"slices"
	"strconv"
	"strings"

	"rocelab/internal/swcfg"
)

// A path is one setting as a list of words, each where it is written:
// the words of `nv set qos pfc default-global tx enable`, or the keys of
// a YAML tree down to a leaf and its value. Both forms of input are read
// by apply, so that they cannot disagree.
type path []Value

// words joins the first n words.
func (p path) words(n int) string {
	var s []string
	for _, w := range p[:min(n, len(p))] {
		s = append(s, w.Text)
	}
	return strings.Join(s, " ")
}

// apply reads one path into the config.
func (c *Config) apply(p path) error {
	if len(p) == 0 {
		return nil
	}
	switch p[0].Text {
	case "qos":
		return c.qos(p)
	case "interface":
		return c.iface(p)
	case "header":
		if len(p) == 3 && p[1].Text == "version" {
			c.Version = p[2]
		}
	}
	// Routing, bridges, system settings: not QoS.
	return nil
}

// qos reads a path under qos.
func (c *Config) qos(p path) error {
	if len(p) < 2 {
		return nil
	}
	switch p[1].Text {
	case "roce":
		return c.roce(p)
	case "mapping":
		return c.mappingPath(p)
	case "pfc":
		return c.pfcPath(p)
	case "congestion-control":
		return c.ccPath(p)
	case "egress-queue-mapping":
		return c.egressPath(p)
	case "egress-scheduler":
		return c.schedPath(p)
	}
	c.notJudged(p.words(2), p[1])
	return nil
}

func (c *Config) roce(p path) error {
	if len(p) == 2 {
		// `nv set qos roce`: RoCE on, in lossless mode unless a mode
		// is set (NVIDIA's RoCE page).
		c.RoCEEnable = Value{Text: "on", Line: p[1].Line, Col: p[1].Col}
		return nil
	}
	if len(p) != 4 {
		return c.shape(p, 2, "enable on|off, state enabled|disabled or mode lossless|lossy|lossless-single-ipool|lossy-multi-tc")
	}
	v := p[3]
	switch p[2].Text {
	case "enable", "state":
		// `state enabled|disabled` is 5.15's name for `enable on|off`.
		if v.Text = onOff(v.Text); v.Text == "" {
			return c.errAt(p[3], "qos roce %s %q: expected on or off (enable), enabled or disabled (state)", p[2].Text, p[3].Text)
		}
		c.RoCEEnable = v
	case "mode":
		switch v.Text {
		case "lossless", "lossy", "lossless-single-ipool", "lossy-multi-tc":
		default:
			return c.errAt(v, "qos roce mode %q: expected lossless, lossy, lossless-single-ipool or lossy-multi-tc", v.Text)
		}
		c.RoCEMode = v
	default:
		c.notJudged(p.words(3), p[2])
	}
	return nil
}

func (c *Config) mappingPath(p path) error {
	if len(p) < 4 {
		return nil // a profile with nothing set
	}
	m := c.mapping(p[2].Text)
	switch p[3].Text {
	case "trust":
		if len(p) != 5 {
			return c.shape(p, 3, "trust l2|l3|both|port")
		}
		switch p[4].Text {
		case "l2", "l3", "both", "port":
		default:
			return c.errAt(p[4], "qos mapping %s trust %q: expected l2, l3, both or port", p[2].Text, p[4].Text)
		}
		m.Trust = p[4]
	case "dscp", "pcp":
		if p[3].Text == "pcp" {
			// RoCE is routed: PCP does not survive, DSCP is judged.
			c.notJudged(p.words(4), p[3])
		}
		top := 63
		if p[3].Text == "pcp" {
			top = 7
		}
		if len(p) != 7 || p[5].Text != "switch-priority" {
			return c.shape(p, 4, p[3].Text+" <values> switch-priority <0-7>")
		}
		ids, ok := swcfg.IDs(p[4].Text, top)
		if !ok {
			return c.errAt(p[4], "qos mapping %s %s %q: expected values from 0 to %d (\"26\", \"24,26\", \"24-31\")", p[2].Text, p[3].Text, p[4].Text, top)
		}
		sp, err := c.prio(p[6])
		if err != nil {
			return err
		}
		for _, id := range ids {
			if p[3].Text == "dscp" {
				m.DSCP[id] = sp
			} else {
				m.PCP[id] = sp
			}
		}
	case "port-default-sp":
		if len(p) != 5 {
			return c.shape(p, 3, "port-default-sp <0-7>")
		}
		sp, err := c.prio(p[4])
		if err != nil {
			return err
		}
		m.DefaultSP = sp
	default:
		c.notJudged(p.words(4), p[3])
	}
	return nil
}

func (c *Config) pfcPath(p path) error {
	if len(p) < 4 {
		return nil
	}
	f := c.pfc(p[2].Text)
	if p[3].Text == "switch-priority" {
		if len(p) != 5 {
			return c.shape(p, 3, "switch-priority <0-7>")
		}
		ids, ok := swcfg.IDs(p[4].Text, 7)
		if !ok {
			return c.errAt(p[4], "qos pfc %s switch-priority %q: expected priorities from 0 to 7", p[2].Text, p[4].Text)
		}
		for _, id := range ids {
			if !slices.Contains(f.Prios, id) {
				f.Prios = append(f.Prios, id)
			}
		}
		if !f.PriosAt.Given() {
			f.PriosAt = p[4]
		}
		return nil
	}
	if len(p) != 5 {
		return c.shape(p, 3, p[3].Text+" <value>")
	}
	v := p[4]
	switch p[3].Text {
	case "tx", "rx":
		if v.Text = enableDisable(v.Text); v.Text == "" {
			return c.errAt(p[4], "qos pfc %s %s %q: expected enable or disable", p[2].Text, p[3].Text, p[4].Text)
		}
		if p[3].Text == "tx" {
			f.Tx = v
		} else {
			f.Rx = v
		}
	case "cable-length", "xoff-threshold", "xon-threshold", "port-buffer":
		if _, err := c.number(p, 4, 0, 1<<40); err != nil {
			return err
		}
		// Not judged unless both port-buffer and xoff-threshold are set
		// by hand (sonic.FromNVUE then hands the profile to lint's
		// headroom rule and takes port-buffer, xoff-threshold and
		// cable-length off this list): otherwise NVUE sizes the buffer
		// from the cable and speed itself.
		c.notJudged(p.words(4), p[3])
		switch p[3].Text {
		case "cable-length":
			f.Cable = v
		case "xoff-threshold":
			f.Xoff = v
		case "xon-threshold":
			f.Xon = v
		default:
			f.PortBuffer = v
		}
	default:
		c.notJudged(p.words(4), p[3])
	}
	return nil
}

func (c *Config) ccPath(p path) error {
	if len(p) < 6 || p[3].Text != "traffic-class" {
		if len(p) >= 4 && p[3].Text != "traffic-class" {
			c.notJudged(p.words(4), p[3])
			return nil
		}
		if len(p) < 6 {
			return nil
		}
		return c.shape(p, len(p)-1, "qos congestion-control <profile> traffic-class <0-7> ecn|red|min-threshold|max-threshold|probability <value>")
	}
	tcs, ok := swcfg.IDs(p[4].Text, 7)
	if !ok {
		return c.errAt(p[4], "qos congestion-control %s traffic-class %q: expected traffic classes from 0 to 7", p[2].Text, p[4].Text)
	}
	if len(p) != 7 {
		return c.shape(p, 5, p[5].Text+" <value>")
	}
	v := p[6]
	var set func(e *ECN)
	switch p[5].Text {
	case "ecn", "red":
		if v.Text = enableDisable(v.Text); v.Text == "" {
			return c.errAt(p[6], "qos congestion-control %s traffic-class %s %s %q: expected enable or disable", p[2].Text, p[4].Text, p[5].Text, p[6].Text)
		}
		if p[5].Text == "ecn" {
			set = func(e *ECN) { e.ECN = v }
		} else {
			set = func(e *ECN) { e.RED = v }
		}
	case "min-threshold", "max-threshold":
		if _, err := c.number(p, 6, 0, 1<<40); err != nil {
			return err
		}
		if p[5].Text == "min-threshold" {
			set = func(e *ECN) { e.Min = v }
		} else {
			set = func(e *ECN) { e.Max = v }
		}
	case "probability":
		if _, err := c.number(p, 6, 0, 100); err != nil {
			return err
		}
		set = func(e *ECN) { e.Prob = v }
	default:
		c.notJudged(p.words(6), p[5])
		return nil
	}
	for _, tc := range tcs {
		set(c.ecn(p[2].Text, tc))
	}
	c.ecnStated = c.ecnStated || p[2].Text == DefaultProfile
	return nil
}

func (c *Config) egressPath(p path) error {
	if len(p) < 5 {
		return nil
	}
	if len(p) != 7 || p[3].Text != "switch-priority" || p[5].Text != "traffic-class" {
		return c.shape(p, min(len(p)-1, 5), "qos egress-queue-mapping <profile> switch-priority <0-7> traffic-class <0-7>")
	}
	sps, ok := swcfg.IDs(p[4].Text, 7)
	if !ok {
		return c.errAt(p[4], "qos egress-queue-mapping %s switch-priority %q: expected priorities from 0 to 7", p[2].Text, p[4].Text)
	}
	tc, err := c.prio(p[6])
	if err != nil {
		return err
	}
	for _, sp := range sps {
		c.EgressMap[sp] = tc
	}
	return nil
}

func (c *Config) schedPath(p path) error {
	if len(p) != 7 || p[3].Text != "traffic-class" {
		if len(p) >= 4 && p[3].Text != "traffic-class" {
			c.notJudged(p.words(4), p[3])
			return nil
		}
		if len(p) < 6 {
			return nil
		}
		return c.shape(p, min(len(p)-1, 5), "qos egress-scheduler <profile> traffic-class <0-7> mode strict|dwrr or bw-percent <0-100>")
	}
	tcs, ok := swcfg.IDs(p[4].Text, 7)
	if !ok {
		return c.errAt(p[4], "qos egress-scheduler %s traffic-class %q: expected traffic classes from 0 to 7", p[2].Text, p[4].Text)
	}
	v := p[6]
	switch p[5].Text {
	case "mode":
		if v.Text != "strict" && v.Text != "dwrr" {
			return c.errAt(v, "qos egress-scheduler %s traffic-class %s mode %q: expected strict or dwrr", p[2].Text, p[4].Text, v.Text)
		}
	case "bw-percent":
		if _, err := c.number(p, 6, 0, 100); err != nil {
			return err
		}
	default:
		c.notJudged(p.words(6), p[5])
		return nil
	}
	for _, tc := range tcs {
		if s := c.sched(p[2].Text, tc); p[5].Text == "mode" {
			s.Mode = v
		} else {
			s.BW = v
		}
	}
	return nil
}

// iface reads the QoS profiles, PFC watchdog and link speed of an
// interface; its other settings are not QoS.
func (c *Config) iface(p path) error {
	if len(p) < 4 {
		return nil
	}
	names := []string{p[1].Text}
	if ns, ok := expandIfaces(p[1].Text); ok {
		names = ns
	}
	switch {
	case p[2].Text == "link" && p[3].Text == "speed" && len(p) == 5:
		for _, n := range names {
			c.Speed[n] = p[4]
		}
	case p[2].Text != "qos":
	case p[3].Text == "pfc-watchdog":
		// The watchdog's times are switch-wide (polling-interval ×
		// robustness); that it is on is read, not judged.
		c.notJudged("interface qos pfc-watchdog", p[3])
		v := p[3]
		v.Text = "enabled"
		if len(p) == 6 && p[4].Text == "state" {
			v = p[5]
		}
		for _, n := range names {
			c.Watchdog[n] = v
		}
	case len(p) == 6 && p[4].Text == "profile":
		switch p[3].Text {
		case "mapping", "pfc", "congestion-control", "egress-scheduler":
			for _, n := range names {
				if c.Bindings[n] == nil {
					c.Bindings[n] = map[string]Value{}
				}
				c.Bindings[n][p[3].Text] = p[5]
			}
		default:
			c.notJudged("interface qos "+p[3].Text, p[3])
		}
	default:
		c.notJudged("interface qos "+p[3].Text, p[3])
	}
	return nil
}

// expandIfaces reads NVUE's interface ranges, "swp1-4" or "swp1,swp3",
// up to maxIfaceNames names.
func expandIfaces(s string) ([]string, bool) {
	if !strings.ContainsAny(s, ",-") {
		return nil, false
	}
	var out []string
	for _, part := range strings.Split(s, ",") {
		i := strings.IndexAny(part, "0123456789")
		if i <= 0 {
			return nil, false
		}
		prefix := part[:i]
		lo, hi, isRange := strings.Cut(part[i:], "-")
		hi = strings.TrimPrefix(hi, prefix)
		a, err1 := strconv.Atoi(lo)
		b, err2 := a, error(nil)
		if isRange {
			b, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || b < a || b-a > 512 {
			return nil, false
		}
		if len(out)+b-a+1 > maxIfaceNames {
			return nil, false
		}
		for n := a; n <= b; n++ {
			out = append(out, prefix+strconv.Itoa(n))
		}
	}
	return out, true
}

// maxIfaceNames bounds the names one interface list expands to: a
// Spectrum switch has at most a few hundred ports with breakouts, and a
// list of ranges repeated (swp1-512,swp1-512,...) must not cost memory
// a hundred times its length.
const maxIfaceNames = 4096

// prio reads a switch priority or traffic class, 0-7.
func (c *Config) prio(v Value) (Value, error) {
	n, err := strconv.Atoi(v.Text)
	if err != nil || n < 0 || n > 7 {
		return v, c.errAt(v, "%q: expected a priority from 0 to 7", v.Text)
	}
	return v, nil
}

// number checks that word i of p is an integer in [lo, hi].
func (c *Config) number(p path, i int, lo, hi int64) (int64, error) {
	n, err := strconv.ParseInt(p[i].Text, 10, 64)
	if err != nil || n < lo || n > hi {
		return 0, c.errAt(p[i], "%s %q: expected an integer from %d to %d", p.words(i), p[i].Text, lo, hi)
	}
	return n, nil
}

// shape reports a path that stops early or runs on: at word i, what was
// expected.
func (c *Config) shape(p path, i int, want string) error {
	i = max(0, min(i, len(p)-1))
	return c.errAt(p[i], "%s: expected %s", p.words(len(p)), want)
}

func onOff(s string) string {
	switch s {
	case "on", "enable", "enabled", "true":
		return "on"
	case "off", "disable", "disabled", "false":
		return "off"
	}
	return ""
}

func enableDisable(s string) string {
	switch onOff(s) {
	case "on":
		return "enable"
	case "off":
		return "disable"
	}
	return ""
}
