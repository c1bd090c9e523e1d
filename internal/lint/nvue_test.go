package lint

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"rocelab/internal/doctor"
	"rocelab/internal/headroom"
	"rocelab/internal/unit"
)

// TestCumulusPublic lints NVIDIA's own Cumulus Linux outputs: the RoCE
// default (`nv show qos roce`, lossless) gives no finding but its cable
// length and buffer pools named as not judged; the lossy
// multi-TC profile is lossy by design; a switch without RoCE (the Air
// workshop's applied tree: trust l2, no PFC) has PFC off, and its buffer
// settings are named as not judged.
func TestCumulusPublic(t *testing.T) {
	for _, tc := range []struct {
		file, kind string
		want       []string
		errors     int
	}{
		{"cl515-nv-show-qos-roce-single-ipool.txt", KindNVShowQoSRoCE, []string{"config.nvue.not_judged"}, 0},
		{"cl515-nv-show-qos-roce-lossy-multi-tc.txt", KindNVShowQoSRoCE, []string{"config.nvue.not_judged", "qos.lossy.by_design"}, 0},
		{"cl515-nv-set-roce-sp2.txt", KindNVSet, nil, 0},
		{"cl53-nv-set-pfc-hand-sized-buffer.txt", KindNVSet, []string{"config.nvue.not_judged", "pfc.headroom.short"}, 0},
		{"cl551-air-workshop-applied-qos.yaml", KindNVUEYAML, []string{"config.nvue.not_judged", "qos.pfc.disabled"}, 1},
	} {
		rep, err := Lint([]string{filepath.Join("testdata", tc.file)}, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		if got := rep.Inputs[0].Type; got != tc.kind {
			t.Errorf("%s: read as %s, want %s", tc.file, got, tc.kind)
		}
		var got []string
		errs := 0
		for _, f := range rep.Findings {
			got = append(got, f.ID)
			if f.Severity == doctor.Error {
				errs++
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) || errs != tc.errors {
			t.Errorf("%s: findings %v (%d errors), want %v (%d)", tc.file, got, errs, tc.want, tc.errors)
		}
		for _, msg := range doctor.Nonconforming(rep.Findings) {
			t.Errorf("%s: %s", tc.file, msg)
		}
	}
}

// TestCumulusLikeSONiC: a Cumulus switch and a SONiC switch configured
// alike give the same finding ids. Both are synthetic: RoCE's DSCP 26 on
// class 3, PFC on 4 only, CNPs' DSCP 48 on a class scheduled by weight,
// and ECN on RoCE's class with Kmin above Kmax; the hosts mark RoCE
// NCCL_IB_TC=106.
func TestCumulusLikeSONiC(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string { return writeTemp(t, dir, name, text) }
	env := write("nccl-synthetic.env", "NCCL_IB_TC=106\n")
	nv := write("nv-set-synthetic.txt", `nv set qos roce
nv set qos pfc default-global switch-priority 4
nv set qos egress-scheduler default-global traffic-class 6 mode dwrr
nv set qos congestion-control default-global traffic-class 3 min-threshold 1500000
nv set qos congestion-control default-global traffic-class 3 max-threshold 150000
`)
	sonicDB := write("config_db-synthetic.json", `{
  "DSCP_TO_TC_MAP": {"AZURE": {"26": "3", "48": "6"}},
  "PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "AZURE", "pfc_enable": "4"}},
  "WRED_PROFILE": {"AZURE_LOSSLESS": {"ecn": "ecn_all", "wred_green_enable": "true", "green_min_threshold": "1500000", "green_max_threshold": "150000", "green_drop_probability": "100"}},
  "SCHEDULER": {"scheduler.6": {"type": "DWRR", "weight": "10"}},
  "QUEUE": {"Ethernet0|3": {"wred_profile": "AZURE_LOSSLESS"}, "Ethernet0|6": {"scheduler": "scheduler.6"}}
}
`)
	idsOf := func(paths ...string) []string {
		rep, err := Lint(paths, nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, f := range rep.Findings {
			if !slices.Contains(out, f.ID) && !strings.HasPrefix(f.ID, "config.") {
				out = append(out, f.ID)
			}
		}
		slices.Sort(out)
		return out
	}
	a, b := idsOf(nv, env), idsOf(sonicDB, env)
	if !slices.Equal(a, b) {
		t.Errorf("Cumulus %v, SONiC %v: want the same ids", a, b)
	}
	for _, id := range []string{"qos.pfc.disabled", "qos.cnp.not_strict", "ecn.pmax.range"} {
		if !slices.Contains(a, id) {
			t.Errorf("Cumulus: no %s among %v", id, a)
		}
	}
}

// TestCumulusBadInput: an NVUE file that cannot be read stops lint with
// its position, as a malformed config_db does.
func TestCumulusBadInput(t *testing.T) {
	p := writeTemp(t, t.TempDir(), "startup.yaml", "- header:\n    rev-id: 1.0\n- set:\n    qos:\n      pfc:\n        default-global:\n          tx: maybe\n")
	_, err := Lint([]string{p}, nil)
	if err == nil || !strings.Contains(err.Error(), "startup.yaml:7:15: qos pfc default-global tx \"maybe\": expected enable or disable") {
		t.Errorf("error %v", err)
	}
}

// TestCumulusProfiles: interfaces that bind profiles of their own are
// judged by them, at their own link speed; the other ports by
// default-global. Synthetic: uplinks swp49-52 run PFC on 4 and mark class
// 3 below the 400G BDP; default-global keeps NVUE's RoCE defaults.
func TestCumulusProfiles(t *testing.T) {
	dir := t.TempDir()
	y := `- header:
    version: Cumulus Linux 5.15.0
- set:
    qos:
      roce:
        enable: on
      pfc:
        uplink:
          switch-priority:
            '4': {}
      congestion-control:
        uplink:
          traffic-class:
            '3':
              ecn: enable
              min-threshold: 20000
              max-threshold: 60000
    interface:
      swp49-52:
        qos:
          pfc:
            profile: uplink
          congestion-control:
            profile: uplink
      swp49:
        link:
          speed: 400G
`
	p := writeTemp(t, dir, "startup-synthetic.yaml", y)
	env := writeTemp(t, dir, "nccl-synthetic.env", "NCCL_IB_TC=106\n")
	rep, err := Lint([]string{p, env}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range rep.Findings {
		got = append(got, f.ID+" "+f.Severity.String()+" "+f.Subject)
	}
	want := []string{
		"qos.pfc.disabled warn " + p + " swp49,swp50,swp51,swp52",
		"switch.ecn.thresholds error " + p + " qos congestion-control uplink traffic-class 3 (on swp49,swp50,swp51,swp52)",
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("findings\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// writeTemp writes text to dir/name and returns the path.
func writeTemp(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCumulusSpeaksNVUE: findings on an NVUE input name NVUE's paths and
// settings in their titles, subjects and fixes, never the CONFIG_DB rows
// they are judged as; a SONiC config keeps SONiC's names. The NVUE inputs
// are the public ones, the testdata/lint cases and synthetic pastes that
// trip the other rules, each linted alone and beside hosts that mark RoCE
// DSCP 26 onto priority 5 (synthetic).
func TestCumulusSpeaksNVUE(t *testing.T) {
	dir := t.TempDir()
	synthetic := map[string]string{
		"swapped": "nv set qos roce enable on\nnv set qos roce mode lossless\n" +
			"nv set qos congestion-control default-global traffic-class 3 min-threshold 2000000\n" +
			"nv set qos congestion-control default-global traffic-class 3 max-threshold 1000000\n",
		"late": "nv set qos roce\nnv set interface swp1-32 link speed 100G\n" +
			"nv set qos congestion-control default-global traffic-class 3 min-threshold 900000\n" +
			"nv set qos congestion-control default-global traffic-class 3 max-threshold 3000000\n",
		"drops": "nv set qos roce\nnv set qos pfc default-global switch-priority 1,2,3,4\n" +
			"nv set qos congestion-control default-global traffic-class 3 ecn disable\n" +
			"nv set qos congestion-control default-global traffic-class 3 red enable\n" +
			"nv set qos congestion-control default-global traffic-class 3 probability 0\n" +
			"nv set qos mapping default-global dscp 48 switch-priority 3\n",
		"trust-l2": "nv set qos roce\nnv set qos mapping default-global trust l2\n",
		"cnp-dwrr": "nv set qos roce\nnv set qos egress-scheduler default-global traffic-class 6 mode dwrr\n",
	}
	var nv []string
	for name, text := range synthetic {
		nv = append(nv, writeTemp(t, dir, "nv-set-"+name+"-synthetic.txt", text))
	}
	for _, glob := range []string{"testdata/cl*", casesDir + "/cumulus-*/*/*.txt", casesDir + "/cumulus-*/*/*.yaml"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		nv = append(nv, m...)
	}
	env := writeTemp(t, dir, "nccl-synthetic.env", "NCCL_IB_TC=106\n")
	hosts := writeTemp(t, dir, "mlnx-qos-synthetic.sh", "mlnx_qos -i eth2 --trust dscp --pfc 0,0,0,0,0,1,0,0\nmlnx_qos -i eth2 --dscp2prio set,26,5\n")
	// NVUE maps a DSCP to a switch priority; SONiC's words for that are a
	// traffic class ("lands in class 3").
	sonicWords := []string{"WRED_PROFILE", "PORT_QOS_MAP", "DSCP_TO_TC_MAP", "BUFFER_", "QUEUE|", "SCHEDULER", "pfc_enable", "wred_green_enable", "ecn_all", "ecn_none", "PORT speed",
		"in class ", "share class ", "to class ", "but class "}
	fired := map[string]bool{}
	for _, p := range nv {
		for _, with := range [][]string{nil, {env}, {env, hosts}} {
			rep, err := Lint(append([]string{p}, with...), nil)
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			for _, f := range rep.Findings {
				fired[f.ID] = true
				for _, w := range sonicWords {
					for what, text := range map[string]string{"title": f.Title, "subject": f.Subject, "fix": f.Fix} {
						if strings.Contains(text, w) {
							t.Errorf("%s: %s's %s names %s: %s", p, f.ID, what, w, text)
						}
					}
				}
			}
		}
	}
	// The inputs must reach every rule that judges a switch config.
	for _, id := range []string{"ecn.pmax.range", "switch.ecn.thresholds", "ecn.disabled", "qos.pfc.disabled", "qos.priority.mismatch",
		"qos.cnp.not_mapped", "qos.cnp.not_strict", "pfc.priorities.too_many", "qos.lossy.by_design"} {
		if !fired[id] {
			t.Errorf("no NVUE input gave %s", id)
		}
	}
	// SONiC keeps its words: the same swapped thresholds and weighted CNP
	// class as a config_db (synthetic).
	db := writeTemp(t, dir, "config_db-synthetic.json", `{
  "DSCP_TO_TC_MAP": {"AZURE": {"26": "3", "48": "6"}},
  "PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "AZURE", "pfc_enable": "3"}},
  "WRED_PROFILE": {"AZURE_LOSSLESS": {"ecn": "ecn_all", "wred_green_enable": "true", "green_min_threshold": "2000000", "green_max_threshold": "1000000", "green_drop_probability": "5"}},
  "SCHEDULER": {"scheduler.6": {"type": "DWRR", "weight": "10"}},
  "QUEUE": {"Ethernet0|3": {"wred_profile": "AZURE_LOSSLESS"}, "Ethernet0|6": {"scheduler": "scheduler.6"}}
}
`)
	rep, err := Lint([]string{db, env}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"ecn.pmax.range":     "WRED_PROFILE AZURE_LOSSLESS (on Ethernet0): Kmin 2MB is above Kmax 1MB",
		"qos.cnp.not_strict": "SONiC: a SCHEDULER of type STRICT on QUEUE <port>|6",
	}
	for _, f := range rep.Findings {
		if w, ok := want[f.ID]; ok && (strings.Contains(f.Title, w) || strings.Contains(f.Fix, w)) {
			delete(want, f.ID)
		}
	}
	for id, w := range want {
		t.Errorf("SONiC: no %s saying %q", id, w)
	}
}

// TestCumulusHandSizedBuffer: a PFC profile whose port-buffer and
// xoff-threshold are set by hand is judged by the room between them
// against what its cable and link speed need (headroom.Floor at Cumulus's
// MTU 9216); one NVUE sizes itself is not, and its settings stay named as
// not judged. Synthetic: RoCE lossless on switch priority 3, 400G uplinks
// on 30 m under a profile of their own, default-global on 100G and NVUE's
// 100 m.
func TestCumulusHandSizedBuffer(t *testing.T) {
	need := func(speed unit.BitRate, metres float64) int64 {
		return int64(headroom.Compute(headroom.Floor(speed, unit.Length(metres*float64(unit.Metre)), 9216)).Xoff)
	}
	static := func(speed unit.BitRate, metres float64) int64 {
		return int64(headroom.Compute(headroom.StaticFloor(speed, unit.Length(metres*float64(unit.Metre)), 9216)).Xoff)
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		name, set string
		want      []string // id severity, in order
		title     string   // a part of the first finding's title
	}{
		{"fits", fmt.Sprintf("nv set qos pfc default-global port-buffer %d\nnv set qos pfc default-global xoff-threshold 20000\n", 20000+need(100*unit.Gbps, 100)), nil, ""},
		{"static", fmt.Sprintf("nv set qos pfc default-global port-buffer %d\nnv set qos pfc default-global xoff-threshold 20000\n", 20000+need(100*unit.Gbps, 100)-1), []string{"pfc.headroom.short info"},
			fmt.Sprintf("leaves %d B after XOFF: enough for a peer that pauses within NVIDIA's fixed 3.8 KiB (%d B), not the IEEE budget (%d B)", need(100*unit.Gbps, 100)-1, static(100*unit.Gbps, 100), need(100*unit.Gbps, 100))},
		{"short", fmt.Sprintf("nv set qos pfc default-global port-buffer %d\nnv set qos pfc default-global xoff-threshold 20000\n", 20000+static(100*unit.Gbps, 100)-1), []string{"pfc.headroom.short warn"},
			fmt.Sprintf("leaves %d B after XOFF, below the %d B 100Gbps on 100m", static(100*unit.Gbps, 100)-1, need(100*unit.Gbps, 100))},
		{"none-left", "nv set qos pfc default-global port-buffer 20000\nnv set qos pfc default-global xoff-threshold 20000\n", []string{"pfc.headroom.short error"}, "xoff-threshold 20000 B is not below port-buffer 20000 B"},
		{"uplinks", fmt.Sprintf("nv set qos pfc uplink switch-priority 3\nnv set qos pfc uplink port-buffer %d\nnv set qos pfc uplink xoff-threshold 10000\nnv set qos pfc uplink cable-length 30\nnv set interface swp49-52 qos pfc profile uplink\nnv set interface swp49 link speed 400G\n", 10000+static(100*unit.Gbps, 30)),
			[]string{"pfc.headroom.short warn"}, fmt.Sprintf("below the %d B 400Gbps on 30m", need(400*unit.Gbps, 30))},
		{"xoff-only", "nv set qos pfc default-global xoff-threshold 20000\n", []string{"config.nvue.not_judged info"}, "qos pfc default-global xoff-threshold"},
	} {
		p := writeTemp(t, dir, tc.name+"-synthetic.txt", "nv set qos roce\n"+tc.set)
		rep, err := Lint([]string{p}, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var got []string
		for _, f := range rep.Findings {
			got = append(got, f.ID+" "+f.Severity.String())
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: findings %v, want %v", tc.name, got, tc.want)
			continue
		}
		if tc.title != "" && !strings.Contains(rep.Findings[0].Title, tc.title) {
			t.Errorf("%s: title %q, want it to say %q", tc.name, rep.Findings[0].Title, tc.title)
		}
		for _, msg := range doctor.Nonconforming(rep.Findings) {
			t.Errorf("%s: %s", tc.name, msg)
		}
	}
}

// TestCumulusLossyKeepsNVUEFix: `nv set qos roce mode lossy` (synthetic,
// two commands) marks ECN on RoCE's traffic class by NVUE's defaults. It
// is a mode NVUE offers, judged as it was before the switch-OS case (no
// line naming PFC, ECN marking) became a statement: a warning whose fix is
// NVUE's own command back to lossless.
func TestCumulusLossyKeepsNVUEFix(t *testing.T) {
	file := filepath.Join(t.TempDir(), "nv-set-roce-lossy-synthetic.txt")
	if err := os.WriteFile(file, []byte("nv set qos roce\nnv set qos roce mode lossy\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Lint([]string{file}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, f := range rep.Findings {
		if f.ID != "qos.lossy.by_design" {
			continue
		}
		found = true
		if f.Severity != doctor.Warn || !strings.Contains(f.Fix, "nv set qos roce mode lossless") {
			t.Errorf("%s, fix %q: want warn with `nv set qos roce mode lossless`", f.Severity, f.Fix)
		}
	}
	if !found {
		t.Error("no qos.lossy.by_design")
	}
}
