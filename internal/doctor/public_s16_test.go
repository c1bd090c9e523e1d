package doctor

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rocelab/internal/ingest"
)

// Artifacts of the sixteenth sweep that the doctor already judged right:
// each pins what a RoCE engineer reads in it, so a later change to the
// parsers or rules that breaks one shows here.

// Broadcom bnxt_re ib_write_bw, three rdma_cm QPs in duration mode
// (SCC24 post-mortem): the average in Gb/s is read (363.47; the peak is
// 0.00, not measured with -D), MTU 1024 is a warning and, with no port
// speed stated, the bandwidth is left unjudged rather than called low.
func TestBnxtPerftestRead(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/perftest/ib-write-bw-bnxt-re-3qp-rdma-cm-363gbps-mtu1024-scc24.txt")
	nicMustFind(t, fs, "perftest.bw.unjudged", Info, "ib_write_bw on bnxt_re0: best 363.5 Gb/s")
	nicMustFind(t, fs, "perftest.mtu.small", Warn, "bnxt_re0: RoCE MTU 1024")
	nicMustFind(t, fs, "gid.index.ipv4", Info, "GID index 3 in use is the IPv4 GID ::ffff:10.0.0.12")
	for _, f := range fs {
		if f.Severity == Error {
			t.Errorf("error %s: %s", f.ID, f.Title)
		}
	}
}

// Two header-less `grep prio` excerpts of one port (bytedance/byteps#179)
// form a before/after pair: 136.6 GB moved on priority 0 and none on 3,
// so RoCE runs lossy.
func TestPrioPairAllOnPrio0(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/ethtool/ethtool-grep-prio-before-after-all-prio0-byteps179.txt")
	f := nicMustFind(t, fs, "counters.pfc.not_on_roce_priority", Warn, "enp178s0f0: all traffic on priority 0; 0.0% on lossless priority 3")
	if !strings.Contains(f.Mechanism, "Counted during the window between the two dumps") || f.Evidence[4].Line != 36 {
		t.Errorf("not judged as a pair: %s %+v", f.Mechanism, f.Evidence)
	}
}

// show_gids beside an mlnx_qos dump its author cut before the PFC table
// (host-bench/husky): the v2 IPv4 GID is index 3, and PFC is said to be
// unshown, not off.
func TestMlnxQoSCutBeforePFC(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/ethtool/show-gids-mlnx-qos-cut-before-pfc-husky.txt")
	nicMustFind(t, fs, "gid.index.roce_v2", Info, "index 3 (mlx5_0 192.168.211.242)")
	nicMustFind(t, fs, "qos.pfc.unshown", Info, "rdma0: the mlnx_qos dump has no PFC configuration")
	for _, f := range fs {
		if strings.HasPrefix(f.ID, "qos.pfc.") && f.ID != "qos.pfc.unshown" {
			t.Errorf("%s: %s", f.ID, f.Title)
		}
	}
}

// One `rdma statistic | grep mlx5_2` line (oracle-japan/ocitutorials):
// 29 counters of mlx5_2 port 1, all error and congestion counters 0, so
// no finding.
func TestRdmaStatisticOneLineClean(t *testing.T) {
	rel := "corpus/hwcounters/rdma-statistic-grep-one-line-mlx5-all-zero-ocitutorials.txt"
	if fs := diagnoseFiles(t, Options{}, rel); len(fs) != 0 {
		t.Errorf("findings on a clean port:\n%s", nicTitles(fs))
	}
	data, err := os.ReadFile(nicTestdata(rel))
	if err != nil {
		t.Fatal(err)
	}
	res, err := ingest.Read(rel, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var h *ingest.HWCounters
	for _, a := range res.Artifacts {
		if x, ok := a.(*ingest.HWCounters); ok {
			h = x
		}
	}
	if h == nil || len(h.Samples) != 1 {
		t.Fatalf("hw counters %+v", h)
	}
	s := h.Samples[0]
	c, ok := s.After.Get("rx_write_requests")
	if s.Device != "mlx5_2" || s.Port != 1 || len(s.After.Counters) != 29 || !ok || c.Value != 18747 {
		t.Errorf("%s/%d: %d counters, rx_write_requests %+v", s.Device, s.Port, len(s.After.Counters), c)
	}
}

// A SONiC CONFIG_DB given to diagnose (sonic-mgmt#7016's BUFFER_PROFILE
// fragment) is said to be a configuration for lint, in the finding and
// in the exit-2 message; before, it was "in no format rocelab
// recognises". Other JSON keeps the plain message.
func TestConfigDBPointsToLint(t *testing.T) {
	f := nicTestdata("corpus/sonic/sonic-configdb-fragment-buffer-profile-only-t1-sonicmgmt7016.json")
	rep := Diagnose([]string{f}, nil, Options{})
	g := nicMustFind(t, rep.Findings, "input.unrecognized", Warn, "is a SONiC CONFIG_DB (BUFFER_PROFILE): a configuration, which rocelab lint judges")
	if g.Fix == "" || !strings.HasPrefix(g.Fix, "rocelab lint "+f) {
		t.Errorf("fix %q", g.Fix)
	}
	if why := rep.Unusable(); !strings.Contains(why, "use rocelab lint "+f) || rep.ExitCode() != 2 {
		t.Errorf("exit %d: %s", rep.ExitCode(), why)
	}
	for head, want := range map[string]string{
		"{\n  \"localhost\": {\n": "a SONiC CONFIG_DB (localhost)",
		"\"BUFFER_PG\": {":        "a SONiC CONFIG_DB (BUFFER_PG)",
		"{\"README\": [":          "",
		"{\n \"helper_data\": {":  "",
		"{\"version\":1,":         "",
		"\"PORT\":":               "",
	} {
		if got := lintConfig([]byte(head)); got != want {
			t.Errorf("lintConfig(%q) = %q, want %q", head, got, want)
		}
	}
}

// A Cumulus NVUE configuration given to diagnose, its tree (the NVIDIA Air
// workshop's applied qos section) or nv set commands (the 5.15 guide's
// RoCE change), is named as a configuration for lint the same way; `nv
// show qos roce`, which diagnose reads, is not.
func TestNVUEConfigPointsToLint(t *testing.T) {
	for file, want := range map[string]string{
		"cl551-air-workshop-applied-qos.yaml": "is a Cumulus NVUE configuration (nv config show -o yaml, startup.yaml): a configuration, which rocelab lint judges",
		"cl515-nv-set-roce-sp2.txt":           "is a Cumulus NVUE configuration (nv set commands): a configuration, which rocelab lint judges",
	} {
		f := filepath.Join("..", "lint", "testdata", file)
		rep := Diagnose([]string{f}, nil, Options{})
		g := nicMustFind(t, rep.Findings, "input.unrecognized", Warn, want)
		if !strings.HasPrefix(g.Fix, "rocelab lint "+f) {
			t.Errorf("%s: fix %q", file, g.Fix)
		}
		if why := rep.Unusable(); !strings.Contains(why, "use rocelab lint "+f) || rep.ExitCode() != 2 {
			t.Errorf("%s: exit %d: %s", file, rep.ExitCode(), why)
		}
	}
	rep := Diagnose([]string{filepath.Join("..", "lint", "testdata", "cl515-nv-show-qos-roce-single-ipool.txt")}, nil, Options{})
	nicMustNot(t, rep.Findings, "input.unrecognized")
}
