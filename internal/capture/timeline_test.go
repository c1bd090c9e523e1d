package capture

import (
	"testing"

	"rocelab/internal/roce"
	"rocelab/internal/unit"
)

// The per-bin timelines add up to the flow's and pause sender's counts,
// stay aligned with the byte timeline, and the PSN progress climbs to
// where the requester's highest PSN ended: at a wide bin and at a bin so
// narrow that the bins are merged many times over (MaxBins).
func TestTimelinesAddUp(t *testing.T) {
	data := mixScenario(60000, 7).pcap()
	for _, bin := range []unit.Time{100 * unit.Microsecond, unit.Nanosecond} {
		a := analyze(t, data, Options{LinkSpeed: 100 * unit.Gbps, Bin: bin})
		if bin == unit.Nanosecond && a.Bin < 64*unit.Nanosecond {
			t.Fatalf("bin %v: the timelines were not merged (bin %v)", bin, a.Bin)
		}
		var naks, cnps, retx, xoff int64
		for _, fl := range a.Flows {
			n := len(fl.Timeline)
			for name, c := range map[string][]int64{"psn": fl.TimelinePSN, "retx": fl.TimelineRetx, "naks": fl.TimelineNAKs, "cnps": fl.TimelineCNPs} {
				if c != nil && len(c) != n {
					t.Fatalf("%s: %s timeline of %d bins beside %d", a.FlowName(fl.Key), name, len(c), n)
				}
			}
			if got := sumBins(fl.TimelineRetx); got != fl.Requester.RetransPackets {
				t.Errorf("%s: %d retransmissions in the bins, %d counted", a.FlowName(fl.Key), got, fl.Requester.RetransPackets)
			}
			var flowNAKs int64
			for _, v := range fl.NAKs {
				flowNAKs += v
			}
			if sumBins(fl.TimelineNAKs) != flowNAKs || sumBins(fl.TimelineCNPs) != fl.CNPs {
				t.Errorf("%s: bins hold %d NAKs and %d CNPs, the flow %d and %d", a.FlowName(fl.Key), sumBins(fl.TimelineNAKs), sumBins(fl.TimelineCNPs), flowNAKs, fl.CNPs)
			}
			naks, cnps, retx = naks+flowNAKs, cnps+fl.CNPs, retx+fl.Requester.RetransPackets
			if fl.Requester.Tracked == 0 {
				if fl.TimelinePSN != nil {
					t.Errorf("%s: PSN progress without requests", a.FlowName(fl.Key))
				}
				continue
			}
			for i := 1; i < len(fl.TimelinePSN); i++ {
				if fl.TimelinePSN[i] < fl.TimelinePSN[i-1] {
					t.Fatalf("%s: PSN progress falls at bin %d", a.FlowName(fl.Key), i)
				}
			}
			want := int64(roce.PSNDiff(fl.Requester.HighestPSN, fl.Requester.FirstPSN))
			if got := fl.TimelinePSN[len(fl.TimelinePSN)-1]; got != want {
				t.Errorf("%s: PSN progress ends at %d, the highest PSN is %d past the first", a.FlowName(fl.Key), got, want)
			}
		}
		for _, ps := range a.Pause {
			if got := sumBins(ps.TimelineXOFF); got != ps.XOFF {
				t.Errorf("pause from %s prio %s: %d XOFF in the bins, %d counted", ps.SrcMAC, ps.Priority, got, ps.XOFF)
			}
			xoff += ps.XOFF
		}
		if naks == 0 || cnps == 0 || retx == 0 || xoff == 0 {
			t.Fatalf("bin %v: the mix has %d NAKs, %d CNPs, %d retransmissions, %d XOFF: each must be exercised", bin, naks, cnps, retx, xoff)
		}
	}
}

func sumBins(xs []int64) int64 {
	var n int64
	for _, x := range xs {
		n += x
	}
	return n
}
