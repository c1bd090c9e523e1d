package lint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rocelab/internal/doctor"
)

const klishDell = "../../testdata/corpus/sonic-cli/rocm-dell-z9664f-enterprise-sonic-dcqcn.cfg"

// lintEdited lints a real configuration after edit, written under name:
// the tests of this file each take a real configuration and change one
// thing.
func lintEdited(t *testing.T, src, name string, edit func(string) string) []doctor.Finding {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(f, []byte(edit(string(data))), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Lint([]string{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return rep.Findings
}

// TestLintKLISHUnbound: AMD's Dell Z9664F running-configuration cut before
// its interfaces defines the ROCE maps and policies but puts them on no
// port. Lint said "No findings" of it; it must say that nothing was judged
// and name the blocks no interface binds, at their lines.
func TestLintKLISHUnbound(t *testing.T) {
	fs := lintEdited(t, klishDell, "cut.cfg", func(s string) string {
		return s[:strings.Index(s, "\ninterface ")+1]
	})
	if len(fs) != 1 || fs[0].ID != "config.qos.absent" {
		t.Fatalf("findings %v, want config.qos.absent alone", fs)
	}
	for _, want := range []string{"no interface binds qos map dscp-tc ROCE", "and 4 more"} {
		if !strings.Contains(fs[0].Title, want) {
			t.Errorf("title %q lacks %q", fs[0].Title, want)
		}
	}
	// wred-policy (3), scheduler-policy (7), the six maps (24 to 60).
	var lines []int
	for _, e := range fs[0].Evidence {
		lines = append(lines, e.Line)
	}
	if got := len(lines); got != 8 || lines[0] != 3 || lines[1] != 7 || lines[2] != 24 || lines[7] != 60 {
		t.Errorf("evidence lines %v, want 3 7 24 30 35 45 50 60", lines)
	}
}

// TestLintKLISHQueueUnmarked: the same ports without their `queue N
// wred-policy ROCE` and `scheduler-policy ROCE` lines pause RoCE's class 3
// but mark ECN on no queue. Lint said nothing (a port without any QUEUE
// row was taken as a cut); a KLISH interface block lists every queue's
// policy, so ECN is off for RoCE.
func TestLintKLISHQueueUnmarked(t *testing.T) {
	fs := lintEdited(t, klishDell, "nowred.cfg", func(s string) string {
		for _, l := range []string{"queue 3 wred-policy ROCE", "queue 4 wred-policy ROCE", "scheduler-policy ROCE"} {
			s = strings.ReplaceAll(s, "\n"+l+"\n", "\n")
		}
		return s
	})
	var got []string
	for _, f := range fs {
		got = append(got, f.ID+": "+f.Title[strings.Index(f.Title, "nowred.cfg"):])
	}
	want := "ecn.disabled: nowred.cfg Eth1/1,Eth1/2,Eth1/3: RoCE's queue 3 has no WRED profile, so ECN never marks RoCE"
	if len(fs) != 1 || got[0] != want {
		t.Errorf("findings %q, want %q", got, want)
	}
	if len(fs) == 1 && !strings.Contains(fs[0].Fix, "queue 3 wred-policy") {
		t.Errorf("fix %q, want KLISH's own command", fs[0].Fix)
	}
}

// TestLintNXOSInlineComment: an NX-OS configuration whose commands carry a
// trailing `! comment`, as guides annotate them, reads as without them.
// Lint refused it ("!": expected DSCP values) before.
func TestLintNXOSInlineComment(t *testing.T) {
	src := "../../testdata/corpus/nxos/rocm-n9364e-sg2-dcqcn.cfg"
	plain := lintEdited(t, src, "plain.cfg", func(s string) string { return s })
	commented := lintEdited(t, src, "plain.cfg", func(s string) string {
		s = strings.Replace(s, "match dscp 26", "match dscp 26 ! RoCE", 1)
		return strings.Replace(s, "pause pfc-cos 3", "pause pfc-cos 3 !lossless", 1)
	})
	if len(plain) == 0 || len(commented) != len(plain) {
		t.Fatalf("%d findings with comments, %d without", len(commented), len(plain))
	}
	for i := range plain {
		_, p, _ := strings.Cut(plain[i].Title, ": ")
		_, c, _ := strings.Cut(commented[i].Title, ": ")
		if plain[i].ID != commented[i].ID || p != c {
			t.Errorf("finding %d: %s %q, want %s %q", i, commented[i].ID, commented[i].Title, plain[i].ID, plain[i].Title)
		}
	}
}

// TestLintNXOSPolicyUnapplied: AMD's Nexus 9364E configuration whose
// `system qos` no longer applies its network-qos and queuing policies
// pauses and marks nothing. Lint found PFC off but told to add the `pause
// pfc-cos 3` the policy has; it must name both policies as applied nowhere
// and give the missing `service-policy` as the fix.
func TestLintNXOSPolicyUnapplied(t *testing.T) {
	fs := lintEdited(t, "../../testdata/corpus/nxos/rocm-n9364e-sg2-dcqcn.cfg", "unapplied.cfg", func(s string) string {
		s = strings.Replace(s, "  service-policy type network-qos qos_network", "", 1)
		return strings.Replace(s, "  service-policy type queuing output QOS_EGRESS_PORT", "", 1)
	})
	var pfcOff, named bool
	for _, f := range fs {
		switch f.ID {
		case "qos.pfc.disabled":
			pfcOff = f.Severity == doctor.Error && strings.Contains(f.Fix, "`service-policy type network-qos qos_network`")
		case "config.not_judged":
			named = strings.Contains(f.Title, "policy-map type network-qos qos_network (system qos does not apply it: pauses nothing)") &&
				strings.Contains(f.Title, "policy-map type queuing QOS_EGRESS_PORT (system qos does not apply it: marks nothing)")
		}
	}
	if !pfcOff || !named {
		for _, f := range fs {
			t.Logf("%s %s: %s | %s", f.Severity, f.ID, f.Title, f.Fix)
		}
		t.Errorf("want qos.pfc.disabled (error) fixed by applying qos_network, and both policies named as unapplied")
	}
}

// TestLintNXOSLossyByDesign: AMD's Nexus 9364E configuration with its
// `pause pfc-cos` and `priority-flow-control` lines removed (a synthetic
// edit of the real file) pauses no class while its queuing policy still
// marks ECN on RoCE's queue: that is lossy by design, not PFC forgotten.
// The NX-OS reader wrote "none" for the classes paused, which the lossy
// check does not read as empty, so it said qos.pfc.disabled.
func TestLintNXOSLossyByDesign(t *testing.T) {
	fs := lintEdited(t, "../../testdata/corpus/nxos/rocm-n9364e-sg2-dcqcn.cfg", "lossy-synthetic.cfg", func(s string) string {
		var keep []string
		for _, l := range strings.Split(s, "\n") {
			if f := strings.Fields(l); len(f) > 0 && (f[0] == "pause" || f[0] == "priority-flow-control") {
				continue
			}
			keep = append(keep, l)
		}
		return strings.Join(keep, "\n")
	})
	var lossy, disabled bool
	for _, f := range fs {
		lossy = lossy || f.ID == "qos.lossy.by_design"
		disabled = disabled || f.ID == "qos.pfc.disabled"
	}
	if !lossy || disabled {
		for _, f := range fs {
			t.Logf("%s %s: %s", f.Severity, f.ID, f.Title)
		}
		t.Errorf("want qos.lossy.by_design and no qos.pfc.disabled")
	}
}
