package ingest

import (
	"testing"

	"rocelab/internal/counters"
)

// `ethtool -S IF --groups ...` and --all-groups print the IEEE 802.3
// statistics under "Standard stats for IF:", named "<group>-<attribute>";
// each is read as a dump of that interface, its FCS errors, frames and
// octets found by concept like any driver's. Before, a paste that held
// only them was no artifact, and after another dump they were no counters.
func TestEthtoolStandardStatsCorpus(t *testing.T) {
	for _, c := range []struct {
		file, dev  string
		fcs, rxPkt uint64
		rxBytes    uint64
		sym        int64 // -1: the driver fills no eth-phy group
	}{
		{"ethtool/ethtool-s-groups-eth-mac-bnxt-fcs-error-1-netdev.txt", "eth0", 1, 28727667047, 0, -1},
		{"ethtool/ethtool-s-all-groups-felix-swp0-pmac-phy-mac-ctrl-rmon-kselftest.txt", "swp0", 0, 90033, 9182112, 0},
		{"ethtool/ethtool-s-all-groups-ice-e810-and-pause-statistics-iwl.txt", "ens785f1np1", 0, 339, 51414, -1},
	} {
		e := nicArtifact[*EthtoolStats](t, nicReadCorpus(t, c.file))
		var s *CounterSample
		for i := range e.Samples {
			if e.Samples[i].Device == c.dev && e.Samples[i].Has("eth-mac-FramesReceivedOK") {
				s = &e.Samples[i]
			}
		}
		if s == nil {
			t.Fatalf("%s: no standard stats sample of %s in %+v", c.file, c.dev, e.Samples)
		}
		if v, ok := s.Vendor(); !ok || v != counters.Standard {
			t.Errorf("%s: vendor %v %v", c.file, v, ok)
		}
		if r, ok := s.Concept(counters.PhyCRCErrors, counters.RX, 0); !ok || r.Value != c.fcs || r.Name != "eth-mac-FrameCheckSequenceErrors" {
			t.Errorf("%s: FCS errors %+v %v", c.file, r, ok)
		}
		if r, ok := s.PortRxPackets(); !ok || r.Value != c.rxPkt {
			t.Errorf("%s: port rx packets %+v %v", c.file, r, ok)
		}
		if r, ok := s.Concept(counters.PhyBytes, counters.RX, 0); c.rxBytes != 0 && (!ok || r.Value != c.rxBytes) {
			t.Errorf("%s: port rx bytes %+v %v", c.file, r, ok)
		}
		r, ok := s.Concept(counters.PhySymbolErrors, counters.RX, 0)
		if c.sym < 0 && ok || c.sym >= 0 && (!ok || int64(r.Value) != c.sym) {
			t.Errorf("%s: symbol errors %+v %v", c.file, r, ok)
		}
	}
}

// The pause frame counts of `ethtool --include-statistics --show-pause`
// belong to the section's interface (ens785f0np0), not to the standard
// stats' before them (ens785f1np1), and are read as its 802.3x pause.
func TestEthtoolPauseStatistics(t *testing.T) {
	e := nicArtifact[*EthtoolStats](t, nicReadCorpus(t, "ethtool/ethtool-s-all-groups-ice-e810-and-pause-statistics-iwl.txt"))
	if len(e.Pause) != 1 || e.Pause[0].Device != "ens785f0np0" || e.Pause[0].RX || e.Pause[0].TX {
		t.Errorf("pause %+v", e.Pause)
	}
	if len(e.Samples) != 2 {
		t.Fatalf("samples %+v", e.Samples)
	}
	s := e.Samples[1]
	if s.Device != "ens785f0np0" || s.Has("eth-mac-FramesReceivedOK") {
		t.Fatalf("pause statistics sample %+v", s)
	}
	if r, ok := s.Concept(counters.GlobalPause, counters.TX, 0); !ok || r.Name != "tx_pause_frames" || r.Value != 0 {
		t.Errorf("tx pause %+v %v", r, ok)
	}
}

// A standard stats dump pasted after the driver's of the same interface
// is a dump of its own, not the "after" of a before/after pair.
func TestEthtoolStandardStatsAfterDriverDump(t *testing.T) {
	e := nicArtifact[*EthtoolStats](t, nicReadText(t, "synthetic-std-after-driver", "$ ethtool -S eth0\nNIC statistics:\n     rx_packets_phy: 100\n     rx_crc_errors_phy: 0\n$ ethtool -S eth0 --all-groups\nStandard stats for eth0:\neth-mac-FramesReceivedOK: 100\neth-mac-FrameCheckSequenceErrors: 7\n"))
	if len(e.Samples) != 2 || e.Samples[0].IsDelta() || e.Samples[1].IsDelta() {
		t.Fatalf("samples %+v", e.Samples)
	}
	if r, ok := e.Samples[1].Concept(counters.PhyCRCErrors, counters.RX, 0); !ok || r.Value != 7 || r.Evidence[0].Line != 8 {
		t.Errorf("FCS %+v %v", r, ok)
	}
}
