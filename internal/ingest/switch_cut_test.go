package ingest

import "testing"

// TestSwitchCutRows keeps the rows a paste cut short as garbles with their
// place (sonic-buildimage#23566 ends inside Ethernet80's row); whole rows
// and lines that are no row of the table are not garbles.
func TestSwitchCutRows(t *testing.T) {
	s := switchCorpus(t, "switch/sonic-show-queue-wredcounters-grep-uc3-ecn-marked-multiasic-buildimage23566.txt")
	if len(s.CutRows) != 1 || s.CutRows[0].Line != 14 || s.CutRows[0].Col != 1 || s.CutRows[0].Expected != "a `show queue wredcounters` row of 6 columns (this one has 4)" || len(s.WRED) != 10 {
		t.Errorf("cut rows %+v, %d WRED rows", s.CutRows, len(s.WRED))
	}
	// SYNTHETIC, in `show pfc counters` format: a wrapped row, then a
	// line of another kind after the table.
	const text = "     Port Rx    PFC0    PFC1    PFC2    PFC3    PFC4    PFC5    PFC6    PFC7\n" +
		"-----------  ------  ------  ------  ------  ------  ------  ------  ------\n" +
		"  Ethernet0       0       0       0      12       0       0       0       0\n" +
		"  Ethernet4       0       0       0\n" +
		"       7       0       0       0       0\n" +
		"admin@leaf1:~$ show version\n"
	p := nicArtifact[*SwitchCounters](t, nicReadText(t, "wrapped", text))
	if len(p.CutRows) != 1 || p.CutRows[0].Line != 4 || p.CutRows[0].Col != 3 || len(p.PFC) != 8 {
		t.Errorf("cut rows %+v, %d PFC counts", p.CutRows, len(p.PFC))
	}
}
