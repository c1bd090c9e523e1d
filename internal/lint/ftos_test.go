package lint

import (
	"strings"
	"testing"

	"rocelab/internal/doctor"
)

// TestLintFTOSPublic lints each real Dell Networking OS 9 (FTOS)
// configuration of testdata/corpus/ftos alone against golden.txt there;
// lint refused every one before it read FTOS. Microsoft's S4810 dcb-map
// pauses priority 3 alone (the group priority-pgid gives it has pfc on),
// Dell ASM's MXL running-config priority 4 (its dcb-input pfc). The
// S4810's writes no WRED or ECN at all: its lossless class is never
// marked (ecn.disabled).
func TestLintFTOSPublic(t *testing.T) {
	got := map[string][]string{}
	lintGolden(t, "../../testdata/corpus/ftos", "*.cfg", 3, func(name string, fd doctor.Finding) {
		got[name] = append(got[name], fd.ID)
	})
	if ids := strings.Join(got["msdocs-s4810-ftos99-dcb-map-pfc3.cfg"], " "); ids != "config.not_judged ecn.disabled" {
		t.Errorf("Microsoft's S4810: %s, want config.not_judged ecn.disabled (no wred-profile anywhere)", ids)
	}
	if ids := strings.Join(got["asm-force10-ioa-show-running-config-interface-dcb-map-undefined.cfg"], " "); ids != "config.not_judged config.qos.absent" {
		t.Errorf("IOA interfaces: %s, want config.not_judged config.qos.absent", ids)
	}
}

// TestLintFTOSWithNIC joins an FTOS switch with a real mlnx_qos dump that
// pauses priority 3: Microsoft's S4810, which pauses 3, agrees; Dell ASM's
// MXL, which pauses 4 (iSCSI's), leaves RoCE's priority lossy.
func TestLintFTOSWithNIC(t *testing.T) {
	nic := "../../testdata/corpus/ethtool/mlnx-qos-dcbx-fw-pfc3-showgids-dmesg-pcie-x8-cx5blog.txt"
	for file, want := range map[string]string{
		"msdocs-s4810-ftos99-dcb-map-pfc3.cfg":                     "",
		"asm-force10-mxl-ftos95-running-config-dcb-input-pfc4.cfg": "PFC is on 4, but mce0 (mlnx_qos) puts RoCE on priority 3",
	} {
		rep, err := Lint([]string{"../../testdata/corpus/ftos/" + file, nic}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, fd := range rep.Findings {
			if fd.Severity != doctor.Info && fd.ID != "ecn.disabled" { // TestLintFTOSPublic's
				got = append(got, fd.ID+": "+fd.Title)
			}
		}
		if want == "" && len(got) > 0 || want != "" && (len(got) != 1 || !strings.Contains(got[0], "qos.pfc.disabled") || !strings.Contains(got[0], want)) {
			t.Errorf("%s with the NIC: %q, want %q", file, got, want)
		}
	}
}
