package main

import (
	"fmt"
	"testing"

	"rocelab/internal/packet"
)

// ns-3's packets (HPCC ns-3 model, simulation/src/point-to-point/model):
// a data packet is its payload and ns3DataHeaders (convert.go); an ACK is
// a qbbHeader padded to 60 - 14 - 20 bytes, then IPv4 and the 14-byte
// PppHeader (RdmaHw::ReceiveUdp), 60 bytes. QbbNetDevice::TransmitStart
// holds the line for DataRate::CalculateTxTime of p->GetSize() bytes, a
// double of seconds that Seconds() cuts to the nanosecond, and waits
// m_tInterframeGap after, which third.cc leaves at 0: no preamble, gap,
// FCS, BTH or ICRC, and a line a little faster than its rate.
const ns3Ack = 60 - 14 - 20 + 20 + 14

// ns3Wire is how long ns-3 holds a 100G line for a packet of size bytes,
// in picoseconds: cut to the nanosecond.
func ns3Wire(size int64) int64 { return size * 80 / 1000 * 1000 }

// extraWire is how much longer rocelab holds a 100G line than ns-3 for a
// flow of the bytes in packets of the payload, in picoseconds, counting
// each data packet and the ACK of a flow the other way that shares its
// link, as each host link of a ring of flows carries them.
func extraWire(bytes int64, payload int32) int64 {
	ack := int64(packet.DataFrame(0, packet.AETH, false)+packet.PreambleIFG)*80 - ns3Wire(ns3Ack)
	var n int64
	for left := bytes; left > 0; left -= int64(payload) {
		p := int32(min(left, int64(payload)))
		n += int64(packet.DataFrame(p, 0, false)+packet.PreambleIFG)*80 - ns3Wire(int64(p)+ns3DataHeaders) + ack
	}
	return n
}

// TestNs3Framing holds ring8-pfc-1k and ring8-pfc-4k (eight flows of 2 MB
// in a ring on one switch at 100G, PFC alone, no queue) to the framing:
// each flow's completion less ns-3's is the time the link takes to send
// what rocelab's frames carry beyond ns-3's, 60 bytes a data packet and
// its ACK (1192 against 1132 at 1 KB payloads, 4264 against 4204 at
// 4 KB), and the time ns-3 cuts from each packet's transmission (85.76 ns
// of a 1 KB data packet held 85 ns, its 60-byte ACK's 4.8 ns 4 ns).
// Measured: 12.38 us of a predicted 12.43 (1 KB, every flow x1.070 of
// ns-3's), 2.98 of 2.99 (4 KB, x1.018). Before the PppHeader was counted as 14 bytes the
// prediction took ns-3's PppHeader as PPP's 2 bytes, not the model's 14, and its
// times as exact: 13.13 and 3.29 us, 6 and 9 % over. That is the +6 to
// +8 % of TestCompareRandomCasesWithNs3's 1 KB misses (docs/engine.md).
func TestNs3Framing(t *testing.T) {
	for _, c := range []struct {
		workload string
		payload  int32
	}{{"ring8-pfc-1k", 1024}, {"ring8-pfc-4k", 4096}} {
		t.Run(c.workload, func(t *testing.T) {
			got, err := whole(compare("scenarios/"+c.workload+".yaml", 1, fmt.Sprintf("testdata/ns3/%s-seed1.txt", c.workload), "", nil))
			if err != nil {
				t.Fatal(err)
			}
			want := float64(extraWire(2e6, c.payload)) / 1e6 // us
			for i := range got.ratio {
				d := got.rocelab[i] - got.ns3[i]
				if d < 0.97*want || d > 1.03*want {
					t.Errorf("flow %d: rocelab %.3f us, ns-3 %.3f: %+.3f us where the framing gives %+.3f", i, got.rocelab[i], got.ns3[i], d, want)
				}
			}
		})
	}
}
