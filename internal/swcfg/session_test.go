package swcfg

import (
	"slices"
	"strings"
	"testing"

	"rocelab/internal/pos"
)

// TestReadSessionTyped reads commands typed at EOS prompts (the blog post
// "Arista_EOS_RoCEv2_Lossless_Config", EOS 4.36: its leaf profile, lines
// unchanged) as the running-config prints them: a tx-queue under its
// profile, a second `uc-tx-queue` beside the first, not inside it.
func TestReadSessionTyped(t *testing.T) {
	in := strings.Join([]string{
		"Leaf-1(config)# qos profile ROCE-LEAF",
		"Leaf-1(config-qos-profile-ROCE-LEAF)# priority-flow-control priority 3 no-drop",
		"Leaf-1(config-qos-profile-ROCE-LEAF)# uc-tx-queue 1",
		"Leaf-1(config-qos-profile-ROCE-LEAF-uc-txq-1)# bandwidth percent 5",
		"Leaf-1(config-qos-profile-ROCE-LEAF-uc-txq-1)# uc-tx-queue 3",
		"Leaf-1(config-qos-profile-ROCE-LEAF-uc-txq-3)# random-detect ecn minimum-threshold 256 kbytes maximum-threshold 512 kbytes max-mark-probability 100 weight 0",
		"Leaf-1(config)# interface Ethernet1",
		"Leaf-1(config-if-Et1)# service-profile ROCE-LEAF",
		"Leaf-1(config-if-Et1)# end",
		"Leaf-1# show running-config",
	}, "\n")
	s, ok := ReadSession([]byte(in))
	if !ok {
		t.Fatal("not read as a session")
	}
	want := strings.Join([]string{
		"qos profile ROCE-LEAF",
		"  priority-flow-control priority 3 no-drop",
		"  uc-tx-queue 1",
		"    bandwidth percent 5",
		"  uc-tx-queue 3",
		"    random-detect ecn minimum-threshold 256 kbytes maximum-threshold 512 kbytes max-mark-probability 100 weight 0",
		"interface Ethernet1",
		"  service-profile ROCE-LEAF",
		"",
		"",
	}, "\n")
	if string(s.Text) != want {
		t.Errorf("text:\n%s\nwant:\n%s", s.Text, want)
	}
	if s.Excerpt.Line != 0 {
		t.Errorf("excerpt %+v from a whole show running-config", s.Excerpt)
	}
	// An error at "3" of line 5 (column 15 in the text) is at column 53
	// of the paste: "Leaf-1(config-qos-profile-ROCE-LEAF-uc-txq-1)# " is
	// 47 characters, the indent 2.
	err := s.Place(&pos.Error{File: "f", Line: 5, Col: 15, Msg: "m"})
	if got := err.Error(); got != "f:5:60: m" {
		t.Errorf("placed %q, want f:5:60: m", got)
	}
}

// TestReadSessionNXOS reads an NX-OS session of Cisco's TAC (Nexus 9000
// queuing, NX-OS 9.2(2); lines unchanged): commands typed at each mode's
// prompt, a `sh run int` run from interface mode, which prints a part of
// the configuration under its `!Command:` header.
func TestReadSessionNXOS(t *testing.T) {
	in := strings.Join([]string{
		"switch(config)# policy-map type queuing TAC-58q-out",
		"switch(config-pmap-que)# CLass type queuing c-out-8q-q-default",
		"switch(config-pmap-c-que)# bandwidth remaining percent 50",
		"switch(config-pmap-c-que)# CLass type queuing  c-out-8q-q5",
		"switch(config-pmap-c-que)# bandwidth remaining percent 50",
		"switch(config-pmap-c-que)# int e1/2",
		"switch(config-if)# service-policy type queuing output TAC-58q-out",
		"switch(config-if)# sh run int e1/1-2",
		"",
		"!Command: show running-config interface Ethernet1/1-2",
	}, "\n")
	s, ok := ReadSession([]byte(in))
	if !ok {
		t.Fatal("not read as a session")
	}
	got := strings.Split(string(s.Text), "\n")
	for i, w := range []string{
		"policy-map type queuing TAC-58q-out",
		"  CLass type queuing c-out-8q-q-default",
		"    bandwidth remaining percent 50",
		"  CLass type queuing  c-out-8q-q5",
		"    bandwidth remaining percent 50",
		// `int e1/2` typed in a class's mode: NX-OS leaves for global
		// configuration, which the next prompt shows.
		"int e1/2",
		"  service-policy type queuing output TAC-58q-out",
		"!switch(config-if)# sh run int e1/1-2",
	} {
		if got[i] != w {
			t.Errorf("line %d: %q, want %q", i+1, got[i], w)
		}
	}
	if s.Excerpt.Line != 8 || s.Excerpt.Text != "sh run int e1/1-2" {
		t.Errorf("excerpt %+v, want line 8's sh run int e1/1-2", s.Excerpt)
	}
}

// TestReadSessionPrinted blanks what the CLI prints around a
// configuration and a command it refused: vEOS-lab's answer to PFC (the
// same blog post's output) and IOS's `Building configuration...` header.
// Synthetic: the `--More--` line, with the backspaces a pager erases
// itself with.
func TestReadSessionPrinted(t *testing.T) {
	in := strings.Join([]string{
		"Leaf1(config-if-Et1)#priority-flow-control on",
		"% The hardware does not support priority flow control, or forwarding agent is still initializing.",
		"Leaf1(config-if-Et1)#mtu 9214",
		"Cafe-01-SW1#show running-config interface Ethernet0/3",
		"Building configuration...",
		"Current configuration : 211 bytes",
		" --More-- \b\b\b\b\b\b\b\b\b\b          \b\b\b\b\b\b\b\b\b\b   priority-flow-control priority 3 no-drop",
	}, "\n")
	s, ok := ReadSession([]byte(in))
	if !ok {
		t.Fatal("not read as a session")
	}
	want := []string{"", "", "  mtu 9214", "!Cafe-01-SW1#show running-config interface Ethernet0/3", "", "", "   priority-flow-control priority 3 no-drop"}
	got := strings.Split(string(s.Text), "\n")
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d: %q, want %q", i+1, got[i], want[i])
		}
	}
	if s.Excerpt.Line != 4 {
		t.Errorf("excerpt %+v, want line 4", s.Excerpt)
	}
	if _, ok := ReadSession([]byte("interface Ethernet1\n   mtu 9214\n! a comment\n")); ok {
		t.Error("a running-config without prompts read as a session")
	}
}

// TestReadSessionConfigureSession reads commands typed in a
// configuration session as global configuration's: EOS's prompt names the
// session cut to 6 characters (`config-s-roce-l` is not a mode below
// it: `config-s-roce-l-if-Et2` is), NX-OS's is `config-s`, and both
// end it with `commit`. Synthetic, in the prompts' forms Arista's and
// Cisco's manuals print.
func TestReadSessionConfigureSession(t *testing.T) {
	for _, c := range []struct {
		name string
		in   []string
		want []string
	}{
		{"eos", []string{
			"leaf1#configure session roce-leaf",
			"leaf1(config-s-roce-l)#interface Ethernet1",
			"leaf1(config-s-roce-l-if-Et1)#mtu 9214",
			"leaf1(config-s-roce-l-if-Et1)#exit",
			"leaf1(config-s-roce-l)#qos map dscp 26 to traffic-class 3",
			"leaf1(config-s-roce-l)#interface Ethernet2",
			"leaf1(config-s-roce-l-if-Et2)#priority-flow-control on",
			"leaf1(config-s-roce-l-if-Et2)#commit",
		}, []string{"", "interface Ethernet1", "  mtu 9214", "", "qos map dscp 26 to traffic-class 3", "interface Ethernet2", "  priority-flow-control on", ""}},
		{"nxos", []string{
			"switch# configure session roce",
			"switch(config-s)# interface ethernet 1/1",
			"switch(config-s-if)# priority-flow-control mode on",
			"switch(config-s-if)# exit",
			"switch(config-s)# system qos",
			"switch(config-s-sys-qos)# service-policy type network-qos RoCE-NQ",
			"switch(config-s-sys-qos)# exit",
			"switch(config-s)# hardware access-list tcam region ing-racl 256",
			"switch(config-s)# commit",
		}, []string{"", "interface ethernet 1/1", "  priority-flow-control mode on", "", "system qos", "  service-policy type network-qos RoCE-NQ", "", "hardware access-list tcam region ing-racl 256", ""}},
	} {
		s, ok := ReadSession([]byte(strings.Join(c.in, "\n")))
		if !ok {
			t.Fatalf("%s: not read as a session", c.name)
		}
		if got := strings.Split(string(s.Text), "\n"); !slices.Equal(got, c.want) {
			t.Errorf("%s:\n%q\nwant\n%q", c.name, got, c.want)
		}
	}
}

func TestExcerpt(t *testing.T) {
	for cmd, want := range map[string]bool{
		"show running-config":                                true,
		"show running-config all":                            false,
		"show running-config | no-more":                      false,
		"sh run int e1/1":                                    true,
		"show running-configuration interface ethernet1/1/1": true,
		"show running-config | section qos":                  true,
		"show startup-config":                                false,
		"show interfaces status":                             false,
		"s run int e1":                                       false,
	} {
		if want && !strings.Contains(cmd, " int") && !strings.Contains(cmd, "|") {
			want = false
		}
		if got := Excerpt(cmd); got != want {
			t.Errorf("Excerpt(%q) = %v, want %v", cmd, got, want)
		}
	}
}

func TestExpand(t *testing.T) {
	for _, c := range []struct{ in, full, want string }{
		{"e1/1", "Ethernet", "Ethernet1/1"},
		{"eth1/1", "Ethernet", "Ethernet1/1"},
		{"ethernet1/1", "Ethernet", "Ethernet1/1"},
		{"Ethernet1/1", "Ethernet", "Ethernet1/1"},
		{"po10", "port-channel", "port-channel10"},
		{"port-channel10", "Ethernet", "port-channel10"},
		{"port-channel10", "Port-Channel", "Port-Channel10"},
		{"Port-Channel10", "port-channel", "port-channel10"},
		{"loopback0", "Ethernet", "loopback0"},
		{"Ethernet", "Ethernet", "Ethernet"},
	} {
		if got := Expand(c.in, c.full); got != c.want {
			t.Errorf("Expand(%q, %q) = %q, want %q", c.in, c.full, got, c.want)
		}
	}
}

// FuzzReadSession holds ReadSession to its shape on any input: a line for
// each line of the paste, each one blank or the paste's own text from its
// shift on, behind the indent it was given.
func FuzzReadSession(f *testing.F) {
	f.Add([]byte("sw(config)# interface Ethernet1\nsw(config-if-Et1)# mtu 9214\nsw(config-if-Et1)# tx-queue 3\nsw(config-if-Et1-txq-3)# tx-queue 4\n"))
	f.Add([]byte("sw# sh run int e1/1\n!Command: show running-config interface Ethernet1/1\ninterface Ethernet1/1\n --More-- \b\b  mtu 9216\n% Invalid\n"))
	f.Add([]byte("conf\ninterface Ethernet1/1-32\npriority-flow-control mode on\nexit\nint e1/2\nmtu 9216\n\nend\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, ok := ReadSession(data)
		if !ok {
			return
		}
		in := strings.Split(string(data), "\n")
		out := strings.Split(string(s.Text), "\n")
		if len(out) != len(in) || len(s.Shift) != len(in) {
			t.Fatalf("%d lines from %d (shift %d)", len(out), len(in), len(s.Shift))
		}
		for i, l := range out {
			body := strings.TrimLeft(l, " ")
			at := len(l) - len(body) + s.Shift[i]
			if l == "" || s.Shift[i] == 0 && strings.HasSuffix(in[i], l) || s.Shift[i] == -1 && l == "!"+in[i] {
				continue
			}
			if at < 0 || at > len(in[i]) || in[i][at:] != body {
				t.Fatalf("line %d: %q is not %q from column %d", i+1, l, in[i], at+1)
			}
		}
	})
}

// TestReadSessionCommandHeader takes the excerpt from NX-OS's `!Command:`
// header when the paste left out the command that printed it and shows
// only the prompt after (SYNTHETIC, in the layout NX-OS 9.3 prints): the
// header is kept as printed, at its place.
func TestReadSessionCommandHeader(t *testing.T) {
	in := strings.Join([]string{
		"!Command: show running-config interface Ethernet1/1",
		"!Time: Mon Dec 19 05:46:28 2022",
		"",
		"interface Ethernet1/1",
		"  mtu 9216",
		"",
		"leaf1# ",
	}, "\n")
	s, ok := ReadSession([]byte(in))
	if !ok {
		t.Fatal("not read as a session")
	}
	if s.Excerpt.Line != 1 || s.Excerpt.Col != 11 || s.Excerpt.Text != "show running-config interface Ethernet1/1" {
		t.Errorf("excerpt %+v, want line 1 column 11's show running-config interface Ethernet1/1", s.Excerpt)
	}
	if want := strings.Join(strings.Split(in, "\n")[:6], "\n") + "\n"; string(s.Text) != want {
		t.Errorf("text:\n%s\nwant:\n%s", s.Text, want)
	}
}

// TestReadSessionTypedScript: commands pushed without prompts (`conf`,
// an interface with its commands at the left margin, `end`) are read as
// the running-config would print them, each at its column in the paste;
// a printed configuration (its interfaces' commands indented) and flat
// one-line interface commands are not a script.
func TestReadSessionTypedScript(t *testing.T) {
	in := "conf\npolicy-map type qos Q\n  class R\n    set qos-group 3\n    exit\n  exit\n\ninterface Ethernet1/1-32\npriority-flow-control mode on\nmtu 9216\nend\nhostname x\n"
	s, ok := ReadSession([]byte(in))
	if !ok {
		t.Fatal("not read as a typed script")
	}
	want := "\npolicy-map type qos Q\n  class R\n    set qos-group 3\n    exit\n  exit\n\ninterface Ethernet1/1-32\n  priority-flow-control mode on\n  mtu 9216\n\nhostname x\n"
	if string(s.Text) != want {
		t.Errorf("text %q, want %q", s.Text, want)
	}
	if s.Shift[8] != -2 || s.Shift[11] != 0 {
		t.Errorf("shifts %v", s.Shift)
	}
	// A global command typed right after an interface's ends its block:
	// the CLI leaves the interface for it (an interface's `vlan access 10`
	// is its own, `vlan 10` is not).
	in = "interface Ethernet1\nqos trust dscp\nvlan access 10\nqos map dscp 26 to traffic-class 3\ninterface Ethernet2\nmtu 9214\nvlan 10\nplatform trident mmu queue profile P\n" +
		"interface Ethernet3\nmtu 9214\nqos profile RoCE\ninterface ethernet1/1/1\nmtu 9216\nwred ecn_prof\n"
	s, ok = ReadSession([]byte(in))
	want = "interface Ethernet1\n  qos trust dscp\n  vlan access 10\nqos map dscp 26 to traffic-class 3\ninterface Ethernet2\n  mtu 9214\nvlan 10\nplatform trident mmu queue profile P\n" +
		"interface Ethernet3\n  mtu 9214\nqos profile RoCE\ninterface ethernet1/1/1\n  mtu 9216\nwred ecn_prof\n"
	if !ok || string(s.Text) != want {
		t.Errorf("text %q, want %q", s.Text, want)
	}
	for _, printed := range []string{
		"interface Ethernet1/1\n  priority-flow-control mode on\n  mtu 9216\n",
		"interface ethernet 1/1 dcb priority-flow-control mode on force\ndcb priority-flow-control enable force\n",
	} {
		if _, ok := ReadSession([]byte(printed)); ok {
			t.Errorf("%q read as a typed script", printed)
		}
	}
}
