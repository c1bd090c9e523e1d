package lint

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"rocelab/internal/doctor"
)

// TestLintPFCWithoutECN: a switch OS's configuration that makes RoCE's
// class lossless and writes ECN nowhere gives ecn.disabled (warn), as a
// SONiC QUEUE row without a wred_profile does; ECN written anywhere, a
// default that turns it on (Onyx's `roce`), or a queuing policy the input
// applies but does not hold (a cut: an NX-OS or OS10 queuing policy, an
// FTOS output policy, an AOS-CX threshold profile, Junos without
// schedulers) gives none. The NX-OS, FTOS and Junos cases are real
// (testdata/corpus; the Junos one with its ECN lines cut out), the others
// synthetic.
func TestLintPFCWithoutECN(t *testing.T) {
	corpus := filepath.Join("..", "..", "testdata", "corpus")
	nxos := readText(t, filepath.Join(corpus, "nxos", "msdn-nexus3132-tor1-pause-no-drop.cfg"))
	ftos := readText(t, filepath.Join(corpus, "ftos", "msdocs-s4810-ftos99-dcb-map-pfc3.cfg"))
	// QuADS' Junos display-set with its roce-sched's drop-profile and ECN
	// lines cut out.
	junos := strings.Join(slices.DeleteFunc(strings.Split(readText(t, filepath.Join(corpus, "junos", "quads-juniper-roce-display-set.conf")), "\n"), func(l string) bool {
		return strings.Contains(l, "drop-profile") || strings.Contains(l, "explicit-congestion-notification")
	}), "\n")
	eos := "interface Ethernet1\n   qos trust dscp\n   priority-flow-control on\n   priority-flow-control priority 3 no-drop\n"
	onyx := "interface ethernet 1/1 qos trust L3\ndcb priority-flow-control enable force\ndcb priority-flow-control priority 3 enable\ninterface ethernet 1/1 dcb priority-flow-control mode on force\n"
	aoscx := "qos trust dscp\ninterface 1/1/1\n    flow-control priority 3 rxtx\n"
	os10 := "trust dscp-map dscp_map\n qos-group 3 dscp 24-31\nclass-map type network-qos c3\n match qos-group 3\npolicy-map type network-qos pfc\n class c3\n  pause\n  pfc-cos 3\nsystem qos\n trust-map dscp dscp_map\ninterface ethernet1/1/1\n priority-flow-control mode on\n service-policy input type network-qos pfc\n"
	cases := []struct {
		name, file, text string
		want             string // the evidence line's text, "" for no finding
	}{
		{"nxos real", "nxos.cfg", nxos, "pause no-drop"},
		{"nxos queuing policy cut", "nxos.cfg", strings.Replace(nxos, "service-policy type queuing output QOS_QUEUEING", "service-policy type queuing output ELSEWHERE", 1), ""},
		{"nxos with ecn", "nxos.cfg", strings.Replace(nxos, "    bandwidth percent 50\n", "    bandwidth percent 50\n    random-detect minimum-threshold 150 kbytes maximum-threshold 1500 kbytes drop-probability 7 weight 0 ecn\n", 1), ""},
		{"ftos real", "ftos.cfg", ftos, "priority-pgid 1 1 1 0 1 1 1 1"},
		{"ftos with wred-profile", "ftos.cfg", ftos + "wred-profile roce\n threshold min 150 max 1500 max-drop-rate 5\n", ""},
		{"ftos output policy cut", "ftos.cfg", strings.Replace(ftos, "dcb-map dcb-smb\nexit", "dcb-map dcb-smb\nservice-policy output ROCE_OUT\nexit", 1), ""},
		{"ftos qos-policy-output cut", "ftos.cfg", ftos + "policy-map-output ROCE_OUT\nservice-queue 3 qos-policy ROCE_Q\n", ""},
		{"eos", "eos.cfg", eos, "priority-flow-control priority 3 no-drop"},
		{"eos with ecn", "eos.cfg", eos + "   uc-tx-queue 3\n      random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes\n", ""},
		{"onyx", "onyx.cfg", onyx, "dcb priority-flow-control priority 3 enable"},
		{"onyx roce", "onyx.cfg", onyx + "roce\n", ""},
		{"aoscx", "aoscx.cfg", aoscx, "flow-control priority 3 rxtx"},
		{"aoscx threshold profile cut", "aoscx.cfg", aoscx + "    apply qos threshold-profile T\n", ""},
		{"os10", "os10.cfg", os10, "pfc-cos 3"},
		{"os10 queuing policy cut", "os10.cfg", os10 + " service-policy output type queuing QQ\n", ""},
		{"junos real, ecn cut out", "junos.conf", junos, "set class-of-service congestion-notification-profile storage-cnp input ieee-802.1 code-point 011 pfc"},
		{"junos without schedulers", "junos.conf", strings.Join(slices.DeleteFunc(strings.Split(junos, "\n"), func(l string) bool { return strings.Contains(l, " schedulers ") }), "\n"), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []doctor.Finding
			for _, fd := range lintFiles(t, tempFile(t, c.file, c.text)).Findings {
				if fd.ID == "ecn.disabled" {
					got = append(got, fd)
				}
			}
			if c.want == "" {
				if len(got) > 0 {
					t.Fatalf("ecn.disabled %q, want none", got[0].Title)
				}
				return
			}
			if len(got) != 1 || got[0].Severity != doctor.Warn || !strings.Contains(got[0].Title, "sets ECN on no queue") {
				t.Fatalf("ecn.disabled %v, want one warn saying the configuration sets ECN on no queue", got)
			}
			if len(got[0].Evidence) == 0 || strings.TrimSpace(got[0].Evidence[0].Text) != c.want {
				t.Errorf("evidence %v, want the line %q", got[0].Evidence, c.want)
			}
		})
	}
}

// TestLintNoQueueRows: a switch's whole CONFIG_DB (DEVICE_METADATA and
// PORT) that sets PFC on RoCE's class and has no QUEUE row marks ECN on no
// queue, as Celestica DS2000's stock qos.json.j2 renders (real, in
// testdata/corpus/sonic): ecn.disabled, which lint did not say, reading the
// missing table as a fragment's. The same tables without DEVICE_METADATA
// are a fragment and say nothing of ECN; a QUEUE row beside them, in
// another input, is not missing.
func TestLintNoQueueRows(t *testing.T) {
	const file = "../../testdata/corpus/sonic/buildimage-render-celestica-ds2000-t1-qos-buffers-synthetic-ports.json"
	rep := lintFiles(t, file)
	var got, fix []string
	for _, f := range rep.Findings {
		if f.ID == "ecn.disabled" {
			got, fix = append(got, f.Title), append(fix, f.Fix)
		}
	}
	if len(got) != 1 || !strings.Contains(got[0], "RoCE's queue 3 has no WRED profile") || !strings.Contains(got[0], "no QUEUE row") {
		t.Fatalf("ecn.disabled %q, want one on queue 3 naming the missing QUEUE rows", got)
	}
	// The config defines no WRED_PROFILE: the fix defines one before
	// binding it, not only names one to bind, with thresholds from the
	// BDP at the ports' 25G (20 us: 62500 B; BDP/7 and 2×BDP), not
	// SONiC's stock 1 MiB/2 MiB, which switch.ecn.thresholds calls late.
	for _, want := range []string{"Define WRED_PROFILE|AZURE_LOSSLESS", `"ecn": "ecn_all"`, `"wred_green_enable": "true"`, `"green_min_threshold": "8929"`, `"green_max_threshold": "125000"`, `"green_drop_probability"`, "25Gbps", "rocelab calc ecn", "then bind it", "QUEUE <port>|3"} {
		if !strings.Contains(fix[0], want) {
			t.Errorf("fix %q lacks %q", fix[0], want)
		}
	}
	if strings.Contains(fix[0], "1048576") || strings.Contains(fix[0], "2097152") {
		t.Errorf("fix %q quotes the stock thresholds", fix[0])
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	fragment := strings.Replace(string(data), `"DEVICE_METADATA"`, `"DEVICE_METADATA_CUT"`, 1)
	if fragment == string(data) {
		t.Fatal("no DEVICE_METADATA to cut")
	}
	queue := tempFile(t, "queue.json", `{"QUEUE": {"Ethernet0|3": {"wred_profile": "W"}}, "WRED_PROFILE": {"W": {"ecn": "ecn_all", "wred_green_enable": "true", "green_min_threshold": "250000", "green_max_threshold": "2097152", "green_drop_probability": "5"}}}`)
	// The host namespace of a multi-ASIC dump: its ASICs' namespaces hold
	// the QUEUE rows.
	dump := "{\n\"localhost\": " + string(data) + ",\n\"asic0\": " + `{"QUEUE": {"Ethernet0|3": {"wred_profile": "W"}}}` + "\n}\n"
	for name, paths := range map[string][]string{
		"fragment":        {tempFile(t, "qos.json", fragment)},
		"queue beside":    {file, queue},
		"multi-ASIC host": {tempFile(t, "config_db.json", dump)},
	} {
		for _, f := range lintFiles(t, paths...).Findings {
			if f.ID == "ecn.disabled" && strings.Contains(f.Title, "no QUEUE row") {
				t.Errorf("%s: %s", name, f.Title)
			}
		}
	}
}

// TestLintNoQueueRowsProfileDefined: the fix for RoCE's unmarked queue
// names a marking WRED profile the config already defines (AZURE_LOSSLESS
// or another) and only binds it; it defines one only when none marks, and
// never asks to bind a profile the config lacks. The thresholds it gives,
// written and bound, satisfy switch.ecn.thresholds. Celestica DS2000's
// render, changed so.
func TestLintNoQueueRowsProfileDefined(t *testing.T) {
	data, err := os.ReadFile("../../testdata/corpus/sonic/buildimage-render-celestica-ds2000-t1-qos-buffers-synthetic-ports.json")
	if err != nil {
		t.Fatal(err)
	}
	marking := map[string]any{"ecn": "ecn_all", "wred_green_enable": "true", "green_min_threshold": "8929", "green_max_threshold": "125000", "green_drop_probability": "5"}
	dropping := map[string]any{"ecn": "ecn_none", "wred_green_enable": "true", "green_min_threshold": "8929", "green_max_threshold": "125000", "green_drop_probability": "5"}
	for _, c := range []struct {
		name     string
		profiles map[string]any
		want     string
		define   bool
	}{
		{"AZURE_LOSSLESS defined", map[string]any{"AZURE_LOSSLESS": marking}, "AZURE_LOSSLESS", false},
		{"own name defined", map[string]any{"ROCE": marking}, "ROCE", false},
		{"AZURE_LOSSLESS drops", map[string]any{"AZURE_LOSSLESS": dropping}, "ROCE_LOSSLESS", true},
	} {
		var cfg map[string]map[string]any
		if err := json.Unmarshal(data, &cfg); err != nil {
			t.Fatal(err)
		}
		cfg["WRED_PROFILE"] = c.profiles
		text, err := json.MarshalIndent(cfg, "", "    ")
		if err != nil {
			t.Fatal(err)
		}
		var fix string
		for _, f := range lintFiles(t, tempFile(t, "config_db.json", string(text))).Findings {
			if f.ID == "ecn.disabled" {
				fix = f.Fix
			}
		}
		bind := `"wred_profile": "` + c.want + `" on QUEUE <port>|3`
		if !strings.Contains(fix, bind) {
			t.Errorf("%s: fix %q, want %s", c.name, fix, bind)
		}
		if got := strings.Contains(fix, "Define WRED_PROFILE|"+c.want+" "); got != c.define {
			t.Errorf("%s: fix %q defines %s: %v, want %v", c.name, fix, c.want, got, c.define)
		}
	}
	// The fix's own profile, written and bound on queue 3: nothing left
	// to say of ECN on RoCE's queue.
	var cfg map[string]map[string]any
	if err := json.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	cfg["WRED_PROFILE"] = map[string]any{"AZURE_LOSSLESS": marking}
	cfg["QUEUE"] = map[string]any{}
	for port := range cfg["PORT"] {
		cfg["QUEUE"][port+"|3"] = map[string]any{"wred_profile": "AZURE_LOSSLESS"}
	}
	text, err := json.MarshalIndent(cfg, "", "    ")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range lintFiles(t, tempFile(t, "config_db.json", string(text))).Findings {
		if f.ID == "ecn.disabled" || f.ID == "switch.ecn.thresholds" {
			t.Errorf("fix applied: %s %s", f.ID, f.Title)
		}
	}
}
