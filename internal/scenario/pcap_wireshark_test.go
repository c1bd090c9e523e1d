package scenario

import (
	"bytes"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"rocelab/internal/capture"
	"rocelab/internal/unit"
	"rocelab/internal/wire/tshark"
)

// twinCapture runs single-flow (64 KiB) with a tap on h0's NIC, named as
// its per-port file is, at snaplen.
func twinCapture(t *testing.T, snaplen int) (string, []byte) {
	t.Helper()
	s := example(t, "single-flow")
	s.Flows[0].Bytes = 64 * unit.KiB
	_, path, data := captureRun(t, s, "h0-p0", snaplen)
	return path, data
}

// The twin's capture names its hosts (Name Resolution Block) and states
// its link speed (if_speed): rocelab capture needs no --link-speed and
// shows h0, and tshark resolves the same names.
func TestTwinCaptureNamesAndSpeed(t *testing.T) {
	path, data := twinCapture(t, DefaultSnaplen)
	a, err := capture.Analyze(path, bytes.NewReader(data), capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a.LinkSpeed != 100*unit.Gbps || a.LinkSpeedSource != "if_speed" || a.HostNames["10.0.0.1"] != "h0" || a.HostNames["10.0.0.2"] != "h1" {
		t.Errorf("link speed %v (%s), names %v", a.LinkSpeed, a.LinkSpeedSource, a.HostNames)
	}
	if got := a.FlowName(a.Flows[0].Key); got != "h0 > h1 qp 0x000100" {
		t.Errorf("flow named %q", got)
	}
	tshark.Require(t)
	p, _ := tshark.Path()
	// -N n: resolve addresses with the names the capture carries.
	out, err := exec.Command(p, "-r", path, "-N", "n", "-T", "fields", "-e", "ip.src_host", "-e", "ip.dst_host", "-c", "1").Output()
	if err != nil || strings.TrimSpace(string(out)) != "h0\th1" {
		t.Errorf("tshark -N n names %q (%v)", out, err)
	}
	if cap, err := exec.LookPath("capinfos"); err == nil {
		out, _ := exec.Command(cap, path).Output()
		if !strings.Contains(string(out), "Speed = 100000000000") || !strings.Contains(string(out), "Name = h0/p0") {
			t.Errorf("capinfos:\n%s", out)
		}
	}
}

// Wireshark reads the default capture without complaint: whole frames, so
// no frame is marked malformed, and each frame's captured length is its
// length. A capture cut to MinSnaplen keeps every header whole for tshark,
// and records each frame's original length.
func TestTwinCaptureWiresharkClean(t *testing.T) {
	tshark.Require(t)
	p, _ := tshark.Path()
	path, _ := twinCapture(t, DefaultSnaplen)
	out, err := exec.Command(p, "-n", "-r", path).Output()
	if err != nil || strings.Count(string(out), "RDMA Write") != 16 {
		t.Fatalf("tshark: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "Malformed") {
		t.Errorf("tshark marks frames malformed at the default snaplen:\n%s", out)
	}
	for _, snap := range []int{DefaultSnaplen, MinSnaplen(false)} {
		if snap != DefaultSnaplen {
			path, _ = twinCapture(t, snap)
		}
		rows, err := tshark.Fields(path, "frame.len", "frame.cap_len", "infiniband.bth.psn", "infiniband.reth.dmalen", "infiniband.bth.opcode")
		if err != nil {
			t.Fatal(err)
		}
		psn := 0
		for i, r := range rows {
			n, _ := strconv.Atoi(r[0])
			want := n
			if snap > 0 {
				want = min(n, snap)
			}
			if r[1] != strconv.Itoa(want) {
				t.Errorf("snaplen %d, frame %d: len %s, cap_len %s", snap, i+1, r[0], r[1])
			}
			if r[4] == "17" { // ACK: the responder's PSN, not the data's
				continue
			}
			if r[2] != strconv.Itoa(psn) || n < 4154 {
				t.Errorf("snaplen %d, frame %d: len %s, psn %s, want psn %d of a 4 KiB write", snap, i+1, r[0], r[2], psn)
			}
			psn++
		}
		if psn != 16 {
			t.Errorf("snaplen %d: %d data frames", snap, psn)
		}
		if rows[0][3] != "65536" {
			t.Errorf("snaplen %d: RETH DMA length %q", snap, rows[0][3])
		}
	}
}
