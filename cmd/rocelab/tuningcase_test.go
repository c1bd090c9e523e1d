package main

import (
	"encoding/json"
	"testing"
)

type comparison struct {
	Variants []struct {
		Name string `json:"name"`
		Run  struct {
			Health map[string]struct {
				Value float64 `json:"value"`
				Pass  bool    `json:"pass"`
			} `json:"health"`
			NICs []struct {
				Counters map[string]int64 `json:"counters"`
			} `json:"nics"`
			Totals struct {
				ECNMarked int64 `json:"ecn_marked"`
			} `json:"totals"`
			NCCL struct {
				Rows []struct {
					Bytes    int64   `json:"bytes"`
					OutBusBW float64 `json:"out_busbw_GBps"`
				} `json:"rows"`
				Completed bool `json:"completed"`
			} `json:"nccl"`
		} `json:"run"`
	} `json:"variants"`
}

// TestRunDefaultTuningCase is the default scenario's acceptance: the
// article's cluster as found reaches at most half the tuned busbw, through the
// modelled mechanism (ECN marks and CNPs that the tuned thresholds do not
// cause); tuned reaches at least 90% of the 2 × 100G the rings use; the
// failing health rows turn to PASS.
func TestRunDefaultTuningCase(t *testing.T) {
	code, out, stderr := rocelab(t, "run", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var c comparison
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Variants) != 2 || c.Variants[0].Name != "as-found" || c.Variants[1].Name != "tuned" {
		t.Fatalf("variants %+v", c.Variants)
	}
	found, tuned := c.Variants[0].Run, c.Variants[1].Run
	if !found.NCCL.Completed || !tuned.NCCL.Completed || len(found.NCCL.Rows) == 0 || len(found.NCCL.Rows) != len(tuned.NCCL.Rows) {
		t.Fatalf("nccl-tests did not complete: %+v %+v", found.NCCL, tuned.NCCL)
	}
	last := len(tuned.NCCL.Rows) - 1
	f, tu := found.NCCL.Rows[last].OutBusBW, tuned.NCCL.Rows[last].OutBusBW
	if f > 0.5*tu {
		t.Errorf("as-found busbw %.2f GB/s is more than half of tuned %.2f", f, tu)
	}
	if line := 2 * 12.5; tu < 0.9*line {
		t.Errorf("tuned busbw %.2f GB/s is below 90%% of the %.1f GB/s line rate the rings use", tu, line)
	}
	for k, h := range tuned.Health {
		if !h.Pass {
			t.Errorf("tuned: health %s fails (%v)", k, h.Value)
		}
	}
	if found.Health["bandwidth_utilization"].Pass {
		t.Error("as found: bandwidth utilization passes")
	}
	sum := func(r []struct {
		Counters map[string]int64 `json:"counters"`
	}, k string) (n int64) {
		for _, x := range r {
			n += x.Counters[k]
		}
		return n
	}
	if found.Totals.ECNMarked == 0 || sum(found.NICs, "np_cnp_sent") == 0 || sum(found.NICs, "rp_cnp_handled") == 0 {
		t.Errorf("as found: no marks or CNPs to explain the change")
	}
	if tuned.Totals.ECNMarked != 0 || sum(tuned.NICs, "rp_cnp_handled") != 0 {
		t.Errorf("tuned: %d marks, %d CNPs handled", tuned.Totals.ECNMarked, sum(tuned.NICs, "rp_cnp_handled"))
	}
}

// TestRunDefaultDeterministic: the default's variants run on separate
// cores give the same output every time (a shorter sweep).
func TestRunDefaultDeterministic(t *testing.T) {
	args := []string{"run", "--nccl-tests", "all_reduce_perf -b 64M -e 64M -g 8 -n 1 -w 0"}
	code, a, stderr := rocelab(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, b, _ := rocelab(t, args...); a != b {
		t.Fatal("two runs of the default scenario gave different output")
	}
	if code, _, stderr := rocelab(t, "run", "--nccl-tests", "all_reduce_perf -g 9"); code != 2 {
		t.Errorf("-g 9 on 8-GPU servers: exit %d, %s", code, stderr)
	}
}
