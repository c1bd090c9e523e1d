package doctor

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writePortDumps writes one synthetic mlx5 ethtool -S file per port, in the
// form the twin writes: all traffic on priority 3 with PFC on 3, and
// discards[i] packets dropped on port i.
func writePortDumps(t *testing.T, discards []int) string {
	t.Helper()
	dir := t.TempDir()
	for i, d := range discards {
		var b strings.Builder
		fmt.Fprintf(&b, "# synthetic: rocelab test fixture, not a real artifact. Port p%d.\n$ ethtool -S p%d\nNIC statistics:\n", i, i)
		fmt.Fprintf(&b, "     rx_packets_phy: 100000\n     rx_discards_phy: %d\n", d)
		for p := 0; p < 8; p++ {
			bytes := 0
			if p == 3 {
				bytes = 4000000 + i
			}
			fmt.Fprintf(&b, "     rx_prio%d_bytes: %d\n     rx_prio%d_packets: %d\n     tx_prio%d_bytes: %d\n     tx_prio%d_packets: 0\n", p, bytes, p, bytes/4000, p, bytes, p)
			if p == 3 {
				fmt.Fprintf(&b, "     rx_prio3_discards: %d\n     rx_prio3_pause: %d\n     tx_prio3_pause: 0\n", d, 300+i)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("p%02d.txt", i)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestGroupManyPorts(t *testing.T) {
	dir := writePortDumps(t, make([]int, 40))
	rep := Diagnose([]string{dir}, nil, Options{})
	// JSON: one finding per port, each naming its port.
	var n int
	subjects := map[string]bool{}
	for _, f := range rep.Findings {
		if f.ID == "counters.pfc.ok" {
			n++
			subjects[f.Subject] = true
		}
	}
	if n != 40 || len(subjects) != 40 {
		t.Fatalf("%d pfc.ok findings over %d subjects, want 40", n, len(subjects))
	}
	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var decoded struct {
		Findings []struct {
			ID, Subject string
		}
	}
	if err := json.Unmarshal(js.Bytes(), &decoded); err != nil {
		t.Fatal(err)
	}
	if len(decoded.Findings) != len(rep.Findings) || decoded.Findings[0].Subject == "" {
		t.Errorf("JSON findings %d (want %d), first %+v", len(decoded.Findings), len(rep.Findings), decoded.Findings[0])
	}
	// Text: one entry naming how many ports and every port's name.
	var b bytes.Buffer
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	if c := strings.Count(text, "(counters.pfc.ok)"); c != 1 {
		t.Errorf("%d pfc.ok entries in the text, want 1:\n%s", c, text)
	}
	if !strings.Contains(text, "[INFO] Traffic rides the PFC priority: 40 ports (p0, p1, p2, p3 and 36 more)  (counters.pfc.ok)") {
		t.Errorf("group title missing:\n%s", text)
	}
	if !strings.Contains(text, "p0: 100% of bytes on PFC priority 3; PFC pause frames: rx_prio3_pause 300, tx_prio3_pause 0") ||
		!strings.Contains(text, "... and 32 more: p8, p9, p10,") || !strings.Contains(text, "p39 (each in --json)") {
		t.Errorf("members not listed:\n%s", text)
	}
	if !strings.Contains(text, "\n0 error, 0 warn, 1 info (40 findings by subject in --json: 0 error, 0 warn, 40 info)\n") {
		t.Errorf("counts: want the one entry shown, then the 40 findings:\n%s", text)
	}
}

// Two ports with different drops are two facts: the group shows both
// ports with their numbers, and the fix names no single port.
func TestGroupKeepsFacts(t *testing.T) {
	dir := writePortDumps(t, []int{500, 700, 0})
	rep := Diagnose([]string{dir}, nil, Options{})
	var b bytes.Buffer
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	for _, s := range []string{
		"[WARN] NIC dropped packets: 2 ports (p0, p1)  (counters.discards)",
		"p0: NIC dropped packets: rx_discards_phy 500, rx_prio3_discards 500 (rx_discards_phy: 0.5% of rx_packets_phy)",
		"p1: NIC dropped packets: rx_discards_phy 700, rx_prio3_discards 700 (rx_discards_phy: 0.7% of rx_packets_phy)",
		"mlnx_qos -i <if> shows the NIC side",
	} {
		if !strings.Contains(text, s) {
			t.Errorf("text lacks %q:\n%s", s, text)
		}
	}
	// Groups keep the order by layer, severity, id.
	if strings.Index(text, "(counters.discards)") > strings.Index(text, "(counters.pfc.ok)") {
		t.Errorf("error group after info group:\n%s", text)
	}
	// A single finding is shown as it is, with its own names.
	rep = Diagnose([]string{filepath.Join(dir, "p00.txt")}, nil, Options{})
	b.Reset()
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "[WARN] p0: NIC dropped packets") || !strings.Contains(b.String(), "mlnx_qos -i p0 shows") {
		t.Errorf("single finding:\n%s", b.String())
	}
}

// Findings whose mechanisms differ (here: a before/after pair and a single
// dump) are not grouped.
func TestGroupNeedsSameMechanism(t *testing.T) {
	fs := []Finding{
		Finding{ID: "x", Title: "a: t", Mechanism: "m1 a", Fix: "f a"}.per("a", "port", "G", "a", "<if>"),
		Finding{ID: "x", Title: "b: t", Mechanism: "m1 b", Fix: "f b"}.per("b", "port", "G", "b", "<if>"),
		Finding{ID: "x", Title: "c: t", Mechanism: "m2 c", Fix: "f c"}.per("c", "port", "G", "c", "<if>"),
		{ID: "x", Title: "whole incident", Mechanism: "m1", Fix: "f"},
	}
	gs := groupFindings(fs)
	if len(gs) != 3 || len(gs[0].members) != 2 || gs[0].mechanism != "m1 <if>" || gs[0].fix != "f <if>" || len(gs[1].members) != 1 || gs[1].fix != "f c" {
		t.Errorf("groups %+v", gs)
	}
}

// Four perftest runs on one device in one paste (public Kubernetes RDMA
// notes) made a group whose subjects and member lines repeated "mlx5_0"
// four times; the text report counts them instead.
func TestGroupCountsRepeatedSubjects(t *testing.T) {
	rep := Diagnose([]string{nicTestdata("corpus/perftest/perftest-4-runs-one-device-devinfo-ibstat-cx5-roce-k8s-notes.txt")}, nil, Options{})
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "4 GID users (mlx5_0 ×4)") || strings.Contains(out, "mlx5_0, mlx5_0") {
		t.Errorf("group head:\n%s", out)
	}
	if n := strings.Count(out, "the RoCE version is not shown (×4)"); n != 1 {
		t.Errorf("member line counted %d times:\n%s", n, out)
	}
	nicMustFind(t, rep.Findings, "perftest.bw.ok", Info, "92% of the 100.0 Gb/s link rate")
}
