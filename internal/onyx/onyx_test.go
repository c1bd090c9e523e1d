package onyx

import (
	"os"
	"slices"
	"testing"

	"rocelab/internal/pos"
)

// TestParseNetarbiter reads the MLNX-OS commands AT&T's NVMe-oF setup
// applied (testdata/corpus/onyx, source in the first line): ECN on
// traffic class 3 from 150 to 1500 KB, trust L3 and PFC on priority 3 on
// ports 1/13-1/16.
func TestParseNetarbiter(t *testing.T) {
	data, err := os.ReadFile("../../testdata/corpus/onyx/netarbiter-mlnxos-dscp-lossless-advanced-buffer.cfg")
	if err != nil {
		t.Fatal(err)
	}
	if !IsConfig(data) {
		t.Fatal("not recognised as Onyx")
	}
	c, err := Parse("onyx.txt", data)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, it := range c.Interfaces {
		names = append(names, it.Name)
	}
	if !slices.Equal(names, []string{"Eth1/13", "Eth1/14", "Eth1/15", "Eth1/16"}) {
		t.Fatalf("interfaces %v", names)
	}
	it := c.Interfaces[2]
	e := it.ECN[3]
	if e == nil || e.At.Text != "ecn" || e.Min.Text != "153600" || e.Max.Text != "1536000" || e.Min.Line != 5 || e.Min.Col != 86 {
		t.Errorf("traffic-class 3: %+v", e)
	}
	if it.Trust.Text != "L3" || it.PFC.Text != "on" || !c.PFCOn.Given() {
		t.Errorf("trust %q, PFC mode %q, global %v", it.Trust.Text, it.PFC.Text, c.PFCOn)
	}
	if v, ok := c.Prios[3]; !ok || len(c.Prios) != 1 || v.Line != 38 || v.Col != 36 {
		t.Errorf("PFC priorities %v", c.Prios)
	}
}

// TestPrompt: commands typed at the configuration prompt are read at
// their columns in the line as written.
func TestPrompt(t *testing.T) {
	c, err := Parse("p.txt", []byte("switch (config) # interface ethernet 1/1-1/2 qos trust L3\nswitch (config) # dcb priority-flow-control priority 4 enable\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Interfaces) != 2 || c.Interfaces[1].Trust.Col != 56 {
		t.Errorf("%d interfaces, want 2 with trust at column 56", len(c.Interfaces))
	}
	if v := c.Prios[4]; v.Line != 2 || v.Col != 54 {
		t.Errorf("priority 4 at %d:%d, want 2:54", v.Line, v.Col)
	}
}

// TestBadValues: a value Onyx would refuse is an error at its place.
func TestBadValues(t *testing.T) {
	for s, at := range map[string][2]int{
		"dcb priority-flow-control priority 8 enable\n":                                                         {1, 36},
		"interface ethernet 1/1 traffic-class 9 congestion-control ecn minimum-absolute 1 maximum-absolute 2\n": {1, 38},
		"interface ethernet 1/1 traffic-class 3 congestion-control ecn minimum-absolute x maximum-absolute 2\n": {1, 80},
	} {
		_, err := Parse("x.txt", []byte(s))
		if line, col := pos.At(err); line != at[0] || col != at[1] {
			t.Errorf("%q: %v, want an error at %d:%d", s, err, at[0], at[1])
		}
	}
}

// TestInterfaceMode: commands typed inside an interface's mode are that
// interface's, as Onyx applies them. Cray's CSM MLAG procedure
// (testdata/corpus/onyx, source in the first line) types `mtu 9216 force`
// at `(config interface mlag-port-channel 1) #`; before, the line was
// read as a global command and lost. QoS settings typed the same way, or
// indented below a bare `interface ethernet` line as how-tos print the
// mode, are read at their columns; a global PFC priority typed in the
// mode stays global.
func TestInterfaceMode(t *testing.T) {
	data, err := os.ReadFile("../../testdata/corpus/onyx/cray-csm-mlag-typed-session-interface-mode-pfc-no-priority.cfg")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Parse("cray.cfg", data)
	if err != nil {
		t.Fatal(err)
	}
	it := c.byName["Mpo1"]
	if it == nil || it.MTU.Text != "9216" || it.MTU.Line != 18 || it.MTU.Col != 46 {
		t.Errorf("mlag-port-channel 1: %+v, want mtu 9216 at 18:46", it)
	}
	if it := c.byName["Eth1/1"]; it == nil || it.Speed.Text != "40000" || it.MTU.Text != "9216" {
		t.Errorf("ethernet 1/1: %+v, want speed 40G and mtu 9216", it)
	}
	if it := c.byName["Po100"]; it == nil || it.PFC.Text != "on" || c.PFCOn.Given() || len(c.Prios) != 0 {
		t.Errorf("port-channel 100: %+v, global %v, priorities %v", it, c.PFCOn, c.Prios)
	}
	for _, in := range []string{
		"switch (config) # interface ethernet 1/1-1/2\n" +
			"switch (config interface ethernet 1/1-1/2) # qos trust L3\n" +
			"switch (config interface ethernet 1/1-1/2) # traffic-class 3 congestion-control ecn minimum-absolute 150 maximum-absolute 1500\n" +
			"switch (config interface ethernet 1/1-1/2) # dcb priority-flow-control mode on force\n" +
			"switch (config interface ethernet 1/1-1/2) # dcb priority-flow-control priority 3 enable\n" +
			"switch (config interface ethernet 1/1-1/2) # exit\n" +
			"switch (config) # interface ethernet 1/3 mtu 9216 force\n",
		"interface ethernet 1/1-1/2\n" +
			"  qos trust L3\n" +
			"  traffic-class 3 congestion-control ecn minimum-absolute 150 maximum-absolute 1500\n" +
			"  dcb priority-flow-control mode on force\n" +
			"  dcb priority-flow-control priority 3 enable\n" +
			"interface ethernet 1/3 mtu 9216 force\n",
	} {
		c, err := Parse("m.cfg", []byte(in))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, it := range c.Interfaces {
			names = append(names, it.Name)
		}
		it := c.byName["Eth1/2"]
		if !slices.Equal(names, []string{"Eth1/1", "Eth1/2", "Eth1/3"}) || it.Trust.Text != "L3" || it.Trust.Line != 2 || it.PFC.Text != "on" || it.ECN[3] == nil || it.ECN[3].Max.Text != "1536000" {
			t.Errorf("%q: interfaces %v, Eth1/2 %+v", in, names, it)
		}
		if _, ok := c.Prios[3]; !ok || c.byName["Eth1/3"].Trust.Given() {
			t.Errorf("%q: priorities %v; Eth1/3 %+v (it is out of the mode)", in, c.Prios, c.byName["Eth1/3"])
		}
	}
	if typed := "(config interface ethernet 1/1) # traffic-class 3 congestion-control ecn minimum-absolute 150 maximum-absolute 1500\n"; !IsConfig([]byte(typed)) {
		t.Errorf("%q: not recognised as Onyx", typed)
	}
	// show running-config prints a bare `interface …` (the LAG's
	// creation) at the indent of the flat lines after it: they stay flat.
	c, err = Parse("r.cfg", []byte("   interface port-channel 100\n   interface ethernet 1/1 qos trust L3\n"))
	if err != nil || len(c.Interfaces) != 1 || c.Interfaces[0].Name != "Eth1/1" {
		t.Errorf("flat lines after a bare interface: %v", err)
	}
}

// FuzzParse: whatever the input, Parse returns a config or an error at a
// line and column, and never panics.
func FuzzParse(f *testing.F) {
	data, err := os.ReadFile("../../testdata/corpus/onyx/netarbiter-mlnxos-dscp-lossless-advanced-buffer.cfg")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte("switch (config) # interface ethernet 1/1/1-1/1/4 traffic-class 3 congestion-control red minimum-absolute 150 maximum-absolute 1500\n"))
	for _, name := range []string{"cray-csm-mlag-typed-session-interface-mode-pfc-no-priority.cfg", "cray-csm-hpcm-spine01-onyx3.9-running-config-pfc-no-priority.cfg"} {
		data, err := os.ReadFile("../../testdata/corpus/onyx/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("interface ethernet 1/1\n  traffic-class 3 congestion-control ecn minimum-absolute 150 maximum-absolute 1500\n exit\n(config interface port-channel 1) # dcb priority-flow-control mode off\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := Parse("f", data); !pos.Placed(err) {
			t.Fatalf("unplaced error: %v", err)
		}
	})
}

// TestRoCE: `roce` (3.8.2000 on) is lossless unless a mode says
// otherwise, `no roce` undoes it, and a mode Onyx does not have is an
// error at its column; Onyx's running-config header and `roce` at a
// prompt mark Onyx (SYNTHETIC lines, in the syntax of NVIDIA's Onyx User
// Manual 3.10, "RoCE Commands").
func TestRoCE(t *testing.T) {
	for in, want := range map[string]string{
		"roce\n": "lossless", "   roce lossy\n": "lossy", "roce semi-lossless\n": "semi-lossless", "roce\nno roce\n": "",
	} {
		c, err := Parse("r.cfg", []byte(in))
		if err != nil || c.RoCE.Text != want {
			t.Errorf("%q: RoCE %q (%v), want %q", in, c.RoCE.Text, err, want)
		}
	}
	if _, err := Parse("r.cfg", []byte("switch (config) # roce lossles\n")); err == nil {
		t.Error("roce lossles: no error")
	} else if line, col := pos.At(err); line != 1 || col != 24 {
		t.Errorf("roce lossles: %v, want an error at 1:24", err)
	}
	for in, want := range map[string]bool{
		"##\n## Running database \"initial\"\n## Product release: 3.10.4006\n##\n   hostname sw1\n": true,
		"switch (config) # roce\n": true,
		"roce\n":                   false,
	} {
		if IsConfig([]byte(in)) != want {
			t.Errorf("IsConfig(%q) != %v", in, want)
		}
	}
}
