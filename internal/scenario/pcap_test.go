package scenario

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"testing"

	"rocelab/internal/capture"
	"rocelab/internal/nic"
	"rocelab/internal/unit"
	"rocelab/internal/wire/oracle"
	"rocelab/internal/wire/tshark"
)

// capturedRun runs the incast example with a pcap tap at port and returns
// the twin, the capture's path, and its analysis at 100G.
func capturedRun(t *testing.T, port string, edit ...func(*Scenario)) (*Twin, string, *capture.Analysis) {
	t.Helper()
	s := example(t, "incast-pfc")
	for _, e := range edit {
		e(s)
	}
	return capturedScenario(t, s, port)
}

// capturedScenario runs s with a tap on port and returns the twin, the
// capture's path, and its analysis at 100G.
func capturedScenario(t *testing.T, s *Scenario, port string) (*Twin, string, *capture.Analysis) {
	t.Helper()
	tw, path, data := captureRun(t, s, port, DefaultSnaplen)
	a, err := capture.Analyze(path, bytes.NewReader(data), capture.Options{LinkSpeed: 100 * unit.Gbps})
	if err != nil {
		t.Fatal(err)
	}
	return tw, path, a
}

// captureRun runs s with a tap on port at snaplen and returns the twin,
// and the capture's path and bytes.
func captureRun(t *testing.T, s *Scenario, port string, snaplen int) (*Twin, string, []byte) {
	t.Helper()
	tw, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	pt, err := tw.Port(port)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	tap, err := tw.AttachPcap(pt, &buf, snaplen)
	if err != nil {
		t.Fatal(err)
	}
	tw.Run()
	if err := tap.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "twin.pcapng")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return tw, path, buf.Bytes()
}

// checkFlows asserts that every flow crossing the tapped port shows in the
// capture with exactly the packets and payload bytes the twin sent.
func checkFlows(t *testing.T, tw *Twin, a *capture.Analysis, want func(c nic.ConnInfo) bool) int {
	t.Helper()
	byKey := map[capture.FlowKey]*capture.Flow{}
	for _, f := range a.Flows {
		byKey[f.Key] = f
	}
	n := 0
	for i, c := range tw.Transport.Conns() {
		if !want(c) {
			continue
		}
		n++
		cf := byKey[capture.FlowKey{Src: HostIP(c.Src), Dst: HostIP(c.Dst), QPN: c.RespQPN}]
		if cf == nil {
			t.Errorf("connection %d (%s) not in the capture", i, c.Tag)
			continue
		}
		if pk, b := c.SentPkts+c.RetxPkts, c.Sent+c.Retransmit; cf.Packets != pk || cf.PayloadBytes != b {
			t.Errorf("connection %d: capture %d packets %d payload bytes, twin %d packets %d bytes", i, cf.Packets, cf.PayloadBytes, pk, b)
		}
	}
	return n
}

// A twin incast with PFC, captured at a sender's port: the pause frames
// add up to the pause time the twin counts in rx_prio3_pause_duration
// (within 1 %), and the flow's packets and bytes equal the twin's counters
// exactly — the same definitions on both sides.
func TestTwinCaptureSender(t *testing.T) {
	t.Run("xon", func(t *testing.T) { checkSenderCapture(t) })
	// Without XON frames every pause runs out by its quanta (short ones, so
	// that they expire between refreshes): the pause time then rests on the
	// quanta arithmetic on both sides.
	t.Run("quanta", func(t *testing.T) {
		checkSenderCapture(t, func(s *Scenario) {
			s.Switch.PFC.XON = false
			s.Switch.PFC.Quanta = 2000
			s.Switch.PFC.Refresh = 8 * unit.Microsecond
		})
	})
}

func checkSenderCapture(t *testing.T, edit ...func(*Scenario)) {
	tw, _, a := capturedRun(t, "h0:0", edit...)
	h0 := tw.NICs[0].Port()
	var ps *capture.PauseStats
	for _, p := range a.Pause {
		if p.Priority == "3" {
			ps = p
		}
	}
	if ps == nil || ps.Effective == nil {
		t.Fatalf("no priority-3 pause time in the capture: %+v", a.Pause)
	}
	twin := h0.Snapshot().RxPauseDuration[3]
	// The acceptance bound is 1 %; with one definition on both sides they
	// agree to the capture's nanosecond timestamps: at most 1 ns per frame.
	diff := *ps.Effective - twin
	if diff < 0 {
		diff = -diff
	}
	if diff > unit.Time(ps.Frames)*unit.Nanosecond || float64(diff) > 0.01*float64(twin) {
		t.Errorf("capture pause time %v, twin rx_prio3_pause_duration %v: %v apart over %d frames", *ps.Effective, twin, diff, ps.Frames)
	}
	if ps.XON != 0 && tw.Scenario.Switch.PFC.XON == false {
		t.Errorf("%d XON frames with xon disabled", ps.XON)
	}
	if ps.Frames != h0.Snapshot().RxPause[3] {
		t.Errorf("capture %d pause frames, twin rx_prio3_pause %d", ps.Frames, h0.Snapshot().RxPause[3])
	}
	n := checkFlows(t, tw, a, func(c nic.ConnInfo) bool { return c.Src == 0 })
	var wire int64
	for _, f := range a.Flows {
		if f.Key.Src == HostIP(0) {
			wire += f.Bytes + 4*f.Packets // the capture holds frames without FCS
		}
	}
	if wire != h0.Snapshot().TxPrioBytes[3] {
		t.Errorf("captured frame bytes + FCS %d, twin tx_prio3_bytes %d", wire, h0.Snapshot().TxPrioBytes[3])
	}
	t.Logf("h0: %d pause frames, capture %v vs twin %v of pause; %d flow(s) exact", ps.Frames, *ps.Effective, twin, n)
}

// Captured at the congested switch's trunk port, every flow crossing the
// trunk matches, and the pauses the port sends are the twin's
// tx_prio3_pause.
func TestTwinCaptureTrunk(t *testing.T) {
	tw, _, a := capturedRun(t, "right:2")
	pt, _ := tw.Port("right:2")
	n := checkFlows(t, tw, a, func(nic.ConnInfo) bool { return true })
	var frames int64
	for _, p := range a.Pause {
		if mac := PortMAC(pt); p.SrcMAC == net.HardwareAddr(mac[:]).String() && p.Priority == "3" {
			frames += p.Frames
		}
	}
	if frames != pt.Snapshot().TxPause[3] {
		t.Errorf("capture %d pause frames from %s, twin tx_prio3_pause %d", frames, pt.Name(), pt.Snapshot().TxPause[3])
	}
	t.Logf("trunk: %d flows exact, %d pause frames", n, frames)
}

// Wireshark reads what the twin writes: on every packet of a twin capture,
// tshark agrees with our decoders on BTH opcode, PSN, dest QP, ack-request,
// P_Key, AETH, RETH length, and PFC class-enable vector and quanta.
func TestTwinCaptureTshark(t *testing.T) {
	tshark.Require(t)
	_, path, _ := capturedRun(t, "right:2")
	tsharkAgrees(t, path)
}

// tsharkAgrees fails t unless tshark decodes every packet of the capture at
// path as our decoders do, on every field oracle compares.
func tsharkAgrees(t *testing.T, path string) {
	t.Helper()
	v := tshark.Require(t)
	res, err := oracle.Check(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range res.Mismatches {
		t.Error(m)
	}
	if res.Agree != res.Packets || res.Packets == 0 {
		t.Errorf("tshark: %d of %d packets agree", res.Agree, res.Packets)
	}
	t.Logf("%s: %d/%d packets agree with tshark on all %d fields", v, res.Agree, res.Packets, len(oracle.Fields))
}

// The lossy-link example captured at the sender's port: the capture
// analysis finds exactly the go-back-N episodes the NIC counters report —
// one NAK episode per packet_seq_err, one timeout episode per
// local_ack_timeout_err — and exactly the packets the NIC sent again; and
// Wireshark decodes every frame as the twin wrote it.
func TestLossyLinkCapture(t *testing.T) {
	s := example(t, "lossy-link")
	s.Flows[0].Bytes = 64 * unit.MiB
	tw, path, a := capturedScenario(t, s, "h0:0")
	var nak, timeout, retx int64
	for _, f := range a.Flows {
		if f.Key.Src == HostIP(0) {
			nak += f.Requester.NAKEpisodes
			timeout += f.Requester.TimeoutEpisodes
			retx += f.Requester.RetransPackets
		}
	}
	hw := tw.NICs[0].HW
	if nak != hw.PacketSeqErr || timeout != hw.LocalAckTimeoutErr || retx != hw.Retransmitted || nak == 0 {
		t.Errorf("capture: %d NAK episodes, %d timeout episodes, %d packets resent; NIC: packet_seq_err %d, local_ack_timeout_err %d, %d resent",
			nak, timeout, retx, hw.PacketSeqErr, hw.LocalAckTimeoutErr, hw.Retransmitted)
	}
	t.Logf("capture and NIC agree: %d NAK episodes, %d timeout episodes, %d packets resent", nak, timeout, retx)
	tsharkAgrees(t, path)
}
