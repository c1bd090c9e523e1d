package capture

import (
	"reflect"
	"testing"

	"rocelab/internal/roce"
	"rocelab/internal/unit"
	"rocelab/internal/wire"
)

const us = unit.Microsecond

func write(qpn, psn uint32, op roce.Opcode, payload int) wire.Transport {
	return wire.Transport{BTH: wire.BTH{Opcode: op, DestQP: qpn, PSN: psn, PKey: 0xffff}, PayloadLen: payload}
}

func aeth(qpn, psn uint32, op roce.Opcode, syn uint8, payload int) wire.Transport {
	t := write(qpn, psn, op, payload)
	t.AETH = wire.AETH{Syndrome: syn, MSN: psn}
	return t
}

// gbnScenario is a sender-side capture (synthetic) with known answers: two
// QPs from A to B, a NAK-triggered and a timeout episode, CE marks and
// CNPs, a PSN gap, a READ, and a go-back-N across the 24-bit wrap.
func gbnScenario() *synth {
	s := &synth{}
	ab, ba := endpoints(true)
	ce := ab
	ce.ECN = wire.CE
	const w = roce.OpWriteMiddle
	at := func(x float64) unit.Time { return unit.Time(x * float64(us)) }
	s.roce(at(0), ab, write(0x11, 100, w, 1024), 0)       // 1
	s.roce(at(1), ab, write(0x11, 101, w, 1024), 0)       // 2
	s.roce(at(2), ce, write(0x11, 102, w, 1024), 0)       // 3
	s.roce(at(2.5), ba, write(0x22, 0, roce.OpCNP, 0), 0) // 4
	s.roce(at(3), ce, write(0x11, 103, w, 1024), 0)       // 5
	s.roce(at(3.5), ba, write(0x22, 0, roce.OpCNP, 0), 0) // 6
	for i := range 6 {                                    // 7-12
		s.roce(at(4+float64(i)), ab, write(0x11, 104+uint32(i), w, 1024), 0)
	}
	s.roce(at(12), ba, aeth(0x22, 105, roce.OpAcknowledge, roce.SyndromePSNSequenceError, 0), 0) // 13
	for i := range 5 {                                                                           // 14-18
		s.roce(at(13+float64(i)), ab, write(0x11, 105+uint32(i), w, 1024), 0)
	}
	s.roce(at(18), ab, write(0x11, 110, w, 1024), 0)                                          // 19
	s.roce(at(19), ab, write(0x11, 111, w, 1024), 0)                                          // 20
	s.roce(at(100), ab, write(0x11, 111, w, 1024), 0)                                         // 21
	s.roce(at(101), ab, write(0x11, 112, w, 1024), 0)                                         // 22
	s.roce(at(102), ab, write(0x11, 115, w, 1024), 0)                                         // 23
	s.roce(at(105), ba, aeth(0x22, 115, roce.OpAcknowledge, roce.SyndromeACKUnlimited, 0), 0) // 24
	rr := write(0x11, 116, roce.OpReadRequest, 0)
	rr.RETH = wire.RETH{DMALength: 8192}
	s.roce(at(106), ab, rr, 0) // 25
	wo := write(0x11, 120, roce.OpWriteOnly, 1024)
	wo.RETH = wire.RETH{DMALength: 1024}
	s.roce(at(107), ab, wo, 0)                                                                         // 26
	s.roce(at(108), ba, aeth(0x22, 116, roce.OpReadResponseFirst, roce.SyndromeACKUnlimited, 4096), 0) // 27
	s.roce(at(109), ba, aeth(0x22, 117, roce.OpReadResponseLast, roce.SyndromeACKUnlimited, 4096), 0)  // 28
	const sm = roce.OpSendMiddle
	for i, psn := range []uint32{0xfffffe, 0xffffff, 0, 1} { // 29-32
		s.roce(at(200+float64(i)), ab, write(0x33, psn, sm, 256), 0)
	}
	s.roce(at(210), ba, aeth(0x44, 0xffffff, roce.OpAcknowledge, roce.SyndromePSNSequenceError, 0), 0) // 33
	for i, psn := range []uint32{0xffffff, 0, 1, 2} {                                                  // 34-37
		s.roce(at(211+float64(i)), ab, write(0x33, psn, sm, 256), 0)
	}
	return s
}

func flowByQPN(t *testing.T, a *Analysis, qpn uint32) *Flow {
	t.Helper()
	for _, f := range a.Flows {
		if f.Key.QPN == qpn {
			return f
		}
	}
	t.Fatalf("no flow to QP 0x%x", qpn)
	return nil
}

func TestGoBackNScenario(t *testing.T) {
	for _, snap := range []int{0, 100} {
		s := gbnScenario()
		if snap > 0 { // the same traffic captured with tcpdump -s 100
			for i := range s.pkts {
				if len(s.pkts[i].data) > snap {
					s.pkts[i].data = s.pkts[i].data[:snap]
				}
			}
		}
		a := analyze(t, s.pcap(), Options{})
		if a.Packets != 37 || a.RoCEPackets != 37 || len(a.Flows) != 4 {
			t.Fatalf("snap %d: packets %d roce %d flows %d", snap, a.Packets, a.RoCEPackets, len(a.Flows))
		}
		const wr, rr, wo = 18 + 20 + 8 + 12 + 1024 + 4, 18 + 20 + 8 + 12 + 16 + 4, 18 + 20 + 8 + 12 + 16 + 1024 + 4
		f := flowByQPN(t, a, 0x11)
		if f.Packets != 22 || f.Bytes != 20*wr+rr+wo || f.Requests != 22 || f.CE != 2 || f.ECT != 20 {
			t.Errorf("snap %d: flow 0x11 packets %d bytes %d (want %d) requests %d CE %d ECT %d", snap, f.Packets, f.Bytes, 20*wr+rr+wo, f.Requests, f.CE, f.ECT)
		}
		if f.PCP != 3 || f.DSCP != 26 || f.UDPSrcPort != 0xc001 {
			t.Errorf("flow 0x11 pcp %d dscp %d sport %d", f.PCP, f.DSCP, f.UDPSrcPort)
		}
		r := f.Requester
		if r.Gaps != 1 || r.Missing != 2 || r.RetransPackets != 6 || r.RetransBytes != 6*wr || r.EpisodeCount != 2 || r.NAKEpisodes != 1 || r.TimeoutEpisodes != 1 {
			t.Errorf("flow 0x11 PSN stats %+v", r)
		}
		want := []Episode{
			{StartPacket: 14, EndPacket: 19, Start: 13 * us, End: 18 * us, FirstPSN: 105, HighestPSN: 109, Packets: 5, Bytes: 5 * wr,
				Trigger: "nak", NAKPacket: 13, NAKSyndrome: "NAK PSN sequence error"},
			{StartPacket: 21, EndPacket: 22, Start: 100 * us, End: 101 * us, FirstPSN: 111, HighestPSN: 111, Packets: 1, Bytes: wr,
				Trigger: "timeout", IdleGap: 81 * us},
		}
		if !reflect.DeepEqual(r.Episodes, want) {
			t.Errorf("snap %d: episodes\n got %+v\nwant %+v", snap, r.Episodes, want)
		}
		if f.CNPsReceived != 2 || f.NAKsReceived["NAK PSN sequence error"] != 1 || f.Peer == nil || f.Peer.QPN != 0x22 {
			t.Errorf("flow 0x11 received CNPs %d NAKs %v peer %v", f.CNPsReceived, f.NAKsReceived, f.Peer)
		}
		b := flowByQPN(t, a, 0x22)
		if b.Packets != 6 || b.CNPs != 2 || b.ACKs != 3 || b.Responses != 4 || b.Responder.Tracked != 2 || b.Responder.Gaps != 0 {
			t.Errorf("flow 0x22 packets %d CNPs %d ACKs %d responses %d read-resp tracked %d", b.Packets, b.CNPs, b.ACKs, b.Responses, b.Responder.Tracked)
		}
		if b.PayloadBytes != 8192 {
			t.Errorf("flow 0x22 payload %d, want 8192", b.PayloadBytes)
		}
		w := flowByQPN(t, a, 0x33)
		wantW := []Episode{{StartPacket: 34, EndPacket: 37, Start: 211 * us, End: 214 * us, FirstPSN: 0xffffff, HighestPSN: 1,
			Packets: 3, Bytes: 3 * 318, Trigger: "nak", NAKPacket: 33, NAKSyndrome: "NAK PSN sequence error"}}
		if w.Packets != 8 || w.Requester.Gaps != 0 || !reflect.DeepEqual(w.Requester.Episodes, wantW) || w.Peer == nil || w.Peer.QPN != 0x44 {
			t.Errorf("wrap flow: packets %d gaps %d peer %v episodes\n got %+v\nwant %+v", w.Packets, w.Requester.Gaps, w.Peer, w.Requester.Episodes, wantW)
		}
		if snap > 0 && a.TruncatedPackets == 0 {
			t.Errorf("snap %d: no truncated packets", snap)
		}
	}
}

func TestPSNDiff(t *testing.T) {
	for _, c := range []struct {
		a, b uint32
		d    int32
	}{{5, 3, 2}, {3, 5, -2}, {0, 0xffffff, 1}, {0xffffff, 0, -1}, {0x7fffff, 0, 0x7fffff}, {0x800000, 0, -0x800000}} {
		if got := roce.PSNDiff(c.a, c.b); got != c.d {
			t.Errorf("roce.PSNDiff(%#x, %#x) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
	if roce.PSNAdd(0xffffff, 2) != 1 || roce.PSNAdd(0, -1) != 0xffffff {
		t.Error("PSNAdd does not wrap")
	}
}

// pfcScenario: PFC XOFF, refresh and XON on priority 3, a frame enabling
// priorities 3 and 4, and an 802.3x PAUSE.
func pfcScenario(iface int) *synth {
	s := &synth{}
	s.pfc(0, macX, 0x08, [8]uint16{3: 0xffff}, iface)             // 1: until 335.5392us
	s.pfc(100*us, macX, 0x08, [8]uint16{3: 0xffff}, iface)        // 2: refresh
	s.pfc(150*us, macX, 0x08, [8]uint16{3: 0}, iface)             // 3: XON
	s.pfc(1000*us, macX, 0x18, [8]uint16{3: 100, 4: 7}, iface)    // 4: 512ns on prio 3, 35.84ns on 4
	s.pause(2000*us, macA, 1000, iface)                           // 5: 5.12us
	s.pfc(3000*us, macX, 0x01, [8]uint16{0: 0, 3: 0xffff}, iface) // 6: XON on prio 0 only
	return s
}

func TestPFCAccounting(t *testing.T) {
	check := func(t *testing.T, a *Analysis, source string) {
		t.Helper()
		if a.LinkSpeed != 100*unit.Gbps || a.LinkSpeedSource != source {
			t.Fatalf("link speed %v from %q", a.LinkSpeed, a.LinkSpeedSource)
		}
		got := map[string]PauseStats{}
		for _, p := range a.Pause {
			got[p.SrcMAC+"/"+p.Priority] = *p
		}
		ps := func(key string, frames, xoff, xon, quanta int64, req, eff unit.Time) {
			t.Helper()
			p, ok := got[key]
			if !ok {
				t.Fatalf("no pause stats for %s", key)
			}
			if p.Frames != frames || p.XOFF != xoff || p.XON != xon || p.Quanta != quanta || p.Requested == nil || *p.Requested != req || *p.Effective != eff {
				t.Errorf("%s: frames %d xoff %d xon %d quanta %d requested %v effective %v; want %d %d %d %d %v %v",
					key, p.Frames, p.XOFF, p.XON, p.Quanta, optTime(p.Requested), optTime(p.Effective), frames, xoff, xon, quanta, req, eff)
			}
		}
		const quantum = 5120 * unit.Picosecond // 512 bit times at 100G
		ps("02:00:00:00:00:77/3", 4, 3, 1, 2*0xffff+100, (2*0xffff+100)*quantum, 150*us+100*quantum)
		ps("02:00:00:00:00:77/4", 1, 1, 0, 7, 7*quantum, 7*quantum)
		ps("02:00:00:00:00:77/0", 1, 0, 1, 0, 0, 0)
		ps("02:00:00:00:00:0a/all", 1, 1, 0, 1000, 1000*quantum, 1000*quantum)
		if len(a.Pause) != 4 {
			t.Errorf("%d pause rows, want 4", len(a.Pause))
		}
	}
	t.Run("pcap with --link-speed", func(t *testing.T) {
		check(t, analyze(t, pfcScenario(0).pcap(), Options{LinkSpeed: 100 * unit.Gbps}), "option")
	})
	t.Run("pcapng if_speed", func(t *testing.T) {
		for _, be := range []bool{false, true} {
			check(t, analyze(t, pfcScenario(1).pcapng([]uint64{25e9, 100e9}, be), Options{}), "if_speed")
		}
	})
	t.Run("unknown speed", func(t *testing.T) {
		a := analyze(t, pfcScenario(0).pcap(), Options{})
		if a.LinkSpeedSource != "unknown" || a.Pause[0].Requested != nil || len(a.Notes) == 0 {
			t.Errorf("source %q requested %v notes %v", a.LinkSpeedSource, a.Pause[0].Requested, a.Notes)
		}
	})
}

// TestMaxPauseAt100G checks the fact-sheet figures: one quantum is 5.12 ns
// and 0xFFFF quanta are 335.5 us at 100G.
func TestMaxPauseAt100G(t *testing.T) {
	s := &synth{}
	s.pfc(0, macX, 0x08, [8]uint16{3: 0xffff}, 0)
	a := analyze(t, s.pcap(), Options{LinkSpeed: 100 * unit.Gbps})
	if got := *a.Pause[0].Effective; got != 335539200*unit.Picosecond {
		t.Errorf("0xFFFF quanta at 100G = %v, want 335.5392us", got)
	}
}

func TestTimelineBins(t *testing.T) {
	a := analyze(t, gbnScenario().pcap(), Options{Bin: 100 * us})
	f := flowByQPN(t, a, 0x11)
	var total int64
	for _, v := range f.Timeline {
		total += v
	}
	if f.TimelineStart != 0 || len(f.Timeline) != 2 || total != f.Bytes {
		t.Errorf("timeline start %d bins %v (sum %d, flow bytes %d)", f.TimelineStart, f.Timeline, total, f.Bytes)
	}
	w := flowByQPN(t, a, 0x33)
	if w.TimelineStart != 2 || len(w.Timeline) != 1 {
		t.Errorf("wrap flow timeline start %d len %d", w.TimelineStart, len(w.Timeline))
	}
}
