package ingest

import (
	"strings"
	"testing"
)

// HPE Aruba AOS-CX `show interface`, real outputs (ntc-templates' test
// inputs, testdata/corpus/switch with their sources) in both layouts: the
// Statistic table (CRLF line ends, a LAG block, VLAN blocks without
// counters) and the older Rx and Tx sections. Each port with counters is
// a row with its packets, drops, errors and CRC per direction, its state
// from the header, and its Pause Frames a Link row per direction.
func TestAOSCXShowInterface(t *testing.T) {
	type port struct {
		name, state          string
		rxOK, txOK, txDrop   int64
		rxErr, crc, dropLine int
	}
	for _, c := range []struct {
		file  string
		ports []port
		pause int // pause rows
	}{
		{"aoscx-show-interface-statistic-table-1-1-51-52-lag1-dropped-tx-ntctemplates.txt", []port{
			{"1/1/1", "U", 18874893, 34277015, 0, 0, 0, 43},
			{"1/1/51", "U", 103446835, 401143191, 4, 0, 0, 85},
			{"1/1/52", "U", 1436539051, 180190047, 13, 0, 0, 127},
			{"lag1", "U", 1539985886, 581333238, 17, 0, 0, 170},
		}, 8},
		{"aoscx-show-interface-rx-tx-sections-1-1-1-dropped-tx-14-ntctemplates.txt", []port{
			{"1/1/1", "U", 2417650, 116722501, 14, 0, 0, 28},
			{"1/1/2", "D", 0, 0, 14, 0, 0, 57},
		}, 0},
		{"aoscx-show-interface-statistic-table-filtered-row-healthy-ntctemplates.txt", []port{
			{"1/1/1", "U", 426532925762, 289433120397, 0, 0, 0, 37},
			{"1/1/10", "X", -2, -2, 0, 0, 0, 0},
		}, 8},
	} {
		s := switchCorpus(t, "switch/"+c.file)
		byName := map[string]PortCount{}
		for _, p := range s.Ports {
			if !p.AOSCX || p.IOS {
				t.Errorf("%s: %s not marked AOS-CX alone: %+v", c.file, p.Port, p)
			}
			byName[p.Port] = p
		}
		for _, w := range c.ports {
			p, ok := byName[w.name]
			if !ok {
				t.Errorf("%s: no port %s in %d rows", c.file, w.name, len(s.Ports))
				continue
			}
			if p.State != w.state || p.TxDrop != w.txDrop || p.RxDrop != 0 || p.RxErr != int64(w.rxErr) || p.CRC != int64(w.crc) ||
				w.rxOK != -2 && (p.RxOK != w.rxOK || p.TxOK != w.txOK) || w.dropLine > 0 && p.TxEvidence.Line != w.dropLine {
				t.Errorf("%s: %s = %+v, want %+v", c.file, w.name, p, w)
			}
		}
		if len(s.PFC) != c.pause {
			t.Errorf("%s: %d pause rows, want %d: %+v", c.file, len(s.PFC), c.pause, s.PFC)
		}
		for _, r := range s.PFC {
			if !r.Link || r.Global || r.Prio != AllPrios || r.Frames != 0 {
				t.Errorf("%s: pause row %+v", c.file, r)
			}
		}
		for _, p := range s.Ports {
			if strings.HasPrefix(p.Port, "vlan") {
				t.Errorf("%s: a VLAN block without counters read as %+v", c.file, p)
			}
		}
	}
}

// A table row the rules read that does not go on as RX, TX and Total
// counts is reported at its line and column, and the line at the margin
// after a block (a prompt) ends it: the item lines under it are another
// output's. SYNTHETIC lines in the format of the real output.
func TestAOSCXShowInterfaceGarbled(t *testing.T) {
	s := feedSwitch("cx.txt",
		"Interface 1/1/3 is up",
		" Statistic                          RX                   TX                Total",
		" ---------------- -------------------- -------------------- --------------------",
		" Packets                          100                  200                  300",
		" Dropped                            0                   7x                    7",
		" Errors                             0",
		"",
		" Rx",
		"            5 errors                           9 dropped",
		"sw1# show interface 1/1/4",
		" Rx",
		"            3 errors                           2 dropped",
	)
	if s == nil || len(s.CutRows) != 2 {
		t.Fatalf("cut rows %+v", s)
	}
	if g := s.CutRows[0]; g.Line != 5 || g.Col != 9 || !strings.Contains(g.Expected, "Dropped row: RX, TX and Total") {
		t.Errorf("cut row %+v", g)
	}
	if g := s.CutRows[1]; g.Line != 6 || g.Col != 8 {
		t.Errorf("cut row %+v", g)
	}
	if len(s.Ports) != 1 || s.Ports[0].RxErr != 5 || s.Ports[0].RxDrop != 9 || s.Ports[0].TxDrop != -1 || s.Ports[0].RxOK != 100 {
		t.Errorf("ports %+v", s.Ports)
	}
}

// The Rx and Tx sections as AOS-CX 10.03's manual prints them (RX, TX;
// "input packets", "input error"). SYNTHETIC lines in that layout.
func TestAOSCXShowInterface1003Layout(t *testing.T) {
	s := feedSwitch("cx.txt",
		"Interface 1/1/2 is down (Administratively down)",
		" Admin state is down",
		" RX",
		"        5000 input packets  640000 bytes",
		"           3 input error         2 dropped       1 CRC/FCS",
		" TX",
		"        7000 output packets  896000 bytes",
		"           0 input error         4 dropped       0 collision",
	)
	if s == nil || len(s.Ports) != 1 {
		t.Fatalf("%+v", s)
	}
	if p := s.Ports[0]; p.State != "X" || p.RxOK != 5000 || p.TxOK != 7000 || p.RxErr != 3 || p.CRC != 1 || p.RxDrop != 2 || p.TxDrop != 4 || p.TxErr != 0 || p.ErrEvidence.Line != 5 || p.TxEvidence.Line != 8 {
		t.Errorf("%+v", p)
	}
}
