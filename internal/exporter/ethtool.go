package exporter

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"regexp"
	"sort"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/safchain/ethtool"

	"rocelab/internal/counters"
)

// DefaultEthtoolExclude matches the per-queue and per-channel statistics
// mlx5 prints for every ring (rx0_packets, tx12_bytes, ch3_poll, ...):
// hundreds of series per port that RoCE, which bypasses the rings, never
// moves. --collector.ethtool.exclude overrides it.
const DefaultEthtoolExclude = `^(rx|tx|ch|ptp|xdpsq|xsk|rx_xsk|tx_xsk)[0-9]+_|^\[[0-9]+\]: `

// ethtoolCollector exports the ethtool statistics of the netdevs behind the
// RDMA ports, through the mapping table (mapping.go).
type ethtoolCollector struct {
	exclude *regexp.Regexp
	seen    map[seriesKey]string
}

type seriesKey struct {
	f         *Family
	dir, prio string
	raw       string
}

// NewEthtoolCollector returns the ethtool collector leaving out statistics
// whose name matches exclude (nil: keep all).
func NewEthtoolCollector(exclude *regexp.Regexp) Collector {
	return &ethtoolCollector{exclude: exclude}
}

// Name implements Collector.
func (c *ethtoolCollector) Name() string { return "ethtool" }

// Describe implements Collector.
func (c *ethtoolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, f := range Families() {
		if f.Source == counters.Ethtool {
			ch <- f.metric.desc()
		}
	}
}

// Collect implements Collector.
func (c *ethtoolCollector) Collect(s *Scrape) {
	if s.Host.Ethtool == nil {
		return
	}
	if c.seen == nil {
		c.seen = map[seriesKey]string{}
	}
	for _, p := range s.Netdevs() {
		stats, err := s.Host.Ethtool.Stats(p.Netdev)
		if err != nil {
			s.Fail(p.Netdev, err)
			continue
		}
		clear(c.seen)
		for _, st := range stats {
			if c.exclude != nil && c.exclude.MatchString(st.Name) {
				continue
			}
			m := MapName(counters.Ethtool, st.Name)
			k := seriesKey{m.Family, m.Dir, m.Prio, ""}
			if m.Family.Generic {
				k.raw = m.Raw
			}
			if prev, dup := c.seen[k]; dup {
				s.Fail(p.Netdev, &ParseError{File: p.Netdev, Msg: fmt.Sprintf("%q and %q are the same series of %s", prev, st.Name, m.Family.Name)})
				continue
			}
			c.seen[k] = st.Name
			s.emitMapped(&m, st.Value, p.Netdev, p.Device, p.Port)
		}
	}
}

// A ParseError says what is wrong in a text input and where.
type ParseError struct {
	File string
	Line int
	Msg  string
}

// Error implements error.
func (e *ParseError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// ParseEthtoolStats reads `ethtool -S` output: an optional "NIC
// statistics:" line, then "name: value" lines. Blank lines and lines
// starting with '#' or '$' (a header or the command) are skipped. A line
// that is neither, a bad value or a name given twice is an error naming
// the line. src names the input in errors.
func ParseEthtoolStats(src string, r io.Reader) ([]Stat, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	var out []Stat
	seen := map[string]int{}
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] == '#' || line[0] == '$' || string(line) == "NIC statistics:" {
			continue
		}
		i := bytes.LastIndexByte(line, ':')
		if i <= 0 {
			return nil, &ParseError{File: src, Line: n, Msg: fmt.Sprintf("expected \"name: value\", got %q", line)}
		}
		name := string(bytes.TrimSpace(line[:i]))
		v, err := ParseValue(line[i+1:])
		if err != nil {
			return nil, &ParseError{File: src, Line: n, Msg: fmt.Sprintf("%s: %v", name, err)}
		}
		if prev, dup := seen[name]; dup {
			return nil, &ParseError{File: src, Line: n, Msg: fmt.Sprintf("%s given twice (first on line %d)", name, prev)}
		}
		seen[name] = n
		out = append(out, Stat{name, v})
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{File: src, Msg: err.Error()}
	}
	return out, nil
}

// EthtoolDir reads statistics from `ethtool -S` text files, <netdev>.txt in
// a directory: the test and twin path (--path.ethtool-stats), since a real
// host gives them only through the ioctl.
type EthtoolDir struct{ FS fs.FS }

// Stats implements EthtoolSource.
func (d EthtoolDir) Stats(netdev string) ([]Stat, error) {
	name := netdev + ".txt"
	f, err := openRegular(d.FS, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseEthtoolStats(name, f)
}

// EthtoolIoctl reads statistics through the ETHTOOL_GSTATS ioctl, as
// `ethtool -S` does (read-only; no privilege needed).
type EthtoolIoctl struct{ e *ethtool.Ethtool }

// NewEthtoolIoctl opens the socket the ioctl is issued on.
func NewEthtoolIoctl() (*EthtoolIoctl, error) {
	e, err := ethtool.NewEthtool()
	if err != nil {
		return nil, err
	}
	return &EthtoolIoctl{e}, nil
}

// Stats implements EthtoolSource.
func (s *EthtoolIoctl) Stats(netdev string) ([]Stat, error) {
	m, err := s.e.Stats(netdev)
	if err != nil {
		return nil, fmt.Errorf("ethtool -S %s: %w", netdev, err)
	}
	out := make([]Stat, 0, len(m))
	for k, v := range m {
		out = append(out, Stat{k, v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Close closes the ioctl socket.
func (s *EthtoolIoctl) Close() { s.e.Close() }
