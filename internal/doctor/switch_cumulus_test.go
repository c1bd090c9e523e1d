package doctor

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// NVIDIA Cumulus Linux, read by package nvue's reader (the one lint
// uses): the user guide's `nv show qos roce` runs PFC on switch priority 3
// and marks traffic class 3 from 150000 to 1500000 bytes; beside the
// hosts' mlnx_qos (PFC on 5 in spiderpool's script) that is a mismatch, as
// SONiC's `show pfc priority` and Onyx's `show roce` are. The guide's
// `nv show interface swp1 counters qos` counts no pause: no PFC finding.
func TestCumulusShowRoCE(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/switch/cumulus-nv-show-qos-roce-single-ipool.txt", "corpus/ethtool/mlnx-qos-pfc5-ecn-tclass160-rdma-qos-script-spiderpool.txt")
	nicMustFind(t, fs, "switch.pfc.mismatch", Error, "PFC on priority 3 on the switch but 5")
	nicMustFind(t, fs, "switch.ecn.thresholds", Info, "ECN marks from 149996B to 1499464B")
	counters := diagnoseFiles(t, Options{}, "corpus/switch/cumulus-nv-show-counters-qos-swp1.txt")
	for _, f := range counters {
		if f.Severity > Info {
			t.Errorf("zero pause counters gave %s: %s", f.ID, f.Title)
		}
	}
}

// TestCumulusShowRoCEWords: thresholds read from `nv show qos roce` are
// named as NVUE prints them. Synthetic: the user guide's output with
// max-threshold lowered to 146.48 KB and min-threshold to 14.65 KB, below
// one BDP at 100G.
func TestCumulusShowRoCEWords(t *testing.T) {
	data, err := os.ReadFile(nicTestdata("corpus/switch/cumulus-nv-show-qos-roce-single-ipool.txt"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(strings.Replace(string(data), "max-threshold     1.43 MB", "max-threshold     146.48 KB", 1), "min-threshold     146.48 KB", "min-threshold     14.65 KB", 1)
	p := filepath.Join(t.TempDir(), "nv-show-qos-roce-low-synthetic.txt")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	f := nicMustFind(t, Diagnose([]string{p}, nil, Options{}).Findings, "switch.ecn.thresholds", Warn, "min-threshold 15002B and max-threshold 149996B are below one BDP", "(probability 100%)")
	if !strings.Contains(f.Fix, "Raise max-threshold") || strings.Contains(f.Mechanism, "ecnconfig") {
		t.Errorf("fix %q, why %q: want NVUE's names", f.Fix, f.Mechanism)
	}
}

// An `nv show qos roce` table that NVUE's reader refuses is said to be
// unread, at the input's own line and column, not silently dropped; the
// table as NVUE prints it gives no such finding.
func TestCumulusShowRoCEGarbled(t *testing.T) {
	data, err := os.ReadFile(nicTestdata("corpus/switch/cumulus-nv-show-qos-roce-single-ipool.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range Diagnose([]string{nicTestdata("corpus/switch/cumulus-nv-show-qos-roce-single-ipool.txt")}, nil, Options{}).Findings {
		if f.ID == "input.garbled" {
			t.Errorf("the guide's own table is taken as garbled: %s", f.Title)
		}
	}
	text := strings.Replace(string(data), "min-threshold     146.48 KB", "min-threshold     146.48 KiBs", 1)
	p := filepath.Join(t.TempDir(), "nv-show-qos-roce-garbled-synthetic.txt")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	f := nicMustFind(t, Diagnose([]string{p}, nil, Options{}).Findings, "input.garbled", Warn, "nv-show-qos-roce-garbled-synthetic.txt:15:21: expected `nv show qos roce` as NVUE prints it: min-threshold \"146.48 KiBs\": expected a size")
	if len(f.Evidence) != 1 || f.Evidence[0].Line != 15 {
		t.Errorf("evidence %v: want the min-threshold line, 15", f.Evidence)
	}
}

// `nv show interface <swp> counters qos port-stats` (the reference's
// example, vendor documentation) is read, not called an unknown format;
// pause it counts is the port's pause counter, judged as such, and beside
// the per-priority PFC table of `... counters qos` it is not counted
// again. SYNTHETIC counts in the reference's format.
func TestCumulusPortStatsPause(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/switch/cumulus-nv-show-counters-qos-port-stats-swp1-nvue-reference-doc.txt")
	nicMustNot(t, fs, "input.unrecognized")
	if len(fs) != 0 {
		t.Errorf("zero counts gave:\n%s", nicTitles(fs))
	}
	stats := []string{
		"cumulus@leaf07:mgmt:~$ nv show interface swp9 counters qos port-stats",
		"Counter             Receive  Transmit",
		"------------------  -------  --------",
		"ECN Marked Packets  n/a      77120",
		"MC Buffer Discards  n/a      0",
		"Pause Frames        0        40211",
	}
	nicMustFind(t, synthFindings(t, Options{}, stats...), "switch.pfc.tx_pause", Warn, "leaf07 swp9: sent 40211 pause frames (the interface's pause counter", "(received 0)")
	perPrio := append([]string{
		"cumulus@leaf07:mgmt:~$ nv show interface swp9 counters qos",
		"PFC Statistics",
		"=================",
		"    switch-priority  rx-pause-frames  rx-pause-duration  tx-pause-frames  tx-pause-duration",
		"    ---------------  ---------------  -----------------  ---------------  -----------------",
		"    3                0                0                  40211            900",
		"",
		"Qos Port Statistics",
		"======================",
	}, stats[1:]...)
	got := synthFindings(t, Options{}, perPrio...)
	nicMustFind(t, got, "switch.pfc.tx_pause", Warn, "leaf07 swp9: sent 40211 PFC pause frames on priority 3")
	for _, f := range got {
		if f.ID == "switch.pfc.tx_pause" && strings.Contains(f.Title, "interface's pause counter") {
			t.Errorf("the port's pause counter counted again beside its priorities: %s", f.Title)
		}
	}
	// Priorities that sent none leave the port's pause to 802.3x: told.
	perPrio[5] = "    3                0                0                  0                0"
	f := nicMustFind(t, synthFindings(t, Options{}, perPrio...), "switch.pfc.tx_pause", Warn, "leaf07 swp9: sent 40211 pause frames (the interface's pause counter")
	if !strings.Contains(f.Mechanism, "sent 0 frames in all: the other 40211 are 802.3x pause") {
		t.Errorf("link pause beside zero priorities: %s", f.Mechanism)
	}
}

// Ingress buffer discards of `nv show interface <swp> counters qos
// ingress-buffer-stats` on RoCE's priority group (NVUE's default lossless
// class 3) are drops on a lossless PG, told with NVUE's commands; the
// reference's example (vendor documentation, all 0) gives none, and the
// file is read, not an unknown format; a PG no lossless class is known to
// be is called neither lossy nor lossless. SYNTHETIC counts in its format.
func TestCumulusIngressBufferDrops(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/switch/cumulus-nv-show-counters-qos-ingress-buffer-stats-swp1-nvue-reference-doc.txt")
	nicMustNot(t, fs, "input.unrecognized")
	nicMustNot(t, fs, "switch.queue.drops")
	got := synthFindings(t, Options{},
		"cumulus@leaf07:mgmt:~$ nv show interface swp9 counters qos ingress-buffer-stats",
		"priority-group  rx-frames  rx-buffer-discards  rx-shared-buffer-discards",
		"--------------  ---------  ------------------  -------------------------",
		"0               1201       0 Bytes             0 Bytes",
		"3               88123      4512 Bytes          0 Bytes")
	// The PG's number is not known to be a traffic class: warn.
	f := nicMustFind(t, got, "switch.queue.drops", Warn, "leaf07 swp9 PG3: 4512 packets dropped at ingress on possibly lossless priority group 3")
	if !strings.Contains(f.Fix, "nv show interface <swp> qos buffer") || strings.Contains(f.Fix, "mmuconfig") || !strings.Contains(f.Mechanism, "Cumulus Linux's RoCE default") || !strings.Contains(f.Mechanism, "nv show qos priority-group") {
		t.Errorf("fix %q, why %q: want NVUE's commands and its default", f.Fix, f.Mechanism)
	}
	// A unit-scaled count is told as approximate.
	got = synthFindings(t, Options{},
		"cumulus@leaf07:mgmt:~$ nv show interface swp9 counters qos ingress-buffer-stats",
		"priority-group  rx-frames  rx-buffer-discards  rx-shared-buffer-discards",
		"--------------  ---------  ------------------  -------------------------",
		"0               1201       75.19 KB            0 Bytes")
	// Nor is a PG no lossless class names known to be lossy: NVUE's PG
	// numbers are its own.
	f = nicMustFind(t, got, "switch.queue.drops", Warn, "leaf07 swp9 PG0: about 76995 packets dropped at ingress on priority group 0 (NVUE's own numbering; whether it is lossless the output does not say)")
	if !strings.Contains(f.Mechanism, "byte unit") || strings.Contains(f.Mechanism, "A lossy priority group drops") {
		t.Errorf("approx mechanism %q", f.Mechanism)
	}
}

// Mode lossy-multi-tc (the 5.15 user guide's `nv show qos roce`) marks
// traffic classes 1, 2 and 3 from 163.00 KB to 234.00 KB at 5 %: the
// mode's own profile, shallow beside packet trimming, is said so (info)
// and named by all three classes, not warned of as class 3's thresholds
// below one BDP. Thresholds changed from the profile (synthetic: the
// guide's table with max-threshold 200.00 KB) are judged as any others,
// and the finding says they are not the mode's.
func TestCumulusLossyMultiTCECN(t *testing.T) {
	rel := "corpus/switch/cumulus-nv-show-qos-roce-lossy-multi-tc-cl515-doc.txt"
	fs := diagnoseFiles(t, Options{}, rel)
	f := nicMustFind(t, fs, "switch.ecn.thresholds", Info, "(traffic classes 1,2,3)", "lossy-multi-tc's own ECN profile, 163KiB to 234KiB at probability 5%")
	if len(f.Evidence) != 3 || f.Evidence[0].Line != 12 {
		t.Errorf("evidence %v: want the min-threshold, max-threshold and probability rows (12-14)", f.Evidence)
	}
	for _, f := range fs {
		if f.Severity > Info {
			t.Errorf("the mode's own profile gave %s %s: %s", f.Severity, f.ID, f.Title)
		}
	}
	data, err := os.ReadFile(nicTestdata(rel))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "nv-show-qos-roce-multi-tc-changed-synthetic.txt")
	if err := os.WriteFile(p, []byte(strings.Replace(string(data), "max-threshold     234.00 KB", "max-threshold     200.00 KB", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	// An interface's `qos roce status` prints what the ASIC programmed,
	// up to 6.5 % off the setting on NVIDIA's page (synthetic: 170.00 KB
	// for 163.00 KB): still the mode's profile, not thresholds changed.
	hw := filepath.Join(t.TempDir(), "nv-show-qos-roce-multi-tc-hw-rounded-synthetic.txt")
	if err := os.WriteFile(hw, []byte(strings.Replace(string(data), "min-threshold     163.00 KB", "min-threshold     170.00 KB", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	nicMustFind(t, Diagnose([]string{hw}, nil, Options{}).Findings, "switch.ecn.thresholds", Info, "(traffic classes 1,2,3)", "lossy-multi-tc's own ECN profile, 170KiB to 234KiB")
	f = nicMustFind(t, Diagnose([]string{p}, nil, Options{}).Findings, "switch.ecn.thresholds", Warn, "(traffic classes 1,2,3)", "max-threshold 200KiB")
	if !strings.Contains(f.Mechanism, "not the thresholds mode lossy-multi-tc sets (163KiB to 234KiB") {
		t.Errorf("why %q: want it to name the mode's profile", f.Mechanism)
	}
}

// NVUE's RoCE pool status is read, not refused as unrecognized: `nv show
// interface qos-roce-status-pool-map` (5.15 user guide, every pool empty)
// gives no finding; in the 5.4 guide's `nv show interface swp16 qos roce
// status` the lossy ingress and egress pools show max-usage 16.00 MB and
// 16.01 MB of 15.16 MB with nothing in them (said, not judged full), and
// the roce-reserved ones 52 % (ingress) and no size to judge (inf). Synthetic: the 5.15 table
// with swp2's roce-reserved-ingress peak at 13.50 MB (96 % of 14.02 MB),
// and with a max-usage cell that is no size (refused at the row's size column).
func TestCumulusRoCEPoolStatus(t *testing.T) {
	rel := "corpus/switch/cumulus-nv-show-interface-qos-roce-status-pool-map-cl515-doc.txt"
	if fs := diagnoseFiles(t, Options{}, rel); len(fs) != 0 {
		t.Errorf("an empty pool map gave %d findings, first %s: %s", len(fs), fs[0].ID, fs[0].Title)
	}
	fs := diagnoseFiles(t, Options{}, "corpus/switch/cumulus-nv-show-interface-swp16-qos-roce-status-cl54-doc.txt")
	// The lossy pools' max-usage (16.00 MB, 16.01 MB) is above their size
	// (15.16 MB) with 0 Bytes in them, on a port whose counters page gives
	// 144 bytes at most: no occupancy a pool can have, so info, not a
	// pool run full (warn).
	f := nicMustFind(t, fs, "switch.buffer.pool", Info, "swp16 lossy-default-ingress: max-usage 16MiB is above the pool's size 15.9MB: not judged")
	if !strings.Contains(f.Fix, "nv show interface <swp> qos roce counters") {
		t.Errorf("fix %q: want NVUE's commands", f.Fix)
	}
	nicMustFind(t, fs, "switch.buffer.pool", Info, "swp16 lossy-default-egress: max-usage 16MiB is above the pool's size 15.9MB: not judged")
	for _, f := range nicFind(fs, "switch.buffer.pool") {
		if f.Severity > Info || strings.Contains(f.Title, "roce-reserved") {
			t.Errorf("an idle pool over its size, a roce-reserved pool at 52%% or one of size inf judged full: %s %s", f.Severity, f.Title)
		}
	}
	data, err := os.ReadFile(nicTestdata(rel))
	if err != nil {
		t.Fatal(err)
	}
	row := "1   roce-reserved-ingress    DYNAMIC    3         3                   -              14.02 MB  0              0         "
	lines := strings.Split(string(data), "\n")
	i := slices.Index(lines, row)
	i += 1 + slices.Index(lines[i+1:], row) // swp2's
	lines[i] = strings.Replace(row, "0              0         ", "6.10 MB        13.50 MB  ", 1)
	p := filepath.Join(t.TempDir(), "pool-map-full-synthetic.txt")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	f = nicMustFind(t, Diagnose([]string{p}, nil, Options{}).Findings, "switch.buffer.pool", Warn, "swp2 roce-reserved-ingress: shared buffer peaked at 13824KiB of 14.7MB (96%)")
	if len(f.Evidence) != 1 || f.Evidence[0].Line != i+1 {
		t.Errorf("evidence %v: want line %d", f.Evidence, i+1)
	}
	lines[i] = strings.Replace(row, "0              0         ", "0              13.50 MiB ", 1)
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	nicMustFind(t, Diagnose([]string{p}, nil, Options{}).Findings, "input.garbled", Warn, fmt.Sprintf("pool-map-full-synthetic.txt:%d:%d: expected a RoCE pool status row as NVUE prints it", i+1, strings.Index(row, "14.02")+1))
}
