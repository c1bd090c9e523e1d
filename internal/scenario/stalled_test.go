package scenario

import (
	"strings"
	"testing"

	"rocelab/examples"
)

// Runs that stall are measured over the time they took, not up to their
// last delivered byte: incast-nopfc's receiver got 1.97 MB in 5 ms,
// about 3% of its 100G, not the 50% it read as when the window closed at
// the last delivery; its flows' goodput is what they delivered over the
// run; P99 counts the packets sent and not acknowledged when the run
// ended.
func TestStalledIncastMeasuredToTheEnd(t *testing.T) {
	tw, _ := run(t, example(t, "incast-nopfc"))
	o := tw.Observe()
	if u := o.Health.BandwidthUtilization; u.Value > 0.05 || u.NA {
		t.Errorf("utilization %.4f, want at most 5%% (1.97 MB in 5 ms on 100G)", u.Value)
	}
	var delivered int64
	for _, f := range o.Flows {
		delivered += f.Delivered
		if f.Status != "running" || f.GoodputGbps > 0.5 {
			t.Errorf("flow %s: %s at %.3f Gb/s, want running below 0.5 Gb/s", f.Name, f.Status, f.GoodputGbps)
		}
	}
	if want := float64(delivered) * 8 / o.Sim.End.Seconds() / 100e9; want > 0.05 {
		t.Errorf("delivered %d B is %.3f of the run's capacity", delivered, want)
	}
	if p := o.Health.P99LatencyUS; p.Pass || p.Value < 4500 || p.Value > 5000 || !strings.Contains(p.Note, "unacknowledged for more than") {
		t.Errorf("P99 %+v: want a FAIL between 4.5 ms and the run's 5 ms, counting stalled packets", p)
	}
}

// Packets still in flight when a run of continuous traffic ends are not
// stalled: a 100G flow far longer than the run keeps a window of packets
// sent and unacknowledged, each only a few round trips old, and P99 is the
// delivered packets' (below a microsecond through one switch). A pause
// storm that holds the main flow of pause-storm from 100 µs to 3 ms leaves
// its packets stalled: they count at their age, milliseconds.
func TestStalledOnlyWhenOld(t *testing.T) {
	s := mustLoad(t, "in-flight", `name: in-flight
duration: 2ms
topology: {kind: single-switch, hosts: 2, host_link: {rate: 100G, cable: 3m}}
traffic:
  flows:
    - {name: long, src: h0, dst: h1, bytes: 1GiB}
`)
	tw, _ := run(t, s)
	var unacked int64
	for _, c := range tw.Conns() {
		unacked += c.Unacked
	}
	o := tw.Observe()
	if unacked == 0 || o.Basis.RoCEStalled != 0 {
		t.Errorf("%d packets unacknowledged at the end, %d counted stalled: want some in flight and none stalled", unacked, o.Basis.RoCEStalled)
	}
	if p := o.Health.P99LatencyUS; !p.Pass || p.Value > 2 {
		t.Errorf("P99 %+v: want the delivered packets' one-way latency, below 2 us", p)
	}
	tw, _ = run(t, example(t, "pause-storm"))
	o = tw.Observe()
	if p := o.Health.P99LatencyUS; p.Pass || p.Value < 2900 || o.Basis.RoCEStalled == 0 {
		t.Errorf("pause-storm P99 %+v, %d stalled: want the held packets counted at their age, at least 2.9 ms", p, o.Basis.RoCEStalled)
	}
}

// A flow paced at 100 b/s sends one packet (the pacer leaves at once and
// then waits 5.5 minutes for the next); over a 50 ms run its goodput is
// that packet's 4 KiB over 50 ms, 0.66 Mb/s, not the 43 Gb/s the packet
// took on the wire.
func TestSlowFlowGoodput(t *testing.T) {
	s := mustLoad(t, "slow", `name: slow
duration: 50ms
topology: {kind: single-switch, hosts: 2, host_link: {rate: 100G, cable: 3m}}
traffic:
  flows:
    - {name: slow, src: h0, dst: h1, bytes: 1MiB, rate: 100bps}
`)
	tw, _ := run(t, s)
	o := tw.Observe()
	if g := o.Flows[0].GoodputGbps; g > 1e-3 || g <= 0 {
		t.Errorf("goodput %.6f Gb/s, want at most 1 Mb/s", g)
	}
}

// retry-exceeded: one flow fails with status 12 after 8 × 4.29 s and the
// flow behind it is cancelled: the failed flow's goodput is over the time
// to its failure (nearly nothing), and with the QP timeout 0, which is
// infinite, it never times out nor fails: it waits out the run.
func TestRetryExceededAndInfiniteTimeout(t *testing.T) {
	tw, _ := run(t, example(t, "retry-exceeded"))
	o := tw.Observe()
	st := map[string]string{}
	for _, f := range o.Flows {
		st[f.Name] = f.Status
		if f.Status != "ok" && f.GoodputGbps > 0.01 {
			t.Errorf("%s (%s): goodput %.3f Gb/s", f.Name, f.Status, f.GoodputGbps)
		}
	}
	if st["doomed"] != "transport retry counter exceeded" || st["behind"] != "cancelled" {
		t.Errorf("statuses %v", st)
	}
	data, _ := examples.FS.ReadFile("retry-exceeded.yaml")
	y := strings.Replace(string(data), "duration: 40s", "duration: 60s\nhost: {qp: {timeout: 0}}", 1)
	tw, _ = run(t, mustLoad(t, "retry-exceeded-timeout0", y))
	o = tw.Observe()
	for _, f := range o.Flows {
		st[f.Name] = f.Status
	}
	if st["doomed"] != "running" || st["behind"] != "not started" {
		t.Errorf("timeout 0: statuses %v, want the doomed flow still waiting", st)
	}
	for _, n := range o.NICs {
		for _, c := range n.HW {
			if c.Name == "local_ack_timeout_err" && c.Value != 0 {
				t.Errorf("%s: local_ack_timeout_err %d with an infinite timeout", n.Name, c.Value)
			}
		}
	}
}
