package lint

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"rocelab/internal/doctor"
)

// TestPortUnknown lints a SYNTHETIC config_db.json whose PORT_QOS_MAP key
// is a range (SONiC expands none), whose BUFFER_PG list has a typo and
// whose CABLE_LENGTH names a port PORT lacks: one config.port.unknown per
// table, an error where the port meant loses pfc_enable, a warning for
// the buffer and cable tables; PortChannels and the global row are ports.
func TestPortUnknown(t *testing.T) {
	fs := lintText(t, `{
"PORT": {"Ethernet0": {}, "Ethernet4": {}},
"PORT_QOS_MAP": {"global": {"dscp_to_tc_map": "AZURE"}, "Ethernet0-Ethernet4": {"pfc_enable": "3,4"}},
"BUFFER_PG": {"Ethernet0,Ethernet1|3-4": {"profile": "p"}, "PortChannel01|0": {"profile": "p"}},
"BUFFER_PROFILE": {"p": {"pool": "ingress_lossless_pool", "size": "0"}},
"CABLE_LENGTH": {"AZURE": {"Ethernet0": "5m", "Ethernet8": "5m"}}
}`, "config.port.unknown")
	var got []string
	for _, fd := range fs {
		_, title, _ := strings.Cut(fd.Title, ": ")
		got = append(got, fmt.Sprintf("%s %s", fd.Severity, title))
	}
	want := []string{
		fmt.Sprintf("%s PORT_QOS_MAP|Ethernet0-Ethernet4 names Ethernet0-Ethernet4, which PORT does not hold", doctor.Error),
		fmt.Sprintf("%s BUFFER_PG|Ethernet0,Ethernet1|3-4 names Ethernet1, which PORT does not hold", doctor.Warn),
		fmt.Sprintf("%s CABLE_LENGTH|AZURE names Ethernet8, which PORT does not hold", doctor.Warn),
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
