package doctor

import "testing"

// SYNTHETIC: `ecnconfig -q 3` calls queue 3 off while the per-port table
// and its --summary both count its marks: the marks are told once (the
// summary's 12, the ports' 5+7), not the 24 of both added.
func TestSwitchECNMarksNotDoubled(t *testing.T) {
	text := "admin@sonic:~$ ecnconfig -q 3\nECN status:\nqueue 3: off\n" +
		"admin@sonic:~$ show queue wredcounters\n" +
		"     Port    TxQ    WredDrp/pkts    WredDrp/bytes    EcnMarked/pkts    EcnMarked/bytes\n" +
		"---------  -----  --------------  ---------------  ----------------  -----------------\n" +
		"Ethernet0    UC3               0                0                 5                 76\n" +
		"Ethernet4    UC3               0                0                 7                 41\n\n" +
		"admin@sonic:~$ show queue wredcounters --summary\n" + wredSumTable("0", "12")
	fs := diagnoseText(t, text).Findings
	nicMustFind(t, fs, "ecn.disabled", Info, "yet queue 3 marked 12 packets")
}
