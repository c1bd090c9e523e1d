package collective

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

// TestHeldOutGroup18SendRecv runs held-out group 18's sendrecv sweeps
// alone (docs/nccl.md, "Held out, group 18": Together AI's use3a-ss,
// 2 and 4 × 8 B200, 1 KiB-256 MiB), in seconds where the group's rings
// of up to 32 servers at 8 GiB take most of TestDocs.
func TestHeldOutGroup18SendRecv(t *testing.T) {
	runHeldOutRuns(t, 18, 3, func(r *publicRun) bool { return strings.Contains(r.file, "sendrecv") })
}

// TestHeldOutGroup19 runs held-out group 19 alone (docs/nccl.md, "Held
// out, group 19": Together AI's flapping-airplanes B200 cluster, 4 × 8
// B200 on eight 400G NDR rails with two queue pairs a connection).
func TestHeldOutGroup19(t *testing.T) { runHeldOutGroup(t, 19, 4) }

// TestHeldOutGroup20 runs held-out group 20 alone (docs/nccl.md, "Held
// out, group 20": two GKE A3 Ultra pod pairs over RoCE, one H200 and one
// 400G NIC a pod, the NIC off the GPU's PCIe switch).
func TestHeldOutGroup20(t *testing.T) { runHeldOutGroup(t, 20, 2) }

// TestHeldOutGroup21 runs held-out group 21 alone (docs/nccl.md, "Held
// out, group 21": a DGX Spark pair whose one cable is two 100G RoCE
// interfaces a node, both given to NCCL).
func TestHeldOutGroup21(t *testing.T) { runHeldOutGroup(t, 21, 1) }

// runHeldOutGroup runs the public results of one held-out group and
// checks their rows as TestPublicResults and TestPublicOtherCollectives
// do, without the hour of every other public result: each row outside its
// band is listed with its cause. It logs the rows within their band per
// collective and band, the figures docs/nccl.md gives.
func runHeldOutGroup(t *testing.T, group, want int) {
	runHeldOutRuns(t, group, want, func(*publicRun) bool { return true })
}

// runHeldOutRuns is runHeldOutGroup on the group's results that keep
// selects.
func runHeldOutRuns(t *testing.T, group, want int, keep func(*publicRun) bool) {
	in, n := map[string]int{}, map[string]int{}
	runs := 0
	for i := range publicRuns {
		r := &publicRuns[i]
		if r.heldOut != group || !keep(r) {
			continue
		}
		runs++
		checks := runPublic(t, r, r.sizeLimit())
		checkMisses(t, r, checks)
		if r.op != "" {
			checkOpMisses(t, r, checks)
		}
		for _, c := range checks {
			if c.band == "" {
				continue
			}
			key := fmt.Sprintf("%s %s", r.fn(), bandNames[c.band])
			n[key]++
			if c.pass() {
				in[key]++
			}
		}
	}
	if runs < want {
		t.Fatalf("group %d has %d results, want at least %d", group, runs, want)
	}
	for _, key := range slices.Sorted(maps.Keys(n)) {
		t.Logf("group %d, %s: %d/%d rows within their band", group, key, in[key], n[key])
	}
}
