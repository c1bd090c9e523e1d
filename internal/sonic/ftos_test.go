package sonic

import (
	"errors"
	"os"
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
	} {
		_, err := ParseFTOS("f.cfg", []byte(c.in))
		var pe *pos.Error
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), "f.cfg:"+c.want) {
			t.Errorf("%q: %v, want f.cfg:%s", c.in, err, c.want)
		}
	}
}

// FuzzParseFTOS: no input panics, and a refusal names a place in it.
func FuzzParseFTOS(f *testing.F) {
	for _, name := range []string{"msdocs-s4810-ftos99-dcb-map-pfc3.cfg", "asm-force10-ioa-show-running-config-interface-dcb-map-undefined.cfg"} {
		data, err := os.ReadFile(ftosDir + name)
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
