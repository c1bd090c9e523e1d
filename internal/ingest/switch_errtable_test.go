package ingest

import "testing"

// NX-OS `show interface counters errors` (genieparser's golden output):
// the port's row in each of the five sections is one PortCount: FCS-Err
// 0, Rcv-Err 0, Xmit-Err 230, InDiscards 0, Stomped-CRC 13450.
func TestSwitchNXOSCountersErrors(t *testing.T) {
	s := switchCorpus(t, "switch/nxos-show-interface-counters-errors-stomped-crc-13450-genieparser.txt")
	if len(s.Ports) != 1 {
		t.Fatalf("ports %+v", s.Ports)
	}
	p := s.Ports[0]
	if p.Port != "Eth1/1" || !p.ErrTable || p.CRC != 0 || p.RxErr != 0 || p.TxErr != 230 || p.RxDrop != 0 || p.TxDrop != 0 || p.RxOK != -1 {
		t.Errorf("Eth1/1 %+v", p)
	}
	if p.Stomped != 13450 || p.StompedEvidence.Line != 27 {
		t.Errorf("stomped %d at %+v", p.Stomped, p.StompedEvidence)
	}
	if s.Lines() != 15 || len(s.CutRows) != 0 {
		t.Errorf("%d lines, cut %+v", s.Lines(), s.CutRows)
	}
}

// IOS's table and NX-OS's "--" (SYNTHETIC rows in the layout both
// print): Gi1/0/48's FCS-Err is its CRC; mgmt0's "--" is no counter; a
// row cut short is reported at its end.
func TestSwitchCountersErrorsRows(t *testing.T) {
	p := NewSwitchParser("err.txt")
	for i, l := range []string{
		"Port        Align-Err    FCS-Err   Xmit-Err    Rcv-Err   UnderSize",
		"Gi1/0/48            0       8492          0       8492           0",
		"mgmt0               0          0         --         --          --",
		"Eth1/7              0         12",
	} {
		p.Feed(Line{Num: i + 1, Text: l})
	}
	s := p.Result().(*SwitchCounters)
	if len(s.Ports) != 2 || s.Ports[0].CRC != 8492 || s.Ports[0].ErrEvidence.Line != 2 || s.Ports[1].RxErr != -1 || s.Ports[1].TxErr != -1 {
		t.Errorf("ports %+v", s.Ports)
	}
	if len(s.CutRows) != 1 || s.CutRows[0].Line != 4 || s.CutRows[0].Col != 33 {
		t.Errorf("cut %+v", s.CutRows)
	}
}

// EOS's `show interfaces counters errors` (SYNTHETIC rows under the
// header EOS prints): FCS is the CRC count, Rx the errors received.
func TestSwitchEOSCountersErrors(t *testing.T) {
	p := NewSwitchParser("err.txt")
	for i, l := range []string{
		"Port        FCS    Align   Symbol       Rx     Runts   Giants       Tx",
		"Et1           0        0        0        0         0        0        0",
		"Et12         17        0        3       20         0        0        0",
	} {
		p.Feed(Line{Num: i + 1, Text: l})
	}
	s := p.Result().(*SwitchCounters)
	if len(s.Ports) != 2 || s.Ports[1].CRC != 17 || s.Ports[1].RxErr != 20 || s.Ports[1].RxErrCol != "Rx" || s.Ports[1].ErrEvidence.Line != 3 {
		t.Errorf("ports %+v", s.Ports)
	}
}

// NX-OS wraps a row wider than the terminal, its last count on a line of
// its own (SYNTHETIC rows in the layout `show interface Ethernet1/37
// counters errors` prints on an 80-column terminal): the two lines are
// one row, not a row cut short and a stray line.
func TestSwitchCountersErrorsWrapped(t *testing.T) {
	p := NewSwitchParser("err.txt")
	for i, l := range []string{
		"-------------------------------------------------------------------------------",
		"Port          Align-Err    FCS-Err   Xmit-Err    Rcv-Err  UnderSize OutDiscards",
		"-------------------------------------------------------------------------------",
		"Eth1/37                 0          6          0          6          0",
		"17",
		"",
		"-------------------------------------------------------------------------------",
		"Port           Single-Col  Multi-Col   Late-Col  Exces-Col  Carri-Sen       Runts",
		"-------------------------------------------------------------------------------",
		"Eth1/37                 0          0          0          0          0",
		"0",
	} {
		p.Feed(Line{Num: i + 1, Text: l})
	}
	s := p.Result().(*SwitchCounters)
	if len(s.CutRows) != 0 {
		t.Errorf("cut %+v", s.CutRows)
	}
	if len(s.Ports) != 1 || s.Ports[0].CRC != 6 || s.Ports[0].RxErr != 6 || s.Ports[0].TxDrop != 17 || s.Ports[0].ErrEvidence.Line != 4 || s.Ports[0].Evidence.Line != 4 {
		t.Errorf("ports %+v", s.Ports)
	}
}

// Rows that do not hold their counts (SYNTHETIC, NX-OS's layout): two
// short rows are two cut rows, not one row wrapped; a garbled count on a
// wrapped row's second line is reported at the end of its first; a count
// over 2^62 is refused where it stands.
func TestSwitchCountersErrorsBadRows(t *testing.T) {
	lines := []string{
		"Port          Align-Err    FCS-Err   Xmit-Err    Rcv-Err  UnderSize OutDiscards",
		"Eth1/1                  0          6          0",
		"Eth1/2                  0          6",
		"Eth1/37                 0          6          0          6          0",
		"1z",
		"Eth1/38                 0 9223372036854775807          0          6          0          0",
	}
	p := NewSwitchParser("err.txt")
	for i, l := range lines {
		p.Feed(Line{Num: i + 1, Text: l})
	}
	s := p.Result().(*SwitchCounters)
	want := []struct{ line, col int }{{2, len(lines[1]) + 1}, {3, len(lines[2]) + 1}, {4, len(lines[3]) + 1}, {6, 27}}
	if len(s.CutRows) != len(want) {
		t.Fatalf("cut %+v, want %v", s.CutRows, want)
	}
	for i, w := range want {
		if c := s.CutRows[i]; c.Line != w.line || c.Col != w.col {
			t.Errorf("cut %d at %d:%d, want %d:%d", i, c.Line, c.Col, w.line, w.col)
		}
	}
	if len(s.Ports) != 0 {
		t.Errorf("ports %+v", s.Ports)
	}
}
