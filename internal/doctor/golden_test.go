package doctor

import (
	"bytes"
	"flag"
	"path/filepath"
	"testing"

	"rocelab/internal/golden"
	"rocelab/internal/unit"
)

// update rewrites golden files instead of comparing against them:
// go test ./internal/doctor -run Golden -update
var update = flag.Bool("update", false, "rewrite the golden reports in testdata/golden")

// TestGoldenReports compares the text report of corpus files with
// testdata/golden; run with -update to rewrite them, then read the diff.
func TestGoldenReports(t *testing.T) {
	cases := []struct {
		golden string
		opts   Options
		files  []string
	}{
		{"retry-exceeded-issue1405.txt", Options{}, []string{"nccl-log/roce-err12-vendor129-recv-gid-issue1405.txt"}},
		{"allreduce-gdr0-400g.txt", Options{NICSpeed: 400 * unit.Gbps}, []string{"nccl-tests/allreduce-h100-1gpu-roce400g-gdr0-15GBps-ccimoc.txt"}},
		{"socket-aws.txt", Options{}, []string{"nccl-log/socket-aws-ens3-no-ib-issue226.txt"}},
		// NCCL 2.28.9 port lines (speed=200000) judge the all_gather; the second port's QPs use link-local GID 0.
		{"spark-2.28-port-lines-200g.txt", Options{}, []string{"nccl-log/nccl-2.28.9-dgx-spark-gb10-roce-200g-port-lines-gid0-allgather.txt"}},
		{"cx5blog-mlnx-qos.txt", Options{}, []string{"ethtool/mlnx-qos-dcbx-fw-pfc3-showgids-dmesg-pcie-x8-cx5blog.txt"}},
		{"lkml-ethtool.txt", Options{}, []string{"ethtool/mlx5-xdp-rx-discards-phy-global-pause-lkml.txt"}},
		// Two real incidents read as one: GDR 0 is the likely cause; the PCIe cap is below what the run reached.
		{"gdr0-with-pcie-x8-400g.txt", Options{NICSpeed: 400 * unit.Gbps}, []string{"nccl-tests/allreduce-h100-1gpu-roce400g-gdr0-15GBps-ccimoc.txt", "ethtool/mlnx-qos-dcbx-fw-pfc3-showgids-dmesg-pcie-x8-cx5blog.txt"}},
		// Synthetic fixtures: a slow all_reduce and the NIC-side causes in three other files.
		{"synthetic-nic-causes-100g.txt", Options{NICSpeed: 100 * unit.Gbps}, []string{"../synthetic/allreduce-2node-7GBps-synthetic.txt", "../synthetic/prio0-before-after-synthetic.txt", "../synthetic/mlnx-qos-pcp-pfc-off-synthetic.txt", "../synthetic/hwcounters-retrans-ecn-synthetic.txt"}},
		// nccl-tests' JSON (-J) of a twin run, as nccl-tests 2.19.6 writes it, and a synthetic copy cut as a killed job leaves it.
		{"nccltests-json-twin-100g.txt", Options{NICSpeed: 100 * unit.Gbps}, []string{"../synthetic/nccltests-json/allreduce-4x8-a100-as-found-twin.json"}},
		{"nccltests-json-cut-100g.txt", Options{NICSpeed: 100 * unit.Gbps}, []string{"../synthetic/nccltests-json/allreduce-4x8-a100-as-found-cut-synthetic.json"}},
		// A directory: four captures grouped, their provenance notes skipped in one info finding.
		{"pcap-dir.txt", Options{}, []string{"pcap"}},
	}
	for _, c := range cases {
		t.Run(c.golden, func(t *testing.T) {
			var paths []string
			for _, f := range c.files {
				paths = append(paths, filepath.Join(corpus, f))
			}
			var b bytes.Buffer
			if err := Diagnose(paths, nil, c.opts).WriteText(&b); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "golden", c.golden), b.Bytes(), *update)
		})
	}
}
