package lint

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rocelab/internal/doctor"
)

// A switch OS's configuration that names PFC nowhere and marks ECN on
// RoCE's queue runs RoCE lossy on purpose (Resilient RoCE): one info
// finding that names the choice and its conditions, not qos.pfc.disabled.
// The same configuration without ECN on RoCE's queue, or with a class
// declared lossless but never paused, forgot PFC: qos.pfc.disabled.
func TestLossyByDesignECNOnly(t *testing.T) {
	for _, c := range []struct {
		file       string
		noECN, nol [2]string // edits: ECN off on RoCE's queue; a class declared lossless
	}{
		{"testdata/junos-ecn-only-synthetic.conf",
			[2]string{"explicit-congestion-notification;", ""},
			[2]string{"class ROCE queue-num 3;", "class ROCE queue-num 3 no-loss pfc-priority 3;"}},
		// Global QoS only: before, written as SONiC's "global" key, which
		// no per-port rule judges, it gave no finding at all.
		{"testdata/aoscx-ecn-only-global-synthetic.cfg",
			[2]string{"apply qos threshold-profile ROCE\n", ""},
			[2]string{"    mtu 9198\n", "    mtu 9198\n    flow-control priority rx 3\n"}},
		{"testdata/eos-ecn-only-synthetic.txt",
			[2]string{"random-detect ecn", "random-detect drop"},
			[2]string{"   mtu 9214\n", "   mtu 9214\n   priority-flow-control priority 3 no-drop\n"}},
	} {
		rep := lintFiles(t, c.file)
		got := ids(rep)
		if got["qos.lossy.by_design"] != doctor.Info || got["qos.pfc.disabled"] != 0 {
			t.Errorf("%s: %v, want qos.lossy.by_design info and no qos.pfc.disabled", c.file, got)
		}
		for _, f := range rep.Findings {
			if f.ID != "qos.lossy.by_design" {
				continue
			}
			for _, want := range []string{"no line turns PFC on", "lands in class 3, whose queue 3 marks ECN"} {
				if !strings.Contains(f.Title, want) {
					t.Errorf("%s: title %q lacks %q", c.file, f.Title, want)
				}
			}
			for _, want := range []string{"Resilient RoCE", "DCQCN runs on every NIC", "roce_adp_retrans_en"} {
				if !strings.Contains(f.Mechanism, want) {
					t.Errorf("%s: mechanism lacks %q", c.file, want)
				}
			}
		}
		data, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range [][2]string{c.noECN, c.nol} {
			if !strings.Contains(string(data), e[0]) {
				t.Fatalf("%s lacks %q", c.file, e[0])
			}
			p := filepath.Join(t.TempDir(), filepath.Base(c.file))
			if err := os.WriteFile(p, []byte(strings.ReplaceAll(string(data), e[0], e[1])), 0o644); err != nil {
				t.Fatal(err)
			}
			got := ids(lintFiles(t, p))
			if _, ok := got["qos.lossy.by_design"]; ok || got["qos.pfc.disabled"] == 0 {
				t.Errorf("%s with %q → %q: %v, want qos.pfc.disabled (PFC forgotten), not lossy by design", c.file, e[0], e[1], got)
			}
		}
	}
	// With NICs whose DCQCN is off on RoCE's priority the design has no
	// brake left (SYNTHETIC sysfs lines).
	p := filepath.Join(t.TempDir(), "roce_rp-synthetic.txt")
	var sysfs strings.Builder
	for prio := range 8 {
		fmt.Fprintf(&sysfs, "/sys/class/net/eth0/ecn/roce_rp/enable/%d:0\n", prio)
	}
	if err := os.WriteFile(p, []byte(sysfs.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := lintFiles(t, "testdata/eos-ecn-only-synthetic.txt", p)
	for _, f := range rep.Findings {
		if f.ID == "qos.lossy.by_design" && (f.Severity != doctor.Error || !strings.Contains(f.Title, "DCQCN is off on priority 3 on eth0")) {
			t.Errorf("DCQCN off: %v %q", f.Severity, f.Title)
		}
	}
	if !hasID(rep, "qos.lossy.by_design") {
		t.Error("DCQCN off: no qos.lossy.by_design")
	}
	// With NICs that run PFC, the lossy switch is a mistake whatever it
	// marks.
	rep = lintFiles(t, "testdata/junos-ecn-only-synthetic.conf", "../../testdata/corpus/ethtool/mlnx-qos-dcbx-fw-pfc3-showgids-dmesg-pcie-x8-cx5blog.txt")
	if got := ids(rep); got["qos.lossy.by_design"] != doctor.Error {
		t.Errorf("with PFC NICs: %v, want qos.lossy.by_design error", got)
	}
}

// ECN marking is green's in every mode that names it: NVIDIA's SN5600
// render (real) with RoCE's queue 4 profile edited (synthetic) to mark at
// 500000 bytes in ecn_green_red mode is a design braked by DCQCN, so NICs
// with DCQCN off on RoCE's priority make it an error, as under ecn_all.
func TestLossyByDesignGreenModes(t *testing.T) {
	data, err := os.ReadFile("testdata/bi-sn5600-c256s1-qos-render-t0.json")
	if err != nil {
		t.Fatal(err)
	}
	// The render holds no DEVICE_METADATA: the SN5600's platform is named
	// so that the ASIC's green marking is known (Spectrum marks under the
	// ECN mode alone); without it the queue is not judged as marking.
	s := strings.Replace(string(data), "{\n\"TC_TO_PRIORITY_GROUP_MAP\"", "{\n\"DEVICE_METADATA\": {\"localhost\": {\"platform\": \"x86_64-nvidia_sn5600-r0\"}},\n\"TC_TO_PRIORITY_GROUP_MAP\"", 1)
	at := strings.Index(s, `"AZURE_LOSSY_DOWNLINK_Q4": {`)
	end := at + strings.Index(s[at:], "}")
	if at < 0 || !strings.Contains(s[at:end], `"ecn": "ecn_all"`) {
		t.Fatal("no AZURE_LOSSY_DOWNLINK_Q4 marking ecn_all")
	}
	dir := t.TempDir()
	sysfs := filepath.Join(dir, "roce_rp-synthetic.txt")
	if err := os.WriteFile(sysfs, []byte("/sys/class/net/eth0/ecn/roce_rp/enable/4:0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"ecn_all", "ecn_green_red", "ECN_GREEN_YELLOW"} {
		q4 := strings.ReplaceAll(strings.Replace(s[at:end], `"ecn_all"`, `"`+mode+`"`, 1), "158220288", "500000")
		p := filepath.Join(dir, "sn5600-q4-"+mode+"-synthetic.json")
		if err := os.WriteFile(p, []byte(s[:at]+q4+s[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		var ok bool
		for _, f := range lintFiles(t, p, sysfs).Findings {
			ok = ok || f.ID == "qos.lossy.by_design" && f.Severity == doctor.Error && strings.Contains(f.Title, "DCQCN is off on priority 4")
		}
		if !ok {
			t.Errorf("%s: no qos.lossy.by_design error naming DCQCN off on priority 4", mode)
		}
	}
}

// TestLossyByDesignFixOwnCommands: the "if RoCE was meant lossless" fix of
// a switch OS's lossy-by-design configuration names that OS's commands.
// Before, AOS-CX, NX-OS, OS10 and FTOS were told "PFC on class 3 on every
// port" in no OS's words.
func TestLossyByDesignFixOwnCommands(t *testing.T) {
	found := false
	for _, fd := range lintFiles(t, "testdata/aoscx-ecn-only-global-synthetic.cfg").Findings {
		if fd.ID != "qos.lossy.by_design" {
			continue
		}
		found = true
		if !strings.Contains(fd.Fix, "If RoCE was meant lossless: `flow-control priority rxtx 3` on these interfaces") {
			t.Errorf("fix %q, want AOS-CX's flow-control command", fd.Fix)
		}
	}
	if !found {
		t.Error("no qos.lossy.by_design finding")
	}
}
