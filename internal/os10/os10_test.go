package os10

import (
	"os"
	"slices"
	"strings"
	"testing"

	"rocelab/internal/pos"
)

// TestParseAzureStackTOR reads the running-configuration of an Azure
// Stack S5248F-ON top-of-rack switch (testdata/corpus/os10, its source in
// the first line): dot1p trust, PFC on CoS 3 for qos-group 3, and a WRED
// profile named "ecn" that only an unapplied queuing policy attaches.
func TestParseAzureStackTOR(t *testing.T) {
	data, err := os.ReadFile("../../testdata/corpus/os10/azurestack-s5248f-tor1-running-configuration.cfg")
	if err != nil {
		t.Fatal(err)
	}
	if !IsConfig(data) {
		t.Fatal("not recognised as OS10")
	}
	c, err := Parse("tor1.cfg", data)
	if err != nil {
		t.Fatal(err)
	}
	w := c.WRED["ecn"]
	if w == nil || w.Min.Text != "153600" || w.Max.Text != "1536000" || w.Prob.Text != "100" || !w.ECN.Given() || w.Min.Line != 7 || w.Min.Col != 46 {
		t.Fatalf("wred ecn: %+v", w)
	}
	if v := c.Dot1pMaps["AZS_SERVICES_Dot1p"][3]; v.Text != "3" || v.Line != 32 || v.Col != 20 {
		t.Errorf("dot1p 3: %+v, want qos-group 3 at 32:20", v)
	}
	if g := c.Dot1pMaps["AZS_SERVICES_Dot1p"][7]; g.Text != "0" {
		t.Errorf("dot1p 7 in qos-group %q, want 0", g.Text)
	}
	if q := c.TCQueue["AZS_SERVICES_Que"][5]; q.Text != "5" {
		t.Errorf("qos-group 5 to queue %q, want 5", q.Text)
	}
	pa := c.Pauses["AZS_SERVICES_pfc"]["AZS_SERVICES_Dot1p_3"]
	if pa == nil || !slices.Equal(pa.CoS, []int{3}) || !pa.At.Given() || len(c.Pauses["AZS_SERVICES_pfc"]) != 1 {
		t.Fatalf("pauses %+v", c.Pauses)
	}
	if c.RED["policy_q3"]["Queue_3"].Text != "ecn" || len(c.RED["AZS_SERVICES_ets"]) != 0 {
		t.Errorf("random-detect by policy: %+v", c.RED)
	}
	if c.System.Trust.Text != "dot1p" || c.System.TrustMap.Text != "AZS_SERVICES_Dot1p" {
		t.Errorf("system qos %+v", c.System)
	}
	var on []string
	for _, it := range c.Interfaces {
		if it.PFC.Text == "on" && it.NetQoS.Text == "AZS_SERVICES_pfc" {
			on = append(on, it.Name)
		}
	}
	if len(on) != 10 || on[0] != "ethernet1/1/1" || on[4] != "ethernet1/1/39" {
		t.Errorf("ports pausing CoS 3: %v", on)
	}
}

// TestExpand: OS10's interface names and ranges, as `interface range`
// and its own running-configuration write them.
func TestExpand(t *testing.T) {
	for spec, want := range map[string]string{
		"ethernet1/1/1":             "ethernet1/1/1",
		"Ethernet1/1/1-1/1/3":       "ethernet1/1/1 ethernet1/1/2 ethernet1/1/3",
		"ethernet1/1/1-1/1/2,1/1/5": "ethernet1/1/1 ethernet1/1/2 ethernet1/1/5",
		"ethernet1/1/17:1":          "ethernet1/1/17:1",
		"port-channel101":           "port-channel101",
		"ethernet1/1/9-1/1/8":       "ethernet1/1/9-1/1/8",
	} {
		if got := strings.Join(expand(spec), " "); got != want {
			t.Errorf("%s: %q, want %q", spec, got, want)
		}
	}
}

// TestIsConfig: OS10's own commands recognise it; NX-OS's network-qos
// (`pause pfc-cos 3` on one line) does not.
func TestIsConfig(t *testing.T) {
	for _, s := range []string{"trust dscp-map R\n qos-group 3 dscp 26\n", "system qos\n trust-map dscp default\n", "policy-map type network-qos P\n class C\n  pause\n  pfc-cos 3\n", "wred W\n random-detect ecn\n"} {
		if !IsConfig([]byte(s)) {
			t.Errorf("%q not recognised", s)
		}
	}
	data, err := os.ReadFile("../../testdata/corpus/nxos/rocm-n9364e-sg2-dcqcn.cfg")
	if err != nil {
		t.Fatal(err)
	}
	if IsConfig(data) {
		t.Error("an NX-OS configuration taken for OS10")
	}
}

// TestBadValues: a value OS10 would refuse is an error at its place.
func TestBadValues(t *testing.T) {
	for s, at := range map[string][2]int{
		"trust dscp-map R\n qos-group 3 dscp 26,64\n":                                                                     {2, 19},
		"wred W\n random-detect color green minimum-threshold 150 maximum-threshold 20000 drop-probability 5\n":           {2, 68},
		"policy-map type network-qos P\n class C\n  pause\n  pfc-cos 8\n":                                                 {4, 11},
		"qos-map traffic-class Q\n queue 9 qos-group 3\n":                                                                 {2, 8},
		"wred W\n random-detect color green minimum-threshold 150 maximum-threshold 1500 drop-probability 101\n":          {2, 90},
		"policy-map type network-qos P\n class C\n  pfc-cos\n":                                                            {3, 3},
		"wred W\n random-detect color blue minimum-threshold 150 maximum-threshold 1500 drop-probability 5 extra words\n": {2, 16},
	} {
		_, err := Parse("x.cfg", []byte(s))
		if line, col := pos.At(err); line != at[0] || col != at[1] {
			t.Errorf("%q: %v, want an error at %d:%d", s, err, at[0], at[1])
		}
	}
}

// FuzzParse: whatever the input, Parse returns a config or an error at a
// line and column, and never panics.
func FuzzParse(f *testing.F) {
	for _, n := range []string{"azurestack-s5248f-tor1-running-configuration.cfg", "azurelocal-switchgen-s5248f-hyperconverged.cfg", "azurelocal-switchgen-gotmpl-s5248f-pfc-dot1p-ecn.cfg"} {
		data, err := os.ReadFile("../../testdata/corpus/os10/" + n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("interface range ethernet1/1/1-1/1/4\n priority-flow-control mode on\n trust-map dscp default\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := Parse("f", data); !pos.Placed(err) {
			t.Fatalf("unplaced error: %v", err)
		}
	})
}

// TestChannelMembers reads Microsoft's Azure Local render
// (testdata/corpus/os10, its source on the file's own `! source:` line):
// ethernet1/1/39-40 are `channel-group 50 mode active` members of
// port-channel50, which writes no QoS, so they keep their own PFC and
// policies.
func TestChannelMembers(t *testing.T) {
	data, err := os.ReadFile("../../testdata/corpus/os10/azurelocal-switchgen-gotmpl-s5248f-pfc-dot1p-ecn.cfg")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Parse("tor.cfg", data)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*Interface{}
	for _, it := range c.Interfaces {
		byName[it.Name] = it
	}
	if pc := byName["port-channel50"]; pc == nil || strings.Join(pc.Members, ",") != "ethernet1/1/39,ethernet1/1/40" {
		t.Fatalf("port-channel50 %+v", pc)
	}
	for _, n := range []string{"ethernet1/1/39", "ethernet1/1/40"} {
		it := byName[n]
		if it.Channel.Text != "50" || it.PFC.Text != "on" || it.NetQoS.Text != "AZS_SERVICES_pfc" || it.TCQueue.Text != "AZS_SERVICES_Que" {
			t.Errorf("%s: channel %+v pfc %+v network-qos %+v", n, it.Channel, it.PFC, it.NetQoS)
		}
	}
	for _, v := range c.NotJudged {
		if strings.Contains(v.Text, "channel") {
			t.Errorf("not judged %q: port-channel50 writes nothing the members differ from", v.Text)
		}
	}
}

// TestChannelMemberOwnNamed: what a port-channel writes is its members';
// a member's own differing trust map gives way and is named, at its
// place; what the port-channel does not write stays the member's.
// Synthetic.
func TestChannelMemberOwnNamed(t *testing.T) {
	c, err := Parse("x.cfg", []byte("interface port-channel10\n trust-map dscp default\n service-policy input type network-qos pfc\ninterface ethernet1/1/1\n channel-group 10\n trust-map dot1p default\n priority-flow-control mode on\n"))
	if err != nil {
		t.Fatal(err)
	}
	m := c.Interfaces[1]
	if m.Trust.Text != "dscp" || m.TrustMap.Text != "default" || m.NetQoS.Text != "pfc" || m.PFC.Text != "on" {
		t.Errorf("member %+v", m)
	}
	if len(c.NotJudged) != 1 || c.NotJudged[0].Line != 6 || c.NotJudged[0].Text != "trust-map dot1p default on ethernet1/1/1 (a member of port-channel10, which writes trust-map dscp default: the port channel's applies)" {
		t.Errorf("not judged %+v", c.NotJudged)
	}
}

// TestChannelPFCNotTaken: a port-channel's `priority-flow-control mode`
// is not given to its members (Dell's OS10 guide: flow control cannot be
// enabled on a port-channel; PFC runs on the physical members) and is
// named at its line; the member keeps its own (none). Synthetic.
func TestChannelPFCNotTaken(t *testing.T) {
	c, err := Parse("x.cfg", []byte("interface port-channel10\n priority-flow-control mode on\n service-policy input type network-qos pfc\ninterface ethernet1/1/1\n channel-group 10\n"))
	if err != nil {
		t.Fatal(err)
	}
	pc, m := c.Interfaces[0], c.Interfaces[1]
	if len(pc.Members) != 1 || m.PFC.Given() || m.NetQoS.Text != "pfc" {
		t.Errorf("port-channel %+v, member %+v", pc, m)
	}
	if len(c.NotJudged) != 1 || c.NotJudged[0].Line != 2 || !strings.HasPrefix(c.NotJudged[0].Text, "priority-flow-control mode on under port-channel10 (") {
		t.Errorf("not judged %+v", c.NotJudged)
	}
}
