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
// counts is reported at its line and at the column of its first bad cell
// (a cell no count, a negative one, one past int64, a label of two
// spaces), and the line at the margin after a block (a prompt) ends it:
// the item lines under it are another output's. SYNTHETIC lines in the
// format of the real output.
func TestAOSCXShowInterfaceGarbled(t *testing.T) {
	s := feedSwitch("cx.txt",
		"Interface 1/1/3 is up",
		" Statistic                          RX                   TX                Total",
		" ---------------- -------------------- -------------------- --------------------",
		" Packets                          100                  200                  300",
		" Dropped                            0                   7x                    7",
		" Errors                             0",
		" Dropped                           7x                    0                    7",
		" Dropped                           -1                    2                    3",
		" Pause Frames     18446744073709551616                    0                    0",
		" Pause  Frames                      1                   2x                    3",
		"",
		" Rx",
		"            5 errors                           9 dropped",
		"sw1# show interface 1/1/4",
		" Rx",
		"            3 errors                           2 dropped",
	)
	want := []struct{ line, col int }{{5, 57}, {6, 38}, {7, 36}, {8, 36}, {9, 19}, {10, 57}}
	if s == nil || len(s.CutRows) != len(want) {
		t.Fatalf("cut rows %+v", s)
	}
	for i, w := range want {
		if g := s.CutRows[i]; g.Line != w.line || g.Col != w.col || !strings.Contains(g.Expected, "row: RX, TX and Total") {
			t.Errorf("cut row %+v, want line %d col %d", g, w.line, w.col)
		}
	}
	if len(s.Ports) != 1 || s.Ports[0].RxErr != 5 || s.Ports[0].RxDrop != 9 || s.Ports[0].TxDrop != -1 || s.Ports[0].RxOK != 100 || len(s.PFC) != 0 {
		t.Errorf("ports %+v pause %+v", s.Ports, s.PFC)
	}
}

// FRR's zebra (`vtysh -c 'show interface'`, pasted from SONiC or Cumulus)
// prints "Interface swp3 is down" at the margin as AOS-CX does: its
// blocks are no AOS-CX's, read by no reader and not named as AOS-CX
// output without counters; nor is a header above a queue table that no
// line proves AOS-CX's. SYNTHETIC, in the format of FRR's output.
func TestAOSCXNotFRR(t *testing.T) {
	frr := []string{
		"Interface swp3 is down",
		"  Link ups:       0    last: (never)",
		"  Link downs:     0    last: (never)",
		"  vrf: default",
		"  index 5 metric 0 mtu 9216 speed 0",
		"  flags: <BROADCAST,MULTICAST>",
		"  Type: Ethernet",
		"  HWaddr: 44:38:39:00:00:03",
		"  Interface Type Other",
		"",
		"Interface swp4 is up, line protocol is up",
		"  index 6 metric 0 mtu 9216 speed 100000",
		"",
	}
	if s := feedSwitch("frr.txt", frr...); s != nil {
		t.Errorf("FRR read as switch counters: %+v", s)
	}
	if what, _ := SwitchUnjudged([]byte(strings.Join(frr, "\n"))); what != "" {
		t.Errorf("FRR named %q", what)
	}
	queues := "Interface 1/1/1 is up\n Q0  1000  10  0\n Q1  2000  20  0\n"
	if what, _ := SwitchUnjudged([]byte(queues)); strings.Contains(what, "no counters") {
		t.Errorf("a queue table named %q", what)
	}
}

// A header "is down (reason)" is down, administratively down disabled;
// Runts and Giants under Errors are read, and a LAG's Aggregated-
// interfaces are its members. SYNTHETIC lines in the format of the real
// output.
func TestAOSCXDownRunsMembers(t *testing.T) {
	table := []string{
		" Statistic                          RX                   TX                Total",
		" ---------------- -------------------- -------------------- --------------------",
		" Packets                          100                  200                  300",
		" Errors                             7                    0                    7",
		"   CRC/FCS                          0                  n/a                    0",
		"   Runts                            2                  n/a                    2",
		"   Giants                           5                  n/a                    5",
		"",
	}
	lines := append([]string{"Interface 1/1/5 is down (Waiting for link)", " Admin state is up"}, table...)
	lines = append(append(lines, "Aggregate lag7 is up", " Admin state is up", " Aggregated-interfaces       : 1/1/5 1/1/6 "), table...)
	s := feedSwitch("cx.txt", lines...)
	if s == nil || len(s.Ports) != 2 {
		t.Fatalf("%+v", s)
	}
	if p := s.Ports[0]; p.State != "D" || p.Runts != 2 || p.Giants != 5 || p.CRC != 0 || p.RxErr != 7 || len(p.Members) != 0 {
		t.Errorf("%+v", p)
	}
	if p := s.Ports[1]; p.Port != "lag7" || strings.Join(p.Members, ",") != "1/1/5,1/1/6" {
		t.Errorf("%+v", p)
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
