package ingest

import (
	"strings"
	"testing"
)

// The bonding driver's report, read from real pastes: an 802.3ad bond
// with no active aggregator (its ports' Aggregator ID N/A), one whose
// port sits in another aggregator than the active one, and an
// active-backup bond whose mode carries fail_over_mac's note. Before,
// none of these inputs was recognised.
func TestBondingCorpus(t *testing.T) {
	b := nicArtifact[*Bonding](t, nicReadCorpus(t, "bonding/bonding-8023ad-no-active-aggregator-accelerated-text387.txt"))
	if len(b.Bonds) != 1 {
		t.Fatalf("bonds %+v", b.Bonds)
	}
	g := b.Bonds[0]
	if g.Name != "bond0" || g.Mode != "IEEE 802.3ad Dynamic link aggregation" || g.HashPolicy != "layer2 (0)" || g.MII != "up" ||
		!g.NoAggregator || g.AggregatorEvidence.Line != 16 || g.Evidence.Line != 6 || len(g.Slaves) != 2 {
		t.Fatalf("bond %+v", g)
	}
	if s := g.Slaves[1]; s.Name != "eth2" || s.MII != "up" || s.SpeedMbps != 0 || !s.HasFailures || s.Failures != 0 || s.Aggregator != 0 || s.Evidence.Line != 24 || len(s.Lines) != 3 {
		t.Errorf("slave %+v", s)
	}

	g = nicArtifact[*Bonding](t, nicReadCorpus(t, "bonding/bonding-8023ad-port-in-other-aggregator-cut-systemd11635.txt")).Bonds[0]
	if g.Name != "" || g.Aggregator != 2 || g.AggregatorPorts != 1 || g.AggregatorEvidence.Line != 19 || g.NoAggregator || len(g.Slaves) != 1 {
		t.Fatalf("bond %+v", g)
	}
	if s := g.Slaves[0]; s.Name != "enp7s0" || s.SpeedMbps != 1000 || s.Aggregator != 1 || s.Lines[len(s.Lines)-1].Line != 32 {
		t.Errorf("slave %+v", s)
	}

	g = nicArtifact[*Bonding](t, nicReadCorpus(t, "bonding/bonding-active-backup-fail-over-mac-40g-cut-bondcni14.txt")).Bonds[0]
	if g.Name != "bond0" || g.Mode != "fault-tolerance (active-backup)" || g.MII != "up" || len(g.Slaves) != 1 || g.Slaves[0].SpeedMbps != 40000 || g.Slaves[0].MII != "up" {
		t.Errorf("bond %+v", g)
	}
}

// Two bonds in one paste are two, each named by its command or by the
// file name grep puts before each line; a port's "MII Status" is the
// port's, the bond's is the bond's; a "Bonding Mode:" line alone in
// other text, with no port under it, is a bond of no ports. Synthetic.
func TestBondingShapes(t *testing.T) {
	r := nicReadText(t, "bonds.txt", strings.Join([]string{
		"$ cat /proc/net/bonding/bond0",
		"Ethernet Channel Bonding Driver: v5.15.0",
		"",
		"Bonding Mode: load balancing (round-robin)",
		"MII Status: up",
		"",
		"Slave Interface: eth0",
		"MII Status: down",
		"Speed: Unknown",
		"Link Failure Count: 3",
		"",
		"$ cat /proc/net/bonding/bond1",
		"Ethernet Channel Bonding Driver: v5.15.0",
		"Bonding Mode: fault-tolerance (active-backup)",
		"MII Status: down",
		"/proc/net/bonding/bond2:Bonding Mode: IEEE 802.3ad Dynamic link aggregation",
		"/proc/net/bonding/bond2:Active Aggregator Info:",
		"/proc/net/bonding/bond2:\tAggregator ID: 2",
		"/proc/net/bonding/bond2:Slave Interface: ens1f0np0",
		"/proc/net/bonding/bond2:Aggregator ID: 2",
	}, "\n"))
	b := nicArtifact[*Bonding](t, r)
	if len(b.Bonds) != 3 {
		t.Fatalf("bonds %+v", b.Bonds)
	}
	if g := b.Bonds[0]; g.Name != "bond0" || g.MII != "up" || len(g.Slaves) != 1 || g.Slaves[0].MII != "down" || g.Slaves[0].Failures != 3 || g.Slaves[0].SpeedMbps != 0 {
		t.Errorf("bond0 %+v", g)
	}
	if g := b.Bonds[1]; g.Name != "bond1" || g.MII != "down" || len(g.Slaves) != 0 || g.Evidence.Line != 14 {
		t.Errorf("bond1 %+v", g)
	}
	if g := b.Bonds[2]; g.Name != "bond2" || len(g.Slaves) != 1 || g.Slaves[0].Name != "ens1f0np0" || g.Aggregator != 2 || g.Slaves[0].Aggregator != 2 {
		t.Errorf("bond2 %+v", g)
	}
}

func FuzzBonding(f *testing.F) {
	nicFuzz(f, NewBondingParser, nicSeeds("corpus/bonding/*.txt"), func(t *testing.T, a Artifact, n int) {
		b := a.(*Bonding)
		if len(b.Bonds) > maxBonds {
			t.Fatalf("%d bonds", len(b.Bonds))
		}
		for _, g := range b.Bonds {
			nicCheckEvidence(t, g.Evidence, n)
			if g.Mode == "" && len(g.Slaves) == 0 || len(g.Slaves) > maxBondSlaves {
				t.Fatalf("bond %+v", g)
			}
			for _, s := range g.Slaves {
				nicCheckEvidence(t, s.Evidence, n)
				for _, e := range s.Lines {
					nicCheckEvidence(t, e, n)
				}
			}
		}
	})
}
