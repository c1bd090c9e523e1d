package nxos

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"rocelab/internal/pos"
)

// TestParseAMDExample reads AMD's DCQCN example for a Nexus N9364E
// (testdata/corpus/nxos, its source in the .source sidecar).
func TestParseAMDExample(t *testing.T) {
	data, err := os.ReadFile("../../testdata/corpus/nxos/rocm-n9364e-sg2-dcqcn.cfg")
	if err != nil {
		t.Fatal(err)
	}
	if !IsConfig(data) {
		t.Fatal("not recognised as NX-OS")
	}
	c, err := Parse("amd.cfg", data)
	if err != nil {
		t.Fatal(err)
	}
	if v := c.ClassDSCP["ROCEv2"][26]; v.Line != 12 || v.Col != 14 {
		t.Errorf("ROCEv2 matches DSCP 26 at %d:%d, want 12:14", v.Line, v.Col)
	}
	cl := c.QoS["QOS_CLASSIFICATION"]
	if len(cl) != 3 || cl[0].Name != "ROCEv2" || cl[0].Group.Text != "3" || cl[1].Group.Text != "7" || cl[2].Name != "class-default" {
		t.Errorf("classification %+v", cl)
	}
	if v, ok := c.Pause["qos_network"][3]; !ok || len(c.Pause["qos_network"]) != 1 || v.Text != "3" || v.Line != 5 {
		t.Errorf("pauses %+v, want qos-group 3 (pfc-cos 3 at line 5)", c.Pause)
	}
	q := c.Queuing["QOS_EGRESS_PORT"][3]
	if q == nil || q.At.Text != "ecn" || q.Min.Text != "972800" || q.Max.Text != "3072000" || q.Prob.Text != "7" || len(c.Queuing["QOS_EGRESS_PORT"]) != 1 {
		t.Fatalf("queue 3: %+v", q)
	}
	if c.System["network-qos"].Text != "qos_network" || c.System["queuing"].Text != "QOS_EGRESS_PORT" {
		t.Errorf("system qos %+v", c.System)
	}
	if len(c.Interfaces) != 2 || c.Interfaces[1].Name != "Ethernet1/1/2" || c.Interfaces[1].PFC.Text != "on" || c.Interfaces[1].QoSInput.Text != "QOS_CLASSIFICATION" {
		t.Errorf("interfaces %+v", c.Interfaces)
	}
}

// TestGroup: the qos-group of NX-OS's system class names.
func TestGroup(t *testing.T) {
	c := &Config{Groups: map[string]int{"ROCE-NQ": 5}}
	for name, want := range map[string]int{"c-8q-nq3": 3, "c-8q-nq-default": 0, "c-nq2": 2, "c-out-8q-q7": 7, "c-out-q-default": 0, "ROCE-NQ": 5} {
		if g, ok := c.Group(name); !ok || g != want {
			t.Errorf("%s: %d %v, want %d", name, g, ok, want)
		}
	}
	if _, ok := c.Group("c-8q-nq9"); ok {
		t.Error("c-8q-nq9 has no qos-group")
	}
}

// TestDSCPNames: class-maps may match by PHB name or range.
func TestDSCPNames(t *testing.T) {
	c, err := Parse("x.cfg", []byte("class-map type qos match-any R\n  match dscp af31,cs3 ef 10-11\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []int{26, 24, 46, 10, 11} {
		if _, ok := c.ClassDSCP["R"][d]; !ok {
			t.Errorf("DSCP %d not matched: %v", d, c.ClassDSCP["R"])
		}
	}
}

// TestParseAzureLocal: Microsoft's Azure Local policy classifies by CoS
// (`match cos 3`) and turns PFC on with `mode on send-tlv`.
func TestParseAzureLocal(t *testing.T) {
	data, err := os.ReadFile("../../testdata/corpus/nxos/azurelocal-tor-qos-policy-nexus.cfg")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Parse("az.cfg", data)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := c.ClassCoS["RDMA"][3]; !ok || v.Line != 11 || !c.ByCoS("AZLocal_SERVICES") || c.ByCoS("other") {
		t.Errorf("RDMA matches CoS %v", c.ClassCoS)
	}
	if len(c.Interfaces) != 1 || c.Interfaces[0].PFC.Text != "on" {
		t.Errorf("interfaces %+v", c.Interfaces)
	}
}

// A network-qos class's qos-group comes from its class-map wherever the
// input defines it, after the policy too; one the input does not define
// (Microsoft's AzureStack switch config generator renders
// AZLOCAL-NWQOS-RDMA so) leaves the pause unplaced and named, not a
// refusal.
func TestPauseClassMaps(t *testing.T) {
	policy := "policy-map type network-qos N\n  class type network-qos mine\n    pause pfc-cos 3\n"
	c, err := Parse("x.cfg", []byte(policy+"class-map type network-qos mine\n  match qos-group 3\n"))
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := c.Pause["N"][3]; !ok || v.Line != 3 || len(c.PauseUnknown) != 0 {
		t.Errorf("class-map after the policy: pauses %v, unknown %v; want qos-group 3 from line 3", c.Pause, c.PauseUnknown)
	}
	c, err = Parse("x.cfg", []byte(policy))
	if err != nil {
		t.Fatal(err)
	}
	if u := c.PauseUnknown["N"]; len(c.Pause["N"]) != 0 || len(u) != 1 || u[0].Line != 3 || !strings.Contains(u[0].Text, "class type network-qos mine (no class-map") {
		t.Errorf("no class-map: pauses %v, unknown %v; want the class named at line 3", c.Pause, c.PauseUnknown)
	}
	// A network-qos class-map matching cos (as a public RoCE how-to
	// pastes it) is there but gives no qos-group: said so, not "no
	// class-map".
	c, err = Parse("x.cfg", []byte(policy+"class-map type network-qos match-any mine\n  match cos 3\n"))
	if err != nil {
		t.Fatal(err)
	}
	if u := c.PauseUnknown["N"]; len(u) != 1 || !strings.Contains(u[0].Text, "its class-map matches `match cos 3` at line 5, not a qos-group") {
		t.Errorf("class-map matching cos: unknown %v", c.PauseUnknown)
	}
}

// TestParseErrors: a value NX-OS refuses is an error at its place.
func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"class-map type qos match-any R\n  match dscp 64\n", "2:14: \"64\": expected DSCP values"},
		{"policy-map type queuing Q\n  class type queuing c-out-8q-q3\n    random-detect minimum-threshold 10 kb maximum-threshold 20 kbytes ecn\n", "3:37: \"10\" \"kb\": expected a threshold"},
		{"interface Ethernet1/41\n  channel-group po50 mode active\n", "2:17: \"po50\": expected a port-channel number"},
	} {
		_, err := Parse("x.cfg", []byte(c.text))
		var pe *pos.Error
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), "x.cfg:"+c.want) {
			t.Errorf("%q: %v, want x.cfg:%s", c.text, err, c.want)
		}
	}
}

// FuzzParse: no input panics, and a refusal names a place in it.
func FuzzParse(f *testing.F) {
	f.Add([]byte("policy-map type network-qos N\n  class type network-qos c-8q-nq3\n    pause pfc-cos 3\nsystem qos\n  service-policy type network-qos N\n"))
	f.Add([]byte("class-map type qos match-any R\n  match dscp 26\npolicy-map type qos P\n  class R\n    set qos-group 3\ninterface Ethernet1/1 - 4\n  priority-flow-control mode on\n  service-policy type qos input P\n"))
	f.Add([]byte("policy-map type network-qos N\n  class type network-qos c-out-8q-q3\n    pause pfc-cos 3\n"))
	f.Add([]byte("policy-map type qos M\nclass R\n    set qos-group 3\npolicy-map type network-qos N\n  class type network-qos R\n    pause no-drop pfc-cos 3\n"))
	f.Add([]byte("interface port-channel50\n  service-policy type qos input AZS\ninterface Ethernet1/41\n  priority-flow-control mode on\n  channel-group 50 mode active\n"))
	f.Add([]byte("vlan 711\n\ninterface Ethernet1/15\n  priority-flow-control mode on send-tlv\n  spanning-tree port type edge trunk\n  service-policy type qos input AZS\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := Parse("f.cfg", data); !pos.Placed(err) {
			t.Fatalf("error without a place: %v", err)
		}
	})
}

// TestParsePauseQueuingClass: a network-qos policy that names an egress
// queuing class (c-out-8q-q3, as a lab guide for a Nexus 9332 wrote it)
// pauses nothing, and says so at its pause line; a class-map type
// network-qos the configuration defines under such a name is its own.
func TestParsePauseQueuingClass(t *testing.T) {
	const nq = "policy-map type network-qos N\n  class type network-qos c-out-8q-q3\n    pause pfc-cos 3\n"
	c, err := Parse("x.cfg", []byte(nq))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Pause["N"]) != 0 || len(c.PauseUnknown["N"]) != 0 {
		t.Errorf("pause %v, unknown %v: want none", c.Pause, c.PauseUnknown)
	}
	if len(c.NotJudged) != 1 || c.NotJudged[0].Line != 3 || !strings.Contains(c.NotJudged[0].Text, "pauses nothing") {
		t.Errorf("not judged %+v", c.NotJudged)
	}
	c, err = Parse("x.cfg", []byte("class-map type network-qos c-out-8q-q3\n  match qos-group 3\n"+nq))
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := c.Pause["N"][3]; !ok || v.Text != "3" {
		t.Errorf("own class-map: pause %v", c.Pause)
	}
}

// TestParsePauseNoDrop: the Nexus 3000/5000 `pause no-drop` makes its
// class's qos-group pause (Microsoft's SDN example for a Nexus 3132),
// `pause no-drop pfc-cos 4` too, and a class typed at the policy-map's
// indent (its README) is still the policy's.
func TestParsePauseNoDrop(t *testing.T) {
	const in = "class-map type qos match-all RDMA\n  match cos 3\npolicy-map type qos QOS_MARKING\nclass RDMA\n    set qos-group 3\nclass class-default\n" +
		"class-map type network-qos RDMA\n  match qos-group 3\nclass-map type network-qos STOR\n  match qos-group 4\n" +
		"policy-map type network-qos QOS_NETWORK\n  class type network-qos RDMA\n    mtu 2240\n    pause no-drop\n  class type network-qos STOR\n    pause no-drop pfc-cos 4\n"
	c, err := Parse("x.cfg", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if p := c.Pause["QOS_NETWORK"]; len(p) != 2 || p[3].Line != 14 || p[4].Text != "4" {
		t.Errorf("pause %+v", p)
	}
	if q := c.QoS["QOS_MARKING"]; len(q) != 2 || q[0].Name != "RDMA" || q[0].Group.Text != "3" || !c.ByCoS("QOS_MARKING") {
		t.Errorf("QOS_MARKING %+v", q)
	}
	if _, err := Parse("x.cfg", []byte("policy-map type network-qos N\n  class type network-qos c-8q-nq3\n    pause no-drop pfc-cos 9\n")); err == nil || !strings.Contains(err.Error(), "x.cfg:3:") {
		t.Errorf("pfc-cos 9: %v, want a refusal at line 3", err)
	}
}

// TestIsConfigExcerpt: NX-OS's `!Command: show running-config` header
// marks a part of an NX-OS configuration only with a QoS line of a port
// under it (SYNTHETIC excerpts in the layout NX-OS prints); a header
// over a port without one, or such a line without the header, is not.
func TestIsConfigExcerpt(t *testing.T) {
	const head = "!Command: show running-config interface Ethernet1/1\n!Time: Mon Dec 19 05:46:28 2022\n\ninterface Ethernet1/1\n"
	for in, want := range map[string]bool{
		head + "  priority-flow-control mode on\n":                    true,
		head + "  service-policy type qos input QOS_CLASSIFICATION\n": true,
		head + "  description to host\n  mtu 9216\n":                  false,
		"interface Ethernet1/1\n  priority-flow-control mode on\n":    false,
		// Interface blocks alone, with a command only NX-OS takes
		// (Microsoft's Azure Local TOR references print them so).
		"interface Ethernet1/15\n  priority-flow-control mode on send-tlv\n":                                  true,
		"interface Ethernet1/15\n  spanning-tree port type edge trunk\n  service-policy type qos input AZS\n": true,
		"interface Ethernet1/15\n  spanning-tree port type edge trunk\n":                                      false,
		// A whole running-config without QoS, by its header and NX-OS's
		// version line; EOS writes `! Command:` with a space, and a part
		// of the configuration is not the whole.
		"!Command: show running-config\n!Time: Wed Feb  8 18:51:32 2023\n\nversion 9.3(10) Bios:version\nhostname leaf-1\n": true,
		"! Command: show running-config\n! device: sw1 (DCS-7050, EOS-4.28.3M)\nversion 9.3(10)\n":                          false,
		head + "version 9.3(10) Bios:version\n  description to host\n":                                                      false,
	} {
		if got := IsConfig([]byte(in)); got != want {
			t.Errorf("IsConfig(%q) = %v, want %v", in, got, want)
		}
	}
}

// TestParseInterfacesAlone: interface blocks given without system qos, a
// policy-map or the lines a whole running-config opens with are a cut:
// Excerpt is their first interface, so PFC is not judged (SYNTHETIC, in
// the layout of Microsoft's Azure Local TOR references); with `hostname`
// they are a whole configuration whose default policy pauses nothing.
func TestParseInterfacesAlone(t *testing.T) {
	const ports = "vlan 711\n\ninterface Ethernet1/15\n  priority-flow-control mode on send-tlv\n  service-policy type qos input AZS\n"
	for in, want := range map[string]int{ports: 3, "hostname tor1\n" + ports: 0} {
		c, err := Parse("x.cfg", []byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if c.Excerpt.Line != want {
			t.Errorf("%q: Excerpt at line %d (%q), want %d", in, c.Excerpt.Line, c.Excerpt.Text, want)
		}
	}
}

// TestIsConfigOS10Cut: interface blocks cut from Dell OS10's running
// configuration (real: Azure Stack's S5248F TOR, its first port's block,
// lines 70-86, and the PFC-to-spanning-tree lines 78-85 under its
// interface line) print `priority-flow-control mode on` and
// `spanning-tree port type edge`, which NX-OS also takes: no command only
// NX-OS takes, so they are no NX-OS configuration. Before, `spanning-tree
// port type edge` counted as NX-OS-only and the cut was read as NX-OS.
func TestIsConfigOS10Cut(t *testing.T) {
	data, err := os.ReadFile("../../testdata/corpus/os10/azurestack-s5248f-tor1-running-configuration.cfg")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	if lines[69] != "interface ethernet1/1/1" || strings.TrimSpace(lines[77]) != "priority-flow-control mode on" || strings.TrimSpace(lines[84]) != "spanning-tree port type edge" {
		t.Fatalf("lines 70, 78, 85 are %q, %q, %q", lines[69], lines[77], lines[84])
	}
	for name, cut := range map[string]string{
		"block 70-86":         strings.Join(lines[69:86], "\n") + "\n",
		"interface and 78-85": lines[69] + "\n" + strings.Join(lines[77:85], "\n") + "\n",
	} {
		if IsConfig([]byte(cut)) {
			t.Errorf("%s: taken as NX-OS:\n%s", name, cut)
		}
	}
}

// TestParseChannelMembers: a port channel's member interfaces take its
// classification policy (NX-OS applies it to them), as the Azure Local
// generator's Nexus 93180 writes its P2P link; a member's own policy and
// a port channel without one leave a member as it is.
func TestParseChannelMembers(t *testing.T) {
	data, err := os.ReadFile("../../testdata/corpus/nxos/azurelocal-switchgen-gotmpl-n93180-portchannel-members.cfg")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Parse("tor.cfg", data)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, it := range c.Interfaces {
		got[it.Name] = it.QoSInput.Text
		if it.Name == "Ethernet1/41" && (it.Channel.Text != "50" || it.QoSInput.Line != 478) {
			t.Errorf("Ethernet1/41: channel %q, policy at line %d, want 50 and port-channel50's line 478", it.Channel.Text, it.QoSInput.Line)
		}
	}
	for name, want := range map[string]string{"Ethernet1/41": "AZS_SERVICES", "Ethernet1/42": "AZS_SERVICES", "Ethernet1/1": "AZS_SERVICES", "Ethernet1/49": "", "port-channel101": ""} {
		if got[name] != want {
			t.Errorf("%s: policy %q, want %q", name, got[name], want)
		}
	}
	// SYNTHETIC: a member's own policy gives way to its port channel's
	// (Cisco: "A QoS policy attached to a port channel takes effect even
	// when policies are attached to member ports"), none when the port
	// channel has none; the member's line is named as not judged. A member
	// of a port channel the input does not hold is marked and named.
	own, err := Parse("x.cfg", []byte("interface port-channel5\n  service-policy type qos input A\ninterface Ethernet1/1\n  channel-group 5\n  service-policy type qos input B\n"+
		"interface port-channel6\ninterface Ethernet1/2\n  channel-group 6\n  service-policy type qos input B\ninterface Ethernet1/3\n  channel-group 7\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p := own.Interfaces[1].QoSInput.Text; p != "A" {
		t.Errorf("member with its own policy: %q, want port-channel5's A", p)
	}
	if p := own.Interfaces[3].QoSInput; p.Given() {
		t.Errorf("member of a port channel without a policy: %+v, want none", p)
	}
	if !own.Interfaces[4].ChannelMissing || own.Interfaces[1].ChannelMissing {
		t.Errorf("channel missing: %+v", own.Interfaces)
	}
	var nj []string
	for _, v := range own.NotJudged {
		nj = append(nj, fmt.Sprintf("%d:%d %s", v.Line, v.Col, v.Text))
	}
	if len(nj) != 3 || !strings.HasPrefix(nj[0], "5:33 service-policy type qos input B on Ethernet1/1 (a member of port-channel5") ||
		nj[1] != "9:33 service-policy type qos input B on Ethernet1/2 (a member of port-channel6: NX-OS applies the port channel's policy, not the member's, and port-channel6 has none)" || !strings.HasPrefix(nj[2], "11:17 channel-group 7 on Ethernet1/3 (port-channel7 not in the input") {
		t.Errorf("not judged %q", nj)
	}
}
