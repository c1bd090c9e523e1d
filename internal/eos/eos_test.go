package eos

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"rocelab/internal/pos"
)

// TestParseAMDExample reads AMD's DCQCN example for an Arista 7388
// (testdata/corpus/eos, its source in the .source sidecar): the qos
// profile's trust, PFC and queue ECN at their lines and columns, and the
// two routed 200G interfaces that take it.
func TestParseAMDExample(t *testing.T) {
	data, err := os.ReadFile("../../testdata/corpus/eos/rocm-arista7388-dcqcn-qos-profile.cfg")
	if err != nil {
		t.Fatal(err)
	}
	if !IsConfig(data) {
		t.Fatal("not recognised as an EOS configuration")
	}
	c, err := Parse("amd.cfg", data)
	if err != nil {
		t.Fatal(err)
	}
	p, ok := c.Profiles["QOS_ROCE_DCQCN"]
	if !ok {
		t.Fatalf("profiles %v", c.Profiles)
	}
	if p.Trust != (Value{Text: "dscp", Line: 7, Col: 14}) || p.PFC != (Value{Text: "on", Line: 8, Col: 26}) {
		t.Errorf("trust %+v, pfc %+v", p.Trust, p.PFC)
	}
	if v, ok := p.Prios[3]; !ok || len(p.Prios) != 1 || v.Line != 9 || v.Col != 35 {
		t.Errorf("no-drop priorities %+v, want 3 at 9:35", p.Prios)
	}
	q := p.Queues[3]
	if q == nil || q.ECN == nil || q.ECN.Unit != "segments" || q.ECN.Min.Text != "2000 segments" || q.ECN.Prob.Text != "20" || q.ECN.At.Line != 12 {
		t.Fatalf("uc-tx-queue 3: %+v", q)
	}
	if len(c.Interfaces) != 2 {
		t.Fatalf("%d interfaces, want 2", len(c.Interfaces))
	}
	for _, it := range c.Interfaces {
		if it.Profile.Text != "QOS_ROCE_DCQCN" || it.Speed.Text != "200000" || it.MTU.Text != "9214" || !it.Routed {
			t.Errorf("%s: profile %q speed %q mtu %q routed %v", it.Name, it.Profile.Text, it.Speed.Text, it.MTU.Text, it.Routed)
		}
	}
	// `qos map traffic-class 3 to dscp 26` rewrites DSCP on egress: no
	// entry of the classification maps.
	if len(c.DSCP) != 0 || len(c.TCQueue) != 0 {
		t.Errorf("maps %v %v, want none", c.DSCP, c.TCQueue)
	}
}

// TestDefaultMaps: EOS's default DSCP map follows its CoS map, which is
// IEEE 802.1Q's (CoS 0 above CoS 1): RoCE's DSCP 26 is class 3, DSCP 0
// class 1, DSCP 8 class 0, CNP's DSCP 48 class 6.
func TestDefaultMaps(t *testing.T) {
	for dscp, tc := range map[int]int{0: 1, 7: 1, 8: 0, 15: 0, 24: 3, 26: 3, 46: 5, 48: 6, 63: 7} {
		if got := DefaultDSCPTC(dscp); got != tc {
			t.Errorf("DSCP %d: class %d, want %d", dscp, got, tc)
		}
	}
}

// TestParseSynthetic: a synthetic config with global maps, an interface
// range, an untrusted port and a WRED drop queue.
func TestParseSynthetic(t *testing.T) {
	text := strings.Join([]string{
		"! synthetic",
		"qos map dscp 24 25 26 to traffic-class 4",
		"qos map traffic-class 4 to tx-queue 2",
		"interface Ethernet1/1-3",
		"   qos trust dscp",
		"   priority-flow-control on",
		"   priority-flow-control priority 4 no-drop",
		"   priority-flow-control priority 4 drop",
		"   priority-flow-control priority 3 no-drop",
		"   tx-queue 2",
		"      random-detect drop minimum-threshold 1 mbytes maximum-threshold 2 mbytes drop-probability 10",
		"   speed forced 100gfull",
		"!",
		"interface Ethernet9",
		"   no qos trust",
		"   qos cos 3",
		"   priority-flow-control pause watchdog",
	}, "\n")
	c, err := Parse("x.cfg", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if c.DSCP[26].Text != "4" || c.DSCP[26].Line != 2 || c.TCQueue[4].Text != "2" {
		t.Errorf("maps %+v %+v", c.DSCP, c.TCQueue)
	}
	if len(c.Interfaces) != 4 {
		t.Fatalf("%d interfaces, want 4 (Ethernet1/1-3 and Ethernet9)", len(c.Interfaces))
	}
	for i, it := range c.Interfaces[:3] {
		want := "Ethernet1/" + string(rune('1'+i))
		q := it.Queues[2]
		if it.Name != want || len(it.Prios) != 1 || it.Prios[3].Line != 9 || q == nil || q.WRED == nil || q.WRED.Min.Text != "1048576" || it.Speed.Text != "100000" {
			t.Errorf("%s (want %s): prios %v queue %+v speed %q", it.Name, want, it.Prios, q, it.Speed.Text)
		}
	}
	e9 := c.Interfaces[3]
	if e9.Trust.Text != "none" || e9.DefaultCoS.Text != "3" {
		t.Errorf("Ethernet9: trust %+v cos %+v", e9.Trust, e9.DefaultCoS)
	}
	if len(c.NotJudged) != 1 || c.NotJudged[0].Text != "priority-flow-control pause watchdog" || c.NotJudged[0].Line != 17 {
		t.Errorf("not judged %+v", c.NotJudged)
	}
}

// TestParseErrors: a QoS command with a value EOS refuses is an error at
// the value.
func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{"   priority-flow-control priority 9 no-drop", "2:35: \"9\": expected a priority 0-7"},
		{"   priority-flow-control priority 3 lossless", "2:37: \"lossless\": expected no-drop or drop"},
		{"   tx-queue 3\n      random-detect ecn minimum-threshold 10 kb maximum-threshold 20 kbytes", "3:46: \"kb\": expected bytes, kbytes"},
		{"   tx-queue 3\n      random-detect ecn minimum-threshold 10 kbytes", "3:21: expected minimum-threshold N UNIT maximum-threshold N UNIT"},
	} {
		_, err := Parse("x.cfg", []byte("interface Ethernet1\n"+c.line+"\n"))
		var pe *pos.Error
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), "x.cfg:"+c.want) {
			t.Errorf("%q: %v, want x.cfg:%s", c.line, err, c.want)
		}
	}
}

// TestIsConfigHeader: an EOS running-config without QoS is recognised by
// the header EOS prints, and by `no qos trust`.
func TestIsConfigHeader(t *testing.T) {
	for _, text := range []string{
		"! Command: show running-config\n! device: leaf1 (DCS-7050CX3-32S, EOS-4.28.3M)\n!\ninterface Ethernet1\n   no switchport\n",
		"interface Port-Channel3\n   no qos trust\n",
		// EOS takes the type and number apart, as Parse reads them.
		"interface ethernet 1\n   no qos trust\n",
	} {
		if !IsConfig([]byte(text)) {
			t.Errorf("%q not recognised", text)
		}
	}
	if IsConfig([]byte("! device: x (DCS-7050, EOS-4.28)\nhostname x\n")) {
		t.Error("a header without an interface block read as a config")
	}
}

// TestIsConfigNXOS: NX-OS's interface syntax is alike, but its `system
// qos` and network-qos policies say it is not EOS.
func TestIsConfigNXOS(t *testing.T) {
	nxos := "feature lldp\ninterface Ethernet1/1\n  priority-flow-control mode on\n  priority-flow-control priority 3 no-drop\nsystem qos\n  service-policy type network-qos RoCE\n"
	if IsConfig([]byte(nxos)) {
		t.Error("NX-OS read as EOS")
	}
}

// FuzzParse: no input panics, and a refusal names a place in it.
func FuzzParse(f *testing.F) {
	f.Add([]byte("interface Ethernet1\n   priority-flow-control on\n   priority-flow-control priority 3 no-drop\n   tx-queue 3\n      random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes\n"))
	f.Add([]byte("qos map dscp 26 to traffic-class 3\nqos profile P\n   qos trust dscp\ninterface Ethernet1/1-4,7\n   service-profile P\n   speed 400g-8\n"))
	f.Add([]byte("interface ethernet1\n   service-profile P\ninterface po10\n   qos trust dscp\ninterface et2-3,port-channel-4\n   channel-group 10 mode active\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := Parse("f.cfg", data); !pos.Placed(err) {
			t.Fatalf("error without a place: %v", err)
		}
	})
}

// TestParseECNOutsideQueue: `random-detect ecn` written under a block EOS
// takes no ECN in (a policy-map class, as guides write it) marks no queue:
// it is named at its line instead of dropped unsaid. Synthetic input in
// the shape of such a guide.
func TestParseECNOutsideQueue(t *testing.T) {
	in := "policy-map type qos ROCE\n   class tx-queue 3\n      random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes\n" +
		"interface Ethernet1\n   priority-flow-control on\n   priority-flow-control priority 3 no-drop\n"
	c, err := Parse("g.cfg", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.NotJudged) != 1 || c.NotJudged[0].Line != 3 || !strings.Contains(c.NotJudged[0].Text, "marks no queue") {
		t.Errorf("not judged %v, want the random-detect at line 3", c.NotJudged)
	}
	if q := c.Interfaces[0].Queues; len(q) != 0 {
		t.Errorf("queues %v, want none: the policy-map's ECN is on no tx-queue", q)
	}
}

// TestChannelMembers reads Arista AVD's qos render (testdata/corpus/eos,
// its source in the .source sidecar): Ethernet3 and Ethernet4, `channel-group
// 3 mode active` alone, take Port-Channel3's trust, default CoS,
// service-policy and service-profile at the port channel's lines.
func TestChannelMembers(t *testing.T) {
	data, err := os.ReadFile("../../testdata/corpus/eos/avd-eos_cli_config_gen-qos.cfg")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Parse("qos.cfg", data)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*Interface{}
	for _, it := range c.Interfaces {
		byName[it.Name] = it
	}
	pc := byName["Port-Channel3"]
	if pc == nil || strings.Join(pc.Members, ",") != "Ethernet3,Ethernet4" {
		t.Fatalf("Port-Channel3 %+v", pc)
	}
	for _, n := range []string{"Ethernet3", "Ethernet4"} {
		it := byName[n]
		if it == nil || it.Channel.Text != "3" || it.ChannelMissing {
			t.Fatalf("%s: %+v", n, it)
		}
		if it.Trust != (Value{Text: "cos", Line: 173, Col: 14}) || it.DefaultCoS.Text != "2" || it.Policy.Text != "pmap_test1" || it.Profile != (Value{Text: "experiment", Line: 172, Col: 20}) {
			t.Errorf("%s: trust %+v cos %+v policy %+v profile %+v", n, it.Trust, it.DefaultCoS, it.Policy, it.Profile)
		}
	}
}

// TestChannelMemberOwnNamed: a member's own trust that differs from its
// Port-Channel's gives way to it and is named, at its place; a member of
// a Port-Channel the input does not hold is marked and named. Synthetic.
func TestChannelMemberOwnNamed(t *testing.T) {
	c, err := Parse("x.cfg", []byte("interface Port-Channel10\n   no switchport\n   qos trust dscp\ninterface Ethernet1\n   channel-group 10 mode active\n   qos trust cos\ninterface Ethernet2\n   channel-group 11 mode active\n"))
	if err != nil {
		t.Fatal(err)
	}
	e1, e2 := c.Interfaces[1], c.Interfaces[2]
	if e1.Trust.Text != "dscp" || e1.Trust.Line != 3 || !e1.Routed || e2.ChannelMissing != true {
		t.Errorf("Ethernet1 %+v, Ethernet2 %+v", e1, e2)
	}
	if len(c.NotJudged) != 2 || c.NotJudged[0].Line != 6 || c.NotJudged[0].Text != "qos trust cos on Ethernet1 (a member of Port-Channel10, which writes qos trust dscp: the port channel's applies)" ||
		!strings.HasPrefix(c.NotJudged[1].Text, "channel-group 11 on Ethernet2 (Port-Channel11 not in the input") {
		t.Errorf("not judged %+v", c.NotJudged)
	}
}

// TestChannelPFCNotTaken: PFC, no-drop priorities and transmit queues
// written under a Port-Channel are not given to its members (EOS sets
// them on Ethernet interfaces; AVD renders them there alone) and are
// named at their lines; the member keeps its own. Synthetic.
func TestChannelPFCNotTaken(t *testing.T) {
	c, err := Parse("x.cfg", []byte("interface Port-Channel10\n   qos trust dscp\n   priority-flow-control on\n   priority-flow-control priority 3 no-drop\n   tx-queue 3\n      random-detect ecn minimum-threshold 100 kbytes maximum-threshold 200 kbytes\ninterface Ethernet1\n   channel-group 10 mode active\n   no priority-flow-control\n"))
	if err != nil {
		t.Fatal(err)
	}
	pc, e1 := c.Interfaces[0], c.Interfaces[1]
	if pc.PFC.Given() || len(pc.Prios) != 0 || len(pc.Queues) != 0 {
		t.Errorf("Port-Channel10 keeps %+v", pc.Settings)
	}
	if e1.PFC != (Value{Text: "off", Line: 9, Col: 4}) || len(e1.Prios) != 0 || len(e1.Queues) != 0 || e1.Trust.Text != "dscp" {
		t.Errorf("Ethernet1 %+v", e1.Settings)
	}
	var lines []int
	for _, v := range c.NotJudged {
		if strings.Contains(v.Text, "under Port-Channel10") {
			lines = append(lines, v.Line)
		}
	}
	if fmt.Sprint(lines) != "[3 4 5]" {
		t.Errorf("not judged %+v", c.NotJudged)
	}
}

// A block of several interfaces whose Port-Channels are not its first
// (`interface Ethernet1/6-7, Port-Channel40-41`), or are all of it: each
// PFC line is named once, with every Port-Channel it is written under.
func TestChannelPFCRangeNamed(t *testing.T) {
	for _, head := range []string{"interface Ethernet1/6-7, Port-Channel40-41", "interface Port-Channel40-41"} {
		c, err := Parse("x.cfg", []byte(head+"\n   priority-flow-control on\n   priority-flow-control priority 3 no-drop\n"))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, v := range c.NotJudged {
			got = append(got, fmt.Sprintf("%d %s", v.Line, strings.SplitN(v.Text, " (", 2)[0]))
		}
		want := "[2 priority-flow-control on under Port-Channel40, Port-Channel41 3 priority-flow-control priority 3 under Port-Channel40, Port-Channel41]"
		if fmt.Sprint(got) != want {
			t.Errorf("%s: not judged %q", head, got)
		}
	}
}

// TestParseInterfaceNameCase: EOS takes an interface type in any case
// and short, and AVD renders a structured config's lower-case names as
// written (testdata/corpus/eos, l3_edge_isis: `interface ethernet1` with
// the file's only QoS line). The blocks are the ports Ethernet1 and
// Port-Channel10, as `show running-config` names them; before, a
// lower-case block was no interface and the file was refused.
func TestParseInterfaceNameCase(t *testing.T) {
	data, err := os.ReadFile("../../testdata/corpus/eos/avd-eos_designs-l3_edge_isis-lowercase-ethernet.cfg")
	if err != nil {
		t.Fatal(err)
	}
	if !IsConfig(data) {
		t.Fatal("not recognised as an EOS configuration")
	}
	c, err := Parse("isis.cfg", data)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, it := range c.Interfaces {
		names = append(names, it.Name)
		if it.Name == "Ethernet1" && (it.Profile.Text != "TEST-QOS-PROFILE" || it.Profile.Line != 33) {
			t.Errorf("Ethernet1 profile %+v, want TEST-QOS-PROFILE at line 33", it.Profile)
		}
	}
	if got := strings.Join(names, ","); got != "Ethernet1,Ethernet2,Ethernet3,Ethernet4" {
		t.Errorf("interfaces %s", got)
	}
	in := "interface po10\n   qos trust dscp\ninterface et1-2\n   channel-group 10 mode active\n   priority-flow-control on\n   priority-flow-control priority 3 no-drop\n"
	if !IsConfig([]byte(in)) {
		t.Fatal("short names: not recognised")
	}
	c, err = Parse("short.cfg", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	names = names[:0]
	for _, it := range c.Interfaces {
		names = append(names, it.Name)
	}
	if got := strings.Join(names, ","); got != "Port-Channel10,Ethernet1,Ethernet2" {
		t.Errorf("short names read as %s", got)
	}
}
