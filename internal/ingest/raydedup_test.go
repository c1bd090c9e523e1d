package ingest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Ray's log deduplication appends " [repeated Nx across cluster]" to a
// line it printed once for several workers, and the first time a note
// after it: both come off, leaving the line each worker printed. Real
// lines: NVIDIA/nccl#1672 (verl's WorkerDict actors, quoted); the note's
// line and the Ray Data tag SYNTHETIC after Ray's own text.
func TestRayDedupSuffix(t *testing.T) {
	const note = " (Ray deduplicates logs by default. Set RAY_DEDUP_LOGS=0 to disable log deduplication, or see https://docs.ray.io/en/master/ray-observability/user-guides/configure-logging.html#log-deduplication for more options.)"
	const nccl = "degamts15:3569860:3586525 [0] NCCL INFO MNNVL busId 0x4000 fabric UUID 0.0 cliqueId 0x0 state 3 healthMask 0x0"
	for _, c := range []struct{ in, want string }{
		{"(WorkerDict pid=3569860) " + nccl + " [repeated 16x across cluster]", nccl},
		{"(WorkerDict pid=3569860) " + nccl + " [repeated 3x across cluster]" + note, nccl},
		{"(WorkerDict pid=3569860) " + nccl + " \x1b[2m[repeated 3x across cluster]\x1b[0m", nccl}, // Ray dims it
		{"(MapBatches(Embed) pid=5362, ip=10.0.32.44) " + nccl, nccl},
		{"(ReadRange->MapBatches(produce) pid=5362, ip=10.0.32.44) " + nccl, nccl}, // fused operators
		{"(MapBatches(<lambda>) pid=5362) " + nccl, nccl},
		{"(W pid=1, ip=<x>) " + nccl, "(W pid=1, ip=<x>) " + nccl}, // the address holds no '<'
		{nccl + " [repeated 16x across cluster] and more", nccl + " [repeated 16x across cluster] and more"},
		{nccl + " [repeated x across cluster]", nccl + " [repeated x across cluster]"},
	} {
		if got := readLines(t, c.in); len(got) != 1 || got[0] != c.want {
			t.Errorf("%q -> %q, want %q", c.in, got, c.want)
		}
	}
	const rel = "nccl-log/nccl-2.2x-ray-quoted-repeated-across-cluster-suffix-nvls-multicast-mnnvl-8-ranks-nccl1672.txt"
	b, err := os.ReadFile(filepath.Join(corpusDir, rel))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range readAllLines(string(b)) {
		if strings.HasSuffix(l.Text, "across cluster]") {
			t.Errorf("line %d keeps Ray's count: %q", l.Num, l.Text)
		}
		if l.NCCL {
			n++
		}
	}
	if n == 0 {
		t.Error("no NCCL line read")
	}
}

// A line that starts with a Ray tag and holds more of them is lines a copy
// ran together: each tag starts a line of its own, without its
// deduplication count. The lines are vllm-project/vllm#12773's (vLLM
// workers on MI300A, through Ray), run together as a copy that lost their
// line ends gives them: that joining SYNTHETIC. A parenthesis that is no
// Ray tag, or a tag no text follows or after a Ray task's name (Ray's
// error text, the form ray.exceptions prints), stays in its line.
func TestRayTagsMidLine(t *testing.T) {
	const flat = "(RayWorkerWrapper pid=1039658) INFO 02-05 09:11:53 model_runner.py:1118] Loading model weights took 18.4303 GB (RayWorkerWrapper pid=394715, ip=10.65.144.3) DEBUG 02-05 09:08:18 shm_broadcast.py:282] Connecting to tcp://127.0.0.1:49717 [repeated 23x across cluster] (RayWorkerWrapper pid=394716, ip=10.65.144.3) INFO 02-05 09:08:19 rocm.py:121] Using Triton MLA backend. [repeated 31x across cluster]"
	want := []string{
		"INFO 02-05 09:11:53 model_runner.py:1118] Loading model weights took 18.4303 GB",
		"DEBUG 02-05 09:08:18 shm_broadcast.py:282] Connecting to tcp://127.0.0.1:49717",
		"INFO 02-05 09:08:19 rocm.py:121] Using Triton MLA backend.",
	}
	got := readAllLines(flat)
	if len(got) != len(want) {
		t.Fatalf("%d lines %q, want %q", len(got), texts(got), want)
	}
	for i, w := range want {
		if got[i].Text != w || got[i].Num != 1 {
			t.Errorf("piece %d: line %d %q, want line 1 %q", i, got[i].Num, got[i].Text, w)
		}
	}
	for _, s := range []string{
		"(pid=7) raised (see pid=12 below) and (x pid=abc)",
		"no tag first (RayWorker pid=1) x",
		// Ray's own error text names where the task ran, at the line's end
		// or after the task's name.
		"(RayTrainWorker pid=1, ip=10.0.0.1) ray.exceptions.RayTaskError(DistBackendError): ray::train_fn() (pid=2286, ip=10.0.0.2)",
		"(RayTrainWorker pid=1, ip=10.0.0.1) ray.exceptions.RayTaskError(DistBackendError): ray::train_fn() (pid=2286, ip=10.0.0.2) x",
		"(RayTrainWorker pid=1) ends in a tag (RayTrainWorker pid=2) ",
	} {
		if got := readAllLines(s); len(got) != 1 {
			t.Errorf("%q split into %q", s, texts(got))
		}
	}
}
