package scenario

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"rocelab/internal/fault"
	"rocelab/internal/packet"
)

// retxRun is one loss rate and retransmission scheme of the comparison.
type retxRun struct {
	scheme            string
	p                 float64
	got, want         float64 // goodput and its analytic estimate, Gb/s
	drops, tx, resent float64
	naks, timeouts    int64
	perLoss           float64
}

// lossyRun runs lossy-link's 256 MiB WRITE through a link that loses data
// packets only at rate p, with selective repeat or go-back-N, and adaptive
// retransmission on so that a lost resend costs microseconds, not the QP
// timeout: what is compared is the scheme.
func lossyRun(t *testing.T, p float64, sr bool) retxRun {
	s := example(t, "lossy-link")
	s.Faults = nil
	s.Host.NIC.SelectiveRepeat, s.Host.NIC.OutOfOrder, s.Host.NIC.NAKThreshold = sr, sr, 0
	s.Host.NIC.Adaptive = true
	tw, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	l := fault.Bernoulli(p)
	l.Kinds = 1 << packet.Data
	tw.NICs[0].Port().Peer().SetLoss(fault.NewLoss(l, tw.Net.Streams.Stream("test/loss")))
	tw.Run()
	fct, ok := tw.Traffic.State(0).FCT()
	if !ok {
		t.Fatalf("p=%v sr=%v: the flow did not complete", p, sr)
	}
	checkConservation(t, tw)
	r := retxRun{scheme: "go-back-N", p: p, got: float64(tw.Flows[0].Bytes) * 8 / fct.Seconds() / 1e9}
	if sr {
		r.scheme = "selective"
	}
	tot := tw.Net.Totals()
	r.drops, r.resent = float64(tot.Dropped.Packets), float64(tot.Retransmitted.Packets)
	r.tx = float64(tot.Sent.Packets + tot.Retransmitted.Packets)
	r.naks, r.timeouts = tw.NICs[0].HW.PacketSeqErr, tw.NICs[0].HW.LocalAckTimeoutErr
	r.perLoss = r.resent / max(r.drops, 1)
	return r
}

// Selective repeat against go-back-N at 0.1 % and 1 % random loss, each
// against its analytic estimate with the loss rate the run drew, p:
//
//   - go-back-N resends the lost packet and the k sent after it before the
//     NAK came back (k from the path, as TestGoBackNAnalytic derives it):
//     goodput G/(1 + p(1+k));
//   - selective repeat resends only the lost packet, the rest of the
//     window placed at the responder: goodput G·(1 − p);
//
// plus, for both, each local ACK timeout (a resend lost too) costs its
// adaptive timer, 1.5 × 4 us on average, and the path's round trip.
func TestSelectiveRepeatAnalytic(t *testing.T) {
	const rate = 100e9
	mtu := 4096.0
	wire := mtu + float64(packet.Overhead(false))
	tPkt := wire * 8 / rate
	prop := 15e-9
	codeword := 5280 / rate
	nakWire := float64(packet.DataFrame(0, packet.AETH, false)+packet.PreambleIFG) * 8 / rate
	rtt := tPkt + 2*(tPkt+prop) + 2*(nakWire+prop) + 4*codeword/2
	k := math.Floor(rtt / tPkt)
	G := 100 * mtu / wire
	bytes := float64(256 << 20)
	var b strings.Builder
	fmt.Fprintf(&b, "\n%-6s %-10s %9s %9s %8s %8s %8s %8s %9s\n", "loss", "scheme", "Gb/s", "estimate", "drops", "resent", "per loss", "NAKs", "timeouts")
	runs := map[string]retxRun{}
	for _, p := range []float64{0.001, 0.01} {
		for _, sr := range []bool{false, true} {
			r := lossyRun(t, p, sr)
			pr := r.drops / r.tx
			ideal := G / (1 + pr*(1+k))
			if sr {
				ideal = G * (1 - pr)
			}
			tmo := float64(r.timeouts) * (1.5*4e-6 + rtt)
			r.want = bytes * 8 / (bytes*8/(ideal*1e9) + tmo) / 1e9
			runs[fmt.Sprint(p, r.scheme)] = r
			fmt.Fprintf(&b, "%-6s %-10s %9.3f %9.3f %8.0f %8.0f %8.2f %8d %9d\n", fmt.Sprintf("%g%%", 100*p), r.scheme, r.got, r.want, r.drops, r.resent, r.perLoss, r.naks, r.timeouts)
			if sd := math.Sqrt(r.tx * p * (1 - p)); math.Abs(r.drops-r.tx*p) > 4*sd {
				t.Errorf("%v %s: %.0f drops in %.0f transmissions: not a %v loss rate", p, r.scheme, r.drops, r.tx, p)
			}
			if math.Abs(r.got-r.want) > 0.15*(G-r.want)+0.05 {
				t.Errorf("%v %s: goodput %.3f Gb/s, estimate %.3f (line %.3f): the loss of goodput is more than 15%% off", p, r.scheme, r.got, r.want, G)
			}
		}
		gbn, sr := runs[fmt.Sprint(p, "go-back-N")], runs[fmt.Sprint(p, "selective")]
		if sr.got <= gbn.got || sr.perLoss > 1.1 || gbn.perLoss < k {
			t.Errorf("%v: selective %.3f Gb/s (%.2f resent per loss), go-back-N %.3f (%.2f per loss)", p, sr.got, sr.perLoss, gbn.got, gbn.perLoss)
		}
	}
	t.Logf("%s(line-rate goodput %.3f Gb/s, k = %.0f packets in flight behind a loss)", b.String(), G, k)
}
