package doctor

import (
	"strings"
	"testing"
)

// Switch output of commands that print no judged counter (real outputs
// each) is named as such, at info, with the commands that print them,
// not reported as an unknown format.
func TestSwitchUnjudgedInputs(t *testing.T) {
	for file, want := range map[string]string{
		"nxos-show-interface-eth1-33-counters-octets-genieparser.txt":    "Cisco NX-OS `show interface counters`",
		"nxos-show-interface-counters-table-rates-genieparser.txt":       "Cisco NX-OS `show interface counters table`",
		"junos-show-class-of-service-interface-xe-0-1-7-genieparser.txt": "Juniper Junos `show class-of-service interface`",
		"junos-show-interfaces-not-extensive-ntctemplates.txt":           "Juniper Junos `show interfaces` without `extensive`",
		"eos-show-interfaces-vlan-vxlan-no-counters-ntctemplates.txt":    "`show interface(s)` of ports that print no counters",
		"sonic-show-pfc-asymmetric-all-off-sonic-utilities.txt":          "SONiC `show pfc asymmetric`",
	} {
		rep := Diagnose([]string{nicTestdata("corpus/switch/" + file)}, nil, Options{})
		f := nicMustFind(t, rep.Findings, "input.unrecognized", Info, want, "switch output diagnose does not judge, not read")
		if !strings.Contains(f.Fix, "`show ") {
			t.Errorf("%s: fix %q", file, f.Fix)
		}
	}
}
