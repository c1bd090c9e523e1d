package scenario

import (
	"fmt"
	"strings"
	"testing"
)

// The storage class of examples/storage-read.yaml: RDMA READs on priority
// 1 beside an NCCL job on priority 3. The counters show the data's
// direction turned around: the targets (responders, h4 and h5) count
// rx_read_requests and send the priority-1 bytes; the clients (the job's
// servers) receive them and, on ECN marks, send the CNPs that the targets'
// QPs handle. With priority 1 lossy and unmarked, responses are dropped:
// the clients count implied_nak_seq_err and read again, the targets count
// the repeated requests as duplicates; a READ whose last response is lost
// has no later response to reveal the gap and waits out the local ACK
// timeout (4.3 s at the default 20), so storage all but stops while the
// job, alone on the links, speeds up.
func TestStorageRead(t *testing.T) {
	s := example(t, "storage-read")
	var b strings.Builder
	fmt.Fprintf(&b, "\n%-9s %-8s %10s %10s %12s %11s %11s %9s %9s %8s %10s\n", "variant", "host", "read_req", "dup_req", "implied_nak", "np_cnp_sent", "rp_cnp_hdl", "tx_p1 MB", "rx_p1 MB", "drops p1", "read Gb/s")
	for _, v := range s.Variants {
		tw, _ := runJob(t, v)
		checkConservation(t, tw)
		var reads, bytes int64
		for _, st := range tw.Jobs.Background.Stats {
			reads += st.Messages
			bytes += st.Bytes
		}
		gbps := float64(bytes) * 8 / tw.Net.Now().Seconds() / 1e9
		var targets, clients struct{ req, dup, nak, cnpSent, cnpHandled, tx1, rx1 int64 }
		var drops1 int64
		for _, pt := range tw.Net.Ports {
			drops1 += pt.Snapshot().RxPrioDiscards[1]
		}
		for i, h := range tw.NICs {
			c := h.Port().Snapshot()
			row := &clients
			if i >= 4 {
				row = &targets
			}
			row.req += h.HW.RxReadRequests
			row.dup += h.HW.DuplicateRequest
			row.nak += h.HW.ImpliedNakSeqErr
			row.cnpSent += h.HW.NPCNPSent
			row.cnpHandled += h.HW.RPCNPHandled
			row.tx1 += c.TxPrioBytes[1]
			row.rx1 += c.RxPrioBytes[1]
		}
		for _, r := range []struct {
			name string
			c    *struct{ req, dup, nak, cnpSent, cnpHandled, tx1, rx1 int64 }
		}{{"h0-h3", &clients}, {"h4-h5", &targets}} {
			fmt.Fprintf(&b, "%-9s %-8s %10d %10d %12d %11d %11d %9.1f %9.1f %8d %10.2f\n", v.Variant, r.name, r.c.req, r.c.dup, r.c.nak, r.c.cnpSent, r.c.cnpHandled,
				float64(r.c.tx1)/1e6, float64(r.c.rx1)/1e6, drops1, gbps)
		}
		if clients.req != 0 || targets.req < reads || targets.tx1 < bytes || clients.rx1 < bytes {
			t.Errorf("%s: rx_read_requests clients %d targets %d for %d reads; priority-1 bytes sent by targets %d, received by clients %d, read %d",
				v.Variant, clients.req, targets.req, reads, targets.tx1, clients.rx1, bytes)
		}
		switch v.Variant {
		case "lossless":
			if clients.cnpSent == 0 || targets.cnpHandled == 0 || clients.nak != 0 || drops1 != 0 {
				t.Errorf("lossless: CNPs sent by clients %d, handled by targets %d; implied NAKs %d, drops %d", clients.cnpSent, targets.cnpHandled, clients.nak, drops1)
			}
		case "lossy":
			if clients.nak == 0 || targets.dup == 0 || drops1 == 0 || targets.req <= reads {
				t.Errorf("lossy: implied_nak_seq_err %d, duplicate_request %d, priority-1 drops %d, %d requests for %d reads", clients.nak, targets.dup, drops1, targets.req, reads)
			}
		}
	}
	t.Log(b.String())
}
