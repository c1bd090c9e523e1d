// Package trafficconf reads the QoS settings of Cumulus Linux's switchd
// files: /etc/cumulus/datapath/traffic.conf (Cumulus Linux 3.x and 4.x,
// written by hand or by NCLU's `net add interface swpN storage-optimized
// [pfc]`) and its successor /etc/cumulus/datapath/qos/qos_features.conf
// (Cumulus Linux 5.x), both lines of `key = value`. It keeps each setting
// at its line and column and reads the lists and port sets they hold;
// sonic.FromTrafficConf writes them as CONFIG_DB rows for lint's rules.
package trafficconf

import (
	"fmt"
	"strconv"
	"strings"

	"rocelab/internal/pos"
	"rocelab/internal/swcfg"
)

// Value is a setting's value with where it is written.
type Value = swcfg.Value

// An Entry is one `key = value` line.
type Entry struct {
	Key, Val Value
}

// Config is a traffic.conf or qos_features.conf.
type Config struct {
	File    string
	Lines   []string
	Entries []Entry
	byKey   map[string]int
}

// prefixes are the key families of switchd's QoS files.
var prefixes = []string{"traffic.", "pfc.", "ecn_red.", "ecn.", "priority_group.", "link_pause.", "default_ecn_red_conf.", "default_ecn_conf.", "scheduling.", "shaping.", "egr_queue_"}

// IsConfig reports whether text is switchd's QoS file: a line setting the
// packet priority source, a PFC or ECN port group list, or a priority
// group's cos list.
func IsConfig(data []byte) bool {
	for _, raw := range strings.Split(string(data), "\n") {
		k, _, ok := strings.Cut(strings.TrimSpace(raw), "=")
		k = strings.TrimSpace(k)
		if ok && (k == "traffic.packet_priority_source_set" || k == "pfc.port_group_list" || k == "ecn_red.port_group_list" ||
			strings.HasPrefix(k, "priority_group.") && strings.HasSuffix(k, ".cos_list")) {
			return true
		}
	}
	return false
}

// Parse reads the file. A line that is neither a comment, a `key =
// value` setting, an elision ("...") nor a shell prompt (the file pasted
// with the `cat` that printed it) is an error at its place; so is a value
// of a QoS setting switchd would refuse.
func Parse(name string, data []byte) (*Config, error) {
	c := &Config{File: name, Lines: strings.Split(string(data), "\n"), byKey: map[string]int{}}
	for i, raw := range c.Lines {
		raw = strings.TrimRight(raw, " \t\r")
		t := strings.TrimSpace(raw)
		if t == "" || t[0] == '#' || t == "..." || strings.Contains(t, "$ ") || strings.HasSuffix(t, "$") {
			continue
		}
		col := len(raw) - len(strings.TrimLeft(raw, " \t")) + 1
		k, v, ok := strings.Cut(t, "=")
		key := strings.TrimSpace(k)
		if !ok || key == "" || strings.ContainsAny(key, " \t") {
			return nil, &pos.Error{File: name, Line: i + 1, Col: col, Msg: fmt.Sprintf("%q: expected KEY = VALUE (traffic.conf's lines, such as pfc.port_group_list = [ROCE_PFC])", t)}
		}
		if j := strings.Index(v, "#"); j >= 0 {
			v = v[:j] // datapath.conf's "50.0  # all priority groups"
		}
		val := strings.TrimSpace(v)
		vcol := col + len(k) + 1 + len(v) - len(strings.TrimLeft(v, " \t"))
		e := Entry{Key: Value{Text: key, Line: i + 1, Col: col}, Val: Value{Text: val, Line: i + 1, Col: vcol}}
		if err := c.check(e); err != nil {
			return nil, err
		}
		c.byKey[key] = len(c.Entries) // a key given twice keeps its later value, as switchd's reader does
		c.Entries = append(c.Entries, e)
	}
	return c, nil
}

// check refuses a list of cos values, DSCPs or queues, a threshold or a
// probability switchd would not take.
func (c *Config) check(e Entry) error {
	k := e.Key.Text
	last := k[strings.LastIndex(k, ".")+1:]
	switch {
	case last == "cos_list" || last == "egress_queue_list" || last == "8021p" && strings.HasPrefix(k, "traffic.cos_"):
		_, err := c.ints(e.Val, 7, "values 0-7")
		return err
	case last == "dscp" && strings.HasPrefix(k, "traffic.cos_"):
		_, err := c.ints(e.Val, 63, "DSCP values 0-63")
		return err
	case last == "min_threshold_bytes" || last == "max_threshold_bytes" || last == "port_buffer_bytes" || last == "xoff_size":
		if n, err := strconv.ParseInt(e.Val.Text, 10, 64); err != nil || n < 0 {
			return c.errAt(e.Val, "a size in bytes")
		}
	case last == "probability":
		if n, err := strconv.Atoi(e.Val.Text); err != nil || n < 0 || n > 100 {
			return c.errAt(e.Val, "a probability 0-100 (%)")
		}
	case last == "ecn_enable" || last == "red_enable" || last == "tx_enable" || last == "rx_enable":
		if e.Val.Text != "true" && e.Val.Text != "false" {
			return c.errAt(e.Val, "true or false")
		}
	}
	return nil
}

func (c *Config) errAt(v Value, what string) error {
	return &pos.Error{File: c.File, Line: v.Line, Col: v.Col, Msg: fmt.Sprintf("%q: expected %s", v.Text, what)}
}

// ints reads a bracketed list "[0,1]" or "[0, 1, 2]" (or one bare
// number) of whole numbers up to limit.
func (c *Config) ints(v Value, limit int, what string) ([]int, error) {
	s := strings.TrimSpace(v.Text)
	if strings.HasPrefix(s, "[") != strings.HasSuffix(s, "]") {
		return nil, c.errAt(v, "a list in brackets, such as [3] or [0,1]")
	}
	s = strings.ReplaceAll(strings.Trim(s, "[]"), " ", "")
	if s == "" {
		return nil, nil
	}
	out, ok := swcfg.IDs(s, limit)
	if !ok {
		return nil, c.errAt(v, what)
	}
	return out, nil
}

// Get returns a key's value, and whether the file sets it.
func (c *Config) Get(key string) (Value, bool) {
	i, ok := c.byKey[key]
	if !ok {
		return Value{}, false
	}
	return c.Entries[i].Val, true
}

// Ints returns a key's list of numbers (checked by Parse).
func (c *Config) Ints(key string) ([]int, Value) {
	v, _ := c.Get(key)
	return c.List(v), v
}

// List reads a value that is a list of numbers (checked by Parse).
func (c *Config) List(v Value) []int {
	out, _ := c.ints(v, 63, "")
	return out
}

// Names returns a bracketed list of names ("[ROCE_PFC, ROCE_ECN]").
func (c *Config) Names(key string) ([]string, Value) {
	v, ok := c.Get(key)
	if !ok {
		return nil, v
	}
	var out []string
	for _, n := range strings.Split(strings.Trim(v.Text, "[]"), ",") {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	return out, v
}

// AllPorts is the port set word for every port of the switch, as NVUE
// writes a default-global profile (`pfc.default-global.port_set =
// allports`).
const AllPorts = "allports"

// Ports expands a port set: "swp1-swp4,swp6,swp50s0-swp50s3".
func Ports(set string) []string {
	var out []string
	for _, part := range strings.Split(set, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, b := splitNum(lo), splitNum(hi)
		if !isRange || a.n < 0 || b.n < a.n || a.prefix != b.prefix || b.n-a.n > 1024 {
			if part != "" {
				out = append(out, part)
			}
			continue
		}
		for n := a.n; n <= b.n; n++ {
			out = append(out, a.prefix+strconv.Itoa(n))
		}
	}
	return out
}

type prefixed struct {
	prefix string
	n      int
}

// splitNum splits "swp50s3" into "swp50s" and 3.
func splitNum(s string) prefixed {
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	n, err := strconv.Atoi(s[i:])
	if err != nil {
		return prefixed{s, -1}
	}
	return prefixed{s[:i], n}
}

// Family is the key family a key belongs to ("pfc", "link_pause"), or ""
// for a key of no QoS family.
func Family(key string) string {
	for _, p := range prefixes {
		if strings.HasPrefix(key, p) {
			return strings.TrimSuffix(p, ".")
		}
	}
	return ""
}
