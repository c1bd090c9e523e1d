package ingest

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestSwitchSONiC reads the real-format SONiC outputs of
// testdata/corpus/switch (sonic-utilities' expected CLI output).
func TestSwitchSONiC(t *testing.T) {
	get := func(rel string) *SwitchCounters {
		t.Helper()
		a, ok := readCorpus(t, rel)[KindSwitch].(*SwitchCounters)
		if !ok {
			t.Fatalf("%s: no switch counters", rel)
		}
		if a.Switch != "sonic" {
			t.Errorf("%s: switch %q", rel, a.Switch)
		}
		return a
	}
	pfc := get("switch/sonic-show-pfc-counters-sonic-utilities.txt")
	if len(pfc.PFC) != 48 || pfc.PFC[0].Frames != 1200 || pfc.PFC[0].Dir != RX || pfc.PFC[47].Frames != 817 || pfc.PFC[47].Dir != TX || pfc.PFC[47].Prio != 7 {
		t.Errorf("pfc %d rows, first %+v last %+v", len(pfc.PFC), pfc.PFC[0], pfc.PFC[len(pfc.PFC)-1])
	}
	wd := get("switch/sonic-pfcwd-stats-sonic-utilities.txt").WD
	if len(wd) != 3 || wd[2].Port != "Ethernet8" || wd[2].Queue != 4 || wd[2].Detected != 3 || wd[2].Restored != 2 || wd[2].TxDrop != 300 || wd[0].Status != "stormed" {
		t.Errorf("watchdog %+v", wd)
	}
	q := get("switch/sonic-queue-counters-sonic-utilities.txt").Queues
	if len(q) != 6 || q[3].Queue != 3 || q[3].Type != "UC" || q[3].DropPkts != 53 || q[3].Packets != 71 {
		t.Errorf("queues %+v", q)
	}
	pg := get("switch/sonic-pg-watermark-sonic-utilities.txt").PGs
	if len(pg) != 48 || pg[0].Headroom || !pg[24].Headroom || pg[23].Bytes != 807 || pg[23].PG != 7 {
		t.Errorf("pg watermarks %d: %+v", len(pg), pg)
	}
	ecn := get("switch/sonic-ecnconfig-sonic-utilities.txt").ECN
	if len(ecn) != 1 || ecn[0].Name != "AZURE_LOSSLESS" || ecn[0].GreenMin != 1048576 || ecn[0].GreenMax != 2097152 || ecn[0].GreenDropProbability != 5 || ecn[0].ECN != "ecn_all" {
		t.Errorf("ecn %+v", ecn)
	}
	ports := get("switch/sonic-interfaces-counters-sonic-utilities.txt").Ports
	if len(ports) != 3 || ports[1].RxDrop != 1000 || ports[0].RxErr != 10 || ports[0].TxDrop != -1 || ports[2].TxOK != 60 {
		t.Errorf("ports %+v", ports)
	}
}

// FuzzSwitch feeds arbitrary text to the switch parser: no panic, rows
// within the cap, evidence inside the input.
func FuzzSwitch(f *testing.F) {
	nicFuzz(f, NewSwitchParser, nicSeeds("corpus/switch/*.txt"), func(t *testing.T, a Artifact, n int) {
		s := a.(*SwitchCounters)
		if len(s.PFC) > maxSwitchRows || len(s.WD) > maxSwitchRows || len(s.Queues) > maxSwitchRows || len(s.PGs) > maxSwitchRows || len(s.Ports) > maxSwitchRows || len(s.ECN) > maxSwitchRows || len(s.ECNQueues) > maxSwitchRows || len(s.PGDrops) > maxSwitchRows || len(s.QueueWMs) > maxSwitchRows || len(s.WRED) > maxSwitchRows {
			t.Fatal("rows beyond the cap")
		}
		for _, p := range s.Pools {
			if p.NVUE && (len(p.Evidence) != 1 || p.Size < -1 || p.Peak < 0 || p.Name == "") {
				t.Fatalf("NVUE pool %+v", p)
			}
		}
		for _, g := range s.PGs {
			nicCheckEvidence(t, g.Evidence, n)
			if g.PG < 0 || g.PG > 15 || g.Port == "" || g.Headroom && g.Untitled {
				t.Fatalf("PG watermark %+v", g)
			}
		}
		for _, w := range s.QueueWMs {
			nicCheckEvidence(t, w.Evidence, n)
			if w.Queue < 0 || w.Queue > 63 || w.Port == "" || !slices.Contains([]string{"UC", "MC", "ALL"}, w.Type) {
				t.Fatalf("queue watermark %+v", w)
			}
		}
		for _, w := range s.WRED {
			nicCheckEvidence(t, w.Evidence, n)
			if w.Queue < 0 || w.Queue > 63 || (w.Port == "") != w.AllPorts || w.AllPorts != (w.Part >= 1) || !slices.Contains([]string{"UC", "MC", "ALL", "VOQ"}, w.Type) || w.WREDDrop < -1 || w.ECNMarks < -1 {
				t.Fatalf("WRED queue %+v", w)
			}
		}
		for _, p := range s.PFC {
			nicCheckEvidence(t, p.Evidence, n)
			if (p.Prio < 0 || p.Prio > 7) && p.Prio != AllPrios {
				t.Fatalf("priority %d", p.Prio)
			}
		}
		for _, q := range s.ECNQueues {
			nicCheckEvidence(t, q.Evidence, n)
			if q.Queue < 0 || q.Queue > 63 {
				t.Fatalf("ECN queue %+v", q)
			}
		}
		for _, p := range s.NXOSPFC {
			nicCheckEvidence(t, p.Evidence, n)
			if !p.Enabled && len(p.Prios) > 0 || len(p.Prios) > 8 {
				t.Fatalf("NX-OS port %+v", p)
			}
		}
		for _, b := range s.FECBins {
			nicCheckEvidence(t, b.Evidence, n)
			if b.Bin < 0 || b.Bin > 64 {
				t.Fatalf("FEC bin %+v", b)
			}
		}
		for _, q := range s.Trims {
			nicCheckEvidence(t, q.Evidence, n)
			if q.Trimmed < 0 && q.Sent < 0 && q.Dropped < 0 {
				t.Fatalf("trim row of N/A kept: %+v", q)
			}
		}
		for _, d := range s.HWDrops {
			nicCheckEvidence(t, d.Evidence, n)
			if d.Type != "A" && d.Type != "C" && d.Type != "P" {
				t.Fatalf("hardware drop %+v", d)
			}
		}
		for _, p := range s.Ports {
			if p.Detailed && p.Evidence.Line == 0 {
				t.Fatalf("detailed port without evidence: %+v", p)
			}
		}
		for _, d := range s.PGDrops {
			nicCheckEvidence(t, d.Evidence, n)
			if d.NoDrop && !d.QoSGroup || d.PG < -1 || d.PG > 15 {
				t.Fatalf("PG drop %+v", d)
			}
		}
		if len(s.EOSPFC) > maxEOSPFCLines {
			t.Fatalf("%d EOS ports", len(s.EOSPFC))
		}
		for _, p := range s.EOSPFC {
			nicCheckEvidence(t, p.Evidence, n)
			if p.Enabled != (len(p.Prios) > 0) {
				t.Fatalf("EOS port %+v", p)
			}
		}
		for _, w := range s.WD {
			nicCheckEvidence(t, w.Evidence, n)
		}
		for _, q := range s.Queues {
			nicCheckEvidence(t, q.Evidence, n)
			if q.Queue < 0 || q.Queue > 63 || q.DropPkts < -1 || q.DropBytes < -1 {
				t.Fatalf("queue %+v", q)
			}
		}
		if len(s.FEC) > maxSwitchRows {
			t.Fatal("rows beyond the cap")
		}
		for _, p := range s.Ports {
			nicCheckEvidence(t, p.Evidence, n)
			if p.ErrEvidence.Line != 0 {
				nicCheckEvidence(t, p.ErrEvidence, n)
			}
			if p.CRC < -1 || p.RxErr < -1 || p.RxDrop < -1 || p.TxDrop < -1 || p.TxErr < -1 || p.Runts < -1 || p.Giants < -1 || p.State != "" && !fecState(p.State) {
				t.Fatalf("port %+v", p)
			}
			if p.AOSCX && (p.Port == "" || p.Evidence.Line == 0 || p.RxOK < -1 || p.TxOK < -1 || p.TxErr < -1 || p.Runts < -1 || p.Giants < -1 || slices.Contains(p.Members, "")) {
				t.Fatalf("AOS-CX port %+v", p)
			}
		}
		for _, r := range s.FEC {
			nicCheckEvidence(t, r.Evidence, n)
			if r.Corrected < -1 || r.Uncorrectable < -1 || r.SymbolErrors < -1 || r.PreBER < -1 || r.PreBER > 1 || r.PostBER < -1 || r.PostBER > 1 || !fecState(r.State) {
				t.Fatalf("FEC row %+v", r)
			}
		}
		if len(s.QueueWMs) > maxSwitchRows || len(s.PFCHist) > maxSwitchRows {
			t.Fatal("rows beyond the cap")
		}
		for _, w := range s.QueueWMs {
			nicCheckEvidence(t, w.Evidence, n)
			if w.Bytes < -1 || w.Type == "" {
				t.Fatalf("queue watermark %+v", w)
			}
		}
		for _, h := range s.PFCHist {
			nicCheckEvidence(t, h.Evidence, n)
			if h.Prio < 0 || h.Prio > 7 {
				t.Fatalf("history priority %d", h.Prio)
			}
		}
		for _, q := range s.Queues {
			nicCheckEvidence(t, q.Evidence, n)
		}
		for _, e := range s.ECN {
			for _, ev := range e.Evidence {
				nicCheckEvidence(t, ev, n)
			}
		}
		if len(s.Pools) > maxSwitchRows || len(s.Profiles) > maxSwitchRows || len(s.Neighbors) > maxSwitchRows || len(s.PFCPrios) > 8 || len(s.PFCPrios) != len(s.PFCPrioEvs) {
			t.Fatal("pools, profiles, neighbours or priorities beyond their caps")
		}
		for _, pl := range s.Pools {
			for _, ev := range pl.Evidence {
				nicCheckEvidence(t, ev, n)
			}
		}
		for _, nb := range s.Neighbors {
			nicCheckEvidence(t, nb.Evidence, n)
			if nb.Port == "" || nb.Device == "" {
				t.Fatalf("neighbour %+v", nb)
			}
			nb.Netdev()
		}
		for _, pr := range s.PFCPrios {
			if pr < 0 || pr > 7 {
				t.Fatalf("PFC priority %d", pr)
			}
		}
		if len(s.ASICPFC) > maxSwitchRows || len(s.WDConfig) > maxSwitchRows {
			t.Fatal("ASIC counters or watchdog config beyond the cap")
		}
		for _, p := range s.ASICPFC {
			nicCheckEvidence(t, p.Evidence, n)
		}
		for _, c := range s.WDConfig {
			nicCheckEvidence(t, c.Evidence, n)
		}
		if len(s.PGDrops) > maxSwitchRows || len(s.WRED) > maxSwitchRows {
			t.Fatal("PG drops or WRED counters beyond the cap")
		}
		for _, g := range s.PGs {
			nicCheckEvidence(t, g.Evidence, n)
			if g.PG < 0 || g.PG > 15 {
				t.Fatalf("PG %d", g.PG)
			}
		}
		for _, d := range s.PGDrops {
			nicCheckEvidence(t, d.Evidence, n)
			if (d.PG < 0 || d.PG > 15) && (d.PG != -1 || d.Counter == "") {
				t.Fatalf("PG %d", d.PG)
			}
		}
		for _, w := range s.WRED {
			nicCheckEvidence(t, w.Evidence, n)
		}
		seen := map[string]bool{}
		for _, w := range s.WD {
			k := w.Port + ":" + strconv.Itoa(w.Queue)
			if seen[k] {
				t.Fatalf("queue %s twice: one table pasted twice is one snapshot", k)
			}
			seen[k] = true
		}
	})
}

// FuzzNCCLSettings feeds arbitrary text to the NCCL settings parser.
func FuzzNCCLSettings(f *testing.F) {
	nicFuzz(f, NewNCCLSettingsParser, nicSeeds("corpus/threads/*.txt", "corpus/nccl-tests/broadcast-v100-socket-old-format-nccltests82.txt"), func(t *testing.T, a Artifact, n int) {
		s := a.(*NCCLSettings)
		if len(s.Settings) > maxSettings {
			t.Fatalf("%d settings", len(s.Settings))
		}
		for _, e := range s.Settings {
			nicCheckEvidence(t, e.Evidence, n)
			if !strings.HasPrefix(e.Name, "NCCL_") || !validEnvName(e.Name) {
				t.Fatalf("setting name %q", e.Name)
			}
		}
	})
}

// The other switch formats, on real outputs: SONiC buffer pools, profiles
// and watermarks (sonic-utilities tests), LLDP (sonic-mgmt), Arista EOS
// egress queues (ntc-templates), NVIDIA Onyx `show roce` (its manual).
// switchCorpus reads one switch output of testdata/corpus.
func switchCorpus(t *testing.T, rel string) *SwitchCounters {
	t.Helper()
	s, ok := readCorpus(t, rel)[KindSwitch].(*SwitchCounters)
	if !ok {
		t.Fatalf("%s: no switch artifact", rel)
	}
	return s
}

func TestSwitchMoreFormats(t *testing.T) {
	sw := func(rel string) *SwitchCounters { t.Helper(); return switchCorpus(t, rel) }
	wm := sw("switch/sonic-buffer-pool-watermark-sonic-utilities.txt")
	if len(wm.Pools) != 3 || wm.Pools[2].Name != "ingress_lossless_pool" || wm.Pools[2].Peak != 3000 || wm.Pools[2].HeadroomPeak != 432640 || wm.Pools[0].HeadroomPeak != -1 {
		t.Errorf("watermarks %+v", wm.Pools)
	}
	info := sw("switch/sonic-buffer-information-sonic-utilities.txt")
	if len(info.Pools) != 4 || info.Pools[0].Size != 13945824 || info.Pools[0].Type != "egress" || info.Pools[0].Mode != "dynamic" {
		t.Errorf("pools %+v", info.Pools)
	}
	if len(info.Profiles) != 2 || info.Profiles[1].Name != "headroom_profile" || info.Profiles[1].Xoff != 32768 || info.Profiles[1].Xon != 18432 || info.Profiles[1].Pool != "ingress_lossless_pool" || len(info.ECN) != 0 {
		t.Errorf("profiles %+v ecn %+v", info.Profiles, info.ECN)
	}
	onyx := sw("switch/onyx-show-roce-nvidia-manual.txt")
	if len(onyx.ECN) != 1 || onyx.ECN[0].GreenMin != 150*1024 || onyx.ECN[0].GreenMax != 1500*1024 || len(onyx.PFCPrios) != 1 || onyx.PFCPrios[0] != 3 {
		t.Errorf("onyx ecn %+v prios %v", onyx.ECN, onyx.PFCPrios)
	}
	eos := sw("switch/eos-egress-queue-counters-ntc-templates.txt")
	last := eos.Queues[len(eos.Queues)-1]
	if len(eos.Queues) != 20 || last.Port != "Et4/4/1" || last.Queue != 7 || last.DropPkts != 1 || last.DropBytes != 110 || eos.Queues[0].Packets != 67521 {
		t.Errorf("eos queues %d, last %+v", len(eos.Queues), last)
	}
	lldp := sw("switch/sonic-lldp-table-host-nic-sonic-mgmt.txt")
	if len(lldp.Neighbors) != 1 || lldp.Neighbors[0].Port != "Ethernet0" || lldp.Neighbors[0].Device != "r-sonic-10-006" || lldp.Neighbors[0].Netdev() != "enp5s0f0" {
		t.Errorf("lldp %+v", lldp.Neighbors)
	}
}

// BenchmarkLongLines reads the lines the fuzzers found slow, each as long
// as a fuzz input: thousands of settings on one line (quadratic before:
// every word re-checked the words before it, and every setting hashed the
// whole line), launcher tags repeated along one line. Linear now: compare
// ns/op across the inputs.
func BenchmarkLongLines(b *testing.B) {
	for name, line := range map[string]string{
		"settings":   strings.Repeat("NCCL_A=1 ", 3600),
		"quoted":     "x " + strings.Repeat(`NCCL_A="1 `, 3600),
		"mpi-tags":   "[1,0]<stdout>:" + strings.Repeat("a]<std", 5000),
		"rank-tags":  "[0] " + strings.Repeat("x[0]", 8000),
		"nccl-frags": strings.Repeat("Got completion with error 12 ", 1000),
	} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				if _, err := Read("bench", strings.NewReader(line)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestSwitchCumulus reads NVIDIA Cumulus Linux's `nv show qos roce` (PFC
// priorities and the ECN thresholds of RoCE's traffic class, printed in
// binary units) and `nv show interface <swp> counters qos` (pause frames
// per switch priority, for the interface its command names).
func TestSwitchCumulus(t *testing.T) {
	r := switchCorpus(t, "switch/cumulus-nv-show-qos-roce-single-ipool.txt")
	if len(r.PFCPrios) != 1 || r.PFCPrios[0] != 3 || r.PFCPrioEvs[0].Line != 8 {
		t.Errorf("PFC priorities %v at %v, want [3] at line 8", r.PFCPrios, r.PFCPrioEvs)
	}
	if len(r.ECN) != 1 || r.ECN[0].GreenMin != 149996 || r.ECN[0].GreenMax != 1499464 || r.ECN[0].GreenDropProbability != 100 || r.ECN[0].Evidence[0].Line != 15 {
		t.Errorf("ECN %+v, want 146.48 KB to 1.43 MB at 100 %% from line 15", r.ECN)
	}
	c := switchCorpus(t, "switch/cumulus-nv-show-counters-qos-swp1.txt")
	if len(c.PFC) != 18 || c.PFC[0].Port != "swp1" || c.PFC[7].Prio != 3 || c.PFC[7].Dir != TX || c.PFC[7].Evidence.Line != 11 || !c.PFC[16].Link || c.PFC[17].Dir != TX {
		t.Errorf("PFC rows %d (16 per priority, the port's pause counter both ways): %+v", len(c.PFC), c.PFC)
	}
	// SYNTHETIC, in the format of `nv show interface <swp> counters qos
	// pfc-stats`: priority 3 received and sent pauses on swp7.
	p := NewSwitchParser("pfc.txt")
	for i, l := range []string{
		"cumulus@leaf07:mgmt:~$ nv show interface swp7 counters qos pfc-stats",
		"switch-priority  rx-pause-frames  rx-pause-duration  tx-pause-frames  tx-pause-duration",
		"---------------  ---------------  -----------------  ---------------  -----------------",
		"3                812344           90211              1200             300",
	} {
		p.Feed(Line{Num: i + 1, Text: l})
	}
	s := p.Result().(*SwitchCounters)
	if len(s.PFC) != 2 || s.PFC[0].Port != "swp7" || s.PFC[0].Frames != 812344 || s.PFC[1].Dir != TX || s.PFC[1].Frames != 1200 || s.Switch != "leaf07" {
		t.Errorf("pfc-stats %+v (switch %q)", s.PFC, s.Switch)
	}
}

// `nv show interface <swp> counters qos port-stats` (and the Qos Port
// Statistics table of `... counters qos`): its pause frames are the
// port's pause counter each way ("n/a" counts nothing); its ECN marks and
// multicast discards, port totals over every class, are not kept; a
// count that is neither is a cut row at its column.
func TestSwitchNVUEPortStats(t *testing.T) {
	s := switchCorpus(t, "switch/cumulus-nv-show-counters-qos-port-stats-swp1-nvue-reference-doc.txt")
	if len(s.PFC) != 2 || s.PFC[0].Port != "swp1" || s.PFC[0].Dir != RX || s.PFC[1].Dir != TX || !s.PFC[1].Link || s.PFC[1].Prio != AllPrios || s.PFC[1].Evidence.Line != 8 {
		t.Errorf("pause counter %+v", s.PFC)
	}
	// SYNTHETIC, in the reference's format (lower-case names as `counters
	// qos` prints them): pause sent, n/a received, one count garbled.
	s = feedSwitch("port-stats.txt",
		"cumulus@leaf07:mgmt:~$ nv show interface swp9 counters qos port-stats",
		"    Counter             Receive  Transmit",
		"    ------------------  -------  --------",
		"    ecn-marked-packets  n/a      77120",
		"    mc-buffer-discards  n/a      0x",
		"    pause-frames        n/a      40211")
	if s == nil || len(s.PFC) != 1 || s.PFC[0].Port != "swp9" || s.PFC[0].Dir != TX || s.PFC[0].Frames != 40211 || len(s.CutRows) != 0 {
		t.Fatalf("synthetic port stats %+v", s)
	}
	s = feedSwitch("port-stats-cut.txt",
		"Counter             Receive  Transmit",
		"------------------  -------  --------",
		"Pause Frames        12       5x")
	if s == nil || len(s.PFC) != 1 || len(s.CutRows) != 1 || s.CutRows[0].Line != 3 || s.CutRows[0].Col != 30 {
		t.Errorf("garbled transmit count: %+v", s)
	}
	// Saved without the rule of dashes.
	s = feedSwitch("port-stats-bare.txt",
		"cumulus@leaf07:mgmt:~$ nv show interface swp9 counters qos port-stats",
		"Counter             Receive  Transmit",
		"Pause Frames        12       5")
	if s == nil || len(s.PFC) != 2 || s.PFC[1].Frames != 5 || s.PFC[1].Port != "swp9" {
		t.Errorf("port stats without the rule: %+v", s)
	}
}

// `nv show interface <swp> counters qos ingress-buffer-stats` (and the
// Ingress Buffer Statistics table of `... counters qos`) gives each
// priority group's ingress drops: the larger of its two discard counts,
// printed with NVUE's byte unit; a cell that is no count is a cut row.
func TestSwitchNVUEIngressBuffer(t *testing.T) {
	s := switchCorpus(t, "switch/cumulus-nv-show-counters-qos-ingress-buffer-stats-swp1-nvue-reference-doc.txt")
	if len(s.PGDrops) != 8 || s.PGDrops[3].Port != "swp1" || s.PGDrops[3].PG != 3 || s.PGDrops[3].Packets != 0 || s.PGDrops[3].Evidence.Line != 9 {
		t.Errorf("PG drops %+v", s.PGDrops)
	}
	// SYNTHETIC, in the reference's format: PG 3 of swp9 discards.
	s = feedSwitch("ingress.txt",
		"cumulus@leaf07:mgmt:~$ nv show interface swp9 counters qos ingress-buffer-stats",
		"priority-group  rx-frames  rx-buffer-discards  rx-shared-buffer-discards",
		"--------------  ---------  ------------------  -------------------------",
		"0               1201       0 Bytes             0 Bytes",
		"3               88123      4.41 KB             120 Bytes",
		"4               9          zero                0 Bytes")
	if s == nil || len(s.PGDrops) != 2 || s.PGDrops[1].PG != 3 || s.PGDrops[1].Packets != 4516 || !s.PGDrops[1].Approx || s.PGDrops[0].Approx || len(s.CutRows) != 1 || s.CutRows[0].Line != 6 {
		t.Fatalf("synthetic ingress buffer stats %+v", s)
	}
	// Saved without the rule of dashes.
	s = feedSwitch("ingress-bare.txt",
		"cumulus@leaf07:mgmt:~$ nv show interface swp9 counters qos ingress-buffer-stats",
		"priority-group  rx-frames  rx-buffer-discards  rx-shared-buffer-discards",
		"3               88123      120 Bytes           0 Bytes")
	if s == nil || len(s.PGDrops) != 1 || s.PGDrops[0].Packets != 120 || s.PGDrops[0].Port != "swp9" {
		t.Errorf("ingress buffer stats without the rule: %+v", s)
	}
}

// TestSwitchVOQCounters reads `show queue counters --voq` of a VOQ chassis
// (SONiC's aggregate VOQ counters HLD): rows keyed by system port, VOQ
// queues, the Credit-WD-Del/pkts column beyond the six read. The same
// system port under "For namespace asic0:" and "asic1:" is two ASICs'
// own queues toward it, not two snapshots of one: three sets of rows,
// each ASIC's and the supervisor's aggregate (no namespace, its prompt
// ending the linecard's).
func TestSwitchVOQCounters(t *testing.T) {
	q := switchCorpus(t, "switch/sonic-queue-counters-voq-system-port-credit-wd-linecard-supervisor-sonic-hld.txt").Queues
	if len(q) != 24 || q[0].Port != "cmp217-5|asic1|Ethernet256" || q[0].Type != "VOQ" || q[0].Namespace != "asic0" || q[0].Packets != 123 || q[8].Namespace != "asic1" || q[8].Packets != 1111 ||
		q[16].Namespace != "" || q[16].Queue != 0 || q[16].Packets != 1234 || q[16].Bytes != 61700 || q[16].DropPkts != 0 || q[23].Queue != 7 || q[23].Packets != 52 {
		t.Errorf("VOQ rows %+v", q)
	}
}

// TestSwitchMultiASICBuffers reads `mmuconfig -l` of a multi-ASIC switch,
// whose titles name the namespace ("Pool for namespace asic0: NAME"):
// before, none of it was read.
func TestSwitchMultiASICBuffers(t *testing.T) {
	s := switchCorpus(t, "switch/sonic-mmuconfig-multiasic-pool-profile-for-namespace-sonic-utilities.txt")
	if len(s.Pools) != 5 || s.Pools[1].Name != "ingress_lossless_pool_hbm" || s.Pools[1].Namespace != "asic0" || s.Pools[1].Size != 139458240 || s.Pools[1].Mode != "static" || s.Pools[3].Namespace != "asic1" || s.Pools[3].Size != 13945824 {
		t.Errorf("pools %+v", s.Pools)
	}
	var hr *BufferProfile
	for i := range s.Profiles {
		if s.Profiles[i].Name == "headroom_profile" {
			hr = &s.Profiles[i]
		}
	}
	if len(s.Profiles) != 6 || hr == nil || hr.Namespace != "asic1" || hr.Xoff != 32768 || hr.Xon != 18432 || hr.Size != 51200 || len(s.ECN) != 0 {
		t.Errorf("profiles %+v, ECN %+v", s.Profiles, s.ECN)
	}
}

// An interface block's header gives the port's state: NX-OS writes an
// administratively down port as down with the reason in parentheses
// (SYNTHETIC blocks in the form of ntc-templates' NX-OS fixture).
func TestShowInterfacesState(t *testing.T) {
	s := readSwitchText(t,
		"Ethernet1/1 is down (SFP not inserted)",
		"    0 input packets  0 bytes",
		"    0 input error  0 short frame  0 overrun   0 underrun  0 ignored",
		"Ethernet1/3 is down (Administratively down)",
		"    5 input packets  320 bytes",
		"    2 input error  0 short frame  0 overrun   0 underrun  0 ignored",
		"Ethernet1/4 is up",
		"    7 input packets  448 bytes")
	var got []string
	for _, p := range s.Ports {
		got = append(got, p.Port+" "+p.State)
	}
	if want := []string{"Ethernet1/1 D", "Ethernet1/3 X", "Ethernet1/4 U"}; !slices.Equal(got, want) {
		t.Errorf("ports %q, want %q", got, want)
	}
}
