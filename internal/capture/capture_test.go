package capture

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"rocelab/internal/unit"
	"rocelab/internal/wire/tshark"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// golden compares got with testdata/golden/name, or rewrites it.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file; run go test -update and review the diff\n--- got\n%s", name, got)
	}
}

// TestRealCorpus reads the tcpdump test-suite captures (LLDP/DCBX, no
// RoCE) and checks that they are reported as such.
func TestRealCorpus(t *testing.T) {
	files, err := filepath.Glob("../../testdata/corpus/pcap/*.pcap")
	if err != nil || len(files) != 4 {
		t.Fatalf("corpus: %v %v", files, err)
	}
	var out bytes.Buffer
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		a, err := Analyze(filepath.Base(path), f, Options{})
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if a.RoCEPackets != 0 || a.MACControlPackets != 0 || a.DecodeErrors != 0 || a.LLDP == nil || a.LLDP.Frames == 0 {
			t.Errorf("%s: roce %d macc %d errors %d lldp %+v", path, a.RoCEPackets, a.MACControlPackets, a.DecodeErrors, a.LLDP)
		}
		if !strings.HasPrefix(a.Notes[0], "no RoCEv2 packets") {
			t.Errorf("%s: first note %q", path, a.Notes[0])
		}
		if err := a.WriteText(&out); err != nil {
			t.Fatal(err)
		}
		out.WriteString("\n")
	}
	golden(t, "corpus.txt", out.Bytes())
}

// TestLLDPMatchesTshark checks the PFC enable bits read from the DCBX TLVs
// against tshark's decoding of dcb_pfc.pcap.
func TestLLDPMatchesTshark(t *testing.T) {
	tshark.Require(t)
	path := "../../testdata/corpus/pcap/dcb_pfc.pcap"
	var fields []string
	for p := range 8 {
		fields = append(fields, fmt.Sprintf("lldp.dcbx.feature.pfc.prio%d", p))
	}
	rows, err := tshark.Fields(path, fields...)
	if err != nil {
		t.Fatal(err)
	}
	var enabled []uint64
	for _, r := range rows {
		if r[0] == "" {
			continue
		}
		var mask uint64
		for p, v := range r {
			if v == "1" || v == "True" {
				mask |= 1 << p
			}
		}
		enabled = append(enabled, mask)
	}
	f, _ := os.Open(path)
	defer f.Close()
	a, err := Analyze("dcb_pfc.pcap", f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(enabled) != 4 || int64(len(enabled)) != a.LLDP.TLVs["PFC Configuration"] {
		t.Fatalf("tshark PFC TLVs %v, ours %v", enabled, a.LLDP.TLVs)
	}
	for _, v := range enabled {
		if v != 0x34 { // priorities 2, 4, 5
			t.Errorf("tshark PFC enable bits %#x", v)
		}
	}
	for _, p := range a.LLDP.PFCEnabled {
		if !strings.Contains(p, ": 2,4,5 ") {
			t.Errorf("ours: %s", p)
		}
	}
}

func TestGoldenText(t *testing.T) {
	s := gbnScenario()
	for _, p := range pfcScenario(0).pkts {
		p.t += 300 * unit.Microsecond
		s.pkts = append(s.pkts, p)
	}
	a, err := Analyze("synthetic-gbn-pfc.pcap", bytes.NewReader(s.pcap()), Options{LinkSpeed: 100 * unit.Gbps, Bin: 50 * unit.Microsecond})
	if err != nil {
		t.Fatal(err)
	}
	var text, js bytes.Buffer
	if err := a.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := a.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	golden(t, "synthetic-gbn-pfc.txt", text.Bytes())
	golden(t, "synthetic-gbn-pfc.json", js.Bytes())
}

func TestBadInput(t *testing.T) {
	good := gbnScenario().pcap()
	for name, c := range map[string]struct {
		data []byte
		want string
	}{
		"empty":        {nil, "not a pcap or pcapng file"},
		"text":         {[]byte("NCCL INFO hello\n"), "bad magic 0x4c43434e"},
		"cut header":   {good[:20], "pcap: bad file header"},
		"bad linktype": {append(append([]byte(nil), good[:20]...), 105, 0, 0, 0), "link type 105"},
	} {
		_, err := Analyze("in.pcap", bytes.NewReader(c.data), Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "in.pcap: ") {
			t.Errorf("%s: error %v, want one naming the file and %q", name, err, c.want)
		}
	}
}

// TestPerQPAgainstTshark counts packets per (src, dst, dest QP) with
// tshark on a generated capture and compares with the analysis.
func TestPerQPAgainstTshark(t *testing.T) {
	tshark.Require(t)
	for _, ng := range []bool{false, true} {
		s := mixScenario(20000, 7)
		data, name := s.pcap(), "mix.pcap"
		if ng {
			data, name = s.pcapng([]uint64{100e9}, false), "mix.pcapng"
		}
		path := writeTemp(t, name, data)
		rows, err := tshark.Fields(path, "ip.src", "ipv6.src", "ip.dst", "ipv6.dst", "infiniband.bth.destqp")
		if err != nil {
			t.Fatal(err)
		}
		theirs := map[string]int64{}
		for _, r := range rows {
			if r[4] == "" {
				continue
			}
			qpn, _ := strconv.ParseUint(r[4], 0, 32)
			theirs[fmt.Sprintf("%s%s > %s%s qp 0x%06x", r[0], r[1], r[2], r[3], qpn)]++
		}
		a := analyze(t, data, Options{})
		ours := map[string]int64{}
		for _, f := range a.Flows {
			ours[f.Key.String()] = f.Packets
		}
		agree := 0
		for k, v := range theirs {
			if ours[k] == v {
				agree++
			} else {
				t.Errorf("%s %s: tshark %d packets, ours %d", name, k, v, ours[k])
			}
		}
		if len(ours) != len(theirs) {
			t.Errorf("%s: tshark %d flows, ours %d", name, len(theirs), len(ours))
		}
		t.Logf("%s: %d packets, %d flows, %d/%d per-QP packet counts agree with tshark", name, len(rows), len(theirs), agree, len(theirs))
	}
}

// FuzzAnalyze feeds arbitrary bytes to the reader and analysis: never a
// panic, and the flows account for every RoCE packet.
func FuzzAnalyze(f *testing.F) {
	gbn := gbnScenario()
	for i := range gbn.pkts {
		gbn.pkts[i].data = gbn.pkts[i].data[:min(len(gbn.pkts[i].data), 100)]
	}
	f.Add(gbn.pcap())
	f.Add(pfcScenario(1).pcapng([]uint64{1e9, 100e9}, true))
	f.Add(mixScenario(50, 1).pcap())
	f.Add(cookedPcap(pfcScenario(0), false))
	f.Add(cookedPcap(gbn, true))
	raw4, _ := rawPcaps(gbn, 101)
	f.Add(raw4)
	raw6, _ := rawPcaps(gbn, 229) // IPv4 packets under the IPv6 link type
	f.Add(raw6)
	var twin bytes.Buffer
	w, _ := NewWriter(&twin, "fuzz seed", Interface{Name: "h0/p0", Speed: 100 * unit.Gbps}, []HostName{{Addr: netip.MustParseAddr("10.0.0.1"), Name: "h0"}})
	for _, p := range gbn.pkts[:4] {
		w.WriteFrame(p.t, p.data, p.wireLen, true)
	}
	w.Flush()
	f.Add(twin.Bytes())
	f.Add(twin.Bytes()[:twin.Len()-9])
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := Analyze("fuzz", bytes.NewReader(data), Options{LinkSpeed: 100 * unit.Gbps})
		if err != nil {
			return
		}
		if tr := a.Truncated; tr != nil && (tr.Offset > tr.Size || int64(tr.LastPacket) != a.Packets) {
			t.Fatalf("truncation %+v after %d packets", tr, a.Packets)
		}
		var n int64
		for _, fl := range a.Flows {
			n += fl.Packets
		}
		if n != a.RoCEPackets {
			t.Fatalf("flows hold %d packets, RoCE packets %d", n, a.RoCEPackets)
		}
		if err := a.WriteText(io.Discard); err != nil {
			t.Fatal(err)
		}
	})
}

// TestRealRoCECapture reads a public capture of two RC queue pairs (one
// direction sends, the other acknowledges) against what tshark shows of
// it: 105 of 123 frames are RoCEv2, no PSN gap, no retransmission.
func TestRealRoCECapture(t *testing.T) {
	a := analyzeCorpus(t, "pcap-roce/rc-send-two-qps-oferby-proxy.pcap")
	if a.Packets != 123 || a.RoCEPackets != 105 || a.DecodeErrors != 0 || a.BackwardTime != 1 || len(a.Flows) != 2 {
		t.Fatalf("packets %d roce %d errors %d backwards %d flows %d", a.Packets, a.RoCEPackets, a.DecodeErrors, a.BackwardTime, len(a.Flows))
	}
	var pkts int64
	for _, fl := range a.Flows {
		pkts += fl.Packets
		if fl.Requester.Gaps != 0 || fl.Requester.RetransPackets != 0 {
			t.Errorf("flow %+v: gaps or retransmissions in a clean capture", fl)
		}
	}
	if pkts != 105 {
		t.Errorf("flows hold %d packets, want 105", pkts)
	}
}

// TestRealCNPCapture reads one CNP a ConnectX-4 Lx sent (scapy's test
// holds the frame's bytes; the pcap around them is ours): counted as a
// CNP of the flow toward QP 0x118, not as a request or a response, on
// DSCP 48, with no CE mark.
func TestRealCNPCapture(t *testing.T) {
	a := analyzeCorpus(t, "pcap-roce/cnp-cx4-lx-one-packet-scapy-hexcap.pcap")
	if a.Packets != 1 || a.RoCEPackets != 1 || a.DecodeErrors != 0 || len(a.Flows) != 1 {
		t.Fatalf("packets %d roce %d errors %d flows %d", a.Packets, a.RoCEPackets, a.DecodeErrors, len(a.Flows))
	}
	fl := a.Flows[0]
	if fl.Key.QPN != 0x118 || fl.CNPs != 1 || fl.Requests != 0 || fl.Responses != 0 || fl.CE != 0 || fl.DSCP != 48 {
		t.Errorf("flow %+v", fl)
	}
}

// analyzeCorpus analyzes a capture of the repository's corpus.
func analyzeCorpus(t *testing.T, rel string) *Analysis {
	t.Helper()
	f, err := os.Open("../../testdata/corpus/" + rel)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a, err := Analyze(filepath.Base(rel), f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// RoCE v1 frames (EtherType 0x8915), here the real capture's RoCE packets
// rewritten as v1 in a SYNTHETIC fixture, are counted as such with the
// first one's packet number, as many as tshark dissects as RoCE; no RoCEv2
// is read from them.
func TestRoCEv1Counted(t *testing.T) {
	const rel = "../synthetic/pcap-roce-v1-of-oferby-rc-send-synthetic.pcap"
	a := analyzeCorpus(t, rel)
	if a.RoCEPackets != 0 || a.RoCEv1 != 105 || a.RoCEv1First != 15 || a.Other["RoCE v1 (EtherType 0x8915)"] != 105 || a.DecodeErrors != 0 {
		t.Errorf("roce %d, v1 %d first %d, other %v, errors %d", a.RoCEPackets, a.RoCEv1, a.RoCEv1First, a.Other, a.DecodeErrors)
	}
	if want := []netip.Addr{netip.MustParseAddr("192.168.70.4"), netip.MustParseAddr("192.168.70.6")}; !slices.Equal(a.RoCEv1Sources, want) {
		t.Errorf("v1 source GIDs %v, want %v (tshark infiniband.grh.sgid)", a.RoCEv1Sources, want)
	}
	if _, err := tshark.Path(); err != nil {
		return
	}
	rows, err := tshark.Fields("../../testdata/corpus/"+rel, "infiniband.bth.opcode")
	if err != nil {
		t.Fatal(err)
	}
	n := int64(0)
	for _, r := range rows {
		if r[0] != "" {
			n++
		}
	}
	if n != a.RoCEv1 {
		t.Errorf("tshark dissects %d RoCE frames, we count %d RoCE v1", n, a.RoCEv1)
	}
}
