package collective

import (
	"fmt"
	"maps"
	"slices"
	"testing"
)

// TestHeldOutGroup19 runs held-out group 19 alone (docs/nccl.md, "Held
// out, group 19": Together AI's flapping-airplanes B200 cluster, 4 × 8
// B200 on eight 400G NDR rails with two queue pairs a connection) and
// checks its rows as TestPublicResults and TestPublicOtherCollectives do,
// without the hour of every other public result: each row outside its
// band is listed with its cause. It logs the rows within their band per
// collective and band, the figures docs/nccl.md gives.
func TestHeldOutGroup19(t *testing.T) {
	in, n := map[string]int{}, map[string]int{}
	runs := 0
	for i := range publicRuns {
		r := &publicRuns[i]
		if r.heldOut != 19 {
			continue
		}
		runs++
		checks := runPublic(t, r, 8<<30)
		checkMisses(t, r, checks)
		if r.op != "" {
			checkOpMisses(t, r, checks)
		}
		for _, c := range checks {
			key := fmt.Sprintf("%s %s", r.fn(), bandNames[c.band])
			n[key]++
			if c.pass() {
				in[key]++
			}
		}
	}
	if runs < 4 {
		t.Fatalf("group 19 has %d results, want at least 4", runs)
	}
	for _, key := range slices.Sorted(maps.Keys(n)) {
		t.Logf("group 19, %s: %d/%d rows within their band", key, in[key], n[key])
	}
}
