package collective

import (
	"math"
	"testing"

	"rocelab/internal/unit"
)

// TestLL128StreamsOffTheNetwork: an LL128 kernel reads a step received
// from the network line by line as the NIC lands it (prims_ll128.h polls
// each line's flag), so where the kernel is slower than the wire the
// receiving operation ends one kernel operation after the first lines
// land, whatever the port's rate. On two servers of one GPU (a Ring/LL128
// AllReduce of 128 KiB on one channel: two network hops of a 64 KiB step)
// a 400G and an 800G port give the same time; read only once the whole
// step has arrived, the 400G call would be longer by twice the
// difference of the two wire times (1.4 µs).
func TestLL128StreamsOffTheNetwork(t *testing.T) {
	env := map[string]string{"NCCL_ALGO": "Ring", "NCCL_PROTO": "LL128", "NCCL_MAX_NCHANNELS": "1"}
	call := Call{Func: AllReduce, Bytes: 128 << 10}
	var times, wires []float64
	for _, rate := range []unit.BitRate{400 * unit.Gbps, 800 * unit.Gbps} {
		c := mustComm(t, server("H100", 1, 1, rate, 5), 2, 1, env)
		ch, err := c.Plan(call)
		if err != nil {
			t.Fatal(err)
		}
		if ch.Algo != Ring || ch.Proto != LL128 || ch.Channels != 1 {
			t.Fatalf("%v: %s/%s/%d, want Ring/LL128/1", rate, ch.Algo, ch.Proto, ch.Channels)
		}
		step := float64(64<<10) * 128 / 120
		kernel := step / c.channelCap(AllReduce, Ring, LL128, 1) / 1e3 // µs at GB/s
		wire := rate.TxTime(unit.Bytes(step))
		if kernel <= wire.Micros() {
			t.Fatalf("%v: a kernel step of %.2f µs is not slower than the wire %v", rate, kernel, wire)
		}
		res, _ := runOn(t, c, 1, call)
		times = append(times, res[0].Time().Micros())
		wires = append(wires, wire.Micros())
	}
	saved := 2 * (wires[0] - wires[1])
	if d := times[0] - times[1]; math.Abs(d) > 0.2 || saved < 1 {
		t.Errorf("400G %.2f µs, 800G %.2f µs: differ by %.2f µs (store and forward: %.2f)", times[0], times[1], d, saved)
	}
}
