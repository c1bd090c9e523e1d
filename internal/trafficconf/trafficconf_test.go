package trafficconf

import (
	"os"
	"slices"
	"strings"
	"testing"

	"rocelab/internal/pos"
)

// TestParseNCLU reads the traffic.conf NCLU's `net add interface swp1
// storage-optimized pfc` writes, as Cumulus Linux 4.1's RoCE page prints
// it (testdata/corpus/cumulus-traffic-conf, source in its first line):
// the prompt and "..." elisions are skipped, each value kept at its place.
func TestParseNCLU(t *testing.T) {
	data, err := os.ReadFile("../../testdata/corpus/cumulus-traffic-conf/cl41-nclu-storage-optimized-pfc-traffic.conf")
	if err != nil {
		t.Fatal(err)
	}
	if !IsConfig(data) {
		t.Fatal("not recognised as traffic.conf")
	}
	c, err := Parse("traffic.conf", data)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Entries) != 15 {
		t.Errorf("%d entries, want 15", len(c.Entries))
	}
	cos, at := c.Ints("pfc.ROCE_PFC.cos_list")
	if !slices.Equal(cos, []int{3}) || at.Line != 6 || at.Col != 25 {
		t.Errorf("pfc cos_list %v at %d:%d, want [3] at 6:25", cos, at.Line, at.Col)
	}
	if v, _ := c.Get("ecn_red.ROCE_ECN.min_threshold_bytes"); v.Text != "150000" {
		t.Errorf("min threshold %q", v.Text)
	}
	if names, _ := c.Names("ecn_red.port_group_list"); !slices.Equal(names, []string{"ROCE_ECN"}) {
		t.Errorf("ecn groups %v", names)
	}
	if _, ok := c.Get("pfc.port_group_list"); ok {
		t.Error("pfc.port_group_list is elided in the page")
	}
}

// TestPorts: switchd's port sets, breakouts included.
func TestPorts(t *testing.T) {
	for set, want := range map[string]string{
		"swp1":            "swp1",
		"swp1-swp4,swp6":  "swp1 swp2 swp3 swp4 swp6",
		"swp50s0-swp50s3": "swp50s0 swp50s1 swp50s2 swp50s3",
		"swp1-swp2, swp9": "swp1 swp2 swp9",
		"swp4-swp1":       "swp4-swp1",
		"swp1s0-swp2s1":   "swp1s0-swp2s1",
		"":                "",
	} {
		if got := strings.Join(Ports(set), " "); got != want {
			t.Errorf("%q: %q, want %q", set, got, want)
		}
	}
}

// TestBadValues: a value switchd would refuse, or a line that is no
// setting, is an error at its place.
func TestBadValues(t *testing.T) {
	for s, at := range map[string][2]int{
		"pfc.port_group_list = [P]\npfc.P.cos_list = [8]\n": {2, 18},
		"traffic.cos_3.priority_source.dscp = [26, 64]\n":   {1, 38},
		"ecn_red.E.probability = 101\n":                     {1, 25},
		"ecn_red.E.ecn_enable = yes\n":                      {1, 24},
		"pfc.port_group_list = [P]\n  pfc.P.cos_list [3]\n": {2, 3},
		"ecn_red.E.min_threshold_bytes = 150KB\n":           {1, 33},
		"pfc.P.cos_list = [3\n":                             {1, 18},
	} {
		_, err := Parse("x.conf", []byte(s))
		if line, col := pos.At(err); line != at[0] || col != at[1] {
			t.Errorf("%q: %v, want an error at %d:%d", s, err, at[0], at[1])
		}
	}
}

// FuzzParse: whatever the input, Parse returns a file or an error at a
// line and column, and never panics.
func FuzzParse(f *testing.F) {
	for _, n := range []string{"cl41-nclu-storage-optimized-pfc-traffic.conf", "cl40-nclu-storage-optimized-pfc-traffic.conf"} {
		data, err := os.ReadFile("../../testdata/corpus/cumulus-traffic-conf/" + n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("traffic.packet_priority_source_set = [dscp]\ntraffic.cos_3.priority_source.dscp = [24,26]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse("f", data)
		if !pos.Placed(err) {
			t.Fatalf("unplaced error: %v", err)
		}
		if err == nil {
			for _, e := range c.Entries {
				Ports(e.Val.Text)
				c.Names(e.Key.Text)
			}
		}
	})
}
