package scenario

import (
	"fmt"
	"strings"
	"testing"

	"rocelab/examples"
)

// lbRow is one cell pair of the load-balancing table.
type lbRow struct {
	name              string
	busbw             float64
	naks, oos, retx   int64
	reordered, placed int64
	uplinkMax         float64
}

// lbRun runs one variant of load-balancing.yaml at the given message
// size, with or without the out-of-order NIC.
func lbRun(t *testing.T, text, variant string, ooo bool) lbRow {
	t.Helper()
	s := mustLoad(t, "load-balancing.yaml", text)
	for _, v := range s.Variants {
		if v.Variant == variant {
			s = v
		}
	}
	s.Host.NIC.OutOfOrder = ooo
	tw, sw := runJob(t, s)
	r := lbRow{name: variant, busbw: sw.Rows[0].Out.BusBW, retx: tw.Net.Totals().Retransmitted.Packets, uplinkMax: ecmpImbalance(tw)}
	for _, n := range tw.NICs {
		r.naks += n.HW.PacketSeqErr
		r.oos += n.HW.OutOfSequence
		r.reordered += n.HW.Reordered
		r.placed += n.HW.PlacedOutOfOrder
	}
	checkConservation(t, tw)
	return r
}

// checkConservation checks sent + retransmitted = delivered + dropped +
// discarded + in flight, in packets and bytes.
func checkConservation(t *testing.T, tw *Twin) {
	t.Helper()
	tot, in := tw.Net.Totals(), tw.Net.InFlight()
	if l, r := tot.Sent.Bytes+tot.Retransmitted.Bytes, tot.Delivered.Bytes+tot.Dropped.Bytes+tot.Discarded.Bytes+in.Bytes; l != r {
		t.Errorf("%s: bytes sent + resent %d != delivered + dropped + discarded + in flight %d", tw.Scenario.Name, l, r)
	}
	if l, r := tot.Sent.Packets+tot.Retransmitted.Packets, tot.Delivered.Packets+tot.Dropped.Packets+tot.Discarded.Packets+in.Packets; l != r {
		t.Errorf("%s: packets sent + resent %d != delivered + dropped + discarded + in flight %d", tw.Scenario.Name, l, r)
	}
}

// The load-balancing acceptance table: on the 2:1 leaf-spine of qps-ecmp
// with one QP per connection, NCCL ring AllReduce busbw under each path
// selection, with plain go-back-N NICs and with out-of-order NICs, beside
// the non-blocking ceiling (the same 16 NICs on one switch).
//
//   - ECMP collides two ring crossings on one uplink: below the ceiling.
//   - Spraying with plain RC NICs reorders packets and every reordering is
//     a NAK and a go-back-N episode: the NAK storm, and busbw lost.
//   - Spraying with out-of-order NICs reaches the ceiling within 5 %, with
//     no NAK: the reordering is still there, placed instead of dropped.
//   - Adaptive routing (per packet, least-filled queue) spreads the load
//     with little reordering, but with plain NICs a reordered last packet
//     is dropped behind a NAK already sent and only the local ACK timeout
//     (4.3 s at NCCL_IB_TIMEOUT 20) recovers it; with out-of-order NICs
//     it reaches the ceiling. Flowlets change little: NCCL's QPs are
//     rarely silent for the 50 us gap.
func TestLoadBalancingTable(t *testing.T) {
	data, err := examples.FS.ReadFile("load-balancing.yaml")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	nb := strings.NewReplacer("  leaves: 2", "  leaves: 1", "  spines: 2", "  spines: 1",
		"  hosts_per_leaf: 8 ", "  hosts_per_leaf: 16 ", "  uplinks_per_leaf: 4 ", "  uplinks_per_leaf: 1 ").Replace(text)
	ceil := lbRun(t, nb, "ecmp", false)
	var b strings.Builder
	fmt.Fprintf(&b, "\nnon-blocking ceiling (one switch): busbw %.2f GB/s\n", ceil.busbw)
	fmt.Fprintf(&b, "%-9s %-8s %7s %6s %9s %9s %9s %10s %8s %7s\n", "mode", "NIC", "busbw", "/ceil", "NAKs", "OOS", "retx", "reordered", "placed", "up max")
	rows := map[string]lbRow{}
	for _, mode := range []string{"ecmp", "flowlet", "adaptive", "spray"} {
		for _, ooo := range []bool{false, true} {
			var r lbRow
			if gbn := rows[mode+"/go-back-N"]; ooo && gbn.reordered == 0 {
				// Nothing arrived out of order: the out-of-order NIC
				// changes nothing, and the run would repeat to the bit.
				r = gbn
			} else {
				r = lbRun(t, text, mode, ooo)
			}
			nicName := "go-back-N"
			if ooo {
				nicName = "ooo"
			}
			rows[mode+"/"+nicName] = r
			fmt.Fprintf(&b, "%-9s %-8s %7.2f %5.1f%% %9d %9d %9d %10d %8d %7.2f\n", mode, nicName, r.busbw, 100*r.busbw/ceil.busbw, r.naks, r.oos, r.retx, r.reordered, r.placed, r.uplinkMax)
		}
	}
	t.Log(b.String())
	ecmp, storm, ooo := rows["ecmp/go-back-N"], rows["spray/go-back-N"], rows["spray/ooo"]
	if ecmp.busbw > 0.95*ceil.busbw || ecmp.uplinkMax < 1.5 {
		t.Errorf("ECMP with one QP: busbw %.2f of %.2f, uplink max/mean %.2f: the collision is gone", ecmp.busbw, ceil.busbw, ecmp.uplinkMax)
	}
	if storm.naks < 1000 || storm.retx < storm.naks || storm.busbw > 0.97*ooo.busbw {
		t.Errorf("spray, go-back-N: %d NAKs, %d resent, busbw %.2f against %.2f with the out-of-order NIC: no NAK storm", storm.naks, storm.retx, storm.busbw, ooo.busbw)
	}
	if ooo.busbw < 0.95*ceil.busbw || ooo.naks != 0 || ooo.placed == 0 {
		t.Errorf("spray, out-of-order NIC: busbw %.2f (ceiling %.2f), %d NAKs, %d placed", ooo.busbw, ceil.busbw, ooo.naks, ooo.placed)
	}
	if a := rows["adaptive/ooo"]; a.busbw < 0.95*ceil.busbw {
		t.Errorf("adaptive routing, out-of-order NIC: busbw %.2f of %.2f", a.busbw, ceil.busbw)
	}
	for k, r := range rows {
		if strings.HasSuffix(k, "/ooo") && r.naks != 0 {
			t.Errorf("%s: %d NAKs without a loss", k, r.naks)
		}
	}
}
