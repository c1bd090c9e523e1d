// Package nvue reads the QoS of NVIDIA Cumulus Linux switches as NVUE
// states it: the configuration tree (`nv config show -o yaml`,
// /etc/nvue.d/startup.yaml), a paste of `nv set` commands, and `nv show
// qos roce`. All three become one Config, which package sonic turns into
// CONFIG_DB rows so that lint judges a Cumulus switch by the rules it
// judges a SONiC one by.
package nvue

import (
	"fmt"
	"slices"
	"strings"

	"rocelab/internal/pos"
)

// A Value is one setting with where it is written (Line 0: a default).
type Value = pos.Value

// Mapping is a `qos mapping` profile: which marking the switch trusts and
// what switch priority each DSCP and PCP gets.
type Mapping struct {
	Trust     Value
	DSCP      [64]Value // Text: the switch priority; "" unset
	PCP       [8]Value
	DefaultSP Value // port-default-sp
}

// PFC is a `qos pfc` profile.
type PFC struct {
	Prios   []int
	PriosAt Value
	Tx, Rx  Value
	Cable   Value // metres
	// Xoff, Xon and PortBuffer are bytes; NVUE sizes them itself unless
	// given.
	Xoff, Xon, PortBuffer Value
}

// ECN is the congestion control of one traffic class.
type ECN struct {
	ECN, RED       Value // "enable" / "disable"
	Min, Max, Prob Value // bytes, bytes, percent
}

// Sched is the egress scheduling of one traffic class.
type Sched struct {
	Mode Value // "strict" or "dwrr"
	BW   Value // percent, dwrr only
}

// Config is what an NVUE input says of the switch's QoS.
type Config struct {
	File  string
	Lines []string
	// Format is FormatYAML, FormatSet or FormatShowRoCE.
	Format string
	// Version is the header's "Cumulus Linux 5.5.1", when given.
	Version Value
	// RoCEEnable is "on" or "off"; RoCEMode lossless, lossy,
	// lossless-single-ipool or lossy-multi-tc.
	RoCEEnable, RoCEMode Value
	Mapping              map[string]*Mapping
	PFC                  map[string]*PFC
	CC                   map[string]map[int]*ECN
	// EgressMap is the switch priority → traffic class map
	// (egress-queue-mapping, whose only profile is default-global).
	EgressMap [8]Value
	Sched     map[string]map[int]*Sched
	// Bindings are the profiles interfaces use: interface → kind
	// (mapping, pfc, congestion-control, egress-scheduler) → profile.
	Bindings map[string]map[string]Value
	// Speed is each interface's link speed as written ("400G").
	Speed map[string]Value
	// Watchdog is each interface's pfc-watchdog state.
	Watchdog map[string]Value
	// NotJudged are the settings read that no rule judges, by path
	// ("qos traffic-pool"), once each, where first written.
	NotJudged []Value
	// ecnStated is set when the input states the congestion control of
	// the default profile, even as none.
	ecnStated bool
	// quiet is set while an empty container of the tree is applied.
	quiet bool
}

// Formats of the inputs.
const (
	FormatYAML     = "cumulus-nvue-yaml"
	FormatSet      = "cumulus-nv-set"
	FormatShowRoCE = "cumulus-nv-show-qos-roce"
)

func newConfig(name, format string, data []byte) *Config {
	return &Config{File: name, Format: format, Lines: strings.Split(string(data), "\n"),
		Mapping: map[string]*Mapping{}, PFC: map[string]*PFC{}, CC: map[string]map[int]*ECN{},
		Sched: map[string]map[int]*Sched{}, Bindings: map[string]map[string]Value{},
		Speed: map[string]Value{}, Watchdog: map[string]Value{}}
}

func (c *Config) errAt(v Value, format string, args ...any) *pos.Error {
	return &pos.Error{File: c.File, Line: v.Line, Col: v.Col, Msg: fmt.Sprintf(format, args...)}
}

// LineText returns line n, trimmed.
func (c *Config) LineText(n int) string {
	if n < 1 || n > len(c.Lines) {
		return ""
	}
	return strings.TrimSpace(c.Lines[n-1])
}

// Empty reports whether the input says nothing of QoS.
func (c *Config) Empty() bool {
	return !c.RoCEEnable.Given() && !c.RoCEMode.Given() && len(c.Mapping) == 0 && len(c.PFC) == 0 &&
		len(c.CC) == 0 && len(c.Sched) == 0 && !slices.ContainsFunc(c.EgressMap[:], Value.Given) && len(c.NotJudged) == 0
}

func (c *Config) notJudged(path string, at Value) {
	if c.quiet {
		// An empty container ("egress-shaper: {}") sets nothing.
		return
	}
	for _, v := range c.NotJudged {
		if v.Text == path {
			return
		}
	}
	at.Text = path
	c.NotJudged = append(c.NotJudged, at)
}

func (c *Config) mapping(name string) *Mapping { return entry(c.Mapping, name) }

func (c *Config) pfc(name string) *PFC { return entry(c.PFC, name) }

func (c *Config) ecn(name string, tc int) *ECN { return entry(profile(c.CC, name), tc) }

func (c *Config) sched(name string, tc int) *Sched { return entry(profile(c.Sched, name), tc) }

// entry returns m[k], made and stored first if absent: a setting may come
// before or after others of its profile, so the first one names it.
func entry[K comparable, V any](m map[K]*V, k K) *V {
	v, ok := m[k]
	if !ok {
		v = new(V)
		m[k] = v
	}
	return v
}

// profile returns a profile's per-traffic-class map, made first if absent.
func profile[V any](m map[string]map[int]*V, name string) map[int]*V {
	if m[name] == nil {
		m[name] = map[int]*V{}
	}
	return m[name]
}
