package collective

import (
	"math"
	"slices"
	"testing"

	"rocelab/internal/gpu"
	"rocelab/internal/testnet"
)

// TestQuadOrdinal: NCCL's schedule enumerates the peer deltas of 16 ranks
// as its init.cc comment prints them: 0, 1, 3, 6, 10, 15, 5, 12, 4, 13, 7,
// 2, 14, 11, 9, 8; and of 6 (pow2Up 8, deltas of 6 and 7 skipped) as
// 0, 1, 3, 2, 5, 4.
func TestQuadOrdinal(t *testing.T) {
	for _, tc := range []struct {
		n   int
		seq []int
	}{
		{16, []int{0, 1, 3, 6, 10, 15, 5, 12, 4, 13, 7, 2, 14, 11, 9, 8}},
		{6, []int{0, 1, 3, 2, 5, 4}},
	} {
		for ord, delta := range tc.seq {
			if got := quadOrdinal(delta, tc.n); got != ord {
				t.Errorf("n=%d: delta %d at %d, want %d", tc.n, delta, got, ord)
			}
		}
	}
}

// TestP2PChannel: on two servers of 8 GPUs every peer on the other server
// shares one base channel (ncclP2pChannelBaseForRound: node delta ×
// divUp(8, NCCL_MAX_DEV_WORK_P2P_PER_BATCH) + local delta / 8), and so
// do the peers on the same server: with 16 p2p channels a GPU's 8 network
// operations run on channels 8 and 9 on NCCL 2.28 (bit-reversed base plus
// the part), on 1 and 9 on 2.22-2.27 (base plus the bit-reversed part), on
// 8 and 9 up to 2.21 (the base's mirrored p2pChannels entry plus the
// part); its local ones on 0 and 1, 0 and 8, 0 and 1. On one server of 8
// each round has its own base.
func TestP2PChannel(t *testing.T) {
	for _, tc := range []struct {
		version         string
		servers         int
		net, local      [2]int
		distinctOnLocal bool
	}{
		{"2.28.3", 2, [2]int{8, 9}, [2]int{0, 1}, false},
		{"2.26.2", 2, [2]int{1, 9}, [2]int{0, 8}, false},
		{"2.17.1", 2, [2]int{8, 9}, [2]int{0, 1}, false},
		{"2.28.3", 1, [2]int{}, [2]int{}, true},
	} {
		cm := commOf(t, tc.version, b200Vultr, tc.servers)
		if tc.servers > 1 && cm.p2pChannels() != 16 {
			t.Fatalf("%s: %d p2p channels, want 16", tc.version, cm.p2pChannels())
		}
		for _, src := range []int{0, 5} {
			seen := map[int]bool{}
			for dst := 0; dst < cm.NRanks; dst++ {
				if dst == src {
					continue
				}
				want := tc.local
				if dst/8 != src/8 {
					want = tc.net
				}
				for j := range 2 {
					got := cm.p2pChannel(src, dst, j)
					if tc.distinctOnLocal {
						if j == 0 && seen[got] {
							t.Errorf("%s, one server: rank %d's peer %d shares channel %d", tc.version, src, dst, got)
						}
						seen[got] = true
						continue
					}
					if got != want[j] {
						t.Errorf("%s: rank %d to %d, part %d: channel %d, want %d", tc.version, src, dst, j, got, want[j])
					}
				}
			}
		}
	}
}

// TestP2PDepth: the subs of one proxy operation share the channel's 16
// shared slots, at most NCCL_STEPS (8) each (net.cc maxDepth).
func TestP2PDepth(t *testing.T) {
	for nsubs, want := range map[int]int64{1: 8, 2: 8, 3: 5, 4: 4, 8: 2, 12: 2} {
		if got := p2pDepth(nsubs); got != want {
			t.Errorf("%d subs: depth %d, want %d", nsubs, got, want)
		}
	}
}

// TestAllToAllNetChannels: an alltoall on two servers of 8 B200 with a
// 400G NIC each moves a GPU's data for the other server on the
// p2pnChannelsPerPeer (2) channels that all its network peers share
// (TestP2PChannel), each at most P2PNetChannelRate: its busbw, 2 × 15/16
// × a GPU's network rate on two servers (nccl-tests#130), is at most
// 2 × 15/16 × 2 × 10 = 37.5 GB/s, not the NIC's 91 (the twin gave each
// peer channels of its own before). The Vultr B200 run's is 42.4.
func TestAllToAllNetChannels(t *testing.T) {
	cm := commOf(t, "2.28.3", b200Vultr, 2)
	res, _ := runOn(t, cm, 1, Call{Func: AllToAll, Bytes: 256 << 20})
	hi := 2 * 15.0 / 16 * float64(cm.p2pPerPeer()) * P2PNetChannelRate
	if bw := busBW(res[0], cm.NRanks); bw > hi || bw < 0.85*hi {
		t.Errorf("alltoall of 256 MiB: busbw %.1f GB/s, want %.1f-%.1f", bw, 0.85*hi, hi)
	}
}

// commOf returns a communicator of NCCL version on servers servers of srv
// (8 GPUs and 8 NICs each), all 8 GPUs of each (RoCE v2 GID index 3,
// which NCCL before 2.21 needs set).
func commOf(t *testing.T, version string, srv gpu.Server, servers int) *Comm {
	t.Helper()
	v, _ := ParseVersion(version)
	return mustCommOf(t, v, srv, servers, 8, map[string]string{"NCCL_IB_GID_INDEX": "3"})
}

// TestAllToAllShares: an alltoall of 256 MiB on two servers of 8 B200
// (NCCL 2.28.3) copies each rank's own 1/16 on its channels' warps
// (sendrecv.h isCopy) and runs a rank's 8 network sends of one part on one
// channel, the 8 subs of one proxy operation, so that each network
// connection keeps p2pDepth(8) = 16/8 = 2 slices in flight (net.cc
// maxDepth), not NCCL_STEPS.
func TestAllToAllShares(t *testing.T) {
	cm := commOf(t, "2.28.3", b200Vultr, 2)
	call := Call{Func: AllToAll, Bytes: 256 << 20}
	ch, err := cm.Plan(call)
	if err != nil {
		t.Fatal(err)
	}
	e := builtEngine(cm, call, ch)
	copied := make([]int64, cm.NRanks)
	for _, k := range e.kernels {
		if k.p.kind == progP2PCopy {
			copied[k.rank] += k.p.part
		}
	}
	for r, b := range copied {
		if want := call.Bytes / int64(cm.NRanks); b != want {
			t.Errorf("rank %d copies %d bytes to itself, want %d", r, b, want)
		}
	}
	nets := 0
	for _, cn := range e.conns {
		if !cn.net {
			continue
		}
		nets++
		if cn.window != 2 {
			t.Errorf("network connection keeps %d slices in flight, want 2", cn.window)
		}
	}
	if want := cm.NRanks * 8 * 2; nets != want {
		t.Errorf("%d network connections, want %d (16 ranks × 8 peers × 2 parts)", nets, want)
	}
}

// TestP2PProto: a point-to-point operation to a peer on another server
// runs Simple at every size (its connection has no LL buffer unless
// NCCL_ALLOC_P2P_NET_LL_BUFFERS=1: net.cc allocP2pNetLLBuffers), so a
// call with one runs Simple; on one server, or when every pair stays on
// its server, LL up to NCCL_P2P_LL_THRESHOLD (16 KiB) a channel of a
// peer's, and NCCL before 2.14 had no point-to-point LL.
func TestP2PProto(t *testing.T) {
	for _, tc := range []struct {
		version string
		servers int
		call    Call
		want    Proto
	}{
		{"2.28.3", 2, Call{Func: SendRecv, Bytes: 8}, Simple},
		{"2.28.3", 2, Call{Func: SendRecv, Bytes: 8, Peer: 8}, Simple},
		{"2.28.3", 2, Call{Func: SendRecv, Bytes: 8, Peer: 16}, LL},
		{"2.28.3", 2, Call{Func: AllToAll, Bytes: 16 << 10}, Simple},
		{"2.17.1", 2, Call{Func: AllToAll, Bytes: 1 << 10}, Simple},
		{"2.28.3", 2, Call{Func: SendRecv, Bytes: 8, Pairs: [][2]int{{0, 1}, {9, 8}}}, LL},
		{"2.28.3", 2, Call{Func: SendRecv, Bytes: 8, Pairs: [][2]int{{0, 1}, {7, 8}}}, Simple},
		{"2.28.3", 1, Call{Func: SendRecv, Bytes: 8}, LL},
		{"2.13.4", 1, Call{Func: SendRecv, Bytes: 8}, Simple},
	} {
		cm := commOf(t, tc.version, b200Vultr, tc.servers)
		if got := planProto(t, cm, tc.call); got != tc.want {
			t.Errorf("%s, %d servers, %v: %v, want %v", tc.version, tc.servers, tc.call, got, tc.want)
		}
	}
	// On one server the threshold: an operation's own bytes (alltoall's
	// a rank's share) up to 16 KiB per channel of a peer.
	cm := commOf(t, "2.28.3", b200Vultr, 1)
	lim := int64(cm.p2pPerPeer()) * 16384
	for _, tc := range []struct {
		call Call
		want Proto
	}{
		{Call{Func: SendRecv, Bytes: lim}, LL},
		{Call{Func: SendRecv, Bytes: lim + 1}, Simple},
		{Call{Func: AllToAll, Bytes: 8 * lim}, LL},
		{Call{Func: AllToAll, Bytes: 8 * (lim + 1)}, Simple},
	} {
		if got := planProto(t, cm, tc.call); got != tc.want {
			t.Errorf("one server, %v: %v, want %v", tc.call, got, tc.want)
		}
	}
}

// TestP2PNetLLBuffers: with NCCL_ALLOC_P2P_NET_LL_BUFFERS=1 a network
// connection has an LL buffer and a small sendrecv across servers runs LL
// (from 2.16.5, whose init.cc reads "ALLOC_P2P_NET_LL_BUFFERS"; 2.14.3
// to 2.16.2 read "NCCL_ALLOC_P2P_NET_LL_BUFFERS" under NCCL_PARAM's own
// prefix).
func TestP2PNetLLBuffers(t *testing.T) {
	for _, tc := range []struct {
		version string
		want    Proto
	}{{"2.28.3", LL}, {"2.17.1", LL}, {"2.16.5", LL}, {"2.16.2", Simple}} {
		v, _ := ParseVersion(tc.version)
		cm := mustCommOf(t, v, b200Vultr, 2, 8, map[string]string{"NCCL_ALLOC_P2P_NET_LL_BUFFERS": "1", "NCCL_IB_GID_INDEX": "3"})
		if got := planProto(t, cm, Call{Func: SendRecv, Bytes: 8}); got != tc.want {
			t.Errorf("%s, NCCL_ALLOC_P2P_NET_LL_BUFFERS=1: sendrecv of 8 B across servers %v, want %v", tc.version, got, tc.want)
		}
	}
}

func planProto(t *testing.T, cm *Comm, call Call) Proto {
	t.Helper()
	ch, err := cm.Plan(call)
	if err != nil {
		t.Fatal(err)
	}
	return ch.Proto
}

// TestSendRecvRingSteadyState: nccl-tests' sendrecv (src/sendrecv.cu: each
// rank sends to rank+1 and receives from rank-1 in one group) does not
// synchronize the ranks. A rank's call ends when its own send and receive
// have, and its next call starts then, so a timed loop settles to the mean
// over the ring's links of one call's latency, in which the links that
// cross servers (2 of 16 on 2 × 8) weigh 1/8. On group 18's 2 × 8 B200
// (NCCL 2.29.7), 40 µs more on every network step (NCCL_NET_OVERHEAD)
// lengthens one call from idle by those 40 µs but each of 50 calls of the
// loop by about 40/8: a cost on the network path cannot carry the 6-23 µs
// a call that the use3a-ss runs take above the twin at 1-64 KiB
// (docs/nccl.md, "Group 18's sendrecv: the loop's steady state").
func TestSendRecvRingSteadyState(t *testing.T) {
	v, _ := ParseVersion("2.29.7")
	call := Call{Func: SendRecv, Bytes: 1024}
	var one, loop [2]float64
	for i, env := range []map[string]string{
		{"NCCL_NVLS_ENABLE": "0"},
		{"NCCL_NVLS_ENABLE": "0", "NCCL_NET_OVERHEAD": "41000"},
	} {
		cm := mustCommOf(t, v, b200UseSS, 2, 8, env)
		r1, _ := runOn(t, cm, 1, call)
		rn, _ := runOn(t, cm, 50, call)
		one[i], loop[i] = r1[0].Time().Micros(), rn[0].Time().Micros()
	}
	t.Logf("one call %.1f → %.1f µs, a call of 50 %.1f → %.1f µs", one[0], one[1], loop[0], loop[1])
	if d := one[1] - one[0]; d < 36 || d > 44 {
		t.Errorf("one call from idle grew by %.1f µs, want the 40 µs added to its network step", d)
	}
	if d := loop[1] - loop[0]; d < 40.0/16 || d > 40.0/4 {
		t.Errorf("a call of the loop grew by %.1f µs, want about 40/8 (2 of the ring's 16 links cross servers)", d)
	}
	if loop[0] >= one[0] {
		t.Errorf("a call of the loop %.1f µs, not below one call from idle %.1f", loop[0], one[0])
	}
}

// TestSendRecvTransportOrder: group 18's sendrecv rows (2 × 8 B200, NCCL
// 2.29.7, 4 channels a network peer) do not depend on the unit in which
// the test network's NIC serves its queue pairs in turn, unlike group 20's
// far-socket plateau (TestOneNICPairTransportOrder). Each of a peer's
// channels is held to P2PNetChannelRate, so the 4 channels of the one
// network peer move 4 × 10 GB/s, below the 400G NIC's 50: the NIC is never
// the bottleneck, and the order in which it serves them does not matter.
// The plateau is therefore that rate alone (docs/nccl.md, "Group 18's
// sendrecv: the transport's turns and the 1 MiB row (session 49)").
func TestSendRecvTransportOrder(t *testing.T) {
	v, _ := ParseVersion("2.29.7")
	cm := mustCommOf(t, v, b200UseSS, 2, 8, map[string]string{"NCCL_NVLS_ENABLE": "0", "NCCL_COLLNET_ENABLE": "0"})
	top := Call{Func: SendRecv, Bytes: 256 << 20}
	ch, err := cm.Plan(top)
	if err != nil {
		t.Fatal(err)
	}
	segs := []int64{4 << 10, 64 << 10, 1 << 30} // the harness's is 64 KiB
	for _, tc := range []struct {
		size  int64
		iters int
	}{{64 << 10, 4}, {1 << 20, 4}, {256 << 20, 2}} {
		var bw []float64
		for _, seg := range segs {
			net := testnet.Config{Hosts: 2 * b200UseSS.NICs, Rate: b200UseSS.NICRate, Latency: testLatency, Segment: seg}
			rs, _ := runOnNet(t, cm, net, tc.iters, Call{Func: SendRecv, Bytes: tc.size})
			bw = append(bw, busBW(rs[0], cm.NRanks))
			t.Logf("%s in turns of %s: %.2f GB/s", sizeName(tc.size), sizeName(seg), bw[len(bw)-1])
		}
		if lo, hi := slices.Min(bw), slices.Max(bw); hi > 1.02*lo {
			t.Errorf("%s: %.2f-%.2f GB/s by turn, want within 2%%", sizeName(tc.size), lo, hi)
		}
		if tc.size == top.Bytes {
			want := float64(ch.Channels * P2PNetChannelRate)
			line := b200UseSS.NICRate.Gbps() / 8
			if want >= line || math.Abs(bw[1]/want-1) > 0.01 {
				t.Errorf("256 MiB: %.2f GB/s, want within 1%% of %d channels × %d GB/s = %.0f, below the NIC's %.0f", bw[1], ch.Channels, P2PNetChannelRate, want, line)
			}
		}
	}
}
