package main

import (
	"fmt"
	"testing"

	"rocelab/internal/packet"
)

// ns-3's headers (HPCC ns-3 model, simulation/src/point-to-point/model):
// a data packet is its payload under SeqTsHeader (seq 4, pg 2, and no INT
// with DCQCN or PFC alone), UDP, IPv4 and PPP (RdmaHw::GetNxtPacket); an
// ACK is a qbbHeader (11 bytes) padded to 60 - 14 - 20 bytes, then IPv4
// and PPP (RdmaHw::ReceiveUdp). QbbNetDevice::TransmitStart sends
// p->GetSize() bytes at the line rate and waits m_tInterframeGap after,
// which third.cc leaves at its default of 0: no preamble, gap, Ethernet
// header, FCS, BTH or ICRC.
const (
	ns3DataHeaders = 6 + 8 + 20 + 2
	ns3Ack         = 60 - 14 - 20 + 20 + 2
)

// extraWire is the bytes rocelab puts on the wire beyond ns-3 for a flow
// of the bytes in packets of the payload, counting each data packet and
// the ACK of a flow the other way that shares its link, as each host link
// of a ring of flows carries them.
func extraWire(bytes int64, payload int32) int64 {
	ack := int64(packet.DataFrame(0, packet.AETH, false)+packet.PreambleIFG) - ns3Ack
	var n int64
	for left := bytes; left > 0; left -= int64(payload) {
		p := int32(min(left, int64(payload)))
		n += int64(packet.DataFrame(p, 0, false)+packet.PreambleIFG) - int64(p+ns3DataHeaders) + ack
	}
	return n
}

// TestNs3Framing holds ring8-pfc-1k and ring8-pfc-4k (eight flows of 2 MB
// in a ring on one switch at 100G, PFC alone, no queue) to the framing:
// each flow's completion less ns-3's is the time the link takes to send
// the bytes rocelab's frames carry beyond ns-3's, 84 a data packet and
// its ACK (1192 against 1108 at 1 KB payloads, 4264 against 4180 at
// 4 KB). Measured: 12.38 us of a predicted 13.13 (1 KB, every flow x1.070
// of ns-3's), 2.98 of 3.29 (4 KB, x1.018); the rest is the fixed part
// (rocelab's first packet and last ACK 0.7 and 0.3 us sooner). That is
// the +6 to +8 % of TestCompareRandomCasesWithNs3's 1 KB misses (docs/engine.md): ns-3's
// model leaves out 46 bytes of each data frame and 38 of each ACK that a
// RoCEv2 frame on Ethernet carries.
func TestNs3Framing(t *testing.T) {
	for _, c := range []struct {
		workload string
		payload  int32
	}{{"ring8-pfc-1k", 1024}, {"ring8-pfc-4k", 4096}} {
		t.Run(c.workload, func(t *testing.T) {
			got, err := compare("scenarios/"+c.workload+".yaml", 1, fmt.Sprintf("testdata/ns3/%s-seed1.txt", c.workload), "", nil)
			if err != nil {
				t.Fatal(err)
			}
			want := float64(extraWire(2e6, c.payload)) * 8 / 100e3 // us at 100G
			for i := range got.ratio {
				d := got.rocelab[i] - got.ns3[i]
				if d < 0.85*want || d > 1.05*want {
					t.Errorf("flow %d: rocelab %.3f us, ns-3 %.3f: %+.3f us where the framing gives %+.3f", i, got.rocelab[i], got.ns3[i], d, want)
				}
			}
		})
	}
}
