package doctor

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"rocelab/internal/unit"
)

// vocabulary maps every finding id of the doctor's minimum vocabulary to
// an input that produces it: real corpus files where the corpus has the
// case, labelled synthetic fixtures where it does not.
var vocabulary = []struct {
	id    string
	opts  Options
	files []string // under testdata/; "synthetic-roce.pcap" is written by writeSyntheticCapture
}{
	{"nccl.transport.socket_fallback", Options{}, []string{"corpus/nccl-log/socket-aws-ens3-no-ib-issue226.txt"}},
	{"nccl.gdr.disabled", Options{}, []string{"corpus/nccl-log/gdr-disabled-no-module-netib-channels-issue899.txt"}},
	{"nccl.ib.retry_exceeded", Options{}, []string{"corpus/nccl-log/roce-err12-vendor129-recv-gid-issue1405.txt"}},
	{"nccl.ib.local_protection", Options{}, []string{"synthetic/nccl-local-protection-synthetic.txt"}},
	{"gid.index.roce_v1", Options{}, []string{"synthetic/nccl-gid-index-2-synthetic.txt", "corpus/ethtool/ibv-devinfo-gid-table-linklocal-v2-fails-issue769.txt"}},
	{"gid.index.link_local", Options{}, []string{"synthetic/perftest-failures-synthetic.txt"}},
	{"gid.index.default_zero", Options{}, []string{"synthetic/nccl-gid-index-mismatch-synthetic.txt"}},
	{"gid.index.zero", Options{}, []string{"synthetic/perftest-remote-gid-zero-synthetic.txt"}},
	{"gid.index.mismatch", Options{}, []string{"synthetic/nccl-gid-index-mismatch-synthetic.txt"}},
	{"nccltests.busbw.low", Options{NICSpeed: 400 * unit.Gbps}, []string{"corpus/nccl-tests/allreduce-h100-1gpu-roce400g-gdr0-15GBps-ccimoc.txt"}},
	{"nccltests.wrong", Options{}, []string{"synthetic/allreduce-wrong-synthetic.txt"}},
	{"counters.pfc.not_on_roce_priority", Options{}, []string{"synthetic/prio0-before-after-synthetic.txt"}},
	{"counters.retransmission", Options{}, []string{"synthetic/hwcounters-retrans-ecn-synthetic.txt"}},
	{"counters.ecn.heavy_marking", Options{}, []string{"synthetic/hwcounters-retrans-ecn-synthetic.txt"}},
	{"counters.discards", Options{}, []string{"corpus/ethtool/mlx5-xdp-rx-discards-phy-global-pause-lkml.txt"}},
	{"counters.pause.global", Options{}, []string{"corpus/ethtool/mlx5-xdp-rx-discards-phy-global-pause-lkml.txt"}},
	{"perftest.bw.low", Options{}, []string{"corpus/perftest/perftest-summary-table-400g-roce-ccimoc.txt"}},
	{"perftest.mtu.small", Options{}, []string{"corpus/perftest/ib-write-lat-connectx3-roce-mtu1024-rdmatutorial8.txt"}},
	{"perftest.connect.failed", Options{}, []string{"synthetic/perftest-failures-synthetic.txt"}},
	{"host.pcie.degraded", Options{}, []string{"corpus/ethtool/mlnx-qos-dcbx-fw-pfc3-showgids-dmesg-pcie-x8-cx5blog.txt"}},
	{"qos.pfc.disabled", Options{}, []string{"synthetic/mlnx-qos-pcp-pfc-off-synthetic.txt"}},
	{"qos.trust.pcp", Options{}, []string{"synthetic/mlnx-qos-pcp-pfc-off-synthetic.txt"}},
	{"capture.retransmission", Options{NICSpeed: 100 * unit.Gbps}, []string{"synthetic-roce.pcap"}},
	{"capture.cnp.storm", Options{NICSpeed: 100 * unit.Gbps}, []string{"synthetic-roce.pcap"}},
	{"capture.pfc.pause", Options{NICSpeed: 100 * unit.Gbps}, []string{"synthetic-roce.pcap"}},
	{"capture.ecn.marked", Options{NICSpeed: 100 * unit.Gbps}, []string{"synthetic-roce.pcap"}},
	{"capture.no_roce", Options{}, []string{"corpus/pcap/dcb_pfc.pcap"}},
	{"capture.truncated", Options{}, []string{"synthetic-roce-cut.pcap"}},
}

// TestVocabulary checks that every id of the minimum vocabulary is produced
// by its input, with evidence on a line of that input, a mechanism and a
// fix.
func TestVocabulary(t *testing.T) {
	capturePath := writeSyntheticCapture(t)
	for _, v := range vocabulary {
		t.Run(v.id, func(t *testing.T) {
			var paths []string
			for _, f := range v.files {
				if f == "synthetic-roce.pcap" {
					paths = append(paths, capturePath)
					continue
				}
				if f == "synthetic-roce-cut.pcap" {
					paths = append(paths, cutCapture(t, capturePath, 7))
					continue
				}
				paths = append(paths, nicTestdata(f))
			}
			rep := diagnose(t, v.opts, paths...)
			f := find(rep.Findings, v.id)
			if f == nil {
				t.Fatalf("not produced; got %v", ids(rep.Findings))
			}
			checkComplete(t, *f)
		})
	}
}

// checkComplete checks that a finding rests on a numbered input line
// (a packet number for captures) and explains itself.
func checkComplete(t *testing.T, f Finding) {
	t.Helper()
	lined := false
	for _, e := range f.Evidence {
		lined = lined || e.File != "" && e.Line > 0
	}
	if !lined && f.Layer != LayerInput && f.ID != "capture.no_roce" {
		t.Errorf("%s %q: no evidence with file:line: %v", f.ID, f.Title, f.Evidence)
	}
	if n := strings.Count(f.Mechanism, ". "); f.Mechanism == "" || n > 6 {
		t.Errorf("%s: mechanism of %d sentences: %q", f.ID, n+1, f.Mechanism)
	}
	if f.Severity > Info && f.Fix == "" {
		t.Errorf("%s: no fix", f.ID)
	}
}

// registeredIDs returns every id the rules declare, and the input ids.
func registeredIDs() map[string]bool {
	out := map[string]bool{"input.unreadable": true, "input.unrecognized": true}
	for _, r := range rules() {
		for _, id := range r.IDs {
			out[id] = true
		}
	}
	return out
}

// TestFindingsComplete diagnoses every corpus and synthetic input at once
// and checks that each finding's id is declared by its rule, that it rests
// on evidence and explains itself.
func TestFindingsComplete(t *testing.T) {
	ids := registeredIDs()
	for _, opts := range []Options{{}, {NICSpeed: 100 * unit.Gbps}} {
		rep := Diagnose([]string{nicTestdata("corpus"), nicTestdata("synthetic"), writeSyntheticCapture(t)}, nil, opts)
		for _, f := range rep.Findings {
			if !ids[f.ID] {
				t.Errorf("finding id %s is not declared in any rule's IDs", f.ID)
			}
			checkComplete(t, f)
		}
	}
}

// TestDocsListEveryRule checks that docs/diagnose.md names every id the
// rules declare, and declares every id it names.
func TestDocsListEveryRule(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "diagnose.md"))
	if err != nil {
		t.Fatal(err)
	}
	ids := registeredIDs()
	var missing []string
	for id := range ids {
		if !strings.Contains(string(doc), "`"+id+"`") {
			missing = append(missing, id)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("docs/diagnose.md does not list %v", missing)
	}
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z0-9_]+\\.[a-z0-9_.]+)` \\|").FindAllStringSubmatch(string(doc), -1) {
		if !ids[m[1]] {
			t.Errorf("docs/diagnose.md lists %s, which no rule declares", m[1])
		}
	}
	for _, v := range vocabulary {
		if !ids[v.id] {
			t.Errorf("vocabulary id %s is not declared by any rule", v.id)
		}
	}
}
