package doctor

import (
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"rocelab/internal/roce"
	"rocelab/internal/unit"
	"rocelab/internal/wire"
)

// writeSyntheticCapture writes a synthetic pcap: QP 0x11 from A to B with
// a NAK-triggered and a timeout go-back-N, a CNP storm (CNP every 10 us)
// answering CE marks, and PFC XOFF frames on priority 3.
func writeSyntheticCapture(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "synthetic-roce.pcap")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := pcapgo.NewWriterNanos(f)
	if err := w.WriteFileHeader(100, layers.LinkTypeEthernet); err != nil {
		t.Fatal(err)
	}
	ab := wire.Endpoints{SrcMAC: [6]byte{2, 0, 0, 0, 0, 0xa}, DstMAC: [6]byte{2, 0, 0, 0, 0, 0xb},
		SrcIP: netip.MustParseAddr("10.0.0.1"), DstIP: netip.MustParseAddr("10.0.0.2"), SrcPort: 0xc000, DSCP: 26, ECN: wire.ECT0}
	ba := ab.Reversed()
	var b wire.Builder
	t0 := time.Unix(1700000000, 0)
	emit := func(at time.Duration, frame []byte, n int) {
		if err := w.WritePacket(gopacket.CaptureInfo{Timestamp: t0.Add(at), CaptureLength: len(frame), Length: n}, frame); err != nil {
			t.Fatal(err)
		}
	}
	frame := func(at time.Duration, e wire.Endpoints, op roce.Opcode, qpn, psn uint32, syn uint8) {
		tr := wire.Transport{BTH: wire.BTH{Opcode: op, DestQP: qpn, PSN: psn}, PayloadLen: 1024}
		if op.Headers()&roce.HasPayload == 0 {
			tr.PayloadLen = 0
		}
		tr.AETH.Syndrome = syn
		frame, n, err := b.RoCE(&e, &tr, 100)
		if err != nil {
			t.Fatal(err)
		}
		emit(at, frame, n)
	}
	us := time.Microsecond
	ce := ab
	ce.ECN = wire.CE
	for i := range 20 { // packets 1-40: writes (CE) and CNPs
		frame(time.Duration(i)*10*us, ce, roce.OpWriteMiddle, 0x11, uint32(i), 0)
		frame(time.Duration(i)*10*us+5*us, ba, roce.OpCNP, 0x22, 0, 0)
	}
	frame(205*us, ba, roce.OpAcknowledge, 0x22, 15, roce.SyndromePSNSequenceError) // 41
	frame(206*us, ab, roce.OpWriteMiddle, 0x11, 15, 0)                             // 42: NAK episode
	frame(207*us, ab, roce.OpWriteMiddle, 0x11, 20, 0)                             // 43
	frame(900*us, ab, roce.OpWriteMiddle, 0x11, 20, 0)                             // 44: timeout episode
	frame(901*us, ab, roce.OpWriteMiddle, 0x11, 21, 0)                             // 45
	for i := range 3 {                                                             // 46-48
		frame, n := b.PFC([6]byte{2, 0, 0, 0, 0, 0xb}, 0x08, [8]uint16{3: 0xffff}, 0)
		emit(time.Duration(1000+i*100)*us, frame, n)
	}
	return path
}

func TestCaptureFindings(t *testing.T) {
	path := writeSyntheticCapture(t)
	rep := Diagnose([]string{path}, nil, Options{NICSpeed: 100 * unit.Gbps})
	if len(rep.Inputs) != 1 || rep.Inputs[0].Type != "pcap" || rep.Inputs[0].Error != "" {
		t.Fatalf("inputs %+v", rep.Inputs)
	}
	re := find(rep.Findings, "capture.retransmission")
	if re == nil || re.Severity != Error || len(re.Evidence) != 2 || re.Evidence[0].Line != 42 || re.Evidence[1].Line != 44 {
		t.Fatalf("retransmission finding %+v", re)
	}
	if !strings.Contains(re.Evidence[1].Text, "inferred ACK timeout after 693us idle") || !strings.Contains(re.Evidence[0].Text, "NAK PSN sequence error at packet 41") {
		t.Errorf("episode evidence %v", re.Evidence)
	}
	cnp := find(rep.Findings, "capture.cnp.storm")
	if cnp == nil || cnp.Severity != Warn || !strings.Contains(cnp.Evidence[0].Text, "20 CNPs received") {
		t.Errorf("CNP finding %+v", cnp)
	}
	pfc := find(rep.Findings, "capture.pfc.pause")
	if pfc == nil || pfc.Evidence[0].Line != 46 || !strings.Contains(pfc.Evidence[0].Text, "priority 3: 3 pause frames (3 XOFF, 0 XON)") ||
		!strings.Contains(pfc.Evidence[0].Text, "paused 535.5392us") {
		t.Errorf("PFC finding %+v", pfc)
	}
	ecn := find(rep.Findings, "capture.ecn.marked")
	if ecn == nil || ecn.Severity != Info || !strings.Contains(ecn.Title, "20 of 45 RoCE packets carry ECN CE") {
		t.Errorf("ECN finding %+v", ecn)
	}
	if find(rep.Findings, "capture.no_roce") != nil {
		t.Error("capture.no_roce on a RoCE capture")
	}
	if rep.ExitCode() != 1 {
		t.Errorf("exit code %d, want 1 (error-level finding)", rep.ExitCode())
	}
}

func TestCaptureCorpusNoRoCE(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/corpus/pcap/*.pcap")
	rep := Diagnose(files, nil, Options{})
	n := 0
	for _, f := range rep.Findings {
		if f.ID != "capture.no_roce" {
			t.Errorf("unexpected finding %s: %s", f.ID, f.Title)
			continue
		}
		n++
		if !strings.Contains(f.Evidence[0].Text, "LLDP") || len(f.Evidence) != 2 || !strings.Contains(f.Evidence[1].Text, "DCBX TLVs") {
			t.Errorf("evidence %v", f.Evidence)
		}
	}
	if n != 4 {
		t.Errorf("%d capture.no_roce findings, want 4", n)
	}
	for _, in := range rep.Inputs {
		if in.Type != "pcap" || in.Error != "" {
			t.Errorf("input %+v", in)
		}
	}
}

// A capture whose records are corrupt (here the first record claims more
// bytes than the snaplen) is unreadable, not truncated.
func TestCaptureUnreadable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "corrupt.pcap")
	data, _ := os.ReadFile(writeSyntheticCapture(t))
	data[24+11] = 0x7f // caplen of packet 1: about 2 GB
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	rep := Diagnose([]string{path}, nil, Options{})
	if rep.Inputs[0].Error == "" || !strings.Contains(rep.Inputs[0].Error, "packet 1") || rep.ExitCode() != 2 {
		t.Errorf("inputs %+v exit %d", rep.Inputs, rep.ExitCode())
	}
}

// cutCapture copies a capture without its last cut bytes, as a capture
// whose writer was killed before it flushed.
func cutCapture(t *testing.T, path string, cut int) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "cut-"+filepath.Base(path))
	if err := os.WriteFile(out, data[:len(data)-cut], 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// A capture that breaks off is diagnosed from its whole packets, with a
// warning that says where it ends, not refused as unreadable.
func TestCaptureTruncated(t *testing.T) {
	full := Diagnose([]string{writeSyntheticCapture(t)}, nil, Options{NICSpeed: 100 * unit.Gbps})
	rep := Diagnose([]string{cutCapture(t, writeSyntheticCapture(t), 7)}, nil, Options{NICSpeed: 100 * unit.Gbps})
	if rep.ExitCode() != 1 || rep.Inputs[0].Error != "" || rep.Inputs[0].Type != "pcap" {
		t.Fatalf("exit %d, input %+v", rep.ExitCode(), rep.Inputs[0])
	}
	f := find(rep.Findings, "capture.truncated")
	if f == nil || f.Severity != Warn || !strings.Contains(f.Title, "ends inside a record at byte offset") || f.Evidence[0].Line == 0 {
		t.Fatalf("capture.truncated: %+v", f)
	}
	// Every other finding of the whole capture is still made from the cut one.
	for _, w := range full.Findings {
		if find(rep.Findings, w.ID) == nil {
			t.Errorf("%s is lost when the capture is cut", w.ID)
		}
	}
}

// A real RoCEv2 capture of two healthy RC queue pairs (one with a
// timestamp stepping back): read as RoCE, nothing raised. A capture at a
// mirror session's collector holds the RoCE inside ERSPAN: it read as "no
// RoCEv2 traffic" and told the user to take a port mirror; the same real
// frames, each in a SYNTHETIC ERSPAN II header, read as they do unwrapped.
func TestHealthyRoCECapture(t *testing.T) {
	for _, rel := range []string{"corpus/pcap-roce/rc-send-two-qps-oferby-proxy.pcap", "synthetic/pcap-erspan2-mirror-of-oferby-rc-send-synthetic.pcap"} {
		rep := Diagnose([]string{nicTestdata(rel)}, nil, Options{})
		if len(rep.Inputs) != 1 || rep.Inputs[0].Type != "pcap" || rep.Inputs[0].Error != "" {
			t.Fatalf("%s: inputs %+v", rel, rep.Inputs)
		}
		for _, f := range rep.Findings {
			t.Errorf("%s: finding on a healthy capture: %s %s", rel, f.ID, f.Title)
		}
	}
}

// A capture whose RDMA traffic is RoCE v1 (the real capture's packets
// rewritten as v1 in a SYNTHETIC fixture) was told to capture the RDMA
// traffic itself, as if tcpdump had seen kernel traffic only: it is told
// that the queue pairs run on a RoCE v1 GID, naming the v1 source GIDs, at
// the first v1 frame (tshark: packet 15), with the v2 GID index by NCCL's
// own variables as the fix; capture.no_roce does not fire.
func TestCaptureRoCEv1(t *testing.T) {
	rep := Diagnose([]string{nicTestdata(roceV1Fixture)}, nil, Options{})
	f := find(rep.Findings, "capture.roce_v1")
	if f == nil || !strings.Contains(f.Title, "RoCE v1 traffic (105 frames, EtherType 0x8915, from source GID 192.168.70.4, 192.168.70.6) and no RoCEv2") ||
		!strings.Contains(f.Fix, "NCCL_IB_ROCE_VERSION_NUM") || !strings.Contains(f.Fix, "changes nothing for NCCL") ||
		f.Evidence[len(f.Evidence)-1].Line != 15 || strings.Contains(f.Mechanism, "tcpdump on the Ethernet netdev") {
		t.Fatalf("finding %+v", f)
	}
	if g := find(rep.Findings, "capture.no_roce"); g != nil {
		t.Errorf("no_roce beside roce_v1: %s", g.Title)
	}
}

// roceV1Fixture is the SYNTHETIC RoCE v1 rewrite of the real oferby
// capture.
const roceV1Fixture = "synthetic/pcap-roce-v1-of-oferby-rc-send-synthetic.pcap"

// A capture with RoCEv2 packets and RoCE v1 frames (the real oferby
// capture followed by 5 frames of its SYNTHETIC v1 rewrite, written here)
// is told that some queue pairs run on a v1 GID, not that all do, and the
// RoCEv2 traffic is still judged; without v1 frames nothing is said.
func TestCaptureRoCEv1BesideV2(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mixed.pcap")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := pcapgo.NewWriter(out)
	if err := w.WriteFileHeader(65535, layers.LinkTypeEthernet); err != nil {
		t.Fatal(err)
	}
	var last time.Time
	copyFrames := func(rel string, keep func([]byte) bool, limit int) {
		in, err := os.Open(nicTestdata(rel))
		if err != nil {
			t.Fatal(err)
		}
		defer in.Close()
		r, err := pcapgo.NewReader(in)
		if err != nil {
			t.Fatal(err)
		}
		for n := 0; n < limit; {
			data, ci, err := r.ReadPacketData()
			if err != nil {
				return
			}
			if !keep(data) {
				continue
			}
			if ci.Timestamp.Before(last) {
				ci.Timestamp = last.Add(time.Millisecond)
			}
			last = ci.Timestamp
			if err := w.WritePacket(ci, data); err != nil {
				t.Fatal(err)
			}
			n++
		}
	}
	copyFrames("corpus/pcap-roce/rc-send-two-qps-oferby-proxy.pcap", func([]byte) bool { return true }, 1<<30)
	before := Diagnose([]string{path}, nil, Options{})
	copyFrames(roceV1Fixture, func(d []byte) bool { return len(d) > 14 && d[12] == 0x89 && d[13] == 0x15 }, 5)
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	if f := find(before.Findings, "capture.roce_v1"); f != nil {
		t.Fatalf("v1 finding on a RoCEv2 capture: %s", f.Title)
	}
	rep := Diagnose([]string{path}, nil, Options{})
	f := find(rep.Findings, "capture.roce_v1")
	if f == nil || !strings.Contains(f.Title, "holds RoCE v1 frames (5 frames, EtherType 0x8915, from source GID 192.168.70.4, 192.168.70.6) beside 105 packets of RoCEv2: some queue pairs") ||
		f.Evidence[len(f.Evidence)-1].Line != 124 {
		t.Fatalf("finding %+v", f)
	}
	if g := find(rep.Findings, "capture.no_roce"); g != nil {
		t.Errorf("no_roce on a capture with RoCEv2: %s", g.Title)
	}
}

// A capture taken on an IPoIB netdev (the tcpdump test suite's real one)
// is not read, and the finding says what it is, an InfiniBand capture,
// with how to capture and judge an InfiniBand fabric, not the generic
// "pass it as text".
func TestCaptureIPoIBUnreadable(t *testing.T) {
	rep := Diagnose([]string{nicTestdata("corpus/pcap-ipoib/ipoib.pcap")}, nil, Options{})
	f := find(rep.Findings, "input.unreadable")
	if f == nil || !strings.Contains(f.Title, "an IP over InfiniBand capture (link type 242") || !strings.Contains(f.Mechanism, "never the RDMA traffic") ||
		!strings.Contains(f.Fix, "ibdump") || !strings.Contains(f.Fix, "LINK_TYPE_P1=2") || strings.Contains(f.Fix, "plain text") {
		t.Fatalf("finding %+v", f)
	}
}
