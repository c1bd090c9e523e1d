package scenario

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"

	"rocelab/internal/unit"
)

// conv converts raw scalars to typed values, collecting errors.
type conv struct {
	file  string
	errs  Errors
	warns Errors
	// pos records where each key path's value was read.
	pos map[string]Pos
	// description accepts a file without traffic (LoadDescription).
	description bool
}

// A Pos is where a key's value is in the scenario file.
type Pos struct{ Line, Col int }

// note records where the value at path is.
func (c *conv) note(n ast.Node, path string) {
	if n == nil || path == "" {
		return
	}
	if tk := n.GetToken(); tk != nil && tk.Position != nil {
		if c.pos == nil {
			c.pos = map[string]Pos{}
		}
		if _, seen := c.pos[path]; !seen {
			c.pos[path] = Pos{tk.Position.Line, tk.Position.Column}
		}
	}
}

func (c *conv) fail(n ast.Node, path, format string, args ...any) {
	c.errs = append(c.errs, at(c.file, n, path, fmt.Sprintf(format, args...)))
}

// scalar returns a scalar node's text, or false when the key is absent or
// null.
func (c *conv) scalar(n ast.Node, path string) (string, bool) {
	n = Unwrap(n)
	if n == nil {
		return "", false
	}
	c.note(n, path)
	switch v := n.(type) {
	case *ast.NullNode:
		return "", false
	case *ast.StringNode:
		return v.Value, true
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.InfinityNode, *ast.NanNode:
		return v.GetToken().Value, true
	case *ast.LiteralNode:
		return v.Value.Value, true
	}
	c.fail(n, path, "expected a single value, got a %s", strings.ToLower(n.Type().String()))
	return "", false
}

func quote(s string) string { return strconv.Quote(s) }

func (c *conv) rate(n ast.Node, path string, def unit.BitRate) unit.BitRate {
	s, ok := c.scalar(n, path)
	if !ok {
		return def
	}
	r, err := unit.ParseRate(s)
	if err != nil || r <= 0 {
		c.badValue(n, path, err, "a positive bit rate such as 100G or 400Gbps", s)
		return def
	}
	if unit.Bare(s) {
		c.warn(n, path, "%s has no unit, so it is %s bits per second: write %sG for %s Gb/s", s, s, s, s)
	}
	return r
}

func (c *conv) bytes(n ast.Node, path string, def unit.Bytes) unit.Bytes {
	s, ok := c.scalar(n, path)
	if !ok {
		return def
	}
	b, err := unit.ParseBytes(s)
	if err != nil {
		c.badValue(n, path, err, "a size that is not negative, such as 4KiB, 32MiB or 9000", s)
		return def
	}
	return b
}

func (c *conv) duration(n ast.Node, path string, def unit.Time) unit.Time {
	s, ok := c.scalar(n, path)
	if !ok {
		return def
	}
	d, err := unit.ParseTime(s)
	if err != nil {
		c.badValue(n, path, err, "a duration that is not negative, such as 2us, 1.5ms or 300ns", s)
		return def
	}
	return d
}

func (c *conv) length(n ast.Node, path string, def unit.Length) unit.Length {
	s, ok := c.scalar(n, path)
	if !ok {
		return def
	}
	l, err := unit.ParseLength(s)
	if err != nil {
		c.badValue(n, path, err, "a cable length such as 3m or 300m", s)
		return def
	}
	return l
}

// badValue reports a value that did not parse: one above the parser's
// limit says the limit, anything else what was expected.
func (c *conv) badValue(n ast.Node, path string, err error, expected, s string) {
	var re *unit.RangeError
	switch {
	case errors.As(err, &re) && re.Tiny:
		c.fail(n, path, "above zero but below the smallest step (it would round to 0): expected %s, got %s", expected, quote(s))
		return
	case errors.As(err, &re) && !re.Negative:
		c.fail(n, path, "too large: at most %s, got %s", re.Max, quote(s))
		return
	}
	c.fail(n, path, "expected %s, got %s", expected, quote(s))
}

func (c *conv) integer(n ast.Node, path string, def, lo, hi int64) int64 {
	s, ok := c.scalar(n, path)
	if !ok {
		return def
	}
	v, err := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 0, 64)
	if err != nil || v < lo || v > hi {
		c.fail(n, path, "expected a whole number from %d to %d, got %s", lo, hi, quote(s))
		return def
	}
	return v
}

func (c *conv) float(n ast.Node, path string, def, lo, hi float64) float64 {
	s, ok := c.scalar(n, path)
	if !ok {
		return def
	}
	v, err := parseFraction(s)
	if err != nil || v < lo || v > hi || v != v {
		c.fail(n, path, "expected a number from %g to %g, got %s", lo, hi, quote(s))
		return def
	}
	return v
}

// parseFraction parses a number, or a fraction such as "1/8" (how dynamic
// thresholds are often written).
func parseFraction(s string) (float64, error) {
	num, den, ok := strings.Cut(s, "/")
	if !ok {
		return strconv.ParseFloat(s, 64)
	}
	a, e1 := strconv.ParseFloat(strings.TrimSpace(num), 64)
	b, e2 := strconv.ParseFloat(strings.TrimSpace(den), 64)
	if e1 != nil || e2 != nil || b == 0 {
		return 0, errors.New("bad fraction")
	}
	return a / b, nil
}

func (c *conv) boolean(n ast.Node, path string, def bool) bool {
	s, ok := c.scalar(n, path)
	if !ok {
		return def
	}
	switch strings.ToLower(s) {
	case "true", "yes", "on":
		return true
	case "false", "no", "off":
		return false
	}
	c.fail(n, path, "expected true or false, got %s", quote(s))
	return def
}

func (c *conv) text(n ast.Node, path, def string) string {
	s, ok := c.scalar(n, path)
	if !ok {
		return def
	}
	return s
}

func (c *conv) choice(n ast.Node, path, def string, allowed ...string) string {
	s, ok := c.scalar(n, path)
	if !ok {
		return def
	}
	for _, a := range allowed {
		if s == a {
			return s
		}
	}
	c.fail(n, path, "expected one of %s, got %s%s", strings.Join(allowed, ", "), quote(s), hint(s, allowed))
	return def
}

// list returns a sequence node's items, accepting a single scalar as a
// one-item list.
func (c *conv) list(n ast.Node, path string) ([]ast.Node, bool) {
	n = Unwrap(n)
	if n == nil {
		return nil, false
	}
	c.note(n, path)
	switch v := n.(type) {
	case *ast.NullNode:
		return nil, false
	case *ast.SequenceNode:
		return v.Values, true
	case *ast.MappingNode, *ast.MappingValueNode:
		c.fail(n, path, "expected a list")
		return nil, false
	}
	return []ast.Node{n}, true
}

// priorities parses a list of priorities 0..7 into a bit mask.
func (c *conv) priorities(n ast.Node, path string, def uint8) uint8 {
	items, ok := c.list(n, path)
	if !ok {
		return def
	}
	var m uint8
	for i, it := range items {
		p := c.integer(it, fmt.Sprintf("%s[%d]", path, i), -1, 0, 7)
		if p >= 0 {
			m |= 1 << p
		}
	}
	return m
}

// dscpMap parses "default" or a mapping of DSCP → priority. Unlisted DSCP
// values keep the default map (DSCP >> 3, as mlx5 and Linux map them).
func (c *conv) dscpMap(n ast.Node, path string) [64]uint8 {
	var m [64]uint8
	for d := range m {
		m[d] = uint8(d >> 3)
	}
	n = Unwrap(n)
	if n == nil {
		return m
	}
	c.note(n, path)
	if pairs, ok := MappingPairs(n); ok {
		for _, kv := range pairs {
			k := kv.Key.GetToken().Value
			d, err := strconv.Atoi(k)
			if err != nil || d < 0 || d > 63 {
				c.fail(kv.Key, path, "expected a DSCP from 0 to 63 as key, got %s", quote(k))
				continue
			}
			p := c.integer(kv.Value, path+"."+k, 0, 0, 7)
			m[d] = uint8(p)
		}
		return m
	}
	if s, ok := c.scalar(n, path); ok && s != "default" {
		c.fail(n, path, "expected \"default\" or a mapping of DSCP to priority such as {26: 3, 48: 6}, got %s", quote(s))
	}
	return m
}

// byRate reads a mapping of port rate to a setting (what says what the
// values are, for the error): read takes each entry, with its rate, the
// key as written and its path; a rate listed twice is an error.
func (c *conv) byRate(n ast.Node, path, what string, read func(v ast.Node, rate unit.BitRate, key, at string)) {
	n = Unwrap(n)
	if n == nil {
		return
	}
	if _, null := n.(*ast.NullNode); null {
		return
	}
	c.note(n, path)
	pairs, ok := MappingPairs(n)
	if !ok {
		c.fail(n, path, "expected a mapping of port rate to %s", what)
		return
	}
	var seen []unit.BitRate
	for _, kv := range pairs {
		k := kv.Key.GetToken().Value
		at := path + "." + k
		rate := c.rate(kv.Key, at, 0)
		if rate == 0 {
			continue
		}
		if slices.Contains(seen, rate) {
			c.fail(kv.Key, at, "%v is listed twice", rate)
			continue
		}
		seen = append(seen, rate)
		read(kv.Value, rate, k, at)
	}
}

// ecnByRate reads switch.ecn.by_rate: a mapping of port rate to that
// rate's {kmin, kmax, pmax}, each defaulting to the profile's own.
func (c *conv) ecnByRate(n ast.Node, path string, base *ECNSpec) []RateECN {
	var out []RateECN
	c.byRate(n, path, "thresholds, such as {400G: {kmin: 1600KB, kmax: 6400KB}}", func(v ast.Node, rate unit.BitRate, key, at string) {
		r := RateECN{Rate: rate, Kmin: base.Kmin, Kmax: base.Kmax, Pmax: base.Pmax, Key: key}
		fields, ok := MappingPairs(v)
		if !ok {
			c.fail(v, at, "expected a mapping of kmin, kmax, pmax")
			return
		}
		kmax := v
		for _, f := range fields {
			switch name := f.Key.GetToken().Value; name {
			case "kmin":
				r.Kmin = c.bytes(f.Value, at+".kmin", r.Kmin)
			case "kmax":
				r.Kmax, kmax = c.bytes(f.Value, at+".kmax", r.Kmax), f.Value
			case "pmax":
				r.Pmax = c.float(f.Value, at+".pmax", r.Pmax, 0, 1)
			default:
				c.fail(f.Key, at, "unknown key %q; expected one of: kmin, kmax, pmax%s", name, hint(name, []string{"kmin", "kmax", "pmax"}))
			}
		}
		if r.Kmax < r.Kmin {
			c.fail(kmax, at+".kmax", "must not be below kmin (%v)", r.Kmin)
		}
		out = append(out, r)
	})
	slices.SortFunc(out, func(a, b RateECN) int { return cmp.Compare(a.Rate, b.Rate) })
	return out
}

// checkRates reports a switch.ecn.by_rate or switch.alpha_by_rate entry
// no link of the topology runs at: a setting for ports that do not exist
// is a typo or a topology that changed.
func (c *conv) checkRates(s *Scenario, r *rawSwitch) {
	if r == nil {
		return
	}
	var rates []unit.BitRate
	for _, l := range s.Topo.Links {
		if !slices.Contains(rates, l.Rate) {
			rates = append(rates, l.Rate)
		}
	}
	slices.Sort(rates)
	check := func(n ast.Node, path string) {
		pairs, _ := MappingPairs(n)
		for _, kv := range pairs {
			rate, err := unit.ParseRate(kv.Key.GetToken().Value)
			if err == nil && !slices.Contains(rates, rate) {
				c.fail(kv.Key, path+"."+kv.Key.GetToken().Value, "no link runs at %v (the topology's links: %v)", rate, rates)
			}
		}
	}
	if r.ECN != nil && len(s.Switch.ECN.ByRate) > 0 {
		check(r.ECN.ByRate, "switch.ecn.by_rate")
	}
	if len(s.Switch.AlphaByRate) > 0 {
		check(r.AlphaByRate, "switch.alpha_by_rate")
	}
}

// alphaByRate reads switch.alpha_by_rate: a mapping of port rate to that
// rate's lossless alpha.
func (c *conv) alphaByRate(n ast.Node, path string) []RateAlpha {
	var out []RateAlpha
	c.byRate(n, path, "alpha, such as {400G: 1/2}", func(v ast.Node, rate unit.BitRate, key, at string) {
		out = append(out, RateAlpha{Rate: rate, Alpha: c.float(v, at, 1, 1.0/128, 128), Key: key})
	})
	slices.SortFunc(out, func(a, b RateAlpha) int { return cmp.Compare(a.Rate, b.Rate) })
	return out
}
