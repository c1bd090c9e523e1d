package doctor

import (
	"slices"
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

// SYNTHETIC, in ecnconfig's and wredstat's formats, a two-ASIC switch: the
// per-ASIC lines of one `ecnconfig -q 3 off -vv` are one finding of all
// their ports; a later state of one ASIC takes its ports out of it; marks
// counted on one ASIC's queue 3 say nothing of another ASIC's.
func TestECNOffMultiASIC(t *testing.T) {
	diagnose := func(lines ...string) []Finding {
		return nicFind(Diagnose([]string{"-"}, strings.NewReader(strings.Join(lines, "\n")+"\n"), Options{}).Findings, "ecn.disabled")
	}
	off := []string{
		"admin@masic:~$ sudo ecnconfig -q 3 off -vv",
		"Disable ECN on Ethernet0,Ethernet4 queue 3",
		"Disable ECN on Ethernet64,Ethernet68 queue 3",
	}
	if got := diagnose(off...); len(got) != 1 || !strings.Contains(got[0].Title, "queue 3 of 4 ports (Ethernet0, Ethernet4, Ethernet64 and 1 more)") {
		t.Errorf("both ASICs' ports, once:\n%s", nicTitles(got))
	}
	onVV := append(slices.Clone(off), "admin@masic:~$ ecnconfig -q 3 -vv", "ECN status for namespace asic0:", "Ethernet0,Ethernet4 queue 3: on")
	if got := diagnose(onVV...); len(got) != 1 || !strings.Contains(got[0].Title, "queue 3 of 2 ports (Ethernet64, Ethernet68)") {
		t.Errorf("asic0 on by its ports: asic1's left:\n%s", nicTitles(got))
	}
	on := append(slices.Clone(off), "admin@masic:~$ ecnconfig -q 3", "ECN status for namespace asic0:", "queue 3: on")
	if got := diagnose(on...); len(got) != 0 {
		t.Errorf("a later on undoes the off:\n%s", nicTitles(got))
	}
	marks := []string{
		"admin@masic:~$ ecnconfig -q 3",
		"ECN status for namespace asic1:",
		"queue 3: off",
		"admin@masic:~$ show queue wredcounters -n asic0 | grep UC3",
		"Ethernet0    UC3             N/A              N/A               678             678000",
	}
	if got := diagnose(marks...); len(got) != 1 || got[0].Severity != Warn {
		t.Errorf("asic0's marks turned asic1's off into info:\n%s", nicTitles(got))
	}
	marks[4] = strings.Replace(marks[4], "asic0", "asic1", 1)
	marks[3] = strings.Replace(marks[3], "asic0", "asic1", 1)
	if got := diagnose(marks...); len(got) != 1 || got[0].Severity != Info {
		t.Errorf("asic1's own marks:\n%s", nicTitles(got))
	}
}
