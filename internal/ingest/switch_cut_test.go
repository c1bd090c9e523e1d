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

// A poster's elision ("..", ".") inside a table does not end it
// (sonic-utilities#1057 elides the Tx rows so); a row after it is read,
// or reported when cut (SYNTHETIC rows appended to the real paste).
func TestSwitchElisionKeepsTable(t *testing.T) {
	b := switchCorpus(t, "switch/sonic-pfc-counters-multiasic-headerless-rx-tail-tx-table-dot-elision-utilities1057.txt")
	if len(b.PFC) != 7*8 || b.PFC[0].Port != "Ethernet0" || b.PFC[0].Dir != TX {
		t.Fatalf("%d PFC counts, first %+v", len(b.PFC), b.PFC[0])
	}
	text := "    Port Tx    PFC0    PFC1    PFC2    PFC3    PFC4    PFC5    PFC6    PFC7\n" +
		"-----------  ------  ------  ------  ------  ------  ------  ------  ------\n" +
		"  Ethernet0       0       0       0       0       0       0       0       0\n" +
		"..\n.\n" +
		"Ethernet216       0       0       0      44       0       0       0       0\n" +
		"Ethernet220       0       0       0\n"
	s := nicArtifact[*SwitchCounters](t, nicReadText(t, "elided", text))
	if len(s.PFC) != 16 || s.PFC[11].Port != "Ethernet216" || s.PFC[11].Frames != 44 || len(s.CutRows) != 1 || s.CutRows[0].Line != 7 {
		t.Errorf("%d PFC counts %+v, cut %+v", len(s.PFC), s.PFC, s.CutRows)
	}
}

// Cut rows past the cap are counted as omitted, not dropped unsaid
// (SYNTHETIC `show pfc counters` table of cut rows).
func TestSwitchCutRowsCapped(t *testing.T) {
	text := "     Port Rx    PFC0    PFC1    PFC2    PFC3    PFC4    PFC5    PFC6    PFC7\n" +
		"-----------  ------  ------  ------  ------  ------  ------  ------  ------\n"
	for i := range maxGarbled + 3 {
		text += "  Ethernet" + itoa(4*i) + "       0       0       0\n"
	}
	p := nicArtifact[*SwitchCounters](t, nicReadText(t, "cut", text))
	if len(p.CutRows) != maxGarbled || p.Omitted != 3 {
		t.Errorf("%d cut rows, %d omitted; want %d and 3", len(p.CutRows), p.Omitted, maxGarbled)
	}
}

// A system port key ("host|asic|port") begins a cut row only in a VOQ
// chassis' queue counters: in the PFC and WRED tables, and beside a TxQ
// queue, such a line is no row (SYNTHETIC, in SONiC's table formats).
func TestSwitchCutRowsSystemPortKeys(t *testing.T) {
	for _, c := range []struct {
		name, header, whole, short string
		cut                        bool
	}{
		{"voq", "Port    Voq    Counter/pkts    Counter/bytes    Drop/pkts    Drop/bytes", "Ethernet0   VOQ0   1   2   3   4", "lc1|asic0|Ethernet0   VOQ3   12", true},
		{"txq", "Port    TxQ    Counter/pkts    Counter/bytes    Drop/pkts    Drop/bytes", "Ethernet0   UC0   1   2   3   4", "lc1|asic0|Ethernet0   UC3   12", false},
		{"wred", "Port    TxQ    WredDrp/pkts    WredDrp/bytes    EcnMarked/pkts    EcnMarked/bytes", "Ethernet0   UC0   1   2   3   4", "lc1|asic0|Ethernet0   UC3   12", false},
		{"pfc", "Port Rx    PFC0    PFC1    PFC2    PFC3    PFC4    PFC5    PFC6    PFC7", "Ethernet0   0   0   0   0   0   0   0   0", "lc1|asic0|Ethernet0   0   0   0", false},
	} {
		text := c.header + "\n---------  -----  ------\n" + c.whole + "\n" + c.short + "\n"
		s := nicArtifact[*SwitchCounters](t, nicReadText(t, c.name, text))
		if got := len(s.CutRows) == 1 && s.CutRows[0].Line == 4; got != c.cut || len(s.CutRows) > 1 {
			t.Errorf("%s: cut rows %+v, want a cut row: %v", c.name, s.CutRows, c.cut)
		}
	}
}
