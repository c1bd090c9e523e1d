package doctor

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// The three real logs with the line, of three hosts (pytorch#130113's
// node155, LLaMA-Factory#1169's WSL host, TensorRT-LLM#2225's RTX 4090
// host), read together: one finding per host, each naming that host's
// pairs and count and resting on its own lines, not one title joining the
// pairs of all three.
func TestP2PDisabledPerHostAcrossLogs(t *testing.T) {
	fs := diagnoseFiles(t, Options{},
		"corpus/nccl-log/nccl-p2p-disabled-between-connected-gpus-3-ranks-one-host-pytorch130113.txt",
		"corpus/nccl-log/nccl-2.18.5-wsl-p2p-disabled-could-not-enable-p2p-shm-direct-llamafactory1169.txt",
		"corpus/nccl-log/nccl-p2p-disabled-rtx4090-4-ranks-nvls-unavailable-comm-nnodes-trtllm2225.txt")
	p2p := nicFind(fs, "nccl.p2p.disabled")
	if len(p2p) != 3 {
		t.Fatalf("%d p2p findings, want 3:\n%s", len(p2p), nicTitles(fs))
	}
	for _, w := range []struct{ host, pairs, lines, file string }{
		{"node155", "GPUs 0-1, 0-2, 1-2:", "9 lines", "pytorch130113"},
		{"DESKTOP-VMBL43V", "GPUs 0-1:", "5 lines", "llamafactory1169"},
		{"bcc-qianfan-gpu4090-offline-1", "GPUs 4-7, 5-7, 6-7:", "3 lines", "trtllm2225"},
	} {
		f := nicMustFind(t, p2p, "nccl.p2p.disabled", Warn, w.pairs, "on "+w.host+"; "+w.lines+")")
		if f.Subject != w.host {
			t.Errorf("%s: subject %q", w.host, f.Subject)
		}
		for _, e := range f.Evidence {
			if !strings.Contains(e.File, w.file) || !strings.HasPrefix(e.Text, w.host+":") {
				t.Errorf("%s: evidence %+v of another host", w.host, e)
			}
		}
	}
}

// Two hosts' logs concatenated into one input (the machine-printed lines
// of pytorch#130113 and LLaMA-Factory#1169, each line naming its host in
// NCCL's prefix): a finding per host, its evidence that host's lines only.
func TestP2PDisabledPerHostConcatenated(t *testing.T) {
	var b strings.Builder
	for _, f := range []string{
		"corpus/nccl-log/nccl-p2p-disabled-between-connected-gpus-3-ranks-one-host-pytorch130113.txt",
		"corpus/nccl-log/nccl-2.18.5-wsl-p2p-disabled-could-not-enable-p2p-shm-direct-llamafactory1169.txt",
	} {
		data, err := os.ReadFile(nicTestdata(f))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.SplitAfter(string(data), "\n") {
			if !strings.HasPrefix(l, "#") {
				b.WriteString(l)
			}
		}
	}
	fs := nicFind(diagnoseText(t, b.String()).Findings, "nccl.p2p.disabled")
	if len(fs) != 2 {
		t.Fatalf("%d p2p findings, want 2:\n%s", len(fs), nicTitles(fs))
	}
	for _, w := range []struct{ host, title string }{
		{"node155", "GPUs 0-1, 0-2, 1-2: NCCL moves their data through host memory instead (on node155; 9 lines)"},
		{"DESKTOP-VMBL43V", "GPUs 0-1: NCCL moves their data through host memory instead (on DESKTOP-VMBL43V; 5 lines)"},
	} {
		f := nicMustFind(t, fs, "nccl.p2p.disabled", Warn, w.title)
		for _, e := range f.Evidence {
			if !strings.HasPrefix(e.Text, w.host+":") {
				t.Errorf("%s: evidence %+v of another host", w.host, e)
			}
		}
	}
}

// A job that makes many communicators prints the lines again for each: a
// pair first named after 64 lines is in the title (synthetic lines in
// graph/paths.cc's form, 40 communicators' pair 0-1 on gpu-a, then 2-3).
func TestP2PDisabledPairAfterManyLines(t *testing.T) {
	const line = "gpu-a:%d:%d [%d] NCCL INFO P2P is disabled between connected GPUs %d and %d. You can repress this message with NCCL_IGNORE_DISABLED_P2P=1.\n"
	var b strings.Builder
	for c := range 40 {
		fmt.Fprintf(&b, line, 100, 200+c, 0, 0, 1)
		fmt.Fprintf(&b, line, 101, 300+c, 1, 1, 0)
	}
	fmt.Fprintf(&b, line, 102, 400, 2, 2, 3)
	fs := diagnoseText(t, b.String()).Findings
	f := nicMustFind(t, fs, "nccl.p2p.disabled", Warn, "GPUs 0-1, 2-3:", "on gpu-a; 81 lines")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 1 || f.Evidence[1].Line != 81 {
		t.Errorf("evidence %+v, want lines 1 and 81", f.Evidence)
	}
}
