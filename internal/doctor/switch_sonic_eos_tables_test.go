package doctor

import (
	"strings"
	"testing"
)

// A sweep of real switch CLI output (42 pastes) (testdata/corpus/switch,
// each file with its source URL): every paste is read as switch counters
// and judged. Test mocks of sonic-utilities are machine-printed by the
// real CLI over mock counters; the rest are operators' pastes.
func TestSwitchCLITablesJudged(t *testing.T) {
	type want struct {
		id   string
		sev  Severity
		frag []string
	}
	cases := []struct {
		file  string
		finds []want
		nots  []string
	}{
		// Drops and errors by their own columns.
		{"sonic-show-dropcounters-counts-legit-command-reference.txt", []want{
			{"switch.queue.drops", Warn, []string{"Ethernet4: 1000 packets dropped at ingress (RX_DROPS)"}},
			{"switch.link.errors", Warn, []string{"Ethernet8: 100 frames received with errors (RX_ERR)"}}}, nil},
		{"sonic-show-dropcounters-counts-sonic-utilities.txt", []want{
			{"switch.queue.drops", Info, []string{"Ethernet0: 100 packets dropped at ingress (RX_DROPS)"}}}, nil},
		{"sonic-int-counters-and-dropcounters-acl-rx-drops-buildimage7389.txt", []want{
			{"switch.queue.drops", Warn, []string{"Ethernet4: 10 packets dropped at ingress (RX_DROPS)"}}}, []string{"input.garbled"}},
		{"sonic-show-int-counters-detailed-wred-101-sonic-utilities.txt", []want{
			{"switch.queue.drops", Warn, []string{"Ethernet0: 101 packets dropped at egress (WRED Total Dropped Packets"}},
			{"switch.queue.trimmed", Warn, []string{"Ethernet0: 100 packets trimmed (50 sent on, 50 dropped after trimming)"}}}, []string{"switch.link.errors"}},
		{"sonic-show-int-counters-rx-drp-18682-rates-command-reference.txt", []want{
			{"switch.queue.drops", Warn, []string{"Ethernet24: 1613 packets dropped at ingress (RX_DRP; RX_OK 33543533441)"}}}, nil},
		{"sonic-int-counters-grep-u-rx-ovr-na-mellanox-buildimage3718.txt", []want{
			{"switch.queue.drops", Warn, []string{"Ethernet28: 90 packets dropped at ingress"}}}, nil},
		{"sonic-int-counters-rx-drp-always-msn2700-buildimage6962.txt", []want{
			{"switch.queue.drops", Warn, []string{"str-msn2700-01 Ethernet1: 12 packets dropped at ingress (RX_DRP; RX_OK 13)"}}}, nil},
		{"sonic-portstat-state-up-down-words-s6000-utilities130.txt", []want{
			{"switch.queue.drops", Info, []string{"str-s6000-on-2 Ethernet0: 1 packet dropped at ingress (RX_DRP; RX_OK 1652)"}},
			{"switch.queue.drops", Info, []string{"str-s6000-on-2 Ethernet20: 2 packets dropped at ingress"}}}, nil},
		{"sonic-portstat-down-ports-rx-err-trillions-utilities676.txt", []want{
			{"switch.link.errors", Warn, []string{"Ethernet8: 2390883192821 frames received with errors (RX_ERR), 50.2% of the 4764890339127 received"}}}, []string{"switch.queue.drops"}},
		{"sonic-portstat-rows-short-of-header-utilities751.txt", []want{
			{"input.garbled", Warn, []string{"5 lines of switch counters could not be read", ":6:3: expected a `show interfaces counters` row whose cells stand under their columns (RX_UTIL holds \"0\""}}}, []string{"switch.queue.drops"}},
		// Queues.
		{"sonic-show-queue-counters-voq-credit-wd-sonic-utilities.txt", []want{
			{"switch.queue.drops", Error, []string{"testsw|Ethernet4 VOQ3: 82 packets dropped on lossless queue 3"}}}, nil},
		{"sonic-queuestat-masic-per-port-namespace-sonic-utilities.txt", []want{
			{"switch.queue.drops", Error, []string{"Ethernet-BP4 UC4: 4 packets dropped on lossless queue 4"}},
			{"switch.queue.drops", Info, []string{"Ethernet-BP4 UC7: 1 packet dropped on lossy queue 7"}},
			{"switch.queue.drops", Info, []string{"Ethernet-BP0 MC15: 9 packets dropped on multicast queue 15"}}}, nil},
		{"sonic-show-queue-counters-trim-command-reference.txt", []want{
			{"switch.queue.trimmed", Warn, []string{"Ethernet0 UC8: 800 packets trimmed (400 sent on, 400 dropped after trimming)"}}}, []string{"input.garbled", "switch.queue.drops"}},
		{"sonic-show-queue-counters-nonzero-masic-per-port-cached-buildimage20913.txt", []want{
			{"switch.queue.lossy_traffic", Info, []string{"ixre-egl-board72 Ethernet0", "lossless queues 3,4"}}}, []string{"switch.queue.drops"}},
		{"sonic-show-pg-drop-counters-sonic-utilities.txt", []want{
			{"switch.queue.drops", Error, []string{"Ethernet8 PG4: 104 packets dropped at ingress on lossless priority group 4"}}}, nil},
		{"sonic-show-queue-counters-voq-json-sonic-utilities.txt", []want{
			{"switch.queue.drops", Error, []string{"testsw|Ethernet8 VOQ4: 63 packets dropped on lossless queue 4 (of 18 sent)"}}}, nil},
		{"sonic-show-switch-counters-json-trimdrop-1000-sonic-utilities.txt", []want{
			{"switch.queue.trimmed", Warn, []string{"sonic all ports: 3000 packets trimmed (2000 sent on, 1000 dropped after trimming)"}}}, nil},
		{"sonic-show-switch-counters-detail-trimdrop-1000-sonic-utilities.txt", []want{
			{"switch.queue.trimmed", Warn, []string{"sonic all ports: 3000 packets trimmed (2000 sent on, 1000 dropped after trimming)"}}}, []string{"switch.queue.drops"}},
		{"sonic-show-switch-counters-masic-json-sonic-utilities.txt", []want{
			{"switch.queue.trimmed", Warn, []string{"sonic all ports (asic2): 3000 packets trimmed (2000 sent on, 1000 dropped after trimming)"}}}, nil},
		{"sonic-show-switch-counters-masic-detail-sonic-utilities.txt", []want{
			{"switch.queue.trimmed", Warn, []string{"sonic all ports (asic1): 3000 packets trimmed (2000 sent on, 1000 dropped after trimming)"}}}, nil},
		{"sonic-show-switch-counters-masic-json-partial-na-sonic-utilities.txt", []want{
			{"switch.queue.trimmed", Warn, []string{"all ports (asic0): at least 1000 packets trimmed (N/A sent on, 1000 dropped after trimming)"}}}, nil},
		{"sonic-show-queue-counters-all-trim-uc1-100-sonic-utilities.txt", []want{
			{"switch.queue.trimmed", Warn, []string{"Ethernet0 UC1: 100 packets trimmed (50 sent on, 50 dropped after trimming)"}}}, nil},
		{"sonic-queuestat-p-trim-pkts-only-uc0-100-sonicmgmt-testplan.txt", []want{
			{"switch.queue.drops", Warn, []string{"r-r640-03-135 Ethernet0 UC0: 100 packets dropped on lossy queue 0 (packets sent N/A)"}},
			{"switch.queue.trimmed", Warn, []string{"r-r640-03-135 Ethernet0 UC0: 100 packets trimmed (how many were sent on and how many dropped after, not shown)"}}}, nil},
		{"sonic-show-int-counters-trim-json-sonic-utilities.txt", []want{
			{"switch.queue.trimmed", Warn, []string{"Ethernet4: 20000 packets trimmed (10000 sent on, 10000 dropped after trimming)"}}}, nil},
		// PFC and its watchdog.
		{"sonic-pfcstat-s-all-asic0-backplane-sonic-utilities.txt", []want{
			{"switch.pfc.tx_pause", Warn, []string{"Ethernet-BP4: sent 1810 PFC pause frames on priority 0 (received 1800)"}}}, nil},
		{"sonic-pfcwd-show-stats-18-storms-stormed-utilities500.txt", []want{
			{"switch.pfcwd.storm", Warn, []string{"Ethernet96 queue 4: PFC watchdog: 18 storms detected, 9 restored; dropped TX 1700"}}}, nil},
		{"sonic-pfcwd-stats-stormed-1-0-then-2-2-dx010-buildimage5898.txt", []want{
			{"switch.pfcwd.storm", Error, []string{"str-dx010-acs-4 Ethernet44 queue 4: PFC watchdog: in a storm now"}}}, nil},
		{"sonic-pfcwd-stats-stormed-1-0-and-restored-1-1-z9332-buildimage9432.txt", []want{
			{"switch.pfcwd.storm", Error, []string{"sonic-10432 Ethernet6 queue 3: PFC watchdog: in a storm now (1 storms detected, 0 restored); dropped TX 90769, RX 89758"}},
			{"switch.pfcwd.storm", Warn, []string{"sonic-10432 Ethernet4 queue 3: PFC watchdog: 1 storms detected, 1 restored; dropped TX 1311393, RX 1310456"}}}, nil},
		{"sonic-show-pfcwd-stats-operational-2-2-egl-buildimage19067.txt", []want{
			{"switch.pfcwd.storm", Warn, []string{"ixre-egl-board72 Ethernet24 queue 3: PFC watchdog: 2 storms detected, 2 restored"}}}, nil},
		// Link and ASIC.
		{"sonic-show-int-counters-fec-histogram-sonic-utilities.txt", []want{
			{"switch.fec.histogram", Info, []string{"Ethernet0: FEC histogram: the worst codewords held 7 symbol errors (BIN7: 300000 of 5200000 codewords)"}}}, nil},
		{"eos-show-hardware-counter-drop-jericho-p-drops-ntctemplates.txt", []want{
			{"switch.hw.drops", Info, []string{"6668 packet processor drops", "dropVoqInIpv6UnspecifiedDestination 509 on Jericho10/0"}}}, []string{"switch.queue.drops"}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			fs := diagnoseFiles(t, Options{}, "corpus/switch/"+c.file)
			nicMustNot(t, fs, "input.unrecognized")
			for _, w := range c.finds {
				nicMustFind(t, fs, w.id, w.sev, w.frag...)
			}
			for _, id := range c.nots {
				nicMustNot(t, fs, id)
			}
		})
	}
	// Healthy or configuration-only pastes are read and raise nothing.
	for _, file := range []string{
		"sonic-show-int-counters-rates-nonzero-sonic-utilities.txt",
		"sonic-show-int-counters-detailed-ethernet8-na-command-reference.txt",
		"sonic-buffer-pool-watermark-old-new-title-utilities1322.txt",
		"sonic-show-pfc-priority-masic-sonic-utilities.txt",
		"sonic-show-queue-counters-ethernet124-idle-swss2759.txt",
		"sonic-show-queue-counters-drop-bytes-na-cpu-queue-swss3334.txt",
		"sonic-show-queue-counters-uc0-9-mc0-9-idle-command-reference.txt",
		"sonic-pfcwd-show-config-400ms-7050qx-buildimage8181.txt",
		"sonic-pfcwd-config-300ms-voq-buildimage17434.txt",
		"sonic-pfcwd-config-queue-counters-cached-s5232-buildimage5821.txt",
		"sonic-pg-watermark-shared-pg0-9120-utilities327.txt",
		"sonic-queue-watermark-unicast-uc0-7-of-10-utilities863.txt",
		"sonic-queue-watermark-multicast-mc10-19-utilities3875.txt",
		"sonic-intfstat-and-portstat-a-pps-columns-buildimage6834.txt",
	} {
		t.Run(file, func(t *testing.T) {
			if fs := diagnose(t, Options{}, nicTestdata("corpus/switch/"+file)).Findings; len(fs) != 0 {
				t.Errorf("want no findings, got:\n%s", nicTitles(fs))
			}
		})
	}
	// A row of `show dropcounters counts` is not told to run that command
	// again: its fix is the counters' configuration.
	f := nicMustFind(t, diagnose(t, Options{}, nicTestdata("corpus/switch/sonic-show-dropcounters-counts-sonic-utilities.txt")).Findings,
		"switch.queue.drops", Info, "Ethernet0: 100 packets dropped at ingress (RX_DROPS)")
	if strings.Contains(f.Fix, "show dropcounters counts") || !strings.Contains(f.Fix, "show dropcounters configuration") {
		t.Errorf("fix %q", f.Fix)
	}
	// SYNTHETIC: the port's lane rate is not in the histogram: BIN9 is
	// within RS(544,514)'s 15 (info), BIN13 nearly past it (a warning); a
	// histogram of BIN0 alone raises nothing.
	fs := synthFindings(t, Options{},
		"admin@leaf1:~$ show interfaces counters fec-histogram Ethernet8",
		"Symbol Errors Per Codeword      Codewords",
		"----------------------------  -----------",
		"BIN0                              1000000",
		"BIN9                                   12",
		"BIN10                                   0")
	nicMustFind(t, fs, "switch.fec.histogram", Info, "leaf1 Ethernet8", "9 symbol errors (BIN9: 12 of 1000012 codewords)")
	fs = synthFindings(t, Options{},
		"admin@leaf1:~$ show interfaces counters fec-histogram Ethernet8",
		"Symbol Errors Per Codeword      Codewords",
		"----------------------------  -----------",
		"BIN0                              1000000",
		"BIN13                                   3")
	nicMustFind(t, fs, "switch.fec.histogram", Warn, "leaf1 Ethernet8", "13 symbol errors (BIN13: 3 of 1000003 codewords)")
	fs = synthFindings(t, Options{},
		"Symbol Errors Per Codeword      Codewords",
		"----------------------------  -----------",
		"BIN0                              1000000",
		"BIN1                                    0")
	nicMustNot(t, fs, "switch.fec.histogram")
	// SYNTHETIC: `show interfaces counters detailed` pasted without its
	// command line prints no port: the finding says so, and its fix asks
	// for every port's queue counters rather than a command with no port.
	fs = synthFindings(t, Options{},
		"Total Packets Transmitted Successfully......... 40",
		"WRED Total Dropped Packets..................... 101",
		"Trimmed Packets................................ 100")
	f = nicMustFind(t, fs, "switch.queue.drops", Warn, "unnamed port: 101 packets dropped at egress")
	if !strings.Contains(f.Fix, "`show queue counters`") {
		t.Errorf("fix %q, want `show queue counters` on every port", f.Fix)
	}
	f = nicMustFind(t, fs, "switch.queue.trimmed", Warn, "unnamed port: 100 packets trimmed")
	if !strings.Contains(f.Fix, "`show queue counters` gives its traffic") {
		t.Errorf("fix %q, want `show queue counters` on every port", f.Fix)
	}
	// SYNTHETIC: congestion drops in EOS's ASICs are info: the counter
	// does not say they were RoCE's class.
	fs = synthFindings(t, Options{},
		"Total Congestion (C) Drops: 12",
		"Type  Chip         CounterName                    :           Count : First Occurrence    : Last Occurrence",
		"--------------------------------------------------------------------------------------------",
		"C     Jericho0/0   dropVoqInCongestion            :              12 : 2019-09-08 00:14:00 : 2019-09-24 21:53:43")
	nicMustFind(t, fs, "switch.hw.drops", Info, "12 congestion drops", "dropVoqInCongestion 12 on Jericho0/0")
}
