package doctor

import (
	"strconv"
	"strings"
	"testing"
)

// wredSumTable is a summary table of `show queue wredcounters --summary`
// with WRED drops d and ECN marks m on UC3 (SYNTHETIC counts, wredstat's
// header and rule).
func wredSumTable(d, m string) string {
	return "  TxQ    WredDrp/pkts    WredDrp/bytes    EcnMarked/pkts    EcnMarked/bytes\n" +
		"-----  --------------  ---------------  ----------------  -----------------\n" +
		"  UC3" + strings.Repeat(" ", 16-len(d)) + d + "              256" + strings.Repeat(" ", 18-len(m)) + m + "                189\n\n"
}

// SYNTHETIC, in the shape wredstat prints on a multi-ASIC switch (one
// untitled summary per ASIC, run_on_multi_asic): the first ASIC's WRED
// drops are kept, not replaced by the next table as a later snapshot;
// the same command run again after a prompt is a later snapshot.
func TestSwitchWREDSummaryMultiASIC(t *testing.T) {
	cmd := "admin@sonic:~$ show queue wredcounters --summary\n"
	fs := diagnoseText(t, cmd+wredSumTable("55", "7")+wredSumTable("0", "0")).Findings
	f := nicMustFind(t, fs, "switch.queue.drops", Error, "sonic all ports (ASIC table 1) UC3: WRED dropped 55 packets on lossless queue 3")
	if !strings.Contains(f.Mechanism, "table 1 of the 2 the command printed") {
		t.Errorf("mechanism %q", f.Mechanism)
	}
	fs = diagnoseText(t, cmd+wredSumTable("55", "7")+cmd+wredSumTable("60", "7")).Findings
	nicMustFind(t, fs, "switch.queue.drops", Error, "sonic all ports UC3: WRED dropped 60 packets on lossless queue 3")
	for _, x := range fs {
		if strings.Contains(x.Title, "55") || strings.Contains(x.Title, "table") {
			t.Errorf("a before/after paste read as two ASICs: %s", x.Title)
		}
	}
	// -j: one JSON document per ASIC.
	doc := func(d int) string {
		return "{\n  \"UC3\": {\n    \"ecnbytes\": 0,\n    \"ecnpacket\": 0,\n    \"wredDrpbytes\": 0,\n    \"wredDrppacket\": " + strconv.Itoa(d) + "\n  }\n}\n"
	}
	fs = diagnoseText(t, "admin@sonic:~$ show queue wredcounters --summary --json\n"+doc(55)+doc(0)).Findings
	nicMustFind(t, fs, "switch.queue.drops", Error, "sonic all ports (ASIC table 1) UC3: WRED dropped 55 packets on lossless queue 3")
}

// SYNTHETIC: `show switch counters` run twice (before and after) is two
// snapshots of one switch's counters: the later is judged, not both.
func TestSwitchTrimSwitchTotalLaterSnapshot(t *testing.T) {
	cmd := "admin@sonic:~$ show switch counters\n  TrimSent/pkts    TrimDrop/pkts\n---------------  ---------------\n"
	fs := diagnoseText(t, cmd+"             12               0\n"+cmd+"             40               2\n").Findings
	nicMustFind(t, fs, "switch.queue.trimmed", Warn, "sonic all ports: 42 packets trimmed (40 sent on, 2 dropped after trimming)")
	for _, x := range fs {
		if strings.Contains(x.Title, "12 packets trimmed") {
			t.Errorf("the earlier snapshot judged too: %s", x.Title)
		}
	}
}
