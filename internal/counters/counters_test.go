package counters

import "testing"

func TestLookupRoundTrip(t *testing.T) {
	tb := Default()
	for _, d := range tb.All() {
		n := 1
		if d.PerPrio {
			n = 8
		}
		for p := 0; p < n; p++ {
			name := d.Of(p)
			got, prio, ok := tb.Lookup(name)
			if !ok || got.Name != d.Name || got.Vendor != d.Vendor {
				t.Fatalf("Lookup(%q) = %v, %v", name, got, ok)
			}
			if d.PerPrio && prio != p || !d.PerPrio && prio != -1 {
				t.Errorf("Lookup(%q) priority %d", name, prio)
			}
		}
	}
}

func TestNames(t *testing.T) {
	tb := Default()
	if got := tb.Name(MLX5, Ethtool, PauseDuration, RX, 3); got != "rx_prio3_pause_duration" {
		t.Errorf("mlx5 rx pause duration prio 3 = %q", got)
	}
	if got := tb.Name(BNXT, Ethtool, PauseFrames, TX, 5); got != "tx_pfc_ena_frames_pri5" {
		t.Errorf("bnxt tx pause prio 5 = %q", got)
	}
	got := tb.Names(PauseFrames, RX, 3)
	if len(got) != 2 || got[0] != "rx_prio3_pause" || got[1] != "rx_pfc_ena_frames_pri3" {
		t.Errorf("Names(pause rx 3) = %v", got)
	}
	if _, _, ok := tb.Lookup("rx_prio8_pause"); ok {
		t.Error("priority 8 must not exist")
	}
}

func TestNewRejectsDuplicates(t *testing.T) {
	_, err := New([]Desc{
		{Name: "a", Concept: PhyBytes, Dir: RX},
		{Name: "a", Concept: PhyPackets, Dir: RX},
	})
	if err == nil {
		t.Error("duplicate name accepted")
	}
	_, err = New([]Desc{{Name: "x_%d", Concept: PrioBytes}})
	if err == nil {
		t.Error("a per-priority name without PerPrio accepted")
	}
}
