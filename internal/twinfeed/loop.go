package twinfeed

import (
	"math"

	"rocelab/internal/scenario"
	"rocelab/internal/twin"
	"rocelab/internal/unit"
)

// A Loop serves a scenario's hosts as if they were real hosts running for
// ever: it runs the scenario again from the start when it ends, carrying
// each counter on from where the last run left it, and scales every counter
// by Scale. With Scale = 1/speed, where the twin advances speed simulated
// seconds per wall-clock second, rates and ratios computed over wall-clock
// time (Prometheus rate()) read as they would on real hosts: bytes per
// second, pause seconds per second.
type Loop struct {
	s     *scenario.Scenario
	cfg   twin.Config
	scale float64
	feed  *Feed
	start unit.Time // total simulated time at which feed began
	base  map[string]int64
	// Loops counts the completed runs.
	Loops int
}

// NewLoop returns a loop over s with counters multiplied by scale; each
// run goes through the pipeline with c.
func NewLoop(s *scenario.Scenario, scale float64, c twin.Config) (*Loop, error) {
	f, err := New(s, c)
	if err != nil {
		return nil, err
	}
	return &Loop{s: s, cfg: c, scale: scale, feed: f, base: map[string]int64{}}, nil
}

// At advances to total simulated time t (counted from the first run's
// start, across runs) and returns the hosts with their carried and scaled
// counters. t must not decrease between calls.
func (l *Loop) At(t unit.Time) ([]Host, error) {
	for t-l.start >= l.feed.Duration() {
		end := l.feed.Advance(l.feed.Duration())
		l.carry(end)
		f, err := New(l.s, l.cfg)
		if err != nil {
			return nil, err
		}
		l.start += l.feed.Duration()
		l.feed = f
		l.Loops++
	}
	hosts := l.feed.Advance(t - l.start)
	for i := range hosts {
		for j := range hosts[i].Devices {
			d := &hosts[i].Devices[j]
			l.adjust(hosts[i].Name, d, d.Ethtool, "e")
			l.adjust(hosts[i].Name, d, d.HWCounters, "h")
			l.adjust(hosts[i].Name, d, d.PortCounters, "p")
		}
	}
	return hosts, nil
}

// carry adds the final counters of a finished run to the base.
func (l *Loop) carry(hosts []Host) {
	for _, h := range hosts {
		for _, d := range h.Devices {
			for src, cs := range map[string][]Counter{"e": d.Ethtool, "h": d.HWCounters, "p": d.PortCounters} {
				for _, c := range cs {
					l.base[key(h.Name, &d, src, c.Name)] += c.Value
				}
			}
		}
	}
}

// adjust adds the base and scales, in place.
func (l *Loop) adjust(host string, d *Device, cs []Counter, src string) {
	for i := range cs {
		v := float64(cs[i].Value+l.base[key(host, d, src, cs[i].Name)]) * l.scale
		cs[i].Value = int64(math.Min(v, math.MaxInt64))
	}
}

func key(host string, d *Device, src, name string) string {
	return host + "\x00" + d.Name + "\x00" + src + "\x00" + name
}
