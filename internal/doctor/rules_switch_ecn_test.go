package doctor

import (
	"strings"
	"testing"
)

// `ecnconfig -q 3` printing "queue 3: off" on SONiC's lossless queue 3
// (sonic-buildimage#11879) is ECN off there, said with the reason the
// query itself can be wrong.
func TestECNOffQueueStatus(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/switch/sonic-ecnconfig-q3-status-off-buildimage11879.txt")
	f := nicMustFind(t, fs, "ecn.disabled", Warn, "str-7260cx3-acs-2: ECN off on lossless queue 3 (ecnconfig -q 3)")
	if !strings.Contains(f.Mechanism, "sonic-buildimage#11879") || f.Evidence[0].Line != 5 {
		t.Errorf("mechanism or evidence: %s %+v", f.Mechanism, f.Evidence)
	}
}

// `ecnconfig -q 3 on -vv` then `-q 4 off -vv` (sonic-utilities#375): queue
// 4, lossless in SONiC, is left without ECN on the 32 ports it names;
// queue 3 was turned on and is no finding.
func TestECNOffSetByCommand(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/switch/sonic-ecnconfig-q3-on-q4-off-vv-port-lists-sonicutilities375.txt")
	nicMustFind(t, fs, "ecn.disabled", Warn, "ECN turned off on lossless queue 4 of 32 ports (Ethernet0, Ethernet4, Ethernet8 and 29 more)")
	if got := nicFind(fs, "ecn.disabled"); len(got) != 1 {
		t.Errorf("%d ecn.disabled findings, want queue 4's only:\n%s", len(got), nicTitles(fs))
	}
}

// The query's "off" beside ECN marks counted on the same queue (the
// wredcounters of sonic-buildimage#23566, UC3 678 marked) is the query's
// error: info, with both lines.
func TestECNOffContradictedByMarks(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/switch/sonic-ecnconfig-q3-status-off-buildimage11879.txt", "corpus/switch/sonic-show-queue-wredcounters-grep-uc3-ecn-marked-multiasic-buildimage23566.txt")
	f := nicMustFind(t, fs, "ecn.disabled", Info, "ecnconfig -q 3 says ECN is off, yet queue 3 marked 678 packets")
	if len(f.Evidence) != 2 {
		t.Errorf("evidence %+v", f.Evidence)
	}
}

// SYNTHETIC, in ecnconfig's formats: a later "on" for the same queue
// undoes the "off"; a queue outside the lossless ones is no finding; an
// `ecnconfig -l` AZURE_LOSSLESS profile that leaves green out is.
func TestECNOffLatestAndProfile(t *testing.T) {
	text := strings.Join([]string{
		"Disable ECN on Ethernet0,Ethernet4 queue 3",
		"Enable ECN on Ethernet0,Ethernet4 queue 3",
		"ECN status:",
		"queue 1: off",
		"",
		"Profile: AZURE_LOSSLESS",
		"-----------------------  -------",
		"ecn                      ecn_yellow_red",
		"green_min_threshold      1048576",
		"green_max_threshold      2097152",
		"-----------------------  -------",
	}, "\n") + "\n"
	fs := Diagnose([]string{"-"}, strings.NewReader(text), Options{}).Findings
	got := nicFind(fs, "ecn.disabled")
	if len(got) != 1 || !strings.Contains(got[0].Title, "WRED profile AZURE_LOSSLESS has ecn ecn_yellow_red") || got[0].Severity != Warn {
		t.Errorf("want the profile's finding only:\n%s", nicTitles(fs))
	}
}
