package doctor

import (
	"strings"
	"testing"
)

// An `ethtool --json` array cut before its closing bracket is reported
// where it opens, with what was expected, and the dump after the next
// command is still judged (SYNTHETIC).
func TestEthtoolJSONGarbledReported(t *testing.T) {
	fs := synthFindings(t, Options{},
		"# ethtool --json -I --show-fec eth0",
		"[ {",
		`        "ifname": "eth0",`,
		`        "active": [ "RS" ],`,
		"# ethtool --show-fec eth0",
		"FEC parameters for eth0:",
		"Active FEC encoding: Off")
	f := nicMustFind(t, fs, "input.garbled", Warn, "ethtool --json output")
	if len(f.Evidence) != 1 || f.Evidence[0].Line != 2 || !strings.Contains(f.Title, "expected") {
		t.Errorf("finding %s %+v", f.Title, f.Evidence)
	}
	nicMustFind(t, fs, "counters.phy.fec_off", Info, "eth0")
}
