package sonic

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"rocelab/internal/pos"
)

const ftosDir = "../../testdata/corpus/ftos/"

// TestParseFTOSPublic reads the paused priorities of real FTOS
// configurations: Microsoft's S4810 dcb-map puts priority 3 alone in the
// group with pfc on (priority-pgid 1 1 1 0 1 1 1 1, group 0 pfc on), on
// the range it applies to; Dell ASM's MXL pauses priority 4 by its
// dcb-input pfc on each interface applying `dcb-policy input pfc`.
func TestParseFTOSPublic(t *testing.T) {
	for file, want := range map[string]struct {
		pfc   string
		ports int
	}{
		"msdocs-s4810-ftos99-dcb-map-pfc3.cfg":                     {"3", 1},
		"asm-force10-mxl-ftos95-running-config-dcb-input-pfc4.cfg": {"4", 29},
	} {
		data, err := os.ReadFile(ftosDir + file)
		if err != nil {
			t.Fatal(err)
		}
		if !IsFTOS(data) {
			t.Fatalf("%s: not taken for FTOS", file)
		}
		db, err := ParseFTOS(file, data)
		if err != nil {
			t.Fatal(err)
		}
		rows := db.Tables["PORT_QOS_MAP"]
		if len(rows) != want.ports {
			t.Errorf("%s: %d ports, want %d", file, len(rows), want.ports)
		}
		for port, row := range rows {
			if row["pfc_enable"].Text != want.pfc || row["dscp_to_tc_map"].Given() {
				t.Errorf("%s %s: pfc_enable %q (DSCP map %q), want %q and no DSCP map", file, port, row["pfc_enable"].Text, row["dscp_to_tc_map"].Text, want.pfc)
			}
		}
	}
}

// TestParseFTOSRefusals: what FTOS would refuse is an error at its place.
func TestParseFTOSRefusals(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"dcb-map m\n priority-group 0 bandwidth 50 pfc on\n priority-pgid 0 0 0 1\n", "3:2: priority-pgid with 4 groups"},
		{"dcb-map m\n priority-group 9 bandwidth 50 pfc on\n", "2:17: \"9\": expected a priority group"},
		{"dcb-map m\n priority-group 0 bandwidth 50 pfc yes\n", "2:36: \"yes\": expected pfc on or off"},
		{"dcb-input p\n pfc priority 3,9\n", "2:15: \"3,9\": expected priorities 0-7"},
		{"dcb-map m\n priority-group 0 bandwidth 50 pfc on\ninterface te 0/1\n dcb-map m\n", "1:1: dcb-map m has no priority-pgid line"},
		{"wred-profile w\n threshold min 150 max\n", "2:2: expected threshold min KB max KB [max-drop-rate P]"},
		{"wred-profile w\n threshold min 150 max 1500 max-drop-rate 120\n", "2:43: \"120\": expected a drop rate of 0-100 %"},
		{"policy-map-output p\n service-queue 9 qos-policy q\n", "2:16: \"9\": expected a queue 0-7"},
	} {
		_, err := ParseFTOS("f.cfg", []byte(c.in))
		var pe *pos.Error
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), "f.cfg:"+c.want) {
			t.Errorf("%q: %v, want f.cfg:%s", c.in, err, c.want)
		}
	}
}

// TestParseFTOSWRED reads the egress QoS of a SYNTHETIC FTOS
// configuration as CONFIG_DB rows: the ports that apply a dcb-map take
// FTOS's default DCB 802.1p-to-queue map (priority 3 in queue 1), and each
// queue their policy-map-output gives a qos-policy-output with `wred green`
// takes that wred-profile, thresholds in KB of 1024 bytes, marking with
// `wred ecn`. A predefined profile and a profile no queue takes are named
// as not judged; `service-class dot1p-mapping` moves the map, so no queue
// row is written and it is named instead.
func TestParseFTOSWRED(t *testing.T) {
	const cfg = `wred-profile ROCE
 threshold min 150 max 1500 max-drop-rate 10
wred-profile SPARE
 threshold min 10 max 20
qos-policy-output Q1
 wred green ROCE
 wred ecn
qos-policy-output Q2
 wred green wred_teng_g
policy-map-output OUT
 service-queue 1 qos-policy Q1
 service-queue 2 qos-policy Q2
dcb-map m
 priority-group 0 bandwidth 90 pfc on
 priority-group 1 bandwidth 10 pfc off
 priority-pgid 1 1 1 0 1 1 1 1
interface te 0/1
 dcb-map m
 service-policy output OUT
`
	db, err := ParseFTOS("f.cfg", []byte(cfg))
	if err != nil {
		t.Fatal(err)
	}
	if got := db.Tables["TC_TO_QUEUE_MAP"][ftosDot1pMapName]["3"].Text; got != "1" {
		t.Errorf("priority 3 to queue %q, want 1", got)
	}
	if got := db.Tables["PORT_QOS_MAP"]["te 0/1"]["tc_to_queue_map"].Text; got != ftosDot1pMapName {
		t.Errorf("te 0/1 tc_to_queue_map %q", got)
	}
	if got := db.Tables["QUEUE"]["te 0/1|1"]["wred_profile"].Text; got != "wred-profile ROCE" {
		t.Errorf("queue 1 wred_profile %q, want wred-profile ROCE", got)
	}
	if len(db.Tables["QUEUE"]) != 1 {
		t.Errorf("QUEUE rows %v, want queue 1 alone", db.Tables["QUEUE"])
	}
	w, ok := db.WREDProfile("wred-profile ROCE")
	if !ok || !w.OK || w.Min != 153600 || w.Max != 1536000 || w.Prob != 10 || w.ECN.Text != "ecn_all" {
		t.Errorf("profile %+v, want 153600-1536000 B at 10 %%, ecn_all", w)
	}
	var skipped []string
	for _, v := range db.Skipped {
		skipped = append(skipped, v.Text)
	}
	for _, want := range []string{"wred green wred_teng_g (a predefined profile or one not in the input)", "wred-profile SPARE (on no applied queue: marks nothing)"} {
		if !slices.Contains(skipped, want) {
			t.Errorf("not judged %q, want %q among them", skipped, want)
		}
	}
	db, err = ParseFTOS("f.cfg", []byte("service-class dot1p-mapping dot1p3 3\n"+cfg))
	if err != nil {
		t.Fatal(err)
	}
	skipped = skipped[:0]
	for _, v := range db.Skipped {
		skipped = append(skipped, v.Text)
	}
	if len(db.Tables["QUEUE"]) != 0 || !slices.ContainsFunc(skipped, func(s string) bool { return strings.HasPrefix(s, "service-class dot1p-mapping") }) ||
		slices.ContainsFunc(skipped, func(s string) bool { return strings.Contains(s, "on no applied queue") }) {
		t.Errorf("with the map moved: QUEUE %v, not judged %q", db.Tables["QUEUE"], skipped)
	}
}

// FuzzParseFTOS: no input panics, and a refusal names a place in it.
func FuzzParseFTOS(f *testing.F) {
	for _, name := range []string{ftosDir + "msdocs-s4810-ftos99-dcb-map-pfc3.cfg", ftosDir + "asm-force10-ioa-show-running-config-interface-dcb-map-undefined.cfg",
		"../../testdata/lint/ftos-ecn-drop/bad/s4810-running-config-synthetic.cfg"} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := ParseFTOS("f.cfg", data)
		var pe *pos.Error
		if err != nil && (!errors.As(err, &pe) || pe.Line < 1) {
			t.Fatalf("error without a place: %v", err)
		}
	})
}

// TestParseFTOSMissingOutput: an interface's `service-policy output` and a
// policy map's `service-queue … qos-policy` naming blocks the input does
// not hold (SYNTHETIC cut of a config) are each named once as not in the
// input, at the name's line and column, and the config is not called
// ECN-less: the missing blocks may write WRED.
func TestParseFTOSMissingOutput(t *testing.T) {
	cfg := "dcb-map ROCE\n priority-group 0 bandwidth 50 pfc off\n priority-group 1 bandwidth 50 pfc on\n priority-pgid 0 0 0 1 0 0 0 0\n!\n" +
		"interface TenGigabitEthernet 0/1\n dcb-map ROCE\n service-policy output PMAP\n!\npolicy-map-output PMAP2\n service-queue 1 qos-policy QOUT\n"
	db, err := ParseFTOS("f.cfg", []byte(cfg))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]int{"policy-map-output PMAP (not in the input)": {8, 24}, "qos-policy-output QOUT (not in the input)": {11, 29}}
	seen := map[string]int{}
	for _, v := range db.Skipped {
		if at, ok := want[v.Text]; ok {
			seen[v.Text]++
			if v.Line != at[0] || v.Col != at[1] {
				t.Errorf("%s at %d:%d, want %d:%d", v.Text, v.Line, v.Col, at[0], at[1])
			}
		}
	}
	for name := range want {
		if seen[name] != 1 {
			t.Errorf("%s named %d times, want once (skipped %v)", name, seen[name], db.Skipped)
		}
	}
	if db.WritesNoECN() {
		t.Error("a cut whose output policies are missing is called ECN-less")
	}
}

// TestParseFTOSSpeed: a port's speed is the one its interface type names
// (SYNTHETIC interfaces; the types and their prefixes are the Dell
// Networking OS 9 command reference's), at the interface's line, so ECN
// thresholds are judged at 10G on a TenGigabitEthernet port rather than at
// an assumed 100G; a port-channel states none.
func TestParseFTOSSpeed(t *testing.T) {
	dcb := "dcb-map ROCE\n priority-group 0 bandwidth 50 pfc off\n priority-group 1 bandwidth 50 pfc on\n priority-pgid 0 0 0 1 0 0 0 0\n!\n"
	for _, c := range []struct{ iface, port, want string }{
		{"interface TenGigabitEthernet 0/1", "TenGigabitEthernet 0/1", "10000"},
		{"interface range ten 0/0-31", "range ten 0/0-31", "10000"},
		{"interface te 0/2", "te 0/2", "10000"},
		{"interface fortyGigE 0/48", "fortyGigE 0/48", "40000"},
		{"interface twentyFiveGigE 1/1", "twentyFiveGigE 1/1", "25000"},
		{"interface hundredGigE 1/49", "hundredGigE 1/49", "100000"},
		{"interface GigabitEthernet 0/3", "GigabitEthernet 0/3", "1000"},
		{"interface Port-channel 1", "Port-channel 1", ""},
	} {
		db, err := ParseFTOS("f.cfg", []byte(dcb+c.iface+"\n dcb-map ROCE\n"))
		if err != nil {
			t.Fatal(err)
		}
		v, ok := db.Field("PORT", c.port, "speed")
		if v.Text != c.want || ok != (c.want != "") || ok && v.Line != 6 {
			t.Errorf("%s: speed %q at line %d (%v), want %q at line 6", c.iface, v.Text, v.Line, ok, c.want)
		}
	}
}
