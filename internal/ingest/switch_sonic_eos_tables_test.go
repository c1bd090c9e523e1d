package ingest

import (
	"strings"
	"testing"
)

// A sweep of real switch CLI output (testdata/corpus/switch,
// each file with its source): the SONiC tables rocelab did not read, or
// read wrong, before it, read now by their kind.

// `show dropcounters counts` (sonic-utilities' Command Reference, a real
// issue's paste beside `show interfaces counters -i`, and the test mock
// with two debug counters): RX_DROPS and TX_DROPS are the port's drops,
// the configured counters after them and the DEVICE table not read.
func TestSwitchDropCounters(t *testing.T) {
	s := switchCorpus(t, "switch/sonic-show-dropcounters-counts-legit-command-reference.txt")
	if len(s.Ports) != 3 {
		t.Fatalf("%d ports, want 3", len(s.Ports))
	}
	want := []struct {
		port        string
		rxErr, rxDr int64
	}{{"Ethernet0", 10, 100}, {"Ethernet4", 0, 1000}, {"Ethernet8", 100, 10}}
	for i, w := range want {
		p := s.Ports[i]
		if p.Port != w.port || p.RxErr != w.rxErr || p.RxDrop != w.rxDr || p.TxDrop != 0 || !p.DropCounts || p.Evidence.Line != 6+i {
			t.Errorf("port %d = %+v, want %+v at line %d", i, p, w, 6+i)
		}
	}
	s = switchCorpus(t, "switch/sonic-show-dropcounters-counts-sonic-utilities.txt")
	if len(s.Ports) != 3 || s.Ports[2].RxErr != 100 || s.Ports[2].RxDrop != 10 || s.Ports[1].State != "N/A" {
		t.Errorf("mock: %+v", s.Ports)
	}
	// The later table of the same port, dropcounters after portstat, is
	// the one kept.
	s = switchCorpus(t, "switch/sonic-int-counters-and-dropcounters-acl-rx-drops-buildimage7389.txt")
	if len(s.Ports) != 2 {
		t.Fatalf("portstat then dropcounters: %d ports, want 2", len(s.Ports))
	}
	for _, p := range s.Ports {
		if p.Port == "Ethernet4" && (p.RxDrop != 10 || !p.DropCounts || p.Evidence.Line != 12) {
			t.Errorf("Ethernet4 = %+v, want dropcounters' row (line 12)", p)
		}
	}
}

// `show interfaces counters rates`: no drop or error column, each port's
// packets read and nothing more.
func TestSwitchPortRates(t *testing.T) {
	s := switchCorpus(t, "switch/sonic-show-int-counters-rates-nonzero-sonic-utilities.txt")
	if len(s.Ports) != 3 {
		t.Fatalf("%d ports, want 3", len(s.Ports))
	}
	if p := s.Ports[0]; p.Port != "Ethernet0" || p.RxOK != 8 || p.TxOK != 10 || p.RxDrop != -1 || p.TxDrop != -1 || p.RxErr != -1 || p.State != "D" {
		t.Errorf("Ethernet0 = %+v", p)
	}
	if p := s.Ports[2]; p.Port != "Ethernet8" || p.RxOK != 6 || p.TxOK != 60 {
		t.Errorf("Ethernet8 = %+v", p)
	}
}

// `show interfaces counters detailed PORT`: the dotted lines become one
// port, named by the echoed command; N/A counters are left out of the sum.
func TestSwitchDetailedCounters(t *testing.T) {
	s := switchCorpus(t, "switch/sonic-show-int-counters-detailed-wred-101-sonic-utilities.txt")
	if len(s.Ports) != 1 {
		t.Fatalf("%d ports, want 1", len(s.Ports))
	}
	p := s.Ports[0]
	if p.Port != "Ethernet0" || p.RxOK != 4 || p.TxOK != 40 || p.TxDrop != 101 || p.RxErr != 0 || p.RxOver != 0 || p.RxDrop != -1 || !p.Detailed || p.Cleared != "" {
		t.Errorf("detailed = %+v", p)
	}
	if p.Evidence.Line != 45 {
		t.Errorf("evidence at line %d, want 45 (WRED Total Dropped Packets)", p.Evidence.Line)
	}
	s = switchCorpus(t, "switch/sonic-show-int-counters-detailed-ethernet8-na-command-reference.txt")
	if len(s.Ports) != 1 || s.Ports[0].Port != "Ethernet8" || s.Ports[0].RxErr != 0 || s.Ports[0].TxDrop != 0 {
		t.Errorf("Ethernet8 = %+v", s.Ports)
	}
	// SYNTHETIC: errors counted, no command, a line that is not the block's
	// ends it.
	s = readSwitchText(t,
		"Jabbers Received............................... 3",
		"Fragments Received............................. N/A",
		"Undersize Received............................. 4",
		"done")
	if len(s.Ports) != 1 || s.Ports[0].Port != "" || s.Ports[0].RxErr != 7 || s.Ports[0].ErrEvidence.Line != 1 {
		t.Errorf("synthetic = %+v", s.Ports)
	}
	// SYNTHETIC: the script behind the command, portstat, echoed with
	// its own flags in either order names the port; a list or a range of
	// ports (their blocks run on with nothing between) names none.
	for _, c := range []struct{ cmd, port string }{
		{"admin@sonic:~$ portstat -l -i Ethernet12", "Ethernet12"},
		{"admin@sonic:~$ sudo portstat --interface Ethernet12 --detail", "Ethernet12"},
		{"admin@sonic:~$ portstat -l -i Ethernet12,Ethernet16", ""},
		{"admin@sonic:~$ portstat -l -i Ethernet0-8", ""},
		{"admin@sonic:~$ show interfaces counters detailed Ethernet0-8", ""},
		{"admin@sonic:~$ portstat -l -i Ethernet-BP4", "Ethernet-BP4"},
		{"admin@sonic:~$ portstat -i Ethernet12", ""},
	} {
		s = readSwitchText(t, c.cmd, "WRED Total Dropped Packets..................... 7")
		if len(s.Ports) != 1 || s.Ports[0].Port != c.port || s.Ports[0].TxDrop != 7 {
			t.Errorf("%q: ports = %+v, want one, %q", c.cmd, s.Ports, c.port)
		}
	}
	// A dotted line of another tool starts no block.
	res, err := Read("x.txt", strings.NewReader("Loading configuration........ done\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range res.Artifacts {
		if _, ok := a.(*SwitchCounters); ok {
			t.Errorf("a dotted line of another tool read as switch counters")
		}
	}
}

// `show queue counters --voq` on a single-ASIC VOQ line card: system
// ports "host|port".
func TestSwitchVOQTwoPartPorts(t *testing.T) {
	s := switchCorpus(t, "switch/sonic-show-queue-counters-voq-credit-wd-sonic-utilities.txt")
	if len(s.Queues) != 24 {
		t.Fatalf("%d queues, want 24", len(s.Queues))
	}
	if q := s.Queues[3]; q.Port != "testsw|Ethernet0" || q.Type != "VOQ" || q.Queue != 3 || q.Packets != 11 || q.DropPkts != 12 {
		t.Errorf("VOQ3 = %+v", q)
	}
}

// `show queue counters --trim` is its own table, not queue counters with a
// column short (it was reported garbled); its N/A multicast rows are read
// and kept out.
func TestSwitchQueueTrim(t *testing.T) {
	s := switchCorpus(t, "switch/sonic-show-queue-counters-trim-command-reference.txt")
	if len(s.Queues) != 0 || len(s.CutRows) != 0 {
		t.Errorf("trim table read as queue counters: %d queues, %d cut rows", len(s.Queues), len(s.CutRows))
	}
	if len(s.Trims) != 10 {
		t.Fatalf("%d trim rows, want 10", len(s.Trims))
	}
	if q := s.Trims[4]; q.Port != "Ethernet0" || q.Queue != 4 || q.Trimmed != 400 || q.Sent != 200 || q.Dropped != 200 {
		t.Errorf("UC4 = %+v", q)
	}
}

// `show queue counters --all` carries the trim counts after each queue's
// packets and drops, and queuestat -p on an older build its Trim/pkts
// alone: both are read beside the queue counters, queues whose trim
// counts are all N/A kept out and not noted as unpolled; a packets cell
// printed N/A is marked so.
func TestSwitchQueueCountersTrimColumns(t *testing.T) {
	s := switchCorpus(t, "switch/sonic-show-queue-counters-all-trim-uc1-100-sonic-utilities.txt")
	if len(s.Queues) != 30 || len(s.Trims) != 2 || len(s.NotPolled) != 0 {
		t.Fatalf("%d queues, %d trim rows, %d not polled; want 30, 2 (UC0 all 0, UC1), 0", len(s.Queues), len(s.Trims), len(s.NotPolled))
	}
	if q := s.Trims[1]; q.Port != "Ethernet0" || q.Type != "UC" || q.Queue != 1 || q.Trimmed != 100 || q.Sent != 50 || q.Dropped != 50 || q.Evidence.Line != 9 {
		t.Errorf("UC1 trim = %+v", q)
	}
	if q := s.Queues[1]; q.Packets != 60 || q.PacketsNA || q.DropPkts != 39 {
		t.Errorf("UC1 = %+v", q)
	}
	s = switchCorpus(t, "switch/sonic-queuestat-p-trim-pkts-only-uc0-100-sonicmgmt-testplan.txt")
	if len(s.Queues) != 8 || len(s.Trims) != 1 {
		t.Fatalf("%d queues, %d trim rows; want 8, 1", len(s.Queues), len(s.Trims))
	}
	if q := s.Trims[0]; q.Queue != 0 || q.Trimmed != 100 || q.Sent != -1 || q.Dropped != -1 {
		t.Errorf("UC0 trim = %+v", q)
	}
	if q := s.Queues[0]; !q.PacketsNA || q.DropPkts != 100 {
		t.Errorf("UC0 = %+v, want packets N/A, 100 dropped", q)
	}
	if s.Queues[6].PacketsNA || s.Queues[6].Packets != 100 {
		t.Errorf("UC6 = %+v, want 100 sent", s.Queues[6])
	}
}

// `show interfaces counters fec-histogram PORT`: the bins, the port from
// the echoed command.
func TestSwitchFECHistogram(t *testing.T) {
	s := switchCorpus(t, "switch/sonic-show-int-counters-fec-histogram-sonic-utilities.txt")
	if len(s.FECBins) != 16 {
		t.Fatalf("%d bins, want 16", len(s.FECBins))
	}
	if b := s.FECBins[7]; b.Port != "Ethernet0" || b.Bin != 7 || b.Codewords != 300000 || b.Evidence.Line != 14 {
		t.Errorf("BIN7 = %+v", b)
	}
}

// The current title of `show buffer_pool watermark` (since 2021) starts
// the table as the old one did.
func TestSwitchBufferPoolTitle(t *testing.T) {
	s := switchCorpus(t, "switch/sonic-buffer-pool-watermark-old-new-title-utilities1322.txt")
	var lossy int64 = -1
	for _, p := range s.Pools {
		if p.Name == "lossy_pool" {
			lossy = p.Peak
		}
	}
	if lossy != 1568 {
		t.Errorf("lossy_pool watermark %d, want 1568 (the later table, under the new title)", lossy)
	}
}

// Arista EOS `show hardware counter drop`: the summary's totals and every
// chip's counters.
func TestSwitchEOSHardwareDrops(t *testing.T) {
	s := switchCorpus(t, "switch/eos-show-hardware-counter-drop-jericho-p-drops-ntctemplates.txt")
	var totals, rows int
	var sum uint64
	for _, d := range s.HWDrops {
		if d.Chip == "" {
			totals++
			continue
		}
		rows++
		sum += d.Count
		if d.Type != "P" {
			t.Errorf("row %+v", d)
		}
	}
	if totals != 3 || rows != 12 || sum != 1462 {
		t.Errorf("%d totals, %d rows summing to %d; want 3, 12, 1462", totals, rows, sum)
	}
	if d := s.HWDrops[2]; d.Type != "P" || d.Count != 6668 || d.Evidence.Line != 6 {
		t.Errorf("P total = %+v", d)
	}
}

// portstat as it printed in 2017 spelt STATE UP and DOWN; a row whose
// cells shifted under the header (sonic-utilities#751) is reported, not
// read into the wrong columns.
func TestSwitchPortstatStateWordsAndShiftedRows(t *testing.T) {
	s := switchCorpus(t, "switch/sonic-portstat-state-up-down-words-s6000-utilities130.txt")
	if len(s.Ports) != 6 || s.Ports[0].State != "D" || s.Ports[1].State != "U" {
		t.Errorf("states: %+v", s.Ports)
	}
	s = switchCorpus(t, "switch/sonic-portstat-rows-short-of-header-utilities751.txt")
	if len(s.Ports) != 0 || len(s.CutRows) != 5 || s.CutRows[0].Line != 6 || s.CutRows[0].Col != 3 {
		t.Errorf("shifted rows: %d ports, cut rows %+v", len(s.Ports), s.CutRows)
	}
	// The rates portstat -a prints (RX_PPS, Tx_PPS) fit their columns.
	s = switchCorpus(t, "switch/sonic-intfstat-and-portstat-a-pps-columns-buildimage6834.txt")
	if len(s.Ports) != 2 || len(s.CutRows) != 0 || s.Ports[1].Port != "Ethernet1" || s.Ports[1].TxOver != -1 {
		t.Errorf("portstat -a: %+v, cut %+v", s.Ports, s.CutRows)
	}
}

// The JSON of queuestat (-j, --voq) and portstat (its trim subcommand;
// SYNTHETIC for its counters), as json.dumps prints it, one key a line.
func TestSwitchJSONCounters(t *testing.T) {
	s := switchCorpus(t, "switch/sonic-show-queue-counters-voq-json-sonic-utilities.txt")
	if len(s.Queues) != 24 {
		t.Fatalf("%d queues, want 24", len(s.Queues))
	}
	if q := s.Queues[3]; q.Port != "testsw|Ethernet0" || q.Type != "VOQ" || q.Queue != 3 || q.Packets != 11 || q.Bytes != 59 || q.DropPkts != 12 || q.DropBytes != 94 || q.Evidence.Line != 28 {
		t.Errorf("VOQ3 = %+v", q)
	}
	s = switchCorpus(t, "switch/sonic-show-int-counters-trim-json-sonic-utilities.txt")
	if len(s.Trims) != 2 || len(s.Ports) != 0 || s.Trims[1].Port != "Ethernet4" || s.Trims[1].Trimmed != 20000 || s.Trims[1].Dropped != 10000 || s.Trims[1].Type != "" {
		t.Errorf("trim json: trims %+v, ports %+v", s.Trims, s.Ports)
	}
	s = readSwitchText(t,
		"admin@leaf1:~$ show interfaces counters -j",
		"{",
		`  "Ethernet8": {`,
		`    "RX_DRP": "1,234",`,
		`    "RX_OK": "99",`,
		`    "STATE": "U",`,
		`    "TX_DRP": "0",`,
		`    "time": "2025-01-08T18:31:12.675517"`,
		"  },",
		`  "Ethernet9": {`,
		`    "UC3": {`,
		`      "droppacket": "N/A",`,
		`      "totalpacket": "7"`,
		"    }",
		"  }",
		"}")
	if len(s.Ports) != 1 || s.Ports[0].Port != "Ethernet8" || s.Ports[0].RxDrop != 1234 || s.Ports[0].RxOK != 99 || s.Ports[0].State != "U" || s.Ports[0].Evidence.Line != 4 {
		t.Errorf("portstat -j: %+v", s.Ports)
	}
	if len(s.Queues) != 1 || s.Queues[0].DropPkts != -1 || s.Queues[0].Packets != 7 {
		t.Errorf("queue of N/A drops: %+v", s.Queues)
	}
	// A document on one line is not read.
	res, err := Read("x.txt", strings.NewReader(`{"Ethernet0": {"UC3": {"droppacket": "5", "totalpacket": "9"}}}`+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range res.Artifacts {
		if sc, ok := a.(*SwitchCounters); ok && len(sc.Queues) > 0 {
			t.Errorf("one-line JSON read as switch counters: %+v", sc.Queues)
		}
	}
}
