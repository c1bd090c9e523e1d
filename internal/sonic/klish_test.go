package sonic

import (
	"errors"
	"os"
	"strings"
	"testing"

	"rocelab/internal/pos"
)

// TestParseKLISHAMDExample reads AMD's Enterprise SONiC example for a
// Dell Z9664F (testdata/corpus/sonic-cli): the rows are CONFIG_DB's own,
// at the lines that set them.
func TestParseKLISHAMDExample(t *testing.T) {
	data, err := os.ReadFile("../../testdata/corpus/sonic-cli/rocm-dell-z9664f-enterprise-sonic-dcqcn.cfg")
	if err != nil {
		t.Fatal(err)
	}
	if !IsKLISH(data) {
		t.Fatal("not recognised")
	}
	db, err := ParseKLISH("dell.cfg", data)
	if err != nil {
		t.Fatal(err)
	}
	m, ok := db.NumMap("DSCP_TO_TC_MAP", "ROCE")
	if !ok || m.To[26] != 3 || m.To[24] != 3 || m.To[48] != 6 || m.To[4] != 4 || m.To[63] != 0 || m.At[26].Line != 26 {
		t.Errorf("dscp-tc ROCE: %v (DSCP 26 at line %d)", m, m.At[26].Line)
	}
	w, ok := db.WREDProfile("ROCE")
	if !ok || !w.OK || w.Min != 2048000 || w.Max != 12480000 || w.Prob != 15 || w.ECN.Text != "ecn_green" || w.GreenEnable.Text != "true" || w.MinAt.Line != 4 {
		t.Errorf("wred-policy ROCE: %+v", w)
	}
	var pfc []string
	for _, p := range db.PortQoSMaps() {
		pfc = append(pfc, p.Port+"="+p.PFCEnableAt.Text)
	}
	if strings.Join(pfc, " ") != "Eth1/1=3,4 Eth1/2=3,4 Eth1/3=3,4" {
		t.Errorf("pfc_enable %v", pfc)
	}
	var queues []string
	for _, q := range db.Queues() {
		queues = append(queues, q.Key+":"+q.WREDProfile.Text+"/"+q.Scheduler.Text)
	}
	if len(queues) != 3*4 || !strings.Contains(strings.Join(queues, " "), "Eth1/1|3:ROCE/ROCE@3") {
		t.Errorf("queues %v", queues)
	}
	if v, _ := db.Field("PFC_WD", "Eth1/2", "detection_time"); v.Text != "200" {
		t.Errorf("watchdog %+v", v)
	}
	if v, _ := db.Field("SCHEDULER", "ROCE@6", "type"); v.Text != "STRICT" {
		t.Errorf("scheduler ROCE@6 %+v", v)
	}
}

// TestParseKLISHErrors: a value the CLI refuses is an error at its place.
func TestParseKLISHErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"qos map dscp-tc R\ndscp 0-64 traffic-class 0\n", "2:6: \"0-64\": expected a list of numbers"},
		{"qos wred-policy W\ngreen minimum-threshold x maximum-threshold 10 drop-probability 5\n", "2:25: \"x\": expected a threshold in KB"},
		{"interface Ethernet0\npriority-flow-control priority 8\n", "2:32: \"8\": expected a priority 0-7"},
	} {
		_, err := ParseKLISH("x.cfg", []byte(c.text))
		var pe *pos.Error
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), "x.cfg:"+c.want) {
			t.Errorf("%q: %v, want x.cfg:%s", c.text, err, c.want)
		}
	}
}

// FuzzParseKLISH: no input panics, and a refusal names a place in it.
func FuzzParseKLISH(f *testing.F) {
	f.Add([]byte("qos map dscp-tc R\n dscp 26 traffic-class 3\ninterface Ethernet0\n qos-map dscp-tc R\n priority-flow-control priority 3\n queue 3 wred-policy W\nqos wred-policy W\n green minimum-threshold 150 maximum-threshold 1500 drop-probability 5\n ecn green\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := ParseKLISH("f.cfg", data); !pos.Placed(err) {
			t.Fatalf("error without a place: %v", err)
		}
	})
}
