package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `show queue wredcounters --voq`, as text and as JSON, is judged as the
// per-port table is: WRED drops on a lossless VOQ are an error.
func TestSwitchWREDVOQJudged(t *testing.T) {
	for _, f := range []string{"sonic-queue-wredcounters-voq-system-ports-sonic-utilities.txt", "sonic-queue-wredcounters-voq-port-json-sonic-utilities.txt"} {
		fs := diagnose(t, Options{}, nicTestdata("corpus/switch/"+f)).Findings
		nicMustFind(t, fs, "switch.queue.drops", Error, "testsw|Ethernet0 VOQ3: WRED dropped 11 packets on lossless queue 3")
		nicMustFind(t, fs, "switch.ecn.marks", Info, "testsw|Ethernet0 VOQ6: 94 packets marked CE")
	}
}

// `show interfaces counters trim` as a table is judged as its -j is.
func TestSwitchTrimPortTableJudged(t *testing.T) {
	for _, f := range []string{"sonic-show-int-counters-trim-table-sonic-utilities.txt", "sonic-show-int-counters-trim-json-sonic-utilities.txt"} {
		fs := diagnose(t, Options{}, nicTestdata("corpus/switch/"+f)).Findings
		nicMustFind(t, fs, "switch.queue.trimmed", Warn, "sonic Ethernet4: 20000 packets trimmed (10000 sent on, 10000 dropped after trimming)")
	}
}

// A PG drop table or queue watermarks whose every count is N/A (counters
// not polled) are named with the counterpoll command and read as nothing,
// not said to be in no known format or passed with no findings.
func TestSwitchPGAllNANamed(t *testing.T) {
	for rel, want := range map[string][2]string{
		"sonic-pg-drop-masic-asic1-all-na-sonic-utilities.txt":          {"`show priority-group drop counters` with every count N/A", "counterpoll pg-drop enable"},
		"sonic-queue-persistent-watermark-all-json-sonic-utilities.txt": {"`show queue watermark` (or `persistent-watermark`) with every peak N/A", "counterpoll watermark enable"},
		"sonic-queue-watermark-multicast-all-na-collapsed-sonic482.txt": {"`show queue watermark` (or `persistent-watermark`) with every peak N/A", "counterpoll watermark enable"},
		"sonic-queue-wredcounters-all-na-sai14-dnx-sonicmgmt22434.txt":  {"`show queue wredcounters` with every count N/A", "counterpoll wredqueue enable"},
	} {
		rep := Diagnose([]string{nicTestdata("corpus/switch/" + rel)}, nil, Options{})
		f := nicMustFind(t, rep.Findings, "input.unrecognized", Info, want[0], "switch output diagnose does not judge, not read")
		if !strings.Contains(f.Fix, want[1]) || rep.Unusable() == "" {
			t.Errorf("%s: fix %q, unusable %q", rel, f.Fix, rep.Unusable())
		}
	}
}

// A watermark command that printed "Object map is empty!" (real, run
// outside a multi-ASIC line card's ASIC namespaces) is named with the
// per-namespace command, beside the table read from the same paste; it
// was passed over with no finding.
func TestSwitchWatermarkObjectMapEmptyNamed(t *testing.T) {
	rep := Diagnose([]string{nicTestdata("corpus/switch/sonic-pg-persistent-watermark-shared-netns-then-object-map-empty-buildimage15148.txt")}, nil, Options{})
	f := nicMustFind(t, rep.Findings, "input.unrecognized", Info, "a SONiC watermark command", "`Object map is empty!`", "not judged (the rest of the file is read)")
	if !strings.Contains(f.Fix, "-n asic0") || rep.Unusable() != "" {
		t.Errorf("fix %q, unusable %q", f.Fix, rep.Unusable())
	}
}

// An all-N/A table is named whatever else the file holds (a PG drop table
// before `show pfc counters`, where the note was lost), and an all-N/A
// `show queue counters` or trim table is named and judged as nothing
// (before: exit 0 with no finding, or "no format recognised"). SYNTHETIC
// lines in the format of the real tables.
func TestSwitchNotPolledNamedInMixedFiles(t *testing.T) {
	pgDrop := "Ingress PG dropped packets:\n     Port    PG0    PG1    PG2    PG3\n---------  -----  -----  -----  -----\nEthernet0    N/A    N/A    N/A    N/A\n\n"
	pfc := "  Port Rx    PFC0    PFC1    PFC2    PFC3    PFC4    PFC5    PFC6    PFC7\n---------  ------  ------  ------  ------  ------  ------  ------  ------\nEthernet0       0       0       0      12       0       0       0       0\n"
	queue := "     Port    TxQ    Counter/pkts    Counter/bytes    Drop/pkts    Drop/bytes\n---------  -----  --------------  ---------------  -----------  ------------\nEthernet0    UC0             N/A              N/A          N/A           N/A\nEthernet0    UC3             N/A              N/A          N/A           N/A\n"
	trim := "     Port    TxQ    Trim/pkts    TrimSent/pkts    TrimDrop/pkts\n---------  -----  -----------  ---------------  ---------------\nEthernet0    UC2          N/A              N/A              N/A\n"
	wred := "     Port    TxQ    WredDrp/pkts    WredDrp/bytes    EcnMarked/pkts    EcnMarked/bytes\n---------  -----  --------------  ---------------  ----------------  -----------------\nEthernet0    UC0             N/A              N/A               N/A                N/A\n\nEgress shared pool occupancy per unicast queue:\n     Port    UC0    UC1\n---------  -----  -----\nEthernet0    N/A    N/A\n"
	for _, c := range []struct {
		name, text string
		want       []string
		usable     bool
	}{
		{"pgdrop+pfc", pgDrop + pfc, []string{"`show priority-group drop counters` with every count N/A", "not judged (the rest of the file is read)"}, true},
		{"queue", queue, []string{"`show queue counters` with every count N/A", "not read"}, false},
		{"trim", trim, []string{"trim counters", "with every count N/A", "not read"}, false},
		{"wred+qwm", wred, []string{"`show queue wredcounters`", "`show queue watermark`"}, false},
		{"pgdrop-alias", "Ingress PG dropped packets:\n     Port    PG0    PG1\n---------  -----  -----\nfortyGigE0/0  N/A  N/A\n", []string{"is SONiC `show priority-group drop counters` with every count N/A", "not read"}, false},
		{"pgdrop-nodash+pfc", "Ingress PG dropped packets:\n     Port    PG0    PG1    PG2    PG3\nEthernet0    N/A    N/A    N/A    N/A\n\n" + pfc, []string{"`show priority-group drop counters` with every count N/A", "not judged (the rest of the file is read)"}, true},
		{"pg-untitled-nodash", "     Port    PG0    PG1    PG2\nEthernet0    N/A    N/A    N/A\nEthernet4    N/A    N/A    N/A\n", []string{"is SONiC `show priority-group watermark` (or `persistent-watermark`) with every peak N/A", "not read"}, false},
		{"pgwm-json", "admin@sonic:~$ show priority-group watermark shared -j\n[\n    {\n        \"Port\": \"Ethernet0\",\n        \"PG0\": \"N/A\",\n        \"PG1\": \"N/A\"\n    }\n]\n", []string{"is SONiC `show priority-group watermark` (or `persistent-watermark`) with every peak N/A", "not read"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), c.name+".txt")
			if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
				t.Fatal(err)
			}
			rep := Diagnose([]string{path}, nil, Options{})
			nicMustFind(t, rep.Findings, "input.unrecognized", Info, c.want...)
			if (rep.Unusable() == "") != c.usable {
				t.Errorf("unusable %q", rep.Unusable())
			}
		})
	}
}

// An all-N/A table inside a tar archive is named as one on disk is (it
// was read as zero counts, or passed with no finding). SYNTHETIC lines.
func TestSwitchNotPolledInArchive(t *testing.T) {
	body := []byte("     Port    TxQ    Counter/pkts    Counter/bytes    Drop/pkts    Drop/bytes\n---------  -----  --------------  ---------------  -----------  ------------\nEthernet0    UC3             N/A              N/A          N/A           N/A\n")
	path := tarFile(t, "switch.tar", "queue.txt", body)
	rep := Diagnose([]string{path}, nil, Options{})
	nicMustFind(t, rep.Findings, "input.unrecognized", Info, "switch.tar:queue.txt is SONiC `show queue counters` with every count N/A")
}

// SYNTHETIC, in the format of `show interfaces counters` on a chassis
// supervisor (testdata/corpus/switch/sonic-int-counters-chassis-*): a line
// card's port that drops is named as printed.
func TestSwitchPortsChassisSupervisorJudged(t *testing.T) {
	fs := synthFindings(t, Options{},
		"admin@sonic-sup:~$ show interfaces counters",
		"       IFACE    STATE    RX_OK     RX_BPS    RX_UTIL    RX_ERR    RX_DRP    RX_OVR    TX_OK     TX_BPS    TX_UTIL    TX_ERR    TX_DRP    TX_OVR",
		"------------  -------  -------  ---------  ---------  --------  --------  --------  -------  ---------  ---------  --------  --------  --------",
		" Ethernet3/5        U    90000  10.00 B/s      0.00%         0       900         0    90000  10.00 B/s      0.00%         0         0         0")
	nicMustFind(t, fs, "switch.queue.drops", Warn, "Ethernet3/5: 900 packets dropped at ingress")
}

// `show queue wredcounters --summary` (sonic-utilities#4181), as a table
// and as JSON, each queue summed over every port: was no input the
// doctor read (exit 2). WRED drops on lossless UC3 and UC4 are errors
// and the marks are ECN at work, as in the per-port table, named as the
// sum over all ports; the JSON's counts are the table's.
func TestSwitchWREDSummaryJudged(t *testing.T) {
	for _, f := range []string{"sonic-queue-wredcounters-summary-all-ports-uc3-wred-123-sonicutilities4181.txt", "sonic-queue-wredcounters-summary-json-uc3-wred-123-sonicutilities4181.txt"} {
		rep := diagnose(t, Options{}, nicTestdata("corpus/switch/"+f))
		if rep.Unusable() != "" {
			t.Fatalf("%s: unusable: %s", f, rep.Unusable())
		}
		fs := rep.Findings
		g := nicMustFind(t, fs, "switch.queue.drops", Error, "sonic all ports UC3: WRED dropped 123 packets on lossless queue 3")
		if !strings.Contains(g.Mechanism, "sums each queue over every port") || !strings.Contains(g.Mechanism, "pfc_enable") || !strings.Contains(g.Mechanism, "reached 1,000 as 0") {
			t.Errorf("%s: mechanism does not say the count is a sum over ports: %s", f, g.Mechanism)
		}
		nicMustFind(t, fs, "switch.queue.drops", Error, "sonic all ports UC4: WRED dropped 73 packets on lossless queue 4")
		nicMustFind(t, fs, "switch.ecn.marks", Info, "sonic all ports UC9: 270 packets marked CE")
		nicMustFind(t, fs, "switch.ecn.marks", Info, "sonic all ports MC18: 89 packets marked CE")
		for _, x := range fs {
			if x.ID == "switch.queue.drops" && !strings.Contains(x.Title, "UC3") && !strings.Contains(x.Title, "UC4") {
				t.Errorf("%s: drops judged on a lossy or multicast queue: %s", f, x.Title)
			}
		}
	}
}

// `show switch counters` (switchstat), the packets each ASIC trimmed and
// dropped after trimming: was no input the doctor read (exit 2). Each
// ASIC's total is judged as a port's trim counters are, its trimmed
// packets the sum of those sent on and those dropped.
func TestSwitchTrimSwitchTotalJudged(t *testing.T) {
	rep := diagnose(t, Options{}, nicTestdata("corpus/switch/sonic-show-switch-counters-masic-trimdrop-1000-sonic-utilities.txt"))
	for _, ns := range []string{"asic0", "asic1", "asic2"} {
		f := nicMustFind(t, rep.Findings, "switch.queue.trimmed", Warn, "sonic all ports ("+ns+"): 3000 packets trimmed (2000 sent on, 1000 dropped after trimming)")
		if !strings.Contains(f.Fix, "`show queue counters --trim` names the ports and queues") {
			t.Errorf("fix %q", f.Fix)
		}
	}
}

// Synthetic, in switchstat's --detail form: a switch whose trim drop
// counter is N/A but which sent on 2,000 trimmed packets trims; before,
// the sent count alone was never judged (only the total and the drops).
func TestSwitchTrimSentOnlyJudged(t *testing.T) {
	fs := diagnoseText(t, "admin@sonic:~$ show switch counters --detail\nTrimmed Sent Packets........................... 2,000\nTrimmed Dropped Packets........................ N/A\n").Findings
	nicMustFind(t, fs, "switch.queue.trimmed", Warn, "sonic all ports: at least 2000 packets trimmed (2000 sent on, N/A dropped after trimming)")
}
