package lint

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"rocelab/internal/doctor"
)

const eosDir = "../../testdata/corpus/eos"

// TestLintEOSPublic lints each real Arista EOS configuration of
// testdata/corpus/eos (sources in the .source sidecars) alone against
// golden.txt there. Every file must be read: before lint read EOS's
// running-config, each was refused as "no configuration lint reads".
// AMD's DCQCN example for an Arista 7388 is a sound RoCE config (DSCP 26 in
// class 3 by EOS's default map, PFC on priority 3 through its qos profile):
// only its ECN thresholds, written in segments, go unjudged.
func TestLintEOSPublic(t *testing.T) {
	got := map[string][]string{}
	titles := map[string]string{}
	lintGolden(t, eosDir, "*.cfg", 3, func(name string, fd doctor.Finding) {
		got[name] = append(got[name], fd.ID)
		titles[name] += fd.Title + "\n"
		for _, e := range fd.Evidence {
			if e.File != "" && e.Line == 0 {
				t.Errorf("%s: %s: evidence without a line", name, fd.ID)
			}
		}
	})
	if ids := got["rocm-arista7388-dcqcn-qos-profile.cfg"]; strings.Join(ids, " ") != "config.not_judged" {
		t.Errorf("AMD's Arista 7388 DCQCN example: %v, want config.not_judged alone", ids)
	}
	// A blog's commands typed at EOS prompts: read as the running-config
	// they make, the interface entered twice one port.
	if ids := got["blog-eos436-roce-leaf-typed-session.cfg"]; strings.Join(ids, " ") != "config.not_judged" {
		t.Errorf("typed EOS session: %v, want config.not_judged alone", ids)
	}
	// AVD's rendering test of interface settings: Ethernet2 has PFC on
	// with priority 5 no-drop (no finding: class 5 is not RoCE's), the
	// ports with PFC on but no no-drop priority and `no priority-flow-control`
	// are lossy.
	if ids := strings.Join(got["avd-eos_cli_config_gen-ethernet-interfaces.cfg"], " "); !strings.Contains(ids, "qos.pfc.disabled") {
		t.Errorf("AVD ethernet-interfaces: %s, want qos.pfc.disabled", ids)
	}
	// AVD's qos test defines a PFC profile (test_with_pfc, priority 0
	// no-drop) that no interface takes: it is named as on no port, before
	// the other settings not judged.
	if s := titles["avd-eos_cli_config_gen-qos.cfg"]; !strings.Contains(s, "qos profile test_with_pfc (no service-profile in the input takes it: on no port)") {
		t.Errorf("AVD qos: the unused PFC profile is not named:\n%s", s)
	}
}

// TestLintNXOSPublic lints each real Cisco NX-OS configuration of
// testdata/corpus/nxos alone against golden.txt there. AMD's DCQCN example
// for a Nexus N9364E (DSCP 26 to qos-group 3, pause pfc-cos 3 on it, ECN
// on queue 3) and Microsoft's Azure Local policy (classified by CoS 3,
// which pauses) are sound: their scheduling and watchdog go unjudged,
// nothing else is said. Before, lint refused both. Microsoft's Azure
// Local switch generator renders a network-qos class pausing CoS 3 whose
// class-map it never defines: named as not judged (PFC with it), where
// lint refused the file. Microsoft's SDN example for a Nexus 3132 marks
// its no-drop class `pause no-drop` (the Nexus 3000/5000 form), which
// lint did not read (PFC off on every priority), and its README prints
// the qos policy's classes at the policy-map's indent, which ended the
// policy (every DSCP in qos-group 0): both are sound, but write no ECN
// anywhere, so their lossless class is never marked (ecn.disabled).
// Microsoft's Azure Local TOR references print the storage ports alone
// (`priority-flow-control mode on send-tlv`, a qos policy defined on
// another page): read as a cut of an NX-OS configuration, PFC not judged
// and the policy named, where lint refused them. A VXLAN EVPN lab's
// whole NX-OS 9.3(10) running-config sets no QoS at all: lint refused it
// as no configuration; it is said to run NX-OS's defaults, which pause
// and mark nothing, at its `!Command: show running-config` header.
func TestLintNXOSPublic(t *testing.T) {
	got := map[string][]string{}
	lintGolden(t, "../../testdata/corpus/nxos", "*.cfg", 1, func(name string, fd doctor.Finding) {
		got[name] = append(got[name], fd.ID)
	})
	for f, want := range map[string]string{"rocm-n9364e-sg2-dcqcn.cfg": "config.not_judged", "azurelocal-tor-qos-policy-nexus.cfg": "config.not_judged",
		"azurelocal-switchgen-nxos-switched-qos.cfg":          "config.not_judged",
		"msdn-nexus3132-tor1-pause-no-drop.cfg":               "config.not_judged ecn.disabled",
		"msdn-nexus3132-readme-qos-marking-unindented.cfg":    "config.not_judged ecn.disabled",
		"azurelocal-tor-fully-converged-tora-interfaces.cfg":  "config.not_judged",
		"azurelocal-tor-disaggregated-storage-interfaces.cfg": "config.not_judged",
		"dcnd-lab-nexus9300v-leaf1-running-config-no-qos.cfg": "config.qos.absent"} {
		if ids := got[f]; strings.Join(ids, " ") != want {
			t.Errorf("%s: %v, want %s", f, ids, want)
		}
	}
}

// TestLintOS10Public lints each real Dell OS10 configuration of
// testdata/corpus/os10 alone against golden.txt there. The Azure Stack
// S5248F-ON running-configuration pauses CoS 3 on its host and peer ports
// (dot1p trust, so no DSCP map) and is sound there; its uplinks to the
// border and BMC switches run `priority-flow-control mode on` without a
// network-qos policy, so no class is lossless on them (qos.pfc.disabled,
// warn). The Azure Local switch generator's rendered config applies an
// undefined network-qos policy to its host ports and leaves their PFC mode
// off: PFC runs nowhere the storage traffic enters. Both attach their
// `wred ecn` only in a queuing policy nothing applies, named as not
// judged at its random-detect line. Before, lint refused both. Cray's
// CSM BMC leaf (OS10 10.5.1.4) is a whole running-configuration with no
// QoS at all: said as such at its `! Version` line, the defaults pausing
// and marking nothing, not as a cut that needs the whole config (which it
// is).
func TestLintOS10Public(t *testing.T) {
	got, titles := map[string][]string{}, map[string]string{}
	lintGolden(t, "../../testdata/corpus/os10", "*.cfg", 3, func(name string, fd doctor.Finding) {
		got[name] = append(got[name], fd.ID)
		if fd.ID == "config.not_judged" || fd.ID == "config.qos.absent" {
			titles[name] = fd.Title
		}
		if fd.ID == "config.qos.absent" && (strings.Contains(fd.Fix, "whole running-config") || fd.Evidence[0].Line != 2) {
			t.Errorf("%s: a whole configuration asked for itself, or not at its header: %s (%+v)", name, fd.Fix, fd.Evidence)
		}
	})
	for f, want := range map[string]string{
		"azurestack-s5248f-tor1-running-configuration.cfg":            "config.not_judged qos.pfc.disabled",
		"azurelocal-switchgen-s5248f-hyperconverged.cfg":              "config.not_judged qos.pfc.disabled qos.pfc.disabled",
		"cray-csm-hpcm-leaf-bmc-os10.5.1.4-running-config-no-qos.cfg": "config.qos.absent",
	} {
		if ids := strings.Join(got[f], " "); ids != want {
			t.Errorf("%s: %s, want %s", f, ids, want)
		}
	}
	for f, want := range map[string]string{
		"azurestack-s5248f-tor1-running-configuration.cfg":            "random-detect ecn in policy-map type queuing policy_q3 (applied by no interface or system qos: marks nothing)",
		"azurelocal-switchgen-s5248f-hyperconverged.cfg":              "random-detect ecn in policy-map type queuing AZLOCAL_ETS (applied by no interface or system qos: marks nothing)",
		"cray-csm-hpcm-leaf-bmc-os10.5.1.4-running-config-no-qos.cfg": "the whole configuration (! Version 10.5.1.4) sets QoS on no interface",
	} {
		if !strings.Contains(titles[f], want) {
			t.Errorf("%s: %q, want it to name %s", f, titles[f], want)
		}
	}
}

// TestLintTrafficConfPublic lints the traffic.conf NCLU's `net add
// interface swp1 storage-optimized pfc` writes, as Cumulus Linux 4.0's and
// 4.1's RoCE pages print it (testdata/corpus/cumulus-traffic-conf): PFC
// on cos 1 (4.0) or 3 (4.1) with ECN on the same cos, 802.1p trust, so
// sound alone; the elided pfc.port_group_list, and the headroom keys, are
// named as not judged. Before, lint refused both. Cumulus Linux 5.6's QoS
// page's PFC default-global profile on `allports` covers the ports its ECN
// profile names (they were called PFC off on every priority).
func TestLintTrafficConfPublic(t *testing.T) {
	lintGolden(t, "../../testdata/corpus/cumulus-traffic-conf", "*.conf", 2, func(name string, fd doctor.Finding) {
		if fd.ID != "config.not_judged" {
			t.Errorf("%s: %s %s", name, fd.ID, fd.Title)
		}
	})
}

// TestLintOnyxPublic lints each real Onyx configuration of
// testdata/corpus/onyx alone against golden.txt there. The MLNX-OS
// commands of Mellanox's DSCP-mode lossless RoCE guide as AT&T's NVMe-oF
// setup applied them: trust L3, PFC on priority 3, ECN on traffic class 3
// from 150 to 1500 KB, sound; its advanced buffer commands are named as
// not judged (before, lint refused it). Cray's CSM spine (a 3.9.3210
// running-config, and the MLAG commands typed at interface-mode prompts)
// turns PFC on for the switch and on its MLAG links but enables no
// priority: Onyx pauses nothing, and the fix names the one command that
// is missing, not the ones the configuration writes.
func TestLintOnyxPublic(t *testing.T) {
	fixes := map[string]string{}
	lintGolden(t, "../../testdata/corpus/onyx", "*.cfg", 3, func(name string, fd doctor.Finding) {
		switch {
		case fd.ID == "config.not_judged" && strings.HasPrefix(name, "netarbiter"):
		case fd.ID == "qos.pfc.disabled" && strings.HasPrefix(name, "cray-csm"):
			fixes[name] = fd.Fix
			if len(fd.Evidence) == 0 || fd.Evidence[0].Line == 0 {
				t.Errorf("%s: %s without a line", name, fd.ID)
			}
		default:
			t.Errorf("%s: %s %s", name, fd.ID, fd.Title)
		}
	})
	fix := fixes["cray-csm-hpcm-spine01-onyx3.9-running-config-pfc-no-priority.cfg"]
	if !strings.HasPrefix(fix, "`dcb priority-flow-control priority 3 enable`") || strings.Contains(fix, "enable force") || strings.Contains(fix, "mode on force") {
		t.Errorf("Cray's running-config writes `dcb priority-flow-control enable force` and the port's mode: the fix names only the priority, got %q", fix)
	}
	if fix := fixes["cray-csm-mlag-typed-session-interface-mode-pfc-no-priority.cfg"]; !strings.HasPrefix(fix, "`dcb priority-flow-control enable force` and `dcb priority-flow-control priority 3 enable`") {
		t.Errorf("Cray's typed MLAG session writes neither global command: %q", fix)
	}
}

// TestLintKLISHPublic lints each real SONiC management-CLI (KLISH,
// Enterprise SONiC) running-configuration of testdata/corpus/sonic-cli
// alone against golden.txt there. AMD's Dell Z9664F example is read whole:
// DSCP 26 in class 3, PFC on 3 and 4, its WRED policy ROCE on queues 3 and
// 4 at 400G, whose Kmin of 2048 KB is just past 2 BDPs. Before, lint
// refused it.
func TestLintKLISHPublic(t *testing.T) {
	got := map[string][]string{}
	lintGolden(t, "../../testdata/corpus/sonic-cli", "*.cfg", 1, func(name string, fd doctor.Finding) {
		got[name] = append(got[name], fd.ID)
	})
	if ids := got["rocm-dell-z9664f-enterprise-sonic-dcqcn.cfg"]; strings.Join(ids, " ") != "switch.ecn.thresholds" {
		t.Errorf("AMD's Dell Z9664F example: %v, want switch.ecn.thresholds alone", ids)
	}
}

// TestLintNXOSPFCAuto: an NX-OS port that leaves PFC to DCBX (no
// `priority-flow-control mode on`) is taken as pausing, but named: Microsoft
// found auto not converging with ConnectX NICs (AzureLocal-Supportability,
// Troubleshoot-TOR-LLDP-DCBX-PFC-RoCEv2.md) and forces PFC on.
func TestLintNXOSPFCAuto(t *testing.T) {
	data, err := os.ReadFile("../../testdata/lint/nxos-ecn-drop/fixed/leaf-running-config-synthetic.cfg")
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), "auto.cfg")
	if err := os.WriteFile(f, []byte(strings.Replace(string(data), "  priority-flow-control mode on\n", "", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Lint([]string{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, fd := range rep.Findings {
		titles = append(titles, fd.ID+": "+fd.Title)
	}
	if len(titles) != 1 || !strings.Contains(titles[0], "config.not_judged") || !strings.Contains(titles[0], "priority-flow-control mode auto") {
		t.Errorf("findings %q, want config.not_judged naming mode auto", titles)
	}
}

// TestLintJunosPublic lints each real Junos class-of-service configuration
// of testdata/corpus/junos alone against golden.txt there. AMD's QFX5240
// example is sound for RoCE (DSCP 26 no-loss on PFC priority 3, paused on
// et-* by its congestion-notification-profile, ECN on its scheduler): only
// the drop profile's fill levels go unjudged. CNP's queue 3 is not taken
// for the no-loss class on priority 3 (held in queue 4). Before, lint
// refused it.
func TestLintJunosPublic(t *testing.T) {
	got := map[string][]string{}
	lintGolden(t, "../../testdata/corpus/junos", "*.conf", 2, func(name string, fd doctor.Finding) {
		got[name] = append(got[name], fd.ID)
	})
	if ids := got["rocm-qfx5240-dcqcn-class-of-service.conf"]; strings.Join(ids, " ") != "config.not_judged" {
		t.Errorf("AMD's QFX5240 example: %v, want config.not_judged alone", ids)
	}
	// QUADS's set-form commands: read (they were refused as no
	// configuration), and the CNP's `input ieee-802.1 code-point 011 pfc`
	// pauses priority 3 on ae0 (it was called PFC off on every priority).
	if ids := got["quads-juniper-roce-display-set.conf"]; strings.Join(ids, " ") != "config.not_judged" {
		t.Errorf("QUADS's display-set class-of-service: %v, want config.not_judged alone", ids)
	}
	// Juniper's Apstra DCQCN configlet without the interfaces its
	// templates render: the one congestion-notification-profile and
	// scheduler map it defines are taken as bound and said so (PFC was
	// called off on every priority).
	if ids := got["apstra-ai-cluster-jvd-dcqcn-static.conf"]; strings.Join(ids, " ") != "config.not_judged" {
		t.Errorf("Apstra's DCQCN configlet: %v, want config.not_judged alone", ids)
	}
	// Juniper's AI/ML JVD leaf, whole: `et-*` binds PFC on DSCP 26;
	// irb and lo0 of the interfaces hierarchy are logical interfaces, no
	// ports (they were called PFC off on every priority).
	if ids := got["jvd-aiml-mtb-leaf1-qfx5240-64od.conf"]; strings.Join(ids, " ") != "config.not_judged" {
		t.Errorf("JVD AI/ML leaf1: %v, want config.not_judged alone", ids)
	}
}

// TestLintJunosBestEffortBesideNoLossZero: with NO-LOSS on PFC priority 0
// (Juniper's Apstra configlet, DSCP 0-7), a DSCP its classifier leaves out
// is best-effort in queue 0, not NO-LOSS's class 0: CNPs on DSCP 48 were
// said to share RoCE's class.
func TestLintJunosBestEffortBesideNoLossZero(t *testing.T) {
	for _, fd := range lintApstraStatic(t, "# synthetic: RoCE on DSCP 0, NCCL's default\nNCCL_IB_TC=0\n") {
		if fd.ID != "config.not_judged" {
			t.Errorf("%s: %s", fd.ID, fd.Title)
		}
	}
}

// lintApstraStatic lints Juniper's Apstra DCQCN configlet (its static
// part) beside an NCCL env file of the given text.
func lintApstraStatic(t *testing.T, nccl string) []doctor.Finding {
	t.Helper()
	return lintWritten(t, map[string]string{"nccl-synthetic.env": nccl}, "../../testdata/corpus/junos/apstra-ai-cluster-jvd-dcqcn-static.conf")
}

// lintWritten lints the given files with texts written, by name, into a
// temporary directory.
func lintWritten(t *testing.T, texts map[string]string, files ...string) []doctor.Finding {
	t.Helper()
	dir := t.TempDir()
	for name, text := range texts {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	rep, err := Lint(files, nil)
	if err != nil {
		t.Fatal(err)
	}
	return rep.Findings
}

// TestLintJunosFixPriority: RoCE on DSCP 26 beside Juniper's Apstra
// configlet (NO-LOSS on PFC priority 0 for DSCP 0-7) lands in best-effort
// queue 0, which lint numbers 8 apart from NO-LOSS's priority 0. The fix
// names priority 0, the one the configuration pauses; it said
// `pfc-priority 8` and "the NICs' priority 8", no priority at all.
func TestLintJunosFixPriority(t *testing.T) {
	n := 0
	for _, fd := range lintApstraStatic(t, "# synthetic: RoCE on DSCP 26\nNCCL_IB_TC=106\n") {
		if fd.ID != "qos.pfc.disabled" {
			continue
		}
		n++
		if strings.Contains(fd.Fix, "priority 8") || !strings.Contains(fd.Fix, "pfc-priority 0") {
			t.Errorf("fix: %s", fd.Fix)
		}
	}
	if n != 1 {
		t.Errorf("%d qos.pfc.disabled findings, want 1", n)
	}
}

// TestLintQoSAbsentNOS: an EOS configuration whose only qos profile no
// interface takes sets QoS on no port; config.qos.absent says so in the
// switch's terms, not by CONFIG_DB tables the file cannot hold, and asks
// for its running-config, not a config_db.json.
func TestLintQoSAbsentNOS(t *testing.T) {
	text := "! synthetic: an EOS qos profile that only trusts DSCP, taken by no interface\nqos profile TRUST\n   qos trust dscp\n!\ninterface Ethernet1\n   mtu 9214\n   no switchport\n"
	n := 0
	for _, fd := range lintWritten(t, map[string]string{"eos-synthetic.cfg": text}) {
		if fd.ID != "config.qos.absent" {
			continue
		}
		n++
		if strings.Contains(fd.Title, "PORT_QOS_MAP") || strings.Contains(fd.Fix, "CONFIG_DB") || !strings.Contains(fd.Fix, "show running-config") {
			t.Errorf("title %q, fix %q", fd.Title, fd.Fix)
		}
	}
	if n != 1 {
		t.Errorf("%d config.qos.absent findings, want 1", n)
	}
}

// TestLintEOSProfileMissing: AMD's Arista example cut before its qos
// profile (the interfaces alone, as a paste of `show running-config
// interfaces` gives them) says nothing of PFC for ports whose
// service-profile is not in the input; before, they were called lossy.
func TestLintEOSProfileMissing(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(eosDir, "rocm-arista7388-dcqcn-qos-profile.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	cut := text[:strings.Index(text, "qos profile")] + text[strings.Index(text, "!!! Sample"):]
	f := filepath.Join(t.TempDir(), "interfaces.cfg")
	if err := os.WriteFile(f, []byte(cut), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Lint([]string{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	named := false
	for _, fd := range rep.Findings {
		if fd.ID == "qos.pfc.disabled" {
			t.Errorf("%s: %s", fd.ID, fd.Title)
		}
		named = named || fd.ID == "config.not_judged" && strings.Contains(fd.Title, "service-profile QOS_ROCE_DCQCN (not in the input)")
	}
	if !named {
		t.Error("the missing service-profile is not named as not judged")
	}
}

// TestLintNXOSPolicyMissing: AMD's NX-OS example cut to its `system qos`
// and interface blocks applies policies it no longer defines: they are
// named as not judged, and no DSCP falls to qos-group 0 for want of its
// classification (before, RoCE was called lossy).
func TestLintNXOSPolicyMissing(t *testing.T) {
	data, err := os.ReadFile("../../testdata/corpus/nxos/rocm-n9364e-sg2-dcqcn.cfg")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	f := filepath.Join(t.TempDir(), "cut.cfg")
	if err := os.WriteFile(f, []byte(text[strings.Index(text, "system qos"):]), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Lint([]string{f, "../../testdata/lint/nxos-roce-dscp-unclassified/bad/nccl-synthetic.env"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) != 1 || rep.Findings[0].ID != "config.not_judged" || !strings.Contains(rep.Findings[0].Title, "policy-map QOS_CLASSIFICATION (not in the input)") {
		for _, fd := range rep.Findings {
			t.Errorf("%s: %s", fd.ID, fd.Title)
		}
	}
}

// TestLintTypedSession lints the NX-OS, EOS and OS10 cases' configurations
// typed at the CLI's prompts (synthetic sessions of the same commands,
// with an `exit`, an `end` and a refused command) and wants the findings
// the running-configs give, at the typed lines. Before, lint refused the
// sessions as no configuration.
func TestLintTypedSession(t *testing.T) {
	for _, c := range []struct{ file, session string }{
		{"nxos-ecn-drop/bad/leaf-running-config-synthetic.cfg", `leaf1# configure terminal
leaf1(config)# class-map type qos match-any ROCEv2
leaf1(config-cmap-qos)# match dscp 24,26
leaf1(config-cmap-qos)# exit
leaf1(config)# policy-map type qos QOS_CLASSIFICATION
leaf1(config-pmap-qos)# class ROCEv2
leaf1(config-pmap-c-qos)# set qos-group 3
leaf1(config-pmap-c-qos)# class class-default
leaf1(config-pmap-c-qos)# set qos-group 0
leaf1(config-pmap-c-qos)# policy-map type network-qos qos_network
leaf1(config-pmap-nqos)# class type network-qos c-8q-nq3
leaf1(config-pmap-nqos-c)# mtu 9216
leaf1(config-pmap-nqos-c)# pause pfc-cos 3
leaf1(config-pmap-nqos-c)# class type network-qos c-8q-nq-default
leaf1(config-pmap-nqos-c)# mtu 9216
leaf1(config-pmap-nqos-c)# exit
leaf1(config-pmap-nqos)# exit
leaf1(config)# policy-map type queuing QOS_EGRESS_PORT
leaf1(config-pmap-que)# class type queuing c-out-8q-q3
leaf1(config-pmap-c-que)# bandwidth remaining percent 50
leaf1(config-pmap-c-que)# random-detect minimum-threshold 150 kbytes maximum-threshold 3000 kbytes drop-probability 7 weight 0
leaf1(config-pmap-c-que)# system qos
leaf1(config-sys-qos)# service-policy type network-qos qos_network
leaf1(config-sys-qos)# service-policy type queuing output QOS_EGRESS_PORT
leaf1(config-sys-qos)# interface ethernet 1/1
leaf1(config-if)# mtu 9216
leaf1(config-if)# speed 100000
leaf1(config-if)# priority-flow-control mode on
leaf1(config-if)# service-policy type qos input QOS_CLASSIFICATION
leaf1(config-if)# end
leaf1#`},
		{"eos-ecn-drop/bad/leaf-running-config-synthetic.cfg", `leaf1#configure terminal
leaf1(config)#interface Ethernet1/1
leaf1(config-if-Et1/1)#mtu 9214
leaf1(config-if-Et1/1)#speed 100g
leaf1(config-if-Et1/1)#no switchport
leaf1(config-if-Et1/1)#qos trust dscp
leaf1(config-if-Et1/1)#priority-flow-control on
leaf1(config-if-Et1/1)#priority-flow-control priority 3 no-drop
leaf1(config-if-Et1/1)#tx-queue 3
leaf1(config-if-Et1/1-txq-3)#random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes max-mark-probability 20
% The hardware does not support ECN
leaf1(config-if-Et1/1-txq-3)#random-detect drop minimum-threshold 150 kbytes maximum-threshold 1500 kbytes drop-probability 20
leaf1(config-if-Et1/1-txq-3)#end`},
		{"os10-ecn-drop/bad/leaf-running-configuration-synthetic.cfg", `OS10# configure terminal
OS10(config)# wred ROCE-ECN
OS10(config-wred)# random-detect color green minimum-threshold 150 maximum-threshold 1500 drop-probability 10
OS10(config)# class-map type network-qos ROCE-NQ
OS10(config-cmap-nqos)# match qos-group 3
OS10(config)# class-map type queuing Q3
OS10(config-cmap-queuing)# match queue 3
OS10(config)# trust dscp-map ROCE-DSCP
OS10(config-tmap-dscp-trust)# qos-group 3 dscp 24-31
OS10(config-tmap-dscp-trust)# qos-group 6 dscp 48
OS10(config)# policy-map type network-qos ROCE-PFC
OS10(config-pmap-network-qos)# class ROCE-NQ
OS10(config-pmap-c-nqos)# pause
OS10(config-pmap-c-nqos)# pfc-cos 3
OS10(config)# policy-map type queuing ROCE-ETS
OS10(config-pmap-queuing)# class Q3
OS10(config-pmap-c-que)# bandwidth percent 60
OS10(config-pmap-c-que)# random-detect ROCE-ECN
OS10(config)# system qos
OS10(config-sys-qos)# trust-map dscp ROCE-DSCP
OS10(config)# interface range ethernet 1/1/1-1/1/2
OS10(conf-range-eth1/1/1-1/1/2)# no switchport
OS10(conf-range-eth1/1/1-1/1/2)# mtu 9216
OS10(conf-range-eth1/1/1-1/1/2)# speed 100000
OS10(conf-range-eth1/1/1-1/1/2)# priority-flow-control mode on
OS10(conf-range-eth1/1/1-1/1/2)# service-policy input type network-qos ROCE-PFC
OS10(conf-range-eth1/1/1-1/1/2)# service-policy output type queuing ROCE-ETS
OS10(conf-range-eth1/1/1-1/1/2)# end`},
	} {
		want := findingIDs(t, filepath.Join(casesDir, c.file))
		path := filepath.Join(t.TempDir(), "session.txt")
		if err := os.WriteFile(path, []byte(c.session), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := findingIDs(t, path); got != want || want == "" {
			t.Errorf("%s typed: %q, want %q", c.file, got, want)
		}
	}
}

// findingIDs lints one file and joins its finding ids.
func findingIDs(t *testing.T, path string) string {
	t.Helper()
	rep, err := Lint([]string{path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, f := range rep.Findings {
		ids = append(ids, f.ID)
	}
	return strings.Join(ids, " ")
}

// TestLintExcerpt lints what `show running-config interface` prints,
// pasted with its prompt (synthetic, in NX-OS 9.3's form: the `!Command:`
// and `!Time:` headers, the version line; and EOS's, which prints no
// header; and OS10's, an interface whose policies it does not print): a
// part of the configuration. NX-OS's lacks the `system qos`
// that says which classes pause, so PFC is not judged (read as a whole
// configuration, NX-OS's default policy pauses nothing: PFC would be
// called off); EOS's global maps are its defaults to lint. Either way the
// excerpt is named, quoted at its command. Before, lint refused the NX-OS
// and OS10 pastes and said nothing of the EOS one.
func TestLintExcerpt(t *testing.T) {
	for _, c := range []struct{ data, want, quote string }{
		{`leaf1# show running-config interface Ethernet1/1

!Command: show running-config interface Ethernet1/1
!Running configuration last done at: Fri Dec 16 17:50:00 2022
!Time: Mon Dec 19 05:46:28 2022

version 9.3(10) Bios:version

interface Ethernet1/1
  priority-flow-control mode on
  service-policy type qos input QOS_CLASSIFICATION
  mtu 9216
  no shutdown

leaf1#`, "show running-config interface Ethernet1/1 (a part of the configuration: system qos not in the input)", "!Command: show running-config interface Ethernet1/1"},
		{`leaf1#show running-config interfaces Ethernet1
interface Ethernet1
   mtu 9214
   no switchport
   priority-flow-control on
   priority-flow-control priority 3 no-drop
leaf1#`, "show running-config interfaces Ethernet1 (a part of the configuration: what it does not print, global QoS maps included, is taken as the switch's defaults)", "!leaf1#show running-config interfaces Ethernet1"},
		{`OS10# show running-configuration interface ethernet 1/1/1
!
interface ethernet1/1/1
 no shutdown
 no switchport
 mtu 9216
 priority-flow-control mode on
 service-policy input type network-qos ROCE-PFC
 service-policy output type queuing ROCE-ETS
OS10#`, "show running-configuration interface ethernet 1/1/1 (a part of the configuration", "!OS10# show running-configuration interface ethernet 1/1/1"},
	} {
		path := filepath.Join(t.TempDir(), "show-run-int.txt")
		if err := os.WriteFile(path, []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		rep, err := Lint([]string{path}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Findings) != 1 || rep.Findings[0].ID != "config.not_judged" || !strings.Contains(rep.Findings[0].Title, c.want) || !slices.ContainsFunc(rep.Findings[0].Evidence, func(e doctor.Evidence) bool { return e.Text == c.quote }) ||
			// Named once: NX-OS's reader names its own `!Command:` header.
			strings.Count(rep.Findings[0].Title, "(a part of the configuration") != 1 {
			for _, f := range rep.Findings {
				t.Errorf("%s: %s %+v", f.ID, f.Title, f.Evidence)
			}
			t.Errorf("want one config.not_judged naming %q", c.want)
		}
	}
}

// An NX-OS `show running-config interface` excerpt whose port names no
// qos policy (SYNTHETIC, in the layout NX-OS prints) beside a NIC that
// keeps DSCP 26 lossless on priority 3 (a blog's real mlnx_qos): the
// port's classification is the system qos policy the excerpt does not
// print, so no DSCP map is made up for it and no priority mismatch or
// CNP finding is raised, only the excerpt named as not judged.
func TestLintNXOSExcerptNoPolicy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "show-run-int.txt")
	data := "leaf1# show running-config interface Ethernet1/1\n\n!Command: show running-config interface Ethernet1/1\n!Time: Mon Dec 19 05:46:28 2022\n\nversion 9.3(10) Bios:version\n\ninterface Ethernet1/1\n  priority-flow-control mode on\n  mtu 9216\n\nleaf1#\n"
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Lint([]string{path, "../../testdata/lint/prio-mismatch-sonic/bad/mlnx-qos-dcbx-fw-pfc3-showgids-dmesg-pcie-x8-cx5blog.txt"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := ids(rep)
	if _, ok := got["config.not_judged"]; !ok {
		t.Errorf("findings %v: want the excerpt named as not judged", got)
	}
	for _, id := range []string{"qos.priority.mismatch", "qos.cnp.not_mapped"} {
		if _, ok := got[id]; ok {
			t.Errorf("%s on a port whose classification the excerpt does not print", id)
		}
	}
}

// Enterprise SONiC's management CLI typed at its prompts (SYNTHETIC, in
// the prompts KLISH prints) is read as KLISH, its running-config: it was
// read as an EOS configuration holding no QoS, once the prompts were
// taken off, since only the other CLIs' readers took a session.
func TestLintKLISHSession(t *testing.T) {
	path := filepath.Join(t.TempDir(), "klish-session.txt")
	data := strings.Join([]string{
		"sonic# configure terminal",
		"sonic(config)# qos map dscp-tc ROCE",
		"sonic(config-dscp-tc-map-ROCE)# dscp 26 traffic-class 5",
		"sonic(config-dscp-tc-map-ROCE)# exit",
		"sonic(config)# interface Ethernet0",
		"sonic(conf-if-Ethernet0)# qos-map dscp-tc ROCE",
		"sonic(conf-if-Ethernet0)# priority-flow-control priority 3",
		"sonic(conf-if-Ethernet0)# end",
	}, "\n")
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Lint([]string{path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Inputs) != 1 || rep.Inputs[0].Type != KindKLISHConfig {
		t.Fatalf("inputs %+v, want one %s", rep.Inputs, KindKLISHConfig)
	}
	if len(rep.Findings) != 1 || rep.Findings[0].ID != "qos.pfc.disabled" || !strings.Contains(rep.Findings[0].Title, "lands in class 5, but PFC is on 3") {
		for _, f := range rep.Findings {
			t.Errorf("%s: %s", f.ID, f.Title)
		}
		t.Error("want one qos.pfc.disabled: DSCP 26 in class 5, PFC on 3")
	}
}

// TestLintSessionErrorPlace: a value the reader refuses in a pasted
// session (SYNTHETIC, EOS prompts) is reported at its column in the
// paste, the prompt counted, not in the text read without it.
func TestLintSessionErrorPlace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "session.txt")
	data := "Leaf1(config)#interface Ethernet1\nLeaf1(config-if-Et1)#priority-flow-control priority 9 no-drop\n"
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Lint([]string{path}, nil)
	if want := path + `:2:53: "9": expected a priority 0-7`; err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}

// An NX-OS file (no prompts) that a `show running-config` of a section
// printed, `!Command:` header and `system qos` included, its network-qos
// policy pausing class 3 and no queuing policy (SYNTHETIC, in the layout
// NX-OS prints): the excerpt is named once, and RoCE's unmarked queue is
// not called an ECN-less configuration, since ECN may be written where
// the command does not print. Before, MarkExcerpt's one place, the header
// kept the ECN finding quiet but was named nowhere.
func TestLintNXOSExcerptWithSystemQoS(t *testing.T) {
	data := `!Command: show running-config ipqos
!Running configuration last done at: Fri Dec 16 17:50:00 2022

version 9.3(10) Bios:version

class-map type qos match-all RoCE
  match dscp 26
policy-map type qos QOS_CLASSIFICATION
  class RoCE
    set qos-group 3
policy-map type network-qos QOS_NETWORK
  class type network-qos c-8q-nq3
    pause pfc-cos 3
    mtu 9216
system qos
  service-policy type network-qos QOS_NETWORK
  service-policy type qos input QOS_CLASSIFICATION

interface Ethernet1/1
  priority-flow-control mode on
  service-policy type qos input QOS_CLASSIFICATION
`
	path := filepath.Join(t.TempDir(), "show-run-ipqos.txt")
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := lintFiles(t, path)
	notes := 0
	for _, f := range rep.Findings {
		if f.ID == "config.not_judged" {
			notes += strings.Count(f.Title, "show running-config ipqos (a part of the configuration: what it does not print")
		}
		if f.ID == "ecn.disabled" && strings.Contains(f.Title, "sets ECN on no queue") {
			t.Errorf("%s", f.Title)
		}
	}
	if notes != 1 {
		for _, f := range rep.Findings {
			t.Logf("%s: %s", f.ID, f.Title)
		}
		t.Errorf("the excerpt named %d times, want once", notes)
	}
}

// TestLintEOSPFCAllOff: EOS's global `priority-flow-control all off` turns
// PFC off on every interface whatever their own lines say (AVD's
// eos_cli_config_gen schema, priority_flow_control.all_off: "Disable PFC
// on all interfaces"). AVD renders it in its qos test; put before the
// interfaces of its ethernet-interfaces test (both real AVD renderings),
// Ethernet2's `priority-flow-control on` with priority 5 no-drop is lossy,
// and the fix says to remove the global line first. Before, lint read the
// line as a setting it does not judge and found Ethernet2 lossless.
func TestLintEOSPFCAllOff(t *testing.T) {
	ifaces := readText(t, filepath.Join(eosDir, "avd-eos_cli_config_gen-ethernet-interfaces.cfg"))
	qos := readText(t, filepath.Join(eosDir, "avd-eos_cli_config_gen-qos.cfg"))
	const off = "priority-flow-control all off"
	if !strings.Contains(qos, "\n"+off+"\n") {
		t.Fatalf("AVD's qos rendering has no %q line", off)
	}
	eth2 := func(fd doctor.Finding) bool {
		_, ports, _ := strings.Cut(fd.Subject, " ")
		return fd.ID == "qos.pfc.disabled" && slices.Contains(strings.Split(ports, ","), "Ethernet2")
	}
	lossless := func(rep *doctor.Report) bool { return !slices.ContainsFunc(rep.Findings, eth2) }
	if !lossless(lintFiles(t, tempFile(t, "ifaces.cfg", ifaces))) {
		t.Fatal("AVD ethernet-interfaces alone: Ethernet2 is not lossless, nothing to turn off")
	}
	rep := lintFiles(t, tempFile(t, "alloff.cfg", off+"\n!\n"+ifaces))
	if lossless(rep) {
		t.Fatal("with priority-flow-control all off, Ethernet2 is still lossless")
	}
	for _, fd := range rep.Findings {
		if !eth2(fd) {
			continue
		}
		if !strings.HasPrefix(fd.Fix, "`no priority-flow-control all off` (line 1 ") {
			t.Errorf("fix: %s", fd.Fix)
		}
		if !slices.ContainsFunc(fd.Evidence, func(e doctor.Evidence) bool { return e.Line == 1 }) {
			t.Errorf("evidence %v does not hold line 1", fd.Evidence)
		}
	}
}

// TestLintEOSNoTrustFix: AVD's port-channel-interfaces render (real,
// testdata/corpus/eos) leaves Port-Channel101, and so its member
// Ethernet10/1, with `no qos trust`: every packet takes the class of
// `qos cos`, class 1, RoCE's with the rest. PFC is off there; the fix
// is to trust DSCP and pause the class DSCP 26 then takes (3), not to
// make class 1, all the port's traffic, lossless, as it said before.
func TestLintEOSNoTrustFix(t *testing.T) {
	r := lintFiles(t, eosDir+"/avd-eos_cli_config_gen-port-channel-interfaces.cfg")
	var fix string
	for _, f := range r.Findings {
		if f.ID == "qos.pfc.disabled" && strings.Contains(f.Title, "Ethernet10/1") {
			fix = f.Fix
		}
	}
	if !strings.Contains(fix, "`qos trust dscp` in place of `no qos trust`") || !strings.Contains(fix, "`priority-flow-control priority 3 no-drop`") ||
		strings.Contains(fix, "priority 1 no-drop") {
		t.Errorf("fix: %s", fix)
	}
}

// SYNTHETIC: AVD's own untrusted form, `no qos trust` with `qos cos 3`,
// puts RoCE's class evidence on the `qos cos` line; the fix still trusts
// DSCP rather than making class 3, all the port's traffic, lossless, and
// names the class the config's own `qos map dscp 26 to traffic-class 4`
// gives DSCP 26, not the default map's 3.
func TestLintEOSNoTrustQoSCoSFix(t *testing.T) {
	fix := eosNoTrustFix(t, "")
	if !strings.Contains(fix, "`qos trust dscp` in place of `no qos trust`") || !strings.Contains(fix, "`priority-flow-control priority 4 no-drop`") ||
		!strings.Contains(fix, "`qos map dscp` at line 3") || strings.Contains(fix, "priority 3 no-drop") || strings.Contains(fix, ") (and on") {
		t.Errorf("fix: %s", fix)
	}
}

// eosNoTrustFix is the qos.pfc.disabled fix for a synthetic EOS port with
// `no qos trust` and `qos cos 3`, `qos map dscp 26 to traffic-class 4`,
// and the interface lines extra.
func eosNoTrustFix(t *testing.T, extra string) string {
	cfg := "! device: leaf1 (DCS-7050CX3-32S, EOS-4.30.1F)\n" +
		"hostname leaf1\n" +
		"qos map dscp 26 to traffic-class 4\n" +
		"!\n" +
		"interface Ethernet1\n" +
		"   description gpu1\n" +
		"   no switchport\n" +
		"   no qos trust\n" +
		"   qos cos 3\n" + extra +
		"!\n" +
		"end\n"
	var fix string
	for _, f := range lintWritten(t, map[string]string{"leaf1-synthetic.cfg": cfg}) {
		if f.ID == "qos.pfc.disabled" {
			fix = f.Fix
		}
	}
	return fix
}

// SYNTHETIC: the same untrusted port with class 4 already lossless: the
// fix only trusts DSCP (DSCP 26 then takes class 4), and says nothing of
// marking RoCE into the lossless class, which a port ignoring DSCP does
// not read. It said "turn PFC on for 4" and "NCCL_IB_TC = DSCP×4 + 2".
func TestLintEOSNoTrustLosslessFix(t *testing.T) {
	fix := eosNoTrustFix(t, "   priority-flow-control on\n   priority-flow-control priority 4 no-drop\n")
	if !strings.Contains(fix, "`qos trust dscp` in place of `no qos trust`") || !strings.Contains(fix, "already lossless") ||
		strings.Contains(fix, "NCCL_IB_TC") || strings.Contains(fix, "no-drop") {
		t.Errorf("fix: %s", fix)
	}
}
