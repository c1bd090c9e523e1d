package aoscx

import (
	"errors"
	"os"
	"strings"
	"testing"

	"rocelab/internal/pos"
)

// synthetic is the lossless leaf of testdata/lint/aoscx-dscp26-lossy
// (fixed), written after the AOS-CX QoS Guide's examples.
const synthetic = "../../testdata/lint/aoscx-dscp26-lossy/fixed/leaf-running-config-synthetic.cfg"

// TestParseSynthetic: DSCP trust, DSCP 26 moved to local priority 4, the
// applied queue profile, ECN on queue 4 from 150 to 1500 KB (of 1024
// bytes), PFC on priority 4 at its line on both ports, and the lossless
// pool and schedule named as not judged.
func TestParseSynthetic(t *testing.T) {
	data, err := os.ReadFile(synthetic)
	if err != nil {
		t.Fatal(err)
	}
	if !IsConfig(data) {
		t.Fatal("not recognised as AOS-CX")
	}
	c, err := Parse("leaf.cfg", data)
	if err != nil {
		t.Fatal(err)
	}
	if c.Trust.Text != "dscp" || c.DSCP[26].Text != "4" || c.DSCP[26].Line != 7 || len(c.DSCP) != 1 {
		t.Errorf("trust %+v, dscp-map %+v", c.Trust, c.DSCP)
	}
	if c.QueueProfile.Text != "RDMA" || c.Queues["RDMA"][4].Text != "4" || len(c.Queues["RDMA"]) != 8 {
		t.Errorf("queue profile %+v: %+v", c.QueueProfile, c.Queues)
	}
	e := c.Thresholds["ECN"][4]
	if c.Threshold.Text != "ECN" || e == nil || e.Min.Text != "153600" || e.Max.Text != "1536000" || e.At.Text != "ecn" {
		t.Fatalf("threshold %+v: %+v", c.Threshold, e)
	}
	if len(c.Interfaces) != 2 {
		t.Fatalf("interfaces %+v", c.Interfaces)
	}
	for _, it := range c.Interfaces {
		if v := it.PFC[4]; len(it.PFC) != 1 || v.Text != "4" || v.Col != 32 || it.MTU.Text != "9198" {
			t.Errorf("%s: PFC %+v, MTU %+v", it.Name, it.PFC, it.MTU)
		}
	}
	var names []string
	for _, v := range c.NotJudged {
		names = append(names, v.Text)
	}
	if got := strings.Join(names, ", "); got != "qos pool, dwrr queue, strict queue, schedule-profile RDMA" {
		t.Errorf("not judged: %s", got)
	}
}

// TestPFCForms: both orders of flow-control priority, priority lists,
// and rx alone (honours pause, sends none) kept out of PFC; LAG and port
// ranges name their ports.
func TestPFCForms(t *testing.T) {
	c, err := Parse("f", []byte("interface 1/1/1-1/1/2\n    flow-control priority 3 tx\ninterface lag 10 multi-chassis\n    flow-control priority rxtx 3,4\ninterface 1/1/9\n    flow-control priority rx 3\ninterface vlan 10\n    flow-control priority rxtx 5\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"1/1/1": "3", "1/1/2": "3", "lag10": "3 4", "1/1/9": ""}
	if len(c.Interfaces) != len(want) {
		t.Fatalf("interfaces %d, want %d", len(c.Interfaces), len(want))
	}
	for _, it := range c.Interfaces {
		var ps []string
		for p := range 8 {
			if _, ok := it.PFC[p]; ok {
				ps = append(ps, string(rune('0'+p)))
			}
		}
		if got := strings.Join(ps, " "); got != want[it.Name] {
			t.Errorf("%s: PFC %q, want %q", it.Name, got, want[it.Name])
		}
	}
	if len(c.NotJudged) != 1 || c.NotJudged[0].Text != "flow-control priority rx" {
		t.Errorf("not judged %+v", c.NotJudged)
	}
}

// TestBadValues: values AOS-CX refuses are errors at their place.
func TestBadValues(t *testing.T) {
	for _, c := range []struct {
		text      string
		line, col int
		msg       string
	}{
		{"qos trust l3\n", 1, 11, "expected cos, dscp or none"},
		{"qos dscp-map 64 local-priority 3\n", 1, 14, "dscp code points 0-63"},
		{"qos cos-map 3 local-priority 8\n", 1, 30, "local priority 0-7"},
		{"qos queue-profile Q\n    map queue 8 local-priority 3\n", 2, 15, "a queue 0-7"},
		{"qos threshold-profile T\n    queue 3 action ecn all min-threshold 150 kb max-threshold 1500 kbytes\n", 2, 42, "expected a threshold in bytes"},
		{"qos threshold-profile T\n    queue 3 action ecn all\n", 2, 20, "expected min-threshold"},
		{"interface 1/1/1\n    flow-control priority rxtx 8\n", 2, 32, "priorities 0-7"},
		{"interface 1/1/1\n    flow-control priority 3\n", 2, 18, "expected flow-control priority rx|tx|rxtx"},
		{"interface 1/1/1\n    mtu big\n", 2, 9, "an MTU in bytes"},
	} {
		_, err := Parse("f", []byte(c.text))
		var e *pos.Error
		if !errors.As(err, &e) || e.Line != c.line || e.Col != c.col || !strings.Contains(e.Msg, c.msg) {
			t.Errorf("%q: %v, want %d:%d %s", c.text, err, c.line, c.col, c.msg)
		}
	}
}

// TestIsConfig: AOS-CX's header or its own QoS commands; EOS's and
// NX-OS's QoS lines are not taken for it.
func TestIsConfig(t *testing.T) {
	for text, want := range map[string]bool{
		"!Version ArubaOS-CX LL.10.13.1000\nhostname a\n":            true,
		"apply qos threshold-profile ECN\n":                          true,
		"qos dscp-map 26 local-priority 3\n":                         true,
		"interface 1/1/1\n    flow-control priority rxtx 3\n":        true,
		"qos map dscp 26 to traffic-class 3\n":                       false,
		"interface Ethernet1\n   priority-flow-control priority 3\n": false,
		"system qos\n  service-policy type network-qos Q\n":          false,
	} {
		if got := IsConfig([]byte(text)); got != want {
			t.Errorf("IsConfig(%q) = %v, want %v", text, got, want)
		}
	}
}

// FuzzParse: whatever Parse accepts or refuses, it does not panic, and a
// refusal is placed.
func FuzzParse(f *testing.F) {
	data, err := os.ReadFile(synthetic)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte("interface lag 1\n    flow-control priority 3 rxtx\nqos threshold-profile T\n    queue 1 action ecn threshold 40 kbytes\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse("f", data)
		if !pos.Placed(err) {
			t.Fatalf("unplaced error %v", err)
		}
		if err == nil && c == nil {
			t.Fatal("nil config without error")
		}
	})
}
