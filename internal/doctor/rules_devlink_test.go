package doctor

import (
	"strings"
	"testing"
)

// A reporter in the error state is an error: the E810's port reporter
// (no module; its diagnosis quoted as evidence), mlxsw's fw_fatal test
// event. Every error recovered is a warning, per reporter (OcteonTX2's
// 2872). Healthy reporters with no errors are no finding. Before, none
// of these inputs was recognised.
func TestDevlinkHealthCorpusJudged(t *testing.T) {
	f := nicMustFind(t, diagnoseFiles(t, Options{}, "corpus/ethtool/devlink-health-ice-e810-port-reporter-error-module-not-present-netdev.txt"),
		"devlink.health", Error, "pci/0000:b1:00.3: devlink health reporter port in the error state, 1 error and 0 recoveries, last dumped 2024-03-17 09:29:29")
	if len(f.Evidence) != 5 || f.Evidence[0].Line != 9 || !strings.Contains(f.Evidence[2].Text, "Module is not present.") ||
		!strings.Contains(f.Fix, "devlink health dump show pci/0000:b1:00.3 reporter port") || !strings.Contains(f.Mechanism, "module missing") {
		t.Errorf("finding %+v", f)
	}
	f = nicMustFind(t, diagnoseFiles(t, Options{}, "corpus/ethtool/devlink-health-mlxsw-fw-fatal-state-error-test-event-netdev.txt"),
		"devlink.health", Error, "pci/0000:03:00.0: devlink health reporter fw_fatal in the error state, 1 error and 0 recoveries")
	if !strings.Contains(f.Mechanism, "every queue pair on it went to the error state") || !strings.Contains(f.Fix, "update it") {
		t.Errorf("finding %+v", f)
	}
	fs := nicFind(diagnoseFiles(t, Options{}, "corpus/ethtool/devlink-health-octeontx2-npa-2872-errors-recovered-kernel-doc.txt"), "devlink.health")
	if len(fs) != 3 || fs[0].Severity != Warn || !strings.HasPrefix(fs[0].Title, "pci/0002:01:00.0: devlink health reporter hw_npa_intr 2872 errors, each recovered") {
		t.Errorf("findings %s", nicTitles(fs))
	}
	wantReadNoFinding(t, "devlink.", "corpus/ethtool/devlink-health-mlx5-fw-fw-fatal-tx-rx-healthy-netdev.txt")
}

// Two readings of one reporter: errors that grew between them are an
// error naming both lines, whatever the state; errors that did not are
// older than the window. A reporter recovered fewer times than it
// erred is an error. Readings of two hosts' same handle stay apart.
// Synthetic.
func TestDevlinkHealthReadings(t *testing.T) {
	show := func(host string, errs, recs int) []string {
		return []string{"[root@" + host + " ~]# devlink health show", "pci/0000:3b:00.0/1:", "  reporter tx",
			"    state healthy error " + itoa(errs) + " recover " + itoa(recs) + " grace_period 500 auto_recover true auto_dump true"}
	}
	lines := append(show("gpu01", 2, 2), show("gpu01", 5, 5)...)
	f := nicMustFind(t, synthFindings(t, Options{}, lines...), "devlink.health", Error, "gpu01 pci/0000:3b:00.0/1: devlink health reporter tx 5 errors, each recovered")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 4 || f.Evidence[1].Line != 8 || !strings.Contains(f.Mechanism, "3 of them between the readings") || !strings.Contains(f.Fix, "pause storm") {
		t.Errorf("finding %+v", f)
	}
	lines = append(show("gpu01", 2, 2), show("gpu01", 2, 2)...)
	f = nicMustFind(t, synthFindings(t, Options{}, lines...), "devlink.health", Warn, "tx 2 errors, each recovered")
	if !strings.Contains(f.Mechanism, "none of them between the readings") {
		t.Errorf("finding %+v", f)
	}
	nicMustFind(t, synthFindings(t, Options{}, show("gpu01", 4, 3)...), "devlink.health", Error, "tx 4 errors and only 3 recoveries")
	// mlx5's fw reporter has no recover step: devlink prints no
	// auto_recover and its recover count stays 0.
	fw := []string{"[root@gpu01 ~]# devlink health show", "pci/0000:3b:00.0:", "  reporter fw",
		"    state healthy error 2 recover 0 dump_date 2024-03-17 dump_time 09:29:29 auto_dump true"}
	f = nicMustFind(t, synthFindings(t, Options{}, fw...), "devlink.health", Warn, "fw 2 errors (a reporter without a recover step)")
	if strings.Contains(f.Title, "recoveries") {
		t.Errorf("finding %+v", f)
	}
	lines = append(show("gpu01", 2, 2), show("gpu02", 5, 5)...)
	if fs := nicFind(synthFindings(t, Options{}, lines...), "devlink.health"); len(fs) != 2 || fs[0].Severity != Warn || fs[1].Severity != Warn {
		t.Errorf("two hosts' readings paired: %s", nicTitles(fs))
	}
}

// A diagnosis printed with no host goes with the reporter of its input
// only, not another input's reporter of the same handle; one that names
// the host goes with that host's reporter in any input. Synthetic.
func TestDevlinkDiagnosisSameInputOrHost(t *testing.T) {
	show := func(prompt string) []string {
		return []string{"# synthetic", prompt + " devlink health show", "pci/0000:3b:00.0:", "  reporter port", "    state error error 1 recover 0"}
	}
	diag := func(prompt string) []string {
		return []string{"# synthetic", prompt + " devlink health diagnose pci/0000:3b:00.0 reporter port", "Port Status:", "  Description: Module is not present.", ""}
	}
	fs := diagnose(t, Options{}, writeFiles(t, map[string][]string{"a.txt": show("$"), "b.txt": diag("$")})...).Findings
	f := nicMustFind(t, fs, "devlink.health", Error, "reporter port in the error state")
	if len(f.Evidence) != 1 {
		t.Errorf("another input's diagnosis joined: %+v", f.Evidence)
	}
	fs = diagnose(t, Options{}, writeFiles(t, map[string][]string{"a.txt": show("[root@gpu01 ~]#"), "b.txt": diag("[root@gpu01 ~]#")})...).Findings
	f = nicMustFind(t, fs, "devlink.health", Error, "gpu01 pci/0000:3b:00.0: devlink health reporter port")
	if len(f.Evidence) != 3 || !strings.Contains(f.Evidence[2].Text, "Module is not present.") {
		t.Errorf("the host's diagnosis not joined: %+v", f.Evidence)
	}
}

// Readings are ordered by their time stamps, whatever the inputs'
// order; without stamps only one input's readings are ordered, and a
// fall between them is a reset, not "none between the readings".
// Synthetic.
func TestDevlinkHealthReadingsOrdered(t *testing.T) {
	show := func(date string, errs int) []string {
		l := []string{"# synthetic"}
		if date != "" {
			l = append(l, "[root@gpu01 ~]# date", date)
		}
		return append(l, "[root@gpu01 ~]# devlink health show", "pci/0000:3b:00.0/1:", "  reporter tx",
			"    state healthy error "+itoa(errs)+" recover "+itoa(errs))
	}
	// a.txt comes first but was read later.
	fs := diagnose(t, Options{}, writeFiles(t, map[string][]string{
		"a.txt": show("Mon Nov 30 22:20:00 UTC 2026", 5), "b.txt": show("Mon Nov 30 22:15:00 UTC 2026", 2)})...).Findings
	f := nicMustFind(t, fs, "devlink.health", Error, "gpu01 pci/0000:3b:00.0/1: devlink health reporter tx 5 errors, each recovered")
	if !strings.Contains(f.Mechanism, "3 of them between the readings at ") || !cites(f, "b.txt", 7) || !cites(f, "a.txt", 7) {
		t.Errorf("finding %+v", f)
	}
	// No stamps, two inputs: their order is not known.
	fs = diagnose(t, Options{}, writeFiles(t, map[string][]string{"a.txt": show("", 5), "b.txt": show("", 2)})...).Findings
	f = nicMustFind(t, fs, "devlink.health", Warn, "tx 2 errors, each recovered")
	if strings.Contains(f.Mechanism, "none of them") || !strings.Contains(f.Mechanism, "whose order is not known") {
		t.Errorf("finding %+v", f)
	}
	// One input: it grew, then was reset.
	lines := append(append(show("", 2), show("", 5)[1:]...), show("", 1)[1:]...)
	f = nicMustFind(t, synthFindings(t, Options{}, lines...), "devlink.health", Error, "tx 1 error, each recovered")
	if !strings.Contains(f.Mechanism, "3 between the readings at <stdin>:5 and <stdin>:9") || !strings.Contains(f.Mechanism, "fell from 5 to 1") || strings.Contains(f.Mechanism, "none of them") {
		t.Errorf("finding %+v", f)
	}
	// One input, a fall only.
	lines = append(show("", 5), show("", 2)[1:]...)
	f = nicMustFind(t, synthFindings(t, Options{}, lines...), "devlink.health", Warn, "tx 2 errors, each recovered")
	if !strings.Contains(f.Mechanism, "since a reset: the count fell from 5 to 2") || len(f.Evidence) != 2 {
		t.Errorf("finding %+v", f)
	}
}

// A state line whose count is no number is reported with its line and
// column. Synthetic.
func TestDevlinkHealthGarbledReported(t *testing.T) {
	f := nicMustFind(t, synthFindings(t, Options{}, "$ devlink health", "pci/0000:3b:00.0:", "  reporter fw_fatal", "    state error error 1O recover 0"),
		"input.garbled", Warn, "devlink health output", ":4:23:")
	if len(f.Evidence) != 1 || f.Evidence[0].Line != 4 {
		t.Errorf("finding %+v", f)
	}
}
