package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rocelab/internal/unit"
)

// busbwFinding diagnoses the files and returns the busbw finding with id.
func busbwFinding(t *testing.T, opts Options, id string, rels ...string) Finding {
	t.Helper()
	var paths []string
	for _, r := range rels {
		paths = append(paths, nicTestdata(r))
	}
	rep := diagnose(t, opts, paths...)
	f := find(rep.Findings, id)
	if f == nil {
		t.Fatalf("no %s; got %v", id, ids(rep.Findings))
	}
	return *f
}

// The slow busbw of the h100 GDR 0 run and the PCIe line of another real
// incident: GDR 0 is the likely cause; the 63 Gb/s PCIe cap is below the
// 120 Gb/s the run reached, so that NIC is not on its path, and the
// finding says so while citing the dmesg line.
func TestBusBWCausesRealFiles(t *testing.T) {
	f := busbwFinding(t, Options{NICSpeed: 400 * unit.Gbps}, "nccltests.busbw.low",
		"corpus/nccl-tests/allreduce-h100-1gpu-roce400g-gdr0-15GBps-ccimoc.txt",
		"corpus/ethtool/mlnx-qos-dcbx-fw-pfc3-showgids-dmesg-pcie-x8-cx5blog.txt")
	likely, elsewhere, _ := strings.Cut(f.Fix, "Also in the incident")
	if !strings.Contains(likely, "Likely causes in this incident: GPUDirect RDMA off (GDR 0).") {
		t.Errorf("likely causes: %s", f.Fix)
	}
	if !strings.Contains(elsewhere, "0001:43:00.0 on a PCIe 8.0 GT/s x8 link") || !strings.Contains(elsewhere, "at most 63.0 Gb/s, below the 120.2 Gb/s reached") {
		t.Errorf("PCIe cap not placed off the path: %s", f.Fix)
	}
	if !cites(f, "cx5blog.txt", 46) || !cites(f, "gdr0-15GBps-ccimoc.txt", 57) {
		t.Errorf("evidence %v", f.Evidence)
	}
}

// A synthetic 56 Gb/s run on 100G NICs beside the real dmesg line of a NIC
// capped at 63 Gb/s by PCIe: the cap is a likely cause.
func TestBusBWCausePCIeCap(t *testing.T) {
	f := busbwFinding(t, Options{NICSpeed: 100 * unit.Gbps}, "nccltests.busbw.low",
		"synthetic/allreduce-2node-7GBps-synthetic.txt",
		"corpus/ethtool/mlnx-qos-dcbx-fw-pfc3-showgids-dmesg-pcie-x8-cx5blog.txt")
	if !strings.Contains(f.Fix, "Likely causes in this incident: mlx5_core 0001:43:00.0 on a PCIe 8.0 GT/s x8 link (capable of 8.0 GT/s x16), capped at 63.0 Gb/s.") ||
		strings.Contains(f.Fix, "Also in the incident") {
		t.Errorf("fix %s", f.Fix)
	}
	if !cites(f, "cx5blog.txt", 46) {
		t.Errorf("evidence %v", f.Evidence)
	}
	// On 50G NICs the same cap is above line rate: no cause.
	f = busbwFinding(t, Options{NICSpeed: 50 * unit.Gbps}, "nccltests.busbw.ok",
		"synthetic/allreduce-2node-7GBps-synthetic.txt",
		"corpus/ethtool/mlnx-qos-dcbx-fw-pfc3-showgids-dmesg-pcie-x8-cx5blog.txt")
	if strings.Contains(f.Fix, "PCIe") {
		t.Errorf("fix %s", f.Fix)
	}
}

// Every NIC-side bottleneck is named with its file's line.
func TestBusBWCausesNICSide(t *testing.T) {
	f := busbwFinding(t, Options{NICSpeed: 100 * unit.Gbps}, "nccltests.busbw.low",
		"synthetic/allreduce-2node-7GBps-synthetic.txt",
		"synthetic/prio0-before-after-synthetic.txt",
		"synthetic/mlnx-qos-pcp-pfc-off-synthetic.txt",
		"synthetic/hwcounters-retrans-ecn-synthetic.txt")
	for _, s := range []string{
		"ens3np0: priority trust pcp",
		"ens3np0: PFC disabled on every priority",
		"gpu01 ens3np0: packets dropped at the port: rx_discards_phy 100000 (during the window)",
		"gpu01 ens3np0: 100% of bytes on priority 0, which PFC (on 3) does not protect",
		"mlx5_0 port 1: RC retransmissions: local_ack_timeout_err 3",
	} {
		if !strings.Contains(f.Fix, s) {
			t.Errorf("fix lacks %q: %s", s, f.Fix)
		}
	}
	for _, file := range []string{"prio0-before-after-synthetic.txt", "mlnx-qos-pcp-pfc-off-synthetic.txt", "hwcounters-retrans-ecn-synthetic.txt"} {
		found := false
		for _, e := range f.Evidence {
			found = found || strings.HasSuffix(e.File, file) && e.Line > 0
		}
		if !found {
			t.Errorf("no evidence line from %s: %v", file, f.Evidence)
		}
	}
}

// A perftest far below line rate is a cause; one below what NCCL reached
// is not on its path; one near line rate is no cause.
func TestBusBWCausesPerftest(t *testing.T) {
	f := busbwFinding(t, Options{NICSpeed: 400 * unit.Gbps}, "nccltests.busbw.low",
		"corpus/nccl-tests/allreduce-h100-1gpu-roce400g-gdr0-15GBps-ccimoc.txt",
		"corpus/perftest/perftest-summary-table-400g-roce-ccimoc.txt")
	likely, elsewhere, _ := strings.Cut(f.Fix, "Also in the incident")
	if !strings.Contains(likely, "ib_write_bw reached 225.7 Gb/s") || !strings.Contains(elsewhere, "ib_read_bw reached 86.0 Gb/s, at most 86.0 Gb/s, below the 120.2 Gb/s reached") {
		t.Errorf("fix %s", f.Fix)
	}
	// Without a line rate a measured figure judges nothing. synthetic: one
	// ib_write_bw row at 1 MiB, 40 Gb/s, no port rate anywhere.
	pt := filepath.Join(t.TempDir(), "perftest-synthetic.txt")
	in := "                    RDMA_Write BW Test\n Device         : mlx5_0\n Link type       : Ethernet\n" +
		" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n 1048576    5000             40.00              40.00              0.004768\n"
	if err := os.WriteFile(pt, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	table, _ := filepath.Abs(nicTestdata("corpus/nccl-tests/allreduce-h100-1gpu-roce400g-gdr0-15GBps-ccimoc.txt"))
	rep := diagnose(t, Options{}, table, pt)
	if f := find(rep.Findings, "nccltests.busbw.unjudged"); f == nil || strings.Contains(f.Fix, "reached") {
		t.Errorf("unjudged finding %+v", f)
	}
}

// Dumps of one port split over two files become a before/after pair:
// drops counted before the test are no cause.
func TestBusBWCausesJoinedDumps(t *testing.T) {
	b, err := os.ReadFile(nicTestdata("synthetic/prio0-before-after-synthetic.txt"))
	if err != nil {
		t.Fatal(err)
	}
	before := b[:strings.LastIndex(string(b), "[root@gpu01")]
	dir := t.TempDir()
	for _, name := range []string{"before-synthetic.txt", "after-synthetic.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), before, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	table, err := filepath.Abs(nicTestdata("synthetic/allreduce-2node-7GBps-synthetic.txt"))
	if err != nil {
		t.Fatal(err)
	}
	rep := diagnose(t, Options{NICSpeed: 100 * unit.Gbps}, table, filepath.Join(dir, "after-synthetic.txt"), filepath.Join(dir, "before-synthetic.txt"))
	f := find(rep.Findings, "nccltests.busbw.low")
	if f == nil {
		t.Fatalf("no busbw finding: %v", ids(rep.Findings))
	}
	if strings.Contains(f.Fix, "dropped") || strings.Contains(f.Fix, "priority 0") {
		t.Errorf("unchanged counters named as a cause: %s", f.Fix)
	}
	// Each dump alone is a cumulative cause.
	rep = diagnose(t, Options{NICSpeed: 100 * unit.Gbps}, table, filepath.Join(dir, "before-synthetic.txt"))
	if f := find(rep.Findings, "nccltests.busbw.low"); f == nil || !strings.Contains(f.Fix, "(since driver load)") {
		t.Errorf("single dump: %+v", f)
	}
}

// A plateau of MSCCL++'s mscclpp-test (mscclpp PR #87, real) is explained
// as that tool's busbw, not nccl-tests'.
func TestBusBWNamesItsTool(t *testing.T) {
	f := busbwFinding(t, Options{NICSpeed: 100 * unit.Gbps}, "nccltests.busbw.unjudged",
		"corpus/nccl-tests/mscclpp-test-alltoall-1n-2n-out-of-place-one-half-mpi-tags-mscclpp87.txt")
	if !strings.HasPrefix(f.Mechanism, "mscclpp-test busbw is") {
		t.Errorf("mechanism %q", f.Mechanism)
	}
}
