package sonic

import "testing"

// PFCPriorityRow is the one reader of `show pfc priority` rows, for lint
// (ParseShowPFCPriority) and the doctor (ingest's switch parser) alike.
func TestPFCPriorityRow(t *testing.T) {
	for _, c := range []struct {
		raw, port, text string
		col             int
		ok              bool
	}{
		{"Ethernet0    3,4", "Ethernet0", "3,4", 14, true},
		{"Ethernet8", "Ethernet8", "", 10, true}, // no lossless priority
		{"PortChannel0001  3", "PortChannel0001", "3", 18, true},
		{"etp1         3,4", "etp1", "3,4", 14, true}, // alias mode (SONIC_CLI_IFACE_MODE=alias)
		{"fortyGigE0/4 4", "fortyGigE0/4", "4", 14, true},
		{"Ethernet0    3,9", "", "", 0, false}, // no priority 9
		{"Ethernet0    N/A", "", "", 0, false},
		{"Ethernet0    3 4", "", "", 0, false},
		{"admin@sonic:~$", "", "", 0, false},
		{"", "", "", 0, false},
	} {
		port, v, ok := PFCPriorityRow(c.raw)
		if ok != c.ok || port != c.port || v.Text != c.text || ok && v.Col != c.col {
			t.Errorf("%q: %q %+v %v, want %q %q col %d %v", c.raw, port, v, ok, c.port, c.text, c.col, c.ok)
		}
	}
	// An alias-mode table is read whole; before, lint's reader stopped at
	// the first port not named Ethernet or PortChannel.
	db, ok := ParseShowPFCPriority("alias.txt", []byte("Interface    Lossless priorities\n-----------  ---------------------\netp1         3,4\netp2         3,4\n"))
	if pq := db.PortQoSMaps(); !ok || len(pq) != 2 || pq[1].Port != "etp2" || pq[1].PFCEnableAt.Line != 4 {
		t.Errorf("alias table: %v %+v", ok, pq)
	}
}
