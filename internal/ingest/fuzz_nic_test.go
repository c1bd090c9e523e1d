package ingest

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// maxFuzzInput bounds fuzz inputs; the parsers are line-oriented, so
// longer inputs only repeat what shorter ones exercise.
const maxFuzzInput = 32 << 10

// fuzzParser feeds data through one parser and checks what any artifact
// must satisfy: no panic, evidence lines inside the input, counts within
// the caps.
func nicFuzz(f *testing.F, newParser func(string) Parser, seeds []string, check func(t *testing.T, a Artifact, lines int)) {
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

func nicCheckEvidence(t *testing.T, e Evidence, lines int) {
	t.Helper()
	if e.Line < 0 || e.Line > lines || e.Line > 0 && e.File != "fuzz" {
		t.Fatalf("evidence %+v outside the %d-line input", e, lines)
	}
}

func nicCheckSamples(t *testing.T, ss []CounterSample, lines int) {
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
			nicCheckEvidence(t, c.Evidence, lines)
			if r, ok := s.Get(c.Name); !ok || !s.IsDelta() && r.Value != c.Value {
				t.Fatalf("Get(%q) = %+v, %v", c.Name, r, ok)
			}
		}
	}
}

func nicSeeds(glob ...string) []string {
	var out []string
	for _, g := range glob {
		m, _ := filepath.Glob(filepath.Join("..", "..", "testdata", g))
		out = append(out, m...)
	}
	return out
}

func FuzzEthtool(f *testing.F) {
	nicFuzz(f, NewEthtoolParser, nicSeeds("corpus/ethtool/*.txt"), func(t *testing.T, a Artifact, n int) {
		e := a.(*EthtoolStats)
		nicCheckSamples(t, e.Samples, n)
		for _, s := range e.Speeds {
			nicCheckEvidence(t, s.Evidence, n)
			if s.Rate <= 0 {
				t.Fatalf("speed %v", s.Rate)
			}
		}
		for _, p := range e.Pause {
			for _, ev := range p.Evidence {
				nicCheckEvidence(t, ev, n)
			}
		}
		if len(e.FEC) > MaxSamples {
			t.Fatalf("%d FEC settings", len(e.FEC))
		}
		for _, f := range e.FEC {
			if len(f.UncorrectableLanes) > maxFECLanes {
				t.Fatalf("%d lanes", len(f.UncorrectableLanes))
			}
			for _, ev := range f.Evidence {
				nicCheckEvidence(t, ev, n)
			}
		}
		for _, g := range e.Garbled {
			if g.Line < 1 || g.Line > n || g.Col < 1 {
				t.Fatalf("garble %+v outside the %d-line input", g, n)
			}
		}
	})
}

func FuzzHWCounters(f *testing.F) {
	f.Add([]byte(syntheticSysfs))
	f.Add([]byte(syntheticRdmaStat))
	f.Add([]byte(syntheticShowCounters))
	f.Add([]byte(syntheticRdmaPretty))
	nicFuzz(f, NewHWCountersParser, nicSeeds("corpus/hwcounters/*.txt", "corpus/threads/hwcounters-*.txt"), func(t *testing.T, a Artifact, n int) {
		nicCheckSamples(t, a.(*HWCounters).Samples, n)
	})
}

func FuzzPerftest(f *testing.F) {
	f.Add([]byte(syntheticPerftestRuns))
	nicFuzz(f, NewPerftestParser, nicSeeds("corpus/perftest/*.txt"), func(t *testing.T, a Artifact, n int) {
		p := a.(*Perftest)
		if len(p.Runs) > maxPerftestRuns {
			t.Fatalf("%d runs", len(p.Runs))
		}
		for _, r := range p.Runs {
			if len(r.Rows) > maxPerftestRows {
				t.Fatalf("%d rows", len(r.Rows))
			}
			for _, row := range r.Rows {
				nicCheckEvidence(t, row.Evidence, n)
				if row.BWAvg < 0 || row.BWPeak < 0 || row.Bytes < 0 {
					t.Fatalf("negative row %+v", row)
				}
			}
			for _, fl := range r.Failures {
				nicCheckEvidence(t, fl.Evidence, n)
			}
		}
		for _, u := range p.GIDUses() {
			nicCheckEvidence(t, u.Evidence, n)
		}
	})
}

func FuzzShowGIDs(f *testing.F) {
	f.Add([]byte("DEV PORT INDEX GID IPv4\n--- ---- ----- --- ----\nmlx5_0 1 0 fe80::1\nmlx5_0 1 1 ::ffff:10.0.0.1 10.0.0.1 eth0\nn_gids_found=0\n"))
	nicFuzz(f, NewShowGIDsParser, nicSeeds("corpus/ethtool/show-gids-*.txt", "corpus/ethtool/mlnx-qos-*.txt", "corpus/threads/show-gids-*.txt"), func(t *testing.T, a Artifact, n int) {
		g := a.(*ShowGIDs)
		for _, e := range g.GIDEntries() {
			nicCheckEvidence(t, e.Evidence, n)
			if c, _ := ClassifyGID(e.GID); c == GIDUnknown || e.Version != "v1" && e.Version != "v2" && e.Version != "" || e.Index < 0 {
				t.Fatalf("bad entry %+v", e)
			}
		}
		if len(g.Entries) == 0 && g.Found != 0 {
			t.Fatalf("an artifact with no rows and n_gids_found=%d", g.Found)
		}
		g.StatedHost()
	})
}

func FuzzDevinfo(f *testing.F) {
	f.Add([]byte(syntheticDevinfo))
	nicFuzz(f, NewDevinfoParser, nicSeeds("corpus/ethtool/ibv-devinfo-*.txt", "corpus/ethtool/ibstat-*.txt", "corpus/ethtool/ibdev2netdev-*.txt", "corpus/ethtool/rdma-link-*.txt", "corpus/ethtool/ibv-devices-*.txt"), func(t *testing.T, a Artifact, n int) {
		d := a.(*Devinfo)
		if len(d.Devices) > maxDevinfoDevices || len(d.OpenFailed) > maxDevinfoDevices {
			t.Fatalf("%d devices, %d not opened", len(d.Devices), len(d.OpenFailed))
		}
		for _, e := range d.OpenFailed {
			nicCheckEvidence(t, e, n)
		}
		for _, e := range d.GIDEntries() {
			nicCheckEvidence(t, e.Evidence, n)
		}
		for _, s := range d.LinkSpeeds() {
			if s.Rate <= 0 {
				t.Fatalf("rate %v", s.Rate)
			}
		}
		for _, g := range d.StatedHost().GUIDs {
			if len(g) != 16 {
				t.Fatalf("GUID %q", g)
			}
		}
	})
}

func FuzzMlnxQoS(f *testing.F) {
	f.Add([]byte(syntheticQoS))
	nicFuzz(f, NewMlnxQoSParser, nicSeeds("corpus/ethtool/mlnx-qos-*.txt"), func(t *testing.T, a Artifact, n int) {
		m := a.(*MlnxQoS)
		if len(m.Configs) > maxQoSConfigs {
			t.Fatalf("%d configs", len(m.Configs))
		}
		for _, c := range m.Configs {
			for _, e := range c.Evidence {
				nicCheckEvidence(t, e, n)
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
	nicFuzz(f, NewDmesgParser, nicSeeds("corpus/ethtool/mlnx-qos-*.txt", "corpus/ethtool/dmesg-*.txt"), func(t *testing.T, a Artifact, n int) {
		d := a.(*Dmesg)
		for _, l := range d.PCIe {
			nicCheckEvidence(t, l.Evidence, n)
			if l.Available <= 0 || l.Width <= 0 {
				t.Fatalf("pcie %+v", l)
			}
		}
		for _, l := range d.Links {
			nicCheckEvidence(t, l.Evidence, n)
		}
		if len(d.CQEErrors) > maxCQEErrors {
			t.Fatalf("%d CQE errors", len(d.CQEErrors))
		}
		for _, e := range d.CQEErrors {
			if e.Count < 1 || len(e.Evidence) != 2 || e.Syndrome < 0 || e.Vendor < 0 {
				t.Fatalf("cqe %+v", e)
			}
			for _, ev := range e.Evidence {
				nicCheckEvidence(t, ev, n)
			}
		}
		if len(d.Faults) > maxDeviceFaults {
			t.Fatalf("%d faults", len(d.Faults))
		}
		for _, f := range d.Faults {
			if f.Count < 1 || f.Kind != FaultIOMMU && f.Kind != FaultHealth || f.Detail == "" {
				t.Fatalf("fault %+v", f)
			}
			nicCheckEvidence(t, f.Evidence, n)
		}
	})
}

func FuzzGPUTopo(f *testing.F) {
	nicFuzz(f, NewGPUTopoParser, nicSeeds("corpus/topo/*.txt"), func(t *testing.T, a Artifact, n int) {
		g := a.(*GPUTopo)
		if len(g.GPUs) > maxTopoColumns || len(g.NICs) > maxTopoColumns {
			t.Fatalf("%d GPUs, %d NICs", len(g.GPUs), len(g.NICs))
		}
		for _, gpu := range g.GPUs {
			nicCheckEvidence(t, gpu.Evidence, n)
			if len(gpu.ToNIC) != len(g.NICs) || len(gpu.ToGPU) != g.HeaderGPUs {
				t.Fatalf("%s: %d links for %d NICs, %d for %d GPUs", gpu.Name, len(gpu.ToNIC), len(g.NICs), len(gpu.ToGPU), g.HeaderGPUs)
			}
			if gpu.MemNUMA != "" && !isDigits(gpu.MemNUMA) {
				t.Fatalf("%s: GPU NUMA ID %q", gpu.Name, gpu.MemNUMA)
			}
		}
		if len(g.Models) > maxTopoModels || slices.Contains(g.Models, "") {
			t.Fatalf("models %q", g.Models)
		}
		if len(g.Garbled) > maxGarbled {
			t.Fatalf("%d garbled cells", len(g.Garbled))
		}
		for _, x := range g.Garbled {
			if x.Line < 1 || x.Line > n || x.Col < 1 || x.Col > len(x.Text) {
				t.Fatalf("garble %+v outside its line", x)
			}
		}
	})
}

func FuzzNVLink(f *testing.F) {
	f.Add([]byte("GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-1)\n\t Link 0: 26.562 GB/s\n\t Link 1: <inactive>\n"))
	nicFuzz(f, NewNVLinkParser, nicSeeds("corpus/nvlink/*.txt"), func(t *testing.T, a Artifact, n int) {
		s := a.(*NVLinkStatus)
		if len(s.GPUs) == 0 || len(s.GPUs) > maxNVLinkGPUs {
			t.Fatalf("%d GPUs", len(s.GPUs))
		}
		for _, g := range s.GPUs {
			nicCheckEvidence(t, g.Evidence, n)
			if len(g.Links) == 0 || len(g.Links) > maxNVLinks || g.Active() > len(g.Links) {
				t.Fatalf("%s: %d links, %d active", g.Name, len(g.Links), g.Active())
			}
			for _, l := range g.Links {
				nicCheckEvidence(t, l.Evidence, n)
				if l.Link < 0 || l.GBps < 0 || l.Inactive && l.GBps != 0 {
					t.Fatalf("link %+v", l)
				}
			}
		}
	})
}

func FuzzLspci(f *testing.F) {
	f.Add([]byte("01:00.0 Ethernet controller: Mellanox\n\tLnkCap:\tSpeed 8GT/s, Width x\n\tACSCtl:\tReqRedir\n"))
	nicFuzz(f, NewLspciParser, nicSeeds("corpus/lspci/*.txt", "synthetic/lspci-*.txt"), func(t *testing.T, a Artifact, n int) {
		p := a.(*Lspci)
		if len(p.Devices) > maxPCIDevices || len(p.Garbled) > maxGarbled {
			t.Fatalf("%d devices, %d garbled", len(p.Devices), len(p.Garbled))
		}
		for _, d := range p.Devices {
			nicCheckEvidence(t, d.Evidence, n)
			for _, s := range []PCIeLinkState{d.Cap, d.Sta} {
				if s.Set() && (s.Width > 32 || s.GTs < 0 || s.GTs > 256 || s.Rate() < 0) {
					t.Fatalf("link %+v", s)
				}
			}
			if d.Slot != nil {
				nicCheckEvidence(t, d.Slot.Evidence, n)
			}
			if d.SlotPower != nil && d.SlotPower.ControlSet {
				nicCheckEvidence(t, d.SlotPower.Evidence, n)
			}
			_ = d.Downgraded()
		}
		for _, g := range p.Garbled {
			// Col counts in the line as written: a rank label ("0:  ") before the text
			// counts, and so do control bytes the terminal rendering dropped inside it,
			// so the column lies at or after the text's start and within the input.
			if g.Line < 1 || g.Line > n || g.Col < g.skipped+1 || g.Col > maxFuzzInput+1 {
				t.Fatalf("garble %+v", g)
			}
			_ = g.Error("fuzz")
		}
		_ = p.Bottlenecks()
	})
}

func FuzzMlxlink(f *testing.F) {
	f.Add([]byte("$ mlxlink -d mlx5_0 -c\nOperational Info\n----------------\nState : Polling\nSpeed : IB-HDR\nWidth : 2x\nRecommendation : Bad signal integrity\nEffective Physical Errors : 12\nLink Down Counter : 3\n"))
	nicFuzz(f, NewMlxlinkParser, nicSeeds("corpus/ethtool/mlxlink-*.txt"), func(t *testing.T, a Artifact, n int) {
		m := a.(*Mlxlink)
		if len(m.Ports) == 0 || len(m.Ports) > maxMlxlinkPorts {
			t.Fatalf("%d ports", len(m.Ports))
		}
		for _, p := range m.Ports {
			if len(p.Evidence) == 0 || p.Rate < 0 || p.EffectiveErrors < -1 || p.LinkDowns < -1 || p.ErrorRecoveries < -1 || p.StatusOpcode < -1 {
				t.Fatalf("port %+v", p)
			}
			for _, e := range p.Evidence {
				nicCheckEvidence(t, e, n)
			}
		}
	})
}

func FuzzTransceiver(f *testing.F) {
	f.Add([]byte("# ethtool -m eth2\n\tIdentifier : 0x11 (QSFP28)\n\tLaser tx bias current (Channel 1) : 6.750 mA\n\tRcvr signal avg optical power(Channel 1)  : 0.0000 mW / -inf dBm\n\tRx loss of signal : [ Yes, No ]\n\tLaser rx power low alarm    (Channel 1)   : On\n\tLaser rx power low alarm threshold : 0.0467 mW / -13.31 dBm\n"))
	nicFuzz(f, NewTransceiverParser, nicSeeds("corpus/ethtool/ethtool-m-*.txt", "corpus/switch/*transceiver*.txt", "corpus/ethtool/mlxlink-*.txt"), func(t *testing.T, a Artifact, n int) {
		tr := a.(*Transceiver)
		if len(tr.Modules)+len(tr.Garbled) == 0 || len(tr.Modules) > maxModules || len(tr.Garbled) > maxGarbled {
			t.Fatalf("%d modules, %d garbled", len(tr.Modules), len(tr.Garbled))
		}
		for _, g := range tr.Garbled {
			if g.Line < 1 || g.Line > n || g.Col < 1 {
				t.Fatalf("garble %+v", g)
			}
		}
		for _, m := range tr.Modules {
			nicCheckEvidence(t, m.Evidence, n)
			if len(m.Lanes) > maxModuleLanes {
				t.Fatalf("%d lanes", len(m.Lanes))
			}
			for i, ln := range m.Lanes {
				if ln.Lane < 1 || i > 0 && ln.Lane <= m.Lanes[i-1].Lane || ln.BiasMA < -1 || ln.TxMW < -1 || ln.RxMW < -1 {
					t.Fatalf("lane %+v", ln)
				}
				for _, e := range []Evidence{ln.BiasEv, ln.TxEv, ln.RxEv} {
					if e.Line > 0 {
						nicCheckEvidence(t, e, n)
					}
				}
			}
			for _, s := range m.Signals {
				if len(s.Lanes) == 0 || len(s.Lanes) > maxModuleLanes {
					t.Fatalf("signal %+v", s)
				}
			}
			for _, l := range []Limit{m.Limits.RxLowAlarm, m.Limits.RxLowWarn, m.Limits.RxHighAlarm, m.Limits.RxHighWarn, m.Limits.TxLowAlarm, m.Limits.TxLowWarn} {
				if l.V < 0 || math.IsNaN(l.V) || math.IsInf(l.V, 0) {
					t.Fatalf("limit %+v", l)
				}
			}
		}
	})
}

func FuzzNCCLTopo(f *testing.F) {
	nicFuzz(f, NewNCCLTopoParser, nicSeeds("corpus/topo/*.txt"), func(t *testing.T, a Artifact, n int) {
		g := a.(*GPUTopo)
		if g.Kind() != KindNCCLTopo || len(g.GPUs) > maxTopoColumns || len(g.NICInfo) > maxTopoColumns || len(g.NICs) > len(g.NICInfo) {
			t.Fatalf("%s: %d GPUs, %d NICs of %d nets", g.Kind(), len(g.GPUs), len(g.NICs), len(g.NICInfo))
		}
		for _, gpu := range g.GPUs {
			nicCheckEvidence(t, gpu.Evidence, n)
			if len(gpu.ToNIC) != len(g.NICs) || len(gpu.ToGPU) != len(g.GPUs) {
				t.Fatalf("%s: %d links for %d NICs, %d for %d GPUs", gpu.Name, len(gpu.ToNIC), len(g.NICs), len(gpu.ToGPU), len(g.GPUs))
			}
		}
		for _, nic := range g.NICInfo {
			nicCheckEvidence(t, nic.Evidence, n)
			if b := nic.PCIeGbps(); b < 0 || b > 256*1e6 {
				t.Fatalf("%s: PCIe %g Gb/s", nic.Name, b)
			}
		}
		for _, x := range g.Garbled {
			if x.Line < 1 || x.Line > n || x.Col < 1 || x.Col > len(x.Text) {
				t.Fatalf("garble %+v outside its line", x)
			}
		}
	})
}

func FuzzNVSMI(f *testing.F) {
	f.Add([]byte("| NVIDIA-SMI 550.54.15   Driver Version: 550.54.15   CUDA Version: 12.4 |\n|   0  NVIDIA H100 80GB HBM3  On  | 00000000:18:00.0 Off |   0 |\n| N/A   33C    P0  70W / 700W |  0MiB / 81559MiB |  0%  Default |\n"))
	nicFuzz(f, NewNVSMIParser, nicSeeds("corpus/nvsmi/*.txt", "synthetic/nvidia-smi-q-*.txt"), func(t *testing.T, a Artifact, n int) {
		s := a.(*NVSMI)
		if len(s.GPUs) == 0 || len(s.GPUs) > maxNVSMIGPUs || len(s.Garbled) > maxGarbled {
			t.Fatalf("%d GPUs, %d garbled", len(s.GPUs), len(s.Garbled))
		}
		for _, g := range s.GPUs {
			nicCheckEvidence(t, g.Evidence, n)
			if g.Replays < -1 || g.Rollovers < -1 || g.Replays >= 0 && g.Replay.Line < 1 {
				t.Fatalf("replays %d rollovers %d at %v", g.Replays, g.Rollovers, g.Replay)
			}
			if !isBusID(g.BusID) || len(g.BDF()) != 12 {
				t.Fatalf("bus id %q, BDF %q", g.BusID, g.BDF())
			}
			for _, st := range []PCIeLinkState{g.Cap, g.Sta} {
				if st.Width < 0 || st.Width > 32 || st.GTs < 0 || st.GTs > 64 || (st.Set() || st.GTs > 0) && st.Evidence.Line < 1 {
					t.Fatalf("link %+v", st)
				}
			}
		}
		for _, x := range s.Garbled {
			if x.Line < 1 || x.Line > n || x.Col < 1 || x.Col > len(x.Text)+1 {
				t.Fatalf("garble %+v outside its line", x)
			}
		}
	})
}
