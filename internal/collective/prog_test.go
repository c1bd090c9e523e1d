package collective

import (
	"fmt"
	"testing"
)

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

// TestRingSimpleMessagesFollowBuffSize holds the messages a Ring/Simple all_gather posts
// on the network to NCCL's chunking, NCCL_BUFFSIZE included: a call moves
// in loops of channels × ranks × chunk (enqueue.cc calcCollChunking,
// v2.24.3 loopSize = nChannels*nchunksPerLoop*chunkSize, nchunksPerLoop =
// nRanks for ncclPatternRing), the chunk ALLGATHER_CHUNKSTEPS (4) steps of
// NCCL_BUFFSIZE/NCCL_STEPS; each step of a chunk is two slices
// (ALLGATHER_SLICESTEPS, prims_simple.h genericOp: sliceSize =
// max(divUp(nelem, 16*SlicePerChunk)*16, stepSize*StepPerSlice/32)), one
// network message each (net.cc sendProxyProgress: one isend a slice). A
// call below one loop runs one loop of partial chunks (all_gather.h
// runRing: nelem = min(chunkCount, partCount-elemOffset)), so its messages
// shrink with it while their number stays: the messages of 128 MiB on 2 ×
// 8 GPUs are a quarter of 512 MiB's.
func TestRingSimpleMessagesFollowBuffSize(t *testing.T) {
	v, _ := ParseVersion("2.24.3")
	for _, buff := range []int64{0, 1 << 21, 1 << 23} {
		env := map[string]string{"NCCL_ALGO": "Ring", "NCCL_PROTO": "Simple"}
		step := int64(4<<20) / nSteps
		if buff > 0 {
			env["NCCL_BUFFSIZE"] = fmt.Sprint(buff)
			step = buff / nSteps
		}
		c := mustCommOf(t, v, h100x8pix, 2, 8, env)
		chunk := 4 * step
		for _, size := range []int64{32 << 20, 128 << 20, 256 << 20, 512 << 20, 1 << 30, 2 << 30} {
			call := Call{Func: AllGather, Bytes: size}
			ch, err := c.Plan(call)
			if err != nil {
				t.Fatal(err)
			}
			n, nch := int64(c.NRanks), int64(ch.Channels)
			part := size / n / nch // one rank's piece on one channel
			loops := ceilDiv(part, chunk)
			// Every channel's ring crosses the network twice on 2 servers,
			// each crossing sending n-1 chunks a loop, two slices each.
			wantMsgs := nch * 2 * (n - 1) * loops * 2
			wantMsg := min(part, chunk) / 2
			tr, err := c.NetTraffic(call, 1, 4096)
			if err != nil {
				t.Fatal(err)
			}
			var msgs, bytes int64
			for _, x := range tr {
				msgs += x.Messages
				bytes += x.Bytes
			}
			if msgs != wantMsgs || bytes/msgs != wantMsg {
				t.Errorf("NCCL_BUFFSIZE %d, all_gather %s on %d channels: %d messages of %d bytes, NCCL's chunking gives %d of %d",
					buff, sizeName(size), nch, msgs, bytes/msgs, wantMsgs, wantMsg)
			}
		}
	}
}

// TestRingSimpleSlicesPerCollective: a Simple ring posts one slice a message, and
// NCCL's slices are a step (the buffer's eighth, 512 KiB of the default 4
// MiB) for Broadcast and Reduce and two steps for AllGather,
// ReduceScatter and AllReduce (collectives.h: BROADCAST_SLICESTEPS and
// REDUCE_SLICESTEPS 1, ALLGATHER_SLICESTEPS and its siblings
// NCCL_STEPS/4; enqueue.cc calcCollChunking takes them for Ring/Simple
// only). The rooted collectives' queue pairs carry messages half the
// size of the others' (docs/nccl.md, "Rooted collectives and small sizes
// against NCCL's source and model"); every send of a 1 GiB call on 4 × 8
// H100 is at most that, and most are exactly that.
func TestRingSimpleSlicesPerCollective(t *testing.T) {
	c := mustComm(t, h100x8, 4, 8, map[string]string{"NCCL_ALGO": "Ring", "NCCL_PROTO": "Simple"})
	step := c.Cfg.BuffSize / nSteps
	for _, f := range []Func{Broadcast, Reduce, AllGather, ReduceScatter, AllReduce} {
		want := 2 * step
		if f == Broadcast || f == Reduce {
			want = step
		}
		call := Call{Func: f, Bytes: 1 << 30}
		ch, err := c.Plan(call)
		if err != nil {
			t.Fatal(err)
		}
		if ch.Algo != Ring || ch.Proto != Simple {
			t.Fatalf("%s: %s/%s, want Ring/Simple", f, ch.Algo, ch.Proto)
		}
		e := builtEngine(c, call, ch)
		counts := map[int64]int64{}
		for r := range c.NRanks {
			for _, k := range e.rankK[r] {
				e.kernels[k].p.sendOps(func(b, times int64) { counts[b] += times })
			}
		}
		var top, all int64
		for b, n := range counts {
			if b > want {
				t.Errorf("%s: %d sends of %d bytes, above NCCL's slice of %d", f, n, b, want)
			}
			if b == want {
				top += n
			}
			all += n
		}
		if top*2 < all {
			t.Errorf("%s: %d of %d sends are whole %d-byte slices, want most", f, top, all, want)
		}
	}
}
