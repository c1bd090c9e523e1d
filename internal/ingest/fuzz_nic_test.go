package ingest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// maxFuzzInput bounds fuzz inputs; the parsers are line-oriented, so
// longer inputs only repeat what shorter ones exercise.
const maxFuzzInput = 32 << 10

// fuzzParser feeds data through one parser and checks what any artifact
// must satisfy: no panic, evidence lines inside the input, counts within
// the caps.
func fuzzParser(f *testing.F, newParser func(string) Parser, seeds []string, check func(t *testing.T, a Artifact, lines int)) {
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFuzzInput {
			return
		}
		p := newParser("fuzz")
		lr := NewLineReader(bytes.NewReader(data))
		n := 0
		for {
			l, err := lr.Next()
			if err != nil {
				break
			}
			n = l.Num
			p.Feed(l)
		}
		a := p.Result()
		if a == nil {
			return
		}
		if a.Lines() > n || a.Lines() < 0 {
			t.Fatalf("Lines() = %d for %d input lines", a.Lines(), n)
		}
		if a.Source() != "fuzz" {
			t.Fatalf("source %q", a.Source())
		}
		check(t, a, n)
	})
}

func checkEvidence(t *testing.T, e Evidence, lines int) {
	t.Helper()
	if e.Line < 0 || e.Line > lines || e.Line > 0 && e.File != "fuzz" {
		t.Fatalf("evidence %+v outside the %d-line input", e, lines)
	}
}

func checkSamples(t *testing.T, ss []CounterSample, lines int) {
	t.Helper()
	if len(ss) > MaxSamples {
		t.Fatalf("%d samples", len(ss))
	}
	for i := range ss {
		s := &ss[i]
		if s.After.Len() == 0 || s.After.Len() > MaxCountersPerDump {
			t.Fatalf("dump of %d counters", s.After.Len())
		}
		for _, c := range s.After.Counters {
			checkEvidence(t, c.Evidence, lines)
			if r, ok := s.Get(c.Name); !ok || !s.IsDelta() && r.Value != c.Value {
				t.Fatalf("Get(%q) = %+v, %v", c.Name, r, ok)
			}
		}
	}
}

func seeds(glob ...string) []string {
	var out []string
	for _, g := range glob {
		m, _ := filepath.Glob(filepath.Join("..", "..", "testdata", g))
		out = append(out, m...)
	}
	return out
}

func FuzzEthtool(f *testing.F) {
	fuzzParser(f, NewEthtoolParser, seeds("corpus/ethtool/*.txt"), func(t *testing.T, a Artifact, n int) {
		e := a.(*EthtoolStats)
		checkSamples(t, e.Samples, n)
		for _, s := range e.Speeds {
			checkEvidence(t, s.Evidence, n)
			if s.Rate <= 0 {
				t.Fatalf("speed %v", s.Rate)
			}
		}
	})
}

func FuzzHWCounters(f *testing.F) {
	f.Add([]byte(syntheticSysfs))
	f.Add([]byte(syntheticRdmaStat))
	f.Add([]byte(syntheticShowCounters))
	f.Add([]byte(syntheticRdmaPretty))
	fuzzParser(f, NewHWCountersParser, nil, func(t *testing.T, a Artifact, n int) {
		checkSamples(t, a.(*HWCounters).Samples, n)
	})
}

func FuzzPerftest(f *testing.F) {
	f.Add([]byte(syntheticPerftestRuns))
	fuzzParser(f, NewPerftestParser, seeds("corpus/perftest/*.txt"), func(t *testing.T, a Artifact, n int) {
		p := a.(*Perftest)
		if len(p.Runs) > maxPerftestRuns {
			t.Fatalf("%d runs", len(p.Runs))
		}
		for _, r := range p.Runs {
			if len(r.Rows) > maxPerftestRows {
				t.Fatalf("%d rows", len(r.Rows))
			}
			for _, row := range r.Rows {
				checkEvidence(t, row.Evidence, n)
				if row.BWAvg < 0 || row.BWPeak < 0 || row.Bytes < 0 {
					t.Fatalf("negative row %+v", row)
				}
			}
			for _, fl := range r.Failures {
				checkEvidence(t, fl.Evidence, n)
			}
		}
		for _, u := range p.GIDUses() {
			checkEvidence(t, u.Evidence, n)
		}
	})
}

func FuzzShowGIDs(f *testing.F) {
	fuzzParser(f, NewShowGIDsParser, seeds("corpus/ethtool/show-gids-*.txt", "corpus/ethtool/mlnx-qos-*.txt"), func(t *testing.T, a Artifact, n int) {
		for _, e := range a.(*ShowGIDs).GIDEntries() {
			checkEvidence(t, e.Evidence, n)
			if c, _ := ClassifyGID(e.GID); c == GIDUnknown || e.Version != "v1" && e.Version != "v2" || e.Index < 0 {
				t.Fatalf("bad entry %+v", e)
			}
		}
	})
}

func FuzzDevinfo(f *testing.F) {
	f.Add([]byte(syntheticDevinfo))
	fuzzParser(f, NewDevinfoParser, seeds("corpus/ethtool/ibv-devinfo-*.txt"), func(t *testing.T, a Artifact, n int) {
		d := a.(*Devinfo)
		if len(d.Devices) > maxDevinfoDevices {
			t.Fatalf("%d devices", len(d.Devices))
		}
		for _, e := range d.GIDEntries() {
			checkEvidence(t, e.Evidence, n)
		}
		for _, s := range d.LinkSpeeds() {
			if s.Rate <= 0 {
				t.Fatalf("rate %v", s.Rate)
			}
		}
	})
}

func FuzzMlnxQoS(f *testing.F) {
	f.Add([]byte(syntheticQoS))
	fuzzParser(f, NewMlnxQoSParser, seeds("corpus/ethtool/mlnx-qos-*.txt"), func(t *testing.T, a Artifact, n int) {
		m := a.(*MlnxQoS)
		if len(m.Configs) > maxQoSConfigs {
			t.Fatalf("%d configs", len(m.Configs))
		}
		for _, c := range m.Configs {
			for _, e := range c.Evidence {
				checkEvidence(t, e, n)
			}
			for _, p := range c.DSCP2Prio {
				if p < -1 || p > 7 {
					t.Fatalf("dscp2prio %v", c.DSCP2Prio)
				}
			}
			for _, tc := range c.TCs {
				for _, p := range tc.Prios {
					if p < 0 || p > 7 {
						t.Fatalf("tc prio %d", p)
					}
				}
			}
		}
	})
}

func FuzzDmesg(f *testing.F) {
	f.Add([]byte(syntheticDmesg))
	fuzzParser(f, NewDmesgParser, seeds("corpus/ethtool/mlnx-qos-*.txt"), func(t *testing.T, a Artifact, n int) {
		d := a.(*Dmesg)
		for _, l := range d.PCIe {
			checkEvidence(t, l.Evidence, n)
			if l.Available <= 0 || l.Width <= 0 {
				t.Fatalf("pcie %+v", l)
			}
		}
		for _, l := range d.Links {
			checkEvidence(t, l.Evidence, n)
		}
	})
}
