package nvue

import (
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"rocelab/internal/pos"
)

func read(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func atoi(t *testing.T, v Value) int {
	t.Helper()
	n, err := strconv.Atoi(v.Text)
	if err != nil {
		t.Fatalf("%q at %d:%d: not a number", v.Text, v.Line, v.Col)
	}
	return n
}

// TestShowRoCEDoc reads the `nv show qos roce` NVIDIA's RoCE page prints
// and checks it against the page's own statement of the defaults: PFC on
// switch priority 3, ECN on traffic classes 0 and 3 from 150000 to
// 1500000 bytes (printed in binary units as 146.48 KB and 1.43 MB), DSCP
// 26 on switch priority 3, CNPs' 48 on 6, class 6 strict.
func TestShowRoCEDoc(t *testing.T) {
	c, err := ParseShowRoCE("roce.txt", read(t, "cl515-nv-show-qos-roce-single-ipool.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if on, mode, _ := c.RoCE(); !on || mode != "lossless-single-ipool" || !Lossless(mode) {
		t.Errorf("RoCE %v %q, want on lossless-single-ipool", on, mode)
	}
	if f := c.PFC[DefaultProfile]; !reflect.DeepEqual(f.Prios, []int{3}) || f.Rx.Text != "enable" || f.Tx.Text != "enable" || f.Cable.Text != "100" {
		t.Errorf("PFC %+v, want priority 3, rx and tx on, 100 m", f)
	}
	if len(c.CC[DefaultProfile]) != 2 {
		t.Errorf("ECN on %d classes, want 2 (0 and 3)", len(c.CC[DefaultProfile]))
	}
	for _, tc := range []int{0, 3} {
		e := c.CC[DefaultProfile][tc]
		if e == nil || e.ECN.Text != "enable" {
			t.Fatalf("class %d: ECN %+v, want enabled", tc, e)
		}
		for _, x := range []struct {
			v    Value
			want float64
		}{{e.Min, 150000}, {e.Max, 1500000}} {
			if got := float64(atoi(t, x.v)); math.Abs(got-x.want)/x.want > 0.001 {
				t.Errorf("class %d: %v bytes, want %v within the printed rounding", tc, got, x.want)
			}
		}
		if e.Prob.Text != "100" {
			t.Errorf("class %d: probability %q, want 100", tc, e.Prob.Text)
		}
	}
	m := c.Mapping[DefaultProfile]
	if atoi(t, m.DSCP[26]) != 3 || atoi(t, m.DSCP[48]) != 6 || m.Trust.Text != "both" {
		t.Errorf("DSCP 26 → %s, 48 → %s, trust %s; want 3, 6, both", m.DSCP[26].Text, m.DSCP[48].Text, m.Trust.Text)
	}
	if atoi(t, c.EgressMap[3]) != 3 || atoi(t, c.EgressMap[6]) != 6 || atoi(t, c.EgressMap[4]) != 0 {
		t.Errorf("switch priority → class %v, want 3→3, 6→6, 4→0", c.EgressMap)
	}
	if s := c.Sched[DefaultProfile]; s[6].Mode.Text != "strict" || s[3].Mode.Text != "dwrr" || s[3].BW.Text != "50" {
		t.Errorf("scheduler 6 %+v, 3 %+v; want strict, dwrr 50", s[6], s[3])
	}
	if v := m.DSCP[26]; v.Line != 30 || v.Col != 38 || c.LineText(v.Line)[:1] != "3" {
		t.Errorf("DSCP 26 read at %d:%d (%q), want 30:38 (its switch-prio)", v.Line, v.Col, c.LineText(v.Line))
	}
	// The cable length and the buffer pools are read but not judged, as
	// the nv set and YAML forms name them.
	var nj []string
	for _, v := range c.NotJudged {
		nj = append(nj, fmt.Sprintf("%s@%d:%d", v.Text, v.Line, v.Col))
	}
	if want := []string{"qos pfc default-global cable-length@10:21", "qos traffic-pool@47:1"}; !reflect.DeepEqual(nj, want) {
		t.Errorf("not judged %v, want %v", nj, want)
	}
}

// TestSetDoc reads the commands NVIDIA's RoCE page gives to move RoCE
// from switch priority 3 to 2.
func TestSetDoc(t *testing.T) {
	c, err := ParseSet("set.txt", read(t, "cl515-nv-set-roce-sp2.txt"))
	if err != nil {
		t.Fatal(err)
	}
	c.Resolve()
	m := c.Mapping[DefaultProfile]
	if atoi(t, m.DSCP[26]) != 2 || m.DSCP[26].Line != 6 || atoi(t, m.DSCP[27]) != 3 || m.Trust.Text != "both" {
		t.Errorf("DSCP 26 → %+v, 27 → %+v, trust %q; want 2 (line 6), 3, both", m.DSCP[26], m.DSCP[27], m.Trust.Text)
	}
	if f := c.PFC[DefaultProfile]; !reflect.DeepEqual(f.Prios, []int{2}) || f.PriosAt.Line != 2 || f.PriosAt.Col != 70 {
		t.Errorf("PFC %v at %d:%d, want [2] at 2:70", f.Prios, f.PriosAt.Line, f.PriosAt.Col)
	}
	if atoi(t, c.EgressMap[2]) != 3 || atoi(t, c.EgressMap[3]) != 0 {
		t.Errorf("egress map %v, want 2→3, 3→0", c.EgressMap)
	}
}

// TestYAMLWorkshop reads the applied tree of a Cumulus Linux 5.5.1 switch
// without RoCE: trust l2, ECN on class 0 only, no PFC, and the buffer
// settings and its PCP map (RoCE is routed) named as not judged (empty
// containers are not).
func TestYAMLWorkshop(t *testing.T) {
	c, err := ParseYAML("w.yaml", read(t, "cl551-air-workshop-applied-qos.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if on, _, at := c.RoCE(); on || at.Line != 148 {
		t.Errorf("RoCE on %v at line %d, want off at 148", on, at.Line)
	}
	if c.Version.Text != "Cumulus Linux 5.5.1" {
		t.Errorf("version %q", c.Version.Text)
	}
	m := c.Mapping[DefaultProfile]
	if m.Trust.Text != "l2" || m.DefaultSP.Text != "0" || atoi(t, m.PCP[5]) != 5 {
		t.Errorf("mapping %+v", m)
	}
	e := c.CC[DefaultProfile][0]
	if len(c.CC[DefaultProfile]) != 1 || e.Min.Text != "150000" || e.Max.Text != "1500000" || e.RED.Text != "disable" || e.Min.Line != 72 {
		t.Errorf("ECN %+v", c.CC[DefaultProfile])
	}
	var nj []string
	for _, v := range c.NotJudged {
		nj = append(nj, v.Text)
	}
	if want := []string{"qos advance-buffer-config", "qos mapping default-global pcp", "qos traffic-pool"}; !reflect.DeepEqual(nj, want) {
		t.Errorf("not judged %v, want %v", nj, want)
	}
	c.Resolve()
	if f := c.PFC[DefaultProfile]; len(f.Prios) != 0 {
		t.Errorf("PFC %v without RoCE, want none", f.Prios)
	}
}

// TestFormsAgree: the same settings as a startup.yaml and as `nv set`
// commands give the same configuration.
func TestFormsAgree(t *testing.T) {
	y := `- header:
    version: Cumulus Linux 5.15.0
- set:
    qos:
      roce:
        enable: on
        mode: lossless
      mapping:
        default-global:
          trust: l3
          dscp:
            '26':
              switch-priority: 2
      pfc:
        default-global:
          switch-priority:
            '2': {}
          cable-length: 50
      congestion-control:
        default-global:
          traffic-class:
            '3':
              ecn: enable
              min-threshold: 40000
              max-threshold: 200000
      egress-queue-mapping:
        default-global:
          switch-priority:
            '2':
              traffic-class: 3
      egress-scheduler:
        default-global:
          traffic-class:
            '6':
              mode: strict
    interface:
      swp1:
        qos:
          pfc-watchdog: {}
`
	s := `nv set qos roce enable on
nv set qos roce mode lossless
nv set qos mapping default-global trust l3
nv set qos mapping default-global dscp 26 switch-priority 2
nv set qos pfc default-global switch-priority 2
nv set qos pfc default-global cable-length 50
nv set qos congestion-control default-global traffic-class 3 ecn enable
nv set qos congestion-control default-global traffic-class 3 min-threshold 40000
nv set qos congestion-control default-global traffic-class 3 max-threshold 200000
nv set qos egress-queue-mapping default-global switch-priority 2 traffic-class 3
nv set qos egress-scheduler default-global traffic-class 6 mode strict
nv set interface swp1 qos pfc-watchdog
`
	a, err := ParseYAML("a", []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	b, err := ParseSet("b", []byte(s))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []*Config{a, b} {
		c.Resolve()
	}
	texts := func(c *Config) string {
		var sb strings.Builder
		m := c.Mapping[DefaultProfile]
		for d := range m.DSCP {
			sb.WriteString(m.DSCP[d].Text + ",")
		}
		f := c.PFC[DefaultProfile]
		sb.WriteString(m.Trust.Text + strconv.Itoa(len(f.Prios)) + f.Cable.Text + c.RoCEMode.Text + c.RoCEEnable.Text)
		for sp := range c.EgressMap {
			sb.WriteString(c.EgressMap[sp].Text)
		}
		e := c.CC[DefaultProfile][3]
		sb.WriteString(e.ECN.Text + e.Min.Text + e.Max.Text + e.Prob.Text + e.RED.Text)
		sb.WriteString(c.Sched[DefaultProfile][6].Mode.Text + c.Watchdog["swp1"].Text)
		return sb.String()
	}
	if ta, tb := texts(a), texts(b); ta != tb {
		t.Errorf("yaml and nv set disagree:\n%s\n%s", ta, tb)
	}
}

// TestBadInput: a malformed value stops the reader at its line and
// column, saying what was expected; a key NVUE has but no rule judges is
// named, not refused.
func TestBadInput(t *testing.T) {
	for _, tc := range []struct {
		name, text, want string
		yaml             bool
	}{
		{"threshold", "- set:\n    qos:\n      congestion-control:\n        default-global:\n          traffic-class:\n            '3':\n              min-threshold: 150KB\n", "7:30: qos congestion-control default-global traffic-class 3 min-threshold \"150KB\": expected an integer", true},
		{"mode", "- set:\n    qos:\n      roce:\n        mode: losless\n", "4:15: qos roce mode \"losless\": expected lossless, lossy", true},
		{"dscp", "nv set qos mapping default-global dscp 64 switch-priority 3\n", "1:40: qos mapping default-global dscp \"64\": expected values from 0 to 63", false},
		{"prio", "nv set qos pfc default-global switch-priority 8\n", "1:47: qos pfc default-global switch-priority \"8\": expected priorities from 0 to 7", false},
		{"list", "- set:\n    qos:\n      pfc:\n        default-global:\n          switch-priority: [3]\n", "5:28: qos pfc default-global switch-priority: a list", true},
	} {
		var err error
		if tc.yaml {
			_, err = ParseYAML("f", []byte(tc.text))
		} else {
			_, err = ParseSet("f", []byte(tc.text))
		}
		var e *pos.Error
		if !errors.As(err, &e) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	c, err := ParseSet("f", []byte("nv set qos traffic-pool roce-lossless memory-percent 60\nnv set qos pfc default-global port-buffer 25000\nnv set qos pfc default-global frobnicate 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	var nj []string
	for _, v := range c.NotJudged {
		nj = append(nj, v.Text+"@"+strconv.Itoa(v.Line))
	}
	if want := []string{"qos traffic-pool@1", "qos pfc default-global port-buffer@2", "qos pfc default-global frobnicate@3"}; !reflect.DeepEqual(nj, want) {
		t.Errorf("not judged %v, want %v", nj, want)
	}
}

// TestSize checks NVUE's binary units.
func TestSize(t *testing.T) {
	for s, want := range map[string]int64{"146.48 KB": 149996, "1.43 MB": 1499464, "40000 B": 40000, "0 Bytes": 0, "2 GB": 2 << 30} {
		if got, ok := Size(s); !ok || got != want {
			t.Errorf("Size(%q) = %d %v, want %d", s, got, ok, want)
		}
	}
	for _, s := range []string{"", "x KB", "1 TB", "-1 B", "NaN"} {
		if _, ok := Size(s); ok {
			t.Errorf("Size(%q) read", s)
		}
	}
}

func TestExpandIfaces(t *testing.T) {
	got, ok := expandIfaces("swp1-3,swp10")
	if !ok || !reflect.DeepEqual(got, []string{"swp1", "swp2", "swp3", "swp10"}) {
		t.Errorf("got %v", got)
	}
	// A list past maxIfaceNames (8 × 512) is no range.
	if got, ok := expandIfaces(strings.Repeat("swp1-512,", 8) + "swp1"); ok {
		t.Errorf("expanded %d names", len(got))
	}
	if got, ok := expandIfaces(strings.Repeat("swp1-512,", 7) + "swp1-512"); !ok || len(got) != 4096 {
		t.Errorf("expanded %d names %v, want 4096", len(got), ok)
	}
}

// A table row of `nv show qos roce` split by white space other than
// blanks and tabs (a form feed, a no-break space from a web page) is read
// field by field with each field's own column, as strings.Fields splits
// it: the column list once missed such a separator and indexed past its
// end.
func TestShowRoCEOddSpace(t *testing.T) {
	text := "      operational  applied\nmode  lossless     lossless\nRoCE SP->TC mapping and ETS configurations\n    3\v3  6\u00a0 strict-priority\n"
	c, err := ParseShowRoCE("f", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.EgressMap[3]; got.Text != "6" || got.Line != 4 || got.Col != 10 {
		t.Errorf("switch priority 3 → class %+v, want 6 at 4:10", got)
	}
	if s := c.Sched["default-global"][6]; s == nil || s.Mode.Text != "strict" {
		t.Errorf("class 6 scheduler %+v, want strict", s)
	}
}

// A YAML file whose lines end in a lone CR is placed by the lines the
// YAML parser counts, which LineText shows: the parser ends a line at a
// lone CR, the line list once did not.
func TestYAMLLoneCR(t *testing.T) {
	_, err := ParseYAML("f", []byte("- set:\r    qos:\r      roce:\r        mode: losless\r"))
	var e *pos.Error
	if !errors.As(err, &e) || e.Line != 4 {
		t.Fatalf("error %v, want one at line 4", err)
	}
	c, err := ParseYAML("f", []byte("- set:\r    qos:\r\r      roce:\r\n        mode: lossy\r"))
	if err != nil {
		t.Fatal(err)
	}
	if c.RoCEMode.Line != 5 || c.LineText(5) != "mode: lossy" {
		t.Errorf("mode at line %d (%q), want 5", c.RoCEMode.Line, c.LineText(c.RoCEMode.Line))
	}
}

// An indented command (a script's loop body, a document's code block) is
// read, at its own columns; prose before `nv set` is not a command.
func TestSetIndented(t *testing.T) {
	c, err := ParseSet("f", []byte("nv set qos roce\n    nv set qos pfc default-global switch-priority 2\n\tnv set qos roce mode lossy\nrun nv set qos roce enable off to undo\n"))
	if err != nil {
		t.Fatal(err)
	}
	if f := c.PFC[DefaultProfile]; f == nil || !reflect.DeepEqual(f.Prios, []int{2}) || f.PriosAt.Line != 2 || f.PriosAt.Col != 51 {
		t.Errorf("PFC %+v, want [2] at 2:51", f)
	}
	if c.RoCEMode.Text != "lossy" || c.RoCEMode.Col != 23 || c.RoCEEnable.Text != "on" {
		t.Errorf("RoCE %+v mode %+v, want on, lossy at 3:23", c.RoCEEnable, c.RoCEMode)
	}
}

// TestRoCEState: Cumulus Linux 5.15 renamed `nv set qos roce enable
// on|off` to `state enabled|disabled` (the release notes' NVUE changes
// table): read as the same switch (SYNTHETIC commands in that form), in
// the set form and in YAML; `state disabled` turns RoCE off whatever the
// mode, where it had been named as not judged and the mode taken as on.
func TestRoCEState(t *testing.T) {
	c, err := ParseSet("f", []byte("nv set qos roce mode lossless\nnv set qos roce state disabled\n"))
	if err != nil {
		t.Fatal(err)
	}
	if on, _, at := c.RoCE(); on || at.Line != 1 || c.RoCEEnable.Line != 2 || c.RoCEEnable.Col != 23 {
		t.Errorf("state disabled: on %v at %+v, enable %+v", on, at, c.RoCEEnable)
	}
	y, err := ParseYAML("f", []byte("- set:\n    qos:\n      roce:\n        state: enabled\n"))
	if err != nil {
		t.Fatal(err)
	}
	if on, mode, _ := y.RoCE(); !on || mode != "lossless" || len(y.NotJudged) != 0 {
		t.Errorf("YAML state enabled: on %v mode %q, not judged %v", on, mode, y.NotJudged)
	}
	if _, err := ParseSet("f", []byte("nv set qos roce state maybe\n")); err == nil || !strings.Contains(err.Error(), "f:1:23:") {
		t.Errorf("state maybe: %v, want a refusal at 1:23", err)
	}
}

// A threshold in `nv show qos roce` with a unit NVUE does not print is
// refused at its column, not read as bytes (it had been read as 146 B).
func TestShowRoCEUnknownUnit(t *testing.T) {
	text := "                    operational            applied\n------------------  ---------------------  ---------------------\nenable                                     on\nmode                lossless               lossless\ncongestion-control\n  enabled-tc        3\n  min-threshold     146.48 KiBs\n"
	_, err := ParseShowRoCE("f", []byte(text))
	var e *pos.Error
	if !errors.As(err, &e) || e.Line != 7 || e.Col != 21 || !strings.Contains(e.Msg, `"146.48 KiBs": expected a size`) {
		t.Errorf("error %v, want one at 7:21 refusing the size", err)
	}
}
