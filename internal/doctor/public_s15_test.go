package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Artifacts of the fifteenth sweep. Each test failed before the change it
// covers.

// NCCL lists a 25G RoCE port and a 200G InfiniBand port, and every
// connection goes over NET/IB/1, the InfiniBand one (nccl-tests#350): the
// RoCE port's default GID index 0 is no index in use, so no GID finding;
// the gather's large-size drop is judged against the 200G port.
func TestListedRoCEPortNoConnection(t *testing.T) {
	fs := Diagnose([]string{nicTestdata("corpus/nccl-tests/gather-2.16.5-a100-roce25g-ib200g-mixed-list-channels-ib1-drop-6g-nccltests350.txt")}, nil, Options{}).Findings
	for _, f := range fs {
		if strings.HasPrefix(f.ID, "gid.") {
			t.Errorf("%s: %s", f.ID, f.Title)
		}
	}
	nicMustFind(t, fs, "nccltests.busbw.low", Error, "gather busbw plateau 11.69 GB/s", "200Gbps")
	if f := nicMustFind(t, fs, "nccl.transport.ib", Info, "RoCE+IB"); !strings.Contains(f.Mechanism, "no connection goes over mlx5_0:1") {
		t.Errorf("mechanism %s", f.Mechanism)
	}
}

// The reports of NCCL's RAS client (ncclras) are judged: a communicator
// whose ranks launched different AllGather counts (NVIDIA/nccl#1911) is a
// warning naming the counts, processes missing from the job (#1762) are
// errors naming the process, and a report with every communicator OK
// (#1730) says so. Before, each was read as an NCCL log with no finding.
func TestRASReportJudged(t *testing.T) {
	fs := Diagnose([]string{nicTestdata("corpus/nccl-log/ncclras-2.26.2-mismatch-allgather-640-641-nccl1911.txt")}, nil, Options{}).Findings
	f := nicMustFind(t, fs, "nccl.ras.report", Warn, "MISMATCH for communicator #0-0 (fa93daea854b060b)", "30 ranks have launched up to operation 640, 2 ranks have launched up to operation 641")
	if len(f.Evidence) != 6 || f.Evidence[5].Line != 30 {
		t.Errorf("evidence %+v", f.Evidence)
	}
	fs = Diagnose([]string{nicTestdata("corpus/nccl-log/ncclras-2.27.3-incomplete-process-60004-outlier-node-nccl1762.txt")}, nil, Options{}).Findings
	nicMustFind(t, fs, "nccl.ras.report", Error, "INCOMPLETE for the job: Missing communicator data from 1 job process: Process 60004 on node 10.4.109.13")
	nicMustFind(t, fs, "nccl.ras.report", Error, "INCOMPLETE for communicator #0-0 (b3398875b8b2a063)", "Rank 1 -- GPU 0")
	// The same report cut after its table (its first 17 lines): the
	// table's MISMATCH is said, and that the entries naming the ranks are
	// missing. Before, a cut report raised nothing.
	data, err := os.ReadFile(nicTestdata("corpus/nccl-log/ncclras-2.26.2-mismatch-allgather-640-641-nccl1911.txt"))
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "ncclras.txt")
	if err := os.WriteFile(cut, []byte(strings.Join(strings.SplitAfter(string(data), "\n")[:17], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	f = nicMustFind(t, Diagnose([]string{cut}, nil, Options{}).Findings, "nccl.ras.report", Warn, "communicator table: group 0 MISMATCH", "entries, which name the ranks, are not in the input")
	if len(f.Evidence) != 1 || f.Evidence[0].Line != 17 || !strings.Contains(f.Mechanism, "disagree") {
		t.Errorf("cut report: evidence %+v, mechanism %s", f.Evidence, f.Mechanism)
	}
	fs = Diagnose([]string{nicTestdata("corpus/nccl-log/ncclras-2.26.2-running-ok-pytorch-timeout-pg-status-nccl1730.txt")}, nil, Options{}).Findings
	nicMustFind(t, fs, "nccl.ras.report", Info, "every communicator OK (1 group, the largest of 256 ranks)")
	nicMustFind(t, fs, "nccl.collective.timeout", Error, "rank 118")
}

// `show pfcwd config` of a two-ASIC switch (sonic-utilities' test vectors)
// prints "BIG_RED_SWITCH status is enable on asic0": the watchdog's
// emergency mode holds every lossless queue in its storm action, an error
// per namespace. Before, the line was passed over and the times judged
// fine.
func TestBigRedSwitchShown(t *testing.T) {
	fs := Diagnose([]string{nicTestdata("corpus/switch/sonic-pfcwd-config-multiasic-big-red-switch-enable-sonic-utilities.txt")}, nil, Options{}).Findings
	for _, ns := range []string{"asic0", "asic1"} {
		f := nicMustFind(t, fs, "pfc.watchdog.big_red_switch", Error, "show pfcwd config "+ns+": BIG_RED_SWITCH is enable")
		if len(f.Evidence) != 1 || !strings.HasSuffix(f.Evidence[0].Text, "on "+ns) {
			t.Errorf("evidence %+v", f.Evidence)
		}
	}
	for _, f := range Diagnose([]string{nicTestdata("corpus/switch/sonic-pfcwd-config-sonic-utilities.txt")}, nil, Options{}).Findings {
		if f.ID == "pfc.watchdog.big_red_switch" {
			t.Errorf("no BIG_RED_SWITCH line: %s", f.Title)
		}
	}
}

// ibv_devinfo in a container given one of a host's VFs
// (hustcat/k8s-rdma-device-plugin#8) prints 'Failed to open device' for
// the 8 devices whose uverbs files it lacks, around the one it read: a
// warning naming both. Before, the lines were passed over and the report
// said nothing. A dump without them says nothing of it.
func TestDevinfoOpenFailed(t *testing.T) {
	fs := Diagnose([]string{nicTestdata("corpus/ethtool/ibv-devinfo-failed-to-open-8-vfs-container-mlx4-ib-k8srdmaplugin8.txt")}, nil, Options{}).Findings
	f := nicMustFind(t, fs, "devinfo.open_failed", Warn, "could not open 8 RDMA devices", "it read mlx4_2")
	if len(f.Evidence) != 4 || f.Evidence[3].Line != 7 {
		t.Errorf("evidence %+v", f.Evidence)
	}
	nicMustNot(t, Diagnose([]string{nicTestdata("corpus/ethtool/ibv-devinfo-rxe-no-link-layer-mtu1024-rxedev46.txt")}, nil, Options{}).Findings, "devinfo.open_failed")
	// A container given none of the devices opens none: the same lines
	// alone (synthetic), which were an unrecognised file before.
	none := filepath.Join(t.TempDir(), "devinfo.txt")
	if err := os.WriteFile(none, []byte("Failed to open device\nFailed to open device\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f = nicMustFind(t, Diagnose([]string{none}, nil, Options{}).Findings, "devinfo.open_failed", Warn, "could not open 2 RDMA devices", "it opened none")
	if len(f.Evidence) != 2 || f.Evidence[1].Line != 2 {
		t.Errorf("evidence %+v", f.Evidence)
	}
}
