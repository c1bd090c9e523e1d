package capture

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"rocelab/internal/roce"
	"rocelab/internal/unit"
	"rocelab/internal/wire/tshark"
)

// A real capture of 32 RC queue pairs between two Mellanox NICs jumps
// hundreds of request PSNs at a time with no NAK, no CNP and no PSN sent
// twice, while the same queue pairs' ACKs acknowledge past the jumps: the
// receiver got the PSNs the capture missed. The gaps were shown as if the
// network had lost 3248 PSNs; now the flows whose ACKs
// cover their last gap (15 of the 32 directions: the others' last ACK came
// before it, or after the capture) are marked, and a note says so.
func TestRealCaptureMissedPackets(t *testing.T) {
	a := analyzeCorpus(t, "pcap-roce/send-32-qps-mellanox-capture-missed-packets-magnate3.pcap")
	if a.Packets != 708 || a.RoCEPackets != 708 || a.DecodeErrors != 0 || len(a.Flows) != 32 {
		t.Fatalf("packets %d roce %d errors %d flows %d", a.Packets, a.RoCEPackets, a.DecodeErrors, len(a.Flows))
	}
	var gaps, acks, retx, naks int64
	for _, fl := range a.Flows {
		gaps += fl.Requester.Gaps
		acks += fl.ACKs
		retx += fl.Requester.RetransPackets
		naks += int64(len(fl.NAKs))
		if fl.Requester.Unseen && fl.Requester.Gaps == 0 {
			t.Errorf("%s marked unseen without a gap", fl.Key)
		}
	}
	if acks != 175 || retx != 0 || naks != 0 || gaps == 0 {
		t.Fatalf("acks %d (tshark: 175 opcode 17) retransmitted %d naks %d gaps %d", acks, retx, naks, gaps)
	}
	if a.UnseenFlows != 15 || a.UnseenGaps != 162 || a.UnseenPSNs != 3248 {
		t.Errorf("unseen: %d flows, %d gaps, %d PSNs; want 15, 162, 3248", a.UnseenFlows, a.UnseenGaps, a.UnseenPSNs)
	}
	if !strings.Contains(strings.Join(a.Notes, "\n"), "162 PSN gaps (3248 PSNs) in 15 queue pair directions the capture missed: the receiver acknowledged past them") {
		t.Errorf("notes %q", a.Notes)
	}
}

// Gaps the network made are not called the capture's: a gap the receiver
// NAKed, a gap the sender filled again, and a gap no ACK reached stay
// plain gaps; a gap an ACK acknowledged past, with nothing else, is the
// capture's. A go-back-N resend whose NAK the capture did not hold (or
// that an ACK timeout started) shows as PSNs sent again, and keeps the
// gap the network's even though the final ACK covers it.
func TestUnseenGapsNeedTheAck(t *testing.T) {
	if a := analyze(t, gbnScenario().pcap(), Options{}); a.UnseenFlows != 0 {
		t.Errorf("go-back-N scenario: %d flows marked unseen", a.UnseenFlows)
	}
	const w = roce.OpWriteMiddle
	for _, tc := range []struct {
		name   string
		ackPSN uint32
		syn    uint8
		unseen bool
		again  []uint32 // PSNs the requester sent again before the ACK
	}{
		{"ack past the gap", 9, roce.SyndromeACKUnlimited, true, nil},
		{"ack of the last missing PSN", 6, roce.SyndromeACKUnlimited, true, nil},
		{"ack before the gap", 3, roce.SyndromeACKUnlimited, false, nil},
		{"nak at the gap", 4, roce.SyndromePSNSequenceError, false, nil},
		{"go-back-N resend with no NAK seen", 9, roce.SyndromeACKUnlimited, false, []uint32{4, 5, 6, 7, 8, 9}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &synth{}
			ab, ba := endpoints(true)
			for i, psn := range append([]uint32{0xfffffd, 0xfffffe, 3, 7, 8, 9}, tc.again...) {
				s.roce(unit.Time(i)*us, ab, write(0x11, psn, w, 1024), 0)
			}
			s.roce(20*us, ba, aeth(0x22, tc.ackPSN, roce.OpAcknowledge, tc.syn, 0), 0)
			a := analyze(t, s.pcap(), Options{})
			fl := a.Flows[0]
			if fl.Requester.Gaps != 2 || fl.Requester.Missing != 7 {
				t.Fatalf("gaps %d missing %d, want 2 and 7", fl.Requester.Gaps, fl.Requester.Missing)
			}
			if fl.Requester.Unseen != tc.unseen || (a.UnseenFlows == 1) != tc.unseen {
				t.Errorf("unseen %v (%d flows), want %v", fl.Requester.Unseen, a.UnseenFlows, tc.unseen)
			}
		})
	}
}

// Every real RoCE capture of the corpus reads, queue pair by queue pair,
// the packets and ACKs tshark dissects in it. tshark dissects a flow from a
// well-known UDP source port (the oferby ACKs come from port 69) as that
// port's protocol (TFTP), not as RoCE: such a flow is ours alone.
func TestRealRoCECorpusAgainstTshark(t *testing.T) {
	tshark.Require(t)
	files, err := filepath.Glob("../../testdata/corpus/pcap-roce/*.pcap")
	if err != nil || len(files) < 4 {
		t.Fatalf("corpus: %v %v", files, err)
	}
	for _, path := range files {
		rel := "pcap-roce/" + filepath.Base(path)
		a := analyzeCorpus(t, rel)
		rows, err := tshark.Fields(path, "ip.src", "ipv6.src", "ip.dst", "ipv6.dst", "infiniband.bth.destqp", "infiniband.bth.opcode")
		if err != nil {
			t.Fatal(err)
		}
		type count struct{ pkts, acks int64 }
		theirs := map[string]*count{}
		for _, r := range rows {
			if r[4] == "" {
				continue
			}
			qpn, _ := strconv.ParseUint(r[4], 0, 32)
			k := fmt.Sprintf("%s%s > %s%s qp 0x%06x", r[0], r[1], r[2], r[3], qpn)
			if theirs[k] == nil {
				theirs[k] = &count{}
			}
			theirs[k].pkts++
			if r[5] == "17" {
				theirs[k].acks++
			}
		}
		matched := 0
		for _, fl := range a.Flows {
			c := theirs[fl.Key.String()]
			if c == nil && fl.UDPSrcPort < 1024 && fl.UDPSrcPort != 0 {
				continue
			}
			matched++
			if c == nil || c.pkts != fl.Packets || c.acks != fl.ACKs {
				t.Errorf("%s %s: ours %d packets %d ACKs, tshark %+v", rel, fl.Key, fl.Packets, fl.ACKs, c)
			}
		}
		if matched != len(theirs) {
			t.Errorf("%s: tshark %d flows, ours %d", rel, len(theirs), matched)
		}
	}
}

// A real DC capture (opcodes of the Reliable Datagram class, which mlx5's
// DC transport sends) was shown as two flows of neither requests nor
// responses with no word why: a note now says their PSNs are not tracked.
func TestRealDCCaptureNoted(t *testing.T) {
	a := analyzeCorpus(t, "pcap-roce/dc-rd-opcodes-write-only-ack-magnate3.pcap")
	if a.RoCEPackets != 19 || a.RDPackets != 19 || len(a.Flows) != 2 {
		t.Fatalf("roce %d rd %d flows %d", a.RoCEPackets, a.RDPackets, len(a.Flows))
	}
	for _, fl := range a.Flows {
		if fl.Requests != 0 || fl.Responses != 0 || fl.Requester.Tracked != 0 {
			t.Errorf("%s: requests %d responses %d tracked %d", fl.Key, fl.Requests, fl.Responses, fl.Requester.Tracked)
		}
	}
	if !strings.Contains(strings.Join(a.Notes, "\n"), "19 packets have Reliable Datagram opcodes") {
		t.Errorf("notes %q", a.Notes)
	}
}
