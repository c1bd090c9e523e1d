package swcfg

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"rocelab/internal/pos"
)

// TestIDs: lists of numbers as NVUE's `nv set`, NX-OS's `match cos` and
// OS10's trust maps take them; a number named twice counts once, and a
// range that runs backwards or past max is refused.
func TestIDs(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want []int
	}{
		{"3", 7, []int{3}},
		{"4,5,7", 7, []int{4, 5, 7}},
		{"0-3,5-7", 7, []int{0, 1, 2, 3, 5, 6, 7}},
		{"3,3-4,4", 7, []int{3, 4}},
		{" 24 , 26", 63, []int{24, 26}},
		{"63", 63, []int{63}},
		{"8", 7, nil},
		{"4-3", 7, nil},
		{"3,4-3", 7, nil},
		{"6-8", 7, nil},
		{"-1", 7, nil},
		{"3,", 7, nil},
		{"", 7, nil},
	} {
		got, ok := IDs(c.in, c.max)
		if ok != (c.want != nil) || !slices.Equal(got, c.want) {
			t.Errorf("IDs(%q, %d) = %v, %v; want %v", c.in, c.max, got, ok, c.want)
		}
	}
}

// TestEachLine: blank and comment lines are skipped, each word keeps its
// line and column (from 1, a tab one column), and the indent is the
// count of spaces and tabs before the first word.
func TestEachLine(t *testing.T) {
	lines := strings.Split("! comment\ninterface Ethernet1\n\n   qos trust  dscp\r\n\t# hash\n\ttx-queue 3", "\n")
	type got struct {
		words  string
		first  Value
		indent int
	}
	var out []got
	err := EachLine(lines, "!#", func(w []Value, indent int) error {
		out = append(out, got{strings.Join(Texts(w), " "), w[len(w)-1], indent})
		return nil
	})
	want := []got{
		{"interface Ethernet1", Value{Text: "Ethernet1", Line: 2, Col: 11}, 0},
		{"qos trust dscp", Value{Text: "dscp", Line: 4, Col: 15}, 3},
		{"tx-queue 3", Value{Text: "3", Line: 6, Col: 11}, 1},
	}
	if err != nil || !slices.Equal(out, want) {
		t.Errorf("EachLine: %+v, %v; want %+v", out, err, want)
	}
	stop := errors.New("stop")
	n := 0
	if err := EachLine(lines, "!", func([]Value, int) error { n++; return stop }); err != stop || n != 1 {
		t.Errorf("an error from f: %v after %d lines, want it after 1", err, n)
	}
}

// TestWordsRepeated: a word written twice on a line is placed at each of
// its own columns, not both at the first.
func TestWordsRepeated(t *testing.T) {
	w := Words("qos map cos 3 3 to traffic-class 3", 9)
	var cols []int
	for _, v := range w {
		if v.Text == "3" {
			cols = append(cols, v.Col)
		}
	}
	if !slices.Equal(cols, []int{13, 15, 34}) || w[0].Line != 9 {
		t.Errorf("columns of 3: %v (line %d), want [13 15 34] on 9", cols, w[0].Line)
	}
}

// TestNum: a number past its limit or not a number is an error at its
// place that names what was expected.
func TestNum(t *testing.T) {
	if n, err := Num("f", Value{Text: "7", Line: 1, Col: 1}, 7, "a CoS 0-7"); n != 7 || err != nil {
		t.Errorf("7: %d, %v", n, err)
	}
	for _, s := range []string{"8", "-1", "3a", ""} {
		_, err := Num("f", Value{Text: s, Line: 4, Col: 9}, 7, "a CoS 0-7")
		var e *pos.Error
		if !errors.As(err, &e) || e.Line != 4 || e.Col != 9 || !strings.Contains(e.Msg, "expected a CoS 0-7") {
			t.Errorf("%q: %v, want an error at 4:9 naming a CoS 0-7", s, err)
		}
	}
}

// TestExpandNames: EOS's and NX-OS's ranges and lists, OS10's
// slot/port ranges, and what is not a range left as written.
func TestExpandNames(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"Ethernet1-4", []string{"Ethernet1", "Ethernet2", "Ethernet3", "Ethernet4"}},
		{"Ethernet1/1-3", []string{"Ethernet1/1", "Ethernet1/2", "Ethernet1/3"}},
		{"Ethernet1,3,5-6", []string{"Ethernet1", "Ethernet3", "Ethernet5", "Ethernet6"}},
		{"ethernet1/1/1-1/1/2,1/1/6", []string{"ethernet1/1/1", "ethernet1/1/2", "ethernet1/1/6"}},
		{"Eth1/1-1/2", []string{"Eth1/1", "Eth1/2"}},
		{"Port-Channel10", []string{"Port-Channel10"}},
		{"Ethernet1/6-7,Port-Channel40-41", []string{"Ethernet1/6", "Ethernet1/7", "Port-Channel40", "Port-Channel41"}},
		{"Ethernet4-1", []string{"Ethernet4-1"}},
		{"Management", []string{"Management"}},
	} {
		if got := ExpandNames(c.in); !slices.Equal(got, c.want) {
			t.Errorf("ExpandNames(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

// TestDSCPName: RFC 2474's and 2597's code points: AFxy is 8x+2y, CSn
// 8n, EF 46.
func TestDSCPName(t *testing.T) {
	for s, want := range map[string]int{"26": 26, "af31": 26, "af11": 10, "af43": 38, "cs3": 24, "cs7": 56, "ef": 46, "be": 0, "default": 0} {
		if got, ok := DSCPName(s); !ok || got != want {
			t.Errorf("DSCPName(%q) = %d, %v; want %d", s, got, ok, want)
		}
	}
	for _, s := range []string{"64", "-1", "af44", "af51", "cs8", "EF", "x"} {
		if _, ok := DSCPName(s); ok {
			t.Errorf("DSCPName(%q) accepted", s)
		}
	}
}

// TestAddNotJudged: a setting is named by its first words, once, at its
// first place.
func TestAddNotJudged(t *testing.T) {
	var list []Value
	list = AddNotJudged(list, Words("shape rate 40 percent", 3), 2)
	list = AddNotJudged(list, Words("  shape rate 10 percent", 8), 2)
	list = AddNotJudged(list, Words("ets", 9), 2)
	want := []Value{{Text: "shape rate", Line: 3, Col: 1}, {Text: "ets", Line: 9, Col: 1}}
	if !slices.Equal(list, want) {
		t.Errorf("%+v, want %+v", list, want)
	}
}

// TestCoSTC: IEEE 802.1Q-2018 Table 8-5 for eight traffic classes.
func TestCoSTC(t *testing.T) {
	var got []int
	for c := range 8 {
		got = append(got, CoSTC(c))
	}
	if want := []int{1, 0, 2, 3, 4, 5, 6, 7}; !slices.Equal(got, want) {
		t.Errorf("%v, want %v", got, want)
	}
}

// FuzzLists: IDs gives only numbers within max, each once, or refuses;
// ExpandNames never drops a spec nor runs away on a wide range.
func FuzzLists(f *testing.F) {
	for _, s := range []string{"0-3,5-7", "3,3-4", "Ethernet1/1-4", "ethernet1/1/1-1/1/4,1/1/6", "Eth1-99999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if ids, ok := IDs(s, 63); ok {
			seen := map[int]bool{}
			for _, n := range ids {
				if n < 0 || n > 63 || seen[n] {
					t.Fatalf("IDs(%q) = %v", s, ids)
				}
				seen[n] = true
			}
		}
		if names := ExpandNames(s); len(names) == 0 || len(names) > 1025*(strings.Count(s, ",")+1) {
			t.Fatalf("ExpandNames(%q): %d names", s, len(names))
		}
	})
}

// TestMentions: a word counts whole or as the head of a hyphenated word,
// in any case, a Junos statement's ';' or brace aside; inside another word
// it does not.
func TestMentions(t *testing.T) {
	for _, c := range []struct {
		line string
		want bool
	}{
		{"wred-profile roce", true},
		{"   random-detect ECN minimum-threshold 150 kbytes", true},
		{"  action ecn min-threshold 100 kbytes", true},
		{"qos profile ecnless", false},
		{"ip access-list no-wred", false},
		{"            ecn;", true},
		{"wred {", true},
		{"", false},
	} {
		if got := Mentions([]string{c.line}, "ecn", "wred"); got != c.want {
			t.Errorf("Mentions(%q) = %v, want %v", c.line, got, c.want)
		}
	}
}
