package collective

import "testing"

// TestSendOpsEnumerates holds sendOps, which counts a program's sends from
// its first loop and its tail, to the operations themselves, one by one,
// on every kind of program and ring position over sizes that leave whole loops, a partial
// last loop, a last chunk not a multiple of the slices, and (trees up to
// NCCL 2.19) empty loops after the data.
func TestSendOpsEnumerates(t *testing.T) {
	type sum struct{ ops, bytes, sq int64 }
	funcs := []Func{AllReduce, AllGather, ReduceScatter, Broadcast, Reduce}
	kinds := []progKind{progRing, progTreeUp, progTreeDown, progTreeRoot, progP2PSend, progP2PRecv}
	cases := 0
	for _, kind := range kinds {
		for _, f := range funcs {
			for _, n := range []int{1, 2, 3, 8} {
				for _, part := range []int64{0, 1, 100, 4096, 65536, 65537, 3*65536*8 + 12345, 1 << 22} {
					for _, slices := range []int{1, 2, 4} {
						for _, steps := range []int64{0, 40} {
							for pos := range n {
								p := prog{kind: kind, f: f, n: n, pos: pos, root: 1, part: part, chunk: 65536, slices: slices, steps: steps, nrecv: 1, nsend: 1}
								if kind == progTreeRoot {
									p.nsend = 0
								}
								var want, got sum
								var o op
								for i := 0; i < p.length(); i++ {
									p.op(i, &o)
									if o.send {
										want.ops++
										want.bytes += o.bytes
										want.sq += o.bytes * o.bytes
									}
								}
								p.sendOps(func(b, times int64) {
									got.ops += times
									got.bytes += b * times
									got.sq += b * b * times
								})
								if got != want {
									t.Errorf("%+v: sendOps gives %d ops, %d bytes (Σb² %d), the operations %d, %d (%d)", p, got.ops, got.bytes, got.sq, want.ops, want.bytes, want.sq)
								}
								cases++
							}
						}
					}
				}
			}
		}
	}
	if cases == 0 {
		t.Fatal("no programs")
	}
}
