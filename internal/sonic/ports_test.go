package sonic

import "testing"

// TestNotDataPort: each way a SYNTHETIC config names a VOQ chassis's
// inband or recirculation port, and a front-panel port beside them.
func TestNotDataPort(t *testing.T) {
	db, err := Parse("ports-synthetic.json", []byte(`{"VOQ_INBAND_INTERFACE": {"Ethernet120": {"inband_type": "port"}},
"PORT": {"Ethernet120": {}, "Ethernet8": {"role": "Inb"}, "Ethernet16": {"role": "Rec"}, "Ethernet0": {"role": "Ext"},
"Ethernet-IB0": {}, "Ethernet-Rec0": {}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for port, want := range map[string]bool{"Ethernet120": true, "Ethernet8": true, "Ethernet16": true, "Ethernet-IB0": true, "Ethernet-Rec0": true, "Ethernet0": false} {
		if got := db.NotDataPort(port); got != want {
			t.Errorf("%s: %v, want %v", port, got, want)
		}
	}
}
