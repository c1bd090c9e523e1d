package collective

import (
	"fmt"

	"rocelab/internal/gpu"
	"rocelab/internal/unit"
)

// The twin's per-step costs come from NCCL's own tuning constants where
// NCCL has them (tuning.go: base latency per call, hardware latency per
// step and protocol, per-channel bandwidth limits, network overhead per
// operation) and from two constants calibrated on public nccl-tests
// results (ProxyPoll, GPUPoll). Calibration lists them all with their
// sources; docs/nccl.md carries the table (go test ./internal/collective
// -run TestDocs -update rewrites it).

// ProxyPoll is the time a proxy thread takes to notice that a network
// step can proceed (the GPU's slice in the send buffer) and to ring the
// NIC's doorbell, on top of NCCL's per-step network latency and overhead:
// a pass of the proxy's progress loop, which busy-polls what the GPU
// writes to host memory (src/transport/net.cc sendProxyProgress: the
// connection FIFO's size and, with LL, the flag of every line of the
// slice) before it posts, about a microsecond on a current host.
// It is set on the small sizes (8 B to 64 KiB) of the public runs, which
// disagree: NVIDIA/nccl-tests#309 (2 and 4 servers of 8 H100, Intel
// hosts) and NVIDIA/nccl#652 (32 × 8 A100) measure NCCL's own model
// latency (25.2, 35.2 and 65.2 µs), which each microsecond here overshoots
// by 2·log2(servers) µs, while the 2-server A100 runs on AMD EPYC hosts
// (OCI BM.GPU4.8, Azure ND96asr_v4) take 35-38 µs, 10-12 above it. 1 µs
// keeps those within 25% (×0.80-×0.89) and brings #309's 2-server rows in
// (×1.01-×1.22); 2 µs brings one more row in band (the GB10 run's 64K,
// ×0.73 → ×0.77) and loses 8 of #309's (5 µs, the first value, was set on the
// AMD runs alone). #309's and #652's small sizes informed the value, so they are
// no longer an independent check of it (docs/nccl.md, "Small sizes on
// Hopper, and at scale"). It is not charged on Intel hosts (proxyStep).
const ProxyPoll = 1 * unit.Microsecond

// ProxyOpStart is the proxy thread's time to take up a call's operation
// on one network connection (one per channel and peer and call), before
// which that connection moves nothing. The first call of a batch has its
// operations taken up at its start, one after the other; later ones as
// the previous call's operation ends on each connection (Engine.takeUp:
// NCCL's host thread posts them during the calls ahead). It is what makes
// small calls slower with more channels: public 2-node runs grow by about
// 0.3-1.1 µs per extra channel between 1 and 32 channels (Calibration).
// It is fitted on the calibration set's H200 run, its NVLSTree at 4-8 MiB
// (each GPU's proxy takes up 32 connections per call, one chunk per
// pipeline): the smallest value, in steps of 0.25 µs, that keeps both
// rows in band with the take-ups over the previous call's tail (1 µs,
// which kept them in band with all take-ups at each call's start, leaves
// the 8 MiB out at ×1.17; 1.5 µs loses held-out rows); checked on the
// held-out nccl-tests#309 runs (docs/nccl.md, "NVLSTree at 1-16 MiB").
const ProxyOpStart = 1250 * unit.Nanosecond

// NVLSHop is one crossing of an NVSwitch in NVLS and NVLSTree (a GPU's
// multimem store reaching the switch, or the switch's multicast reaching
// the GPUs), calibrated on the one public small-size NVLSTree run
// (NVIDIA/nccl#1244: 47 µs at 8 bytes on 2 × 8 H20, of which the two
// network crossings take about 40); NCCL's model puts 25 µs on the four
// switch crossings.
const NVLSHop = 1 * unit.Microsecond

// HostLaunch and HostLaunchPerChannel are a host thread's time to enqueue
// one call on one GPU: the CUDA kernel launch and NCCL's plan, with its
// work and proxy operations for every channel. A thread that drives
// several GPUs (nccl-tests -g 8 in one process) enqueues them one after
// the other and runs ahead of the GPUs, so that a small call is bound by
// the thread: NVIDIA's maintainers put the higher small-size latency of
// -g 8 on "the CUDA latency overheads of single process jobs"
// (NVIDIA/nccl-tests#333). Calibrated on the H200 Spectrum-X run (-g 8:
// 43-45 µs from 1 to 4 KiB on one channel, 81 µs at 128 KiB on 32); a
// thread per GPU hides it behind the calls in flight.
const (
	HostLaunch           = 5300 * unit.Nanosecond
	HostLaunchPerChannel = 150 * unit.Nanosecond
)

// AmpereRingSimpleCall is a fixed cost per call of a Simple ring across
// servers of A100s on AMD hosts, charged on every rank after its launch
// and its host thread's enqueue. It is calibrated, not derived: every
// public A100 ring across servers on AMD EPYC hosts (Azure ND96asr_v4 and
// ND96amsr_A100_v4, 8 × 200G HDR InfiniBand; OCI BM.GPU4.8 and
// BM.GPU.B4.8, 16 × 100G RoCE; NCCL 2.17 to 2.29) carries more time per
// call (and a 2-4% lower slope) than the twin's pipeline gives it, while
// the H100 rings (Intel hosts) match it (docs/nccl.md, "The A100 ring
// plateau"). Fitted as time = a + S/bw over a run's Ring/Simple rows from
// 512 MiB, the two calibration-set rings give a = 446 and 285 µs, the
// twin without the term 77: the value is their mean less the twin's own.
// It is Simple's alone (the same runs' Ring/LL128 rows at 64 MiB are
// within 4% of the twin without it) and not the A100's alone: an A100
// ring on Intel hosts (nccl-tests#119: 3 servers, 4 × 200G) has none,
// 95.7-96.5 GB/s at 122-127 MiB, 96% of its NICs. Whether it is the AMD
// host's alone no public run tells: every H100 result found is on Intel
// hosts.
const AmpereRingSimpleCall = 290 * unit.Microsecond

// ringSimpleCall returns the fixed per-call cost of function f in
// algorithm a and protocol p beyond NCCL's base latency
// (AmpereRingSimpleCall), charged after the launch and the host thread's
// enqueue. Point-to-point calls (SendRecv, AllToAll) are no ring, though
// their plan says Ring: no ring of them was fitted.
func (c *Comm) ringSimpleCall(f Func, a Algo, p Proto) unit.Time {
	if f.p2p() {
		return 0
	}
	if a == Ring && p == Simple && c.NNodes() > 1 && compCapIndex(c.Tuning.minCC) == 1 && c.Sys.Server.CPU == gpu.AMD {
		return AmpereRingSimpleCall
	}
	return 0
}

// P2PChannelNetBW is NCCL's own figure, GB/s, for what one channel of a
// point-to-point operation (send, receive: nccl-tests sendrecv_perf,
// alltoall_perf) moves to or from a peer on another server,
// NCCL_P2P_PER_CHANNEL_NET_BW (src/graph/paths.cc, from 2.29.2, default
// 14), with which NCCL sizes the channels it gives a network peer ("more
// if needed to meet the bw requirement", ncclTopoGetNchannels). Before
// 2.29.2 a network peer had NCCL_NCHANNELS_PER_NET_PEER = 2 such channels
// whatever its NIC. The twin's channels move P2PNetChannelRate.
const P2PChannelNetBW = 14

// P2PNetChannelRate is the data rate, GB/s, the twin holds one channel of
// a point-to-point operation to or from a peer on another server to:
// what such a channel moves in every public run once the channels a
// rank's network peers share and alltoall's copy to itself are counted
// (docs/nccl.md, "Other collectives"): the Vultr B200 alltoall 11.3 and
// sendrecv 9.8 (2 × 8 B200, 400G NDR, NCCL 2.28.3), the Azure NDm A100
// v4 alltoall 10.1 on 2 × 8 and about 9.6 on 2 × 1 (200G HDR, 2.17.1,
// microsoft/mscclpp docs/performance-ndmv4.md) and NVIDIA/nccl#1272's
// GH200 sendrecv on Slingshot 9.2 (2.20): 9.2-11.3 on three GPU
// generations, 200G and 400G alike, 65-80% of NCCL's own figure
// (P2PChannelNetBW, which NCCL's channel counts keep using). NCCL's
// source gives no per-step cost that accounts for it: a Simple
// point-to-point step (prims_simple.h: wait on the connection's step,
// the copy, a barrier, the system fence, the post) is serial per warp
// group, but none of its parts is measured, and a GPU-side cost would
// not be the same on A100 and B200. CCI-MOC's sendrecv with GPUDirect
// RDMA off moves 7.0 a channel, below it (the twin's HostChannelBW,
// 11.25, is above it and does not bind there).
const P2PNetChannelRate = 10

// RingQPRate is the data rate, GB/s, one queue pair of a Simple ring's
// network connection carries (NCCL_IB_QPS_PER_CONNECTION of them, 1 by
// default, each slice whole on the next in turn): what the public rings
// with 2 channels a 400G NIC and one QP per connection move per QP from
// 1 GiB, on three kinds of cluster, 2 × 8 all_gather and reduce_scatter
// (docs/nccl.md, "A ring's queue pairs"): Vultr B200 NDR IB 19.2-19.4,
// GKE A3 Ultra H200 RoCE 20.3-20.6 (three clusters), GKE A4 B200 RoCE
// 23.0-23.6 (two); their mean, 21. The 4- and 8-server H100 all_reduce
// rings check it (20.1-22.9). The same shapes with 2 or 4 QPs per
// connection (nccl-tests#309 with NCCL_MIN_CTAS=24, the wutz 2-server
// ring with 4) reach the NICs' line rate, as NCCL documents
// NCCL_IB_QPS_PER_CONNECTION for multi-level fabrics' routing entropy
// and the maintainer answers nccl-tests#309's one-QP rings with 2 QPs.
// A single QP reaches the line in ib_write_bw, so this is what one flow
// of NCCL's gets through a real fabric, not the NIC's limit; the
// fabric's routing is not printed by the runs, so it is a rate.
// The GKE runs print no settings and the twin gives them NCCL's default
// of one QP, but Google's gIB plugin environment sets
// NCCL_IB_QPS_PER_CONNECTION=4 (GoogleCloudPlatform/PerfKitBenchmarker
// perfkitbenchmarker/data/nvidia_hpl/a4.dockerfile, the ENV lines of
// gce-ai-infra's nccl-plugin-gib-diagnostic image): with 4 the rate does
// not bind there and the twin carries the wire, ×1.05-×1.28 of those
// runs from 256 MiB (docs/nccl.md, "gIB's queue pairs"). So the GKE
// figures are not what a QP moves, and the rate rests on Vultr and the
// 4- and 8-server rings, whose QPs move 18.8 to 22.9 by cluster: a refit
// on those alone trades rows (docs/nccl.md, "RingQPRate refit without the
// GKE rows"), so it is left at 21.
const RingQPRate = 21

// StepSync is a Ring/LL128 kernel's own time between two steps of a
// channel, charged after each operation's data and before the next one
// starts (and before a network send's post reaches the proxy). In NCCL's
// LL128 primitive (v2.28.3 src/device/prims_ll128.h GenericOp, lines
// 292-324) a step is: waitSend (line 301: a thread spins on the
// receiver's head until the step's slot is free, and writes the step's
// size into the proxy's FIFO on a network connection), barrier() across
// the channel's warps (302), the warps' slices (306-317), barrier() again
// (319: every warp waits for the last slice of the slowest, which polls
// the previous GPU's flags), then postSend (320-321: on a network
// connection a system-wide fence and the tail the proxy polls) and
// postRecv (322-323: the head the previous GPU's waitSend polls). None of
// it overlaps with the next step's data: the second barrier holds every
// warp until the step is done, and the next step's first slice is loaded
// only after the first barrier. It overlaps with the wait for the
// previous GPU's lines, since a GPU whose data is late spends that time
// polling, not computing: so it binds only where a step's data takes
// longer than the hop's latency and lag (hopLag), from about 8 MiB on
// 2 × 8 GPUs. The source gives its parts, not their times: the value is
// fitted on the public all_reduce runs, in steps of 0.5 µs from 0 to 3,
// as the one that brings most of their 1-16 MiB rows into band (the
// calibration set 12 → 13 of 15, held out 23 → 25 of 35; 3 µs puts the
// OCI A100 16 MiB at ×0.85); the all_gather and reduce_scatter runs,
// whose Ring/LL128 rows showed the missing cost (docs/nccl.md,
// "Ring/LL128 at 1-16 MiB against NCCL's own model"), check it: 9 → 16
// of 30 and 0 → 1 of 5. LL (prims_ll.h waitSend and postRecv, lines
// 56-77: a barrier in each) and Simple (prims_simple.h genericOp: a
// barrier and postPeer's fence per slice, lines 293-315) have the same
// parts but are not charged it: no public run of theirs was checked
// against it at sizes where it would bind. On NVSwitch servers it is
// scaled by the GPU's NVLink step factor (gpu.Model.NVLinkLat: B200 1.3,
// from NVIDIA/nccl#1940's flag-synchronized 8-byte all_reduce), since its
// barriers, fence (postSend's __threadfence_system on sm90 and later) and
// flag posts are that kind of synchronization; it was not refitted: the
// GKE A4 B200 and A3 Ultra H200 all_gather runs, one network, image and
// NCCL 2.26.6, show a B200 LL128 ring 14-17 µs a call slower at 1-16 MiB
// where the twin had them within 4% (docs/nccl.md, "A B200's LL128
// step").
const StepSync = 2500 * unit.Nanosecond

// RingLLPost is how long after a Ring/LL step across servers is in the
// send buffer, and after the connection's previous post, the sender's
// proxy posts it, on top of ProxyOp: the passes of the proxy's progress
// loop that an LL step needs and a Simple or LL128 one does not (v2.28.3
// src/transport/net.cc sendProxyProgress). The pass that hands a step's
// slot to the GPU (lines 1248-1269) ends in `continue`, so the connection
// does nothing else in it; an LL send buffer to the network is in host
// memory (line 881) and the GPU writes no tail for LL, so each later pass
// reads the flags of the slot's lines from the first one until all are in
// (lines 1271-1304), and only then posts the isend (1322). Each pass
// visits every connection (sub) of the proxy, one action each, each on
// its own slot: so the passes a step waits for are the connection's own
// time, during which the thread serves its other connections, and only
// the post itself (ProxyOp) is the thread's. A proxy serving several
// Ring/LL connections (one NIC per server, where every channel's ring
// leaves the server from the same GPU, as in the NCCL log of
// NVIDIA/nccl#392) waits the passes once for all of them, not once each:
// charged as the thread's own time (as it was before), four connections on one
// proxy made the gdr example's 2 MiB Ring/LL/4 (4 × 8 H100, one NIC each)
// 492 µs, 252 without RingLLPost and 278 in NCCL's model, which prices a
// ring step across servers at the network overhead whatever the channels
// (tuning.cc 371-377: "Inter-node rings still have to launch nsteps * net
// overhead"); as the connection's own time, 251. The source gives the
// passes, not their time: the value is FITTED, in steps of 0.25 µs from 1
// to 2, on the 2 × 8 Ring/LL all_gather and reduce_scatter rows up to 64
// KiB (docs/nccl.md, "Ring/LL at small sizes: the proxy's post of each
// step"): 1.5 µs brings all_gather from 27 (at 1 µs, the value when it
// was the thread's time) to 34 of 44 rows into band and the calibration
// set from 40 to 41 of 47, keeps reduce_scatter at 9 of 9 and loses no
// row of any set (1.75: 33 and 42; 2: 28, 42, and reduce_scatter 8 of 9).
// Trees are not charged: a tree step's post is one per call at small
// sizes, where NCCL's tree model adds no such term; nor LL128 and Simple,
// whose proxy checks one tail (and whose per-step costs, ProxyOp and
// StepSync, were fitted on their rings).
const RingLLPost = 1500 * unit.Nanosecond

// RingLLScan is the rate, in GB/s of LL lines (16 bytes, 8 of data),
// at which the sender's proxy reads the flags of a Ring/LL step's lines
// in the pass that finds them all in and posts the step (v2.28.3
// src/transport/net.cc sendProxyProgress, lines 1271-1304: every line of
// the slot from the first, in host memory the GPU writes over PCIe, line
// 881). The step is posted that long after the passes of RingLLPost, on
// the connection's own time as they are, so a proxy with several Ring/LL
// connections is not capped by it: charged as the thread's time (session
// 27) the gdr example's 2 MiB Ring/LL/4 on one NIC a server took 694 µs
// at 18 GB/s against NCCL's model's 278; as the connection's, 246 µs at
// 20 GB/s. The source gives the scan, not its rate: the value is FITTED,
// at 5, 10, 15, 20, 25 and 40 GB/s, on the 2 × 8 and 2 × 1 Ring/LL rows
// up to 64 KiB (all_gather, reduce_scatter, the GB10 all_reduce): 44 of
// 53 in band without it, 42, 46, 47, 47, 46, 45 (at 5 GB/s the gdr
// example is also ×1.99 of NCCL's model); 20 GB/s (not 15, the same count) gives
// the growth from 1 to 64 KiB of the runs (the twin 4.4-5.5 µs, the runs
// 1.7-6.1; 15 GB/s: 5.8-7.3; 0.3-0.6 without it) (docs/nccl.md, "Ring/LL:
// the flag scan of each step").
const RingLLScan = 20.0

// GPUPoll is the time a GPU takes to see LL or LL128 data that a NIC has
// written into its memory (it polls the flags of the lines).
const GPUPoll = 500 * unit.Nanosecond

// ProxyOp is the proxy thread's CPU time for one action on a network
// connection (posting a slice or a CTS, reaping the completion of either
// side, a GPUDirect flush), during which it serves nothing else. NCCL's
// proxy (src/transport/net.cc sendProxyProgress, recvProxyProgress) takes
// one action per connection per pass of its progress loop, over every
// connection of every channel of its GPU, and a step costs each end two
// of them: the sender posts the slice and reaps its completion before the
// GPU's send slot is free; the receiver posts the CTS and reaps the
// arrival before the slot can be cleared again. So a GPU whose proxy
// serves k network connections per step advances each by one step per 2k
// actions at best, whatever the protocol: a ring of 24 channels on 2
// servers of 8 GPUs (3 channels' sends and receives on each GPU that
// crosses the network) moves 12 actions per step. Calibrated on the
// public runs (docs/nccl.md, "The proxy's actions"): NVIDIA/nccl-tests#309's
// 2-server Ring/LL128 with NCCL_MIN_CTAS=24, flat at 157 µs from 1 to 2
// MiB (5.2 µs per ring step, where 12 × 400 ns = 4.8), and its 8-server
// Tree/LL128 rows that grow by 7-11 µs per 18 KB chunk a channel; bounded
// above by NVLSTree on 2-4 servers, whose 1-16 MiB rows it slows.
const ProxyOp = 400 * unit.Nanosecond

// netOverhead returns NCCL's network overhead per step (NCCL_NET_OVERHEAD,
// else 1 µs on Intel and 2 µs on AMD hosts, tuning.cc getNetOverhead):
// the proxy's work between noticing a step and posting it, which NCCL's
// model adds to every ring step across servers.
func (c *Comm) netOverhead() unit.Time {
	ovh := c.Cfg.NetOverhead
	if ovh < 0 {
		ovh = 1
		if c.Sys.Server.CPU == gpu.AMD {
			ovh = 2
		}
	}
	return unit.Time(ovh * float64(unit.Microsecond))
}

// proxyStep returns what the proxy adds to NCCL's latency of a network
// step in protocol p: NCCL's network overhead, and with LL and LL128
// ProxyPoll (NCCL's LL and LL128 network latencies are the GPU-visible
// path only; its Simple ones already hold the proxy's round). On Intel
// hosts an LL or LL128 step costs NCCL's latency alone: the public Hopper
// runs on Intel hosts take NCCL's own model latency at small sizes
// (nccl-tests#309: 25-26 µs on 2 servers, 34.5-35.7 on 4, against
// NCCL's 25.2 and 35.2), where the A100 runs on AMD hosts take 10-12 µs
// more than NCCL's model on 2 servers; NCCL's tuning also rates an AMD
// host's network overhead at twice an Intel one's (getNetOverhead).
func (c *Comm) proxyStep(p Proto) unit.Time {
	switch {
	case p == Simple:
		return c.netOverhead()
	case c.Sys.Server.CPU == gpu.Intel:
		return 0
	}
	return c.netOverhead() + ProxyPoll
}

// proxyOp returns the proxy thread's time for one network operation:
// ProxyOp plus the servers' per-step host overhead (a hypervisor's exits
// or a slow driver stack on every post and poll).
func (c *Comm) proxyOp() unit.Time {
	return ProxyOp + c.Sys.Server.StepOverhead
}

// channelCap returns the data rate, GB/s, one channel's kernel moves in
// algorithm a and protocol p: the GPU's channel speed, less NCCL's
// per-channel limits of the protocol (tuning.cc: LL at half the speed and
// under llMaxBw in all, LL128 at 120/128 and under perChMax*LL128Bw, trees
// under perChMaxTreeBw, NVLSTree under perChMaxNVLSTreeBw), spread over
// the channels the call uses (nc) and turned from bus into algorithm
// bandwidth as each algorithm's kernel carries it.
func (c *Comm) channelCap(f Func, a Algo, p Proto, used int) float64 {
	t := c.Tuning
	base := c.slowestGPU().ChannelBW
	if t == nil || c.NRanks < 2 || f.p2p() {
		if p == LL {
			return base / 2
		}
		return base
	}
	cci := compCapIndex(t.minCC)
	index2 := min(t.NNodes, 3) - 1
	nc := float64(max(used, 1))
	// NCCL's per-channel limits are per graph channel, which runs as the
	// CTAs connect.cc duplicates it into (two, or four on Hopper); they
	// are a CTA's throughput, so CTAs added by NCCL_MIN_NCHANNELS or
	// NCCL_MIN_CTAS add to it: 32 channels of Ring/LL128 on 8 graph
	// channels reach 365-367 GB/s, above 8 × 36.7 (nccl-tests#322).
	gch := float64(t.Ring.NChannels) / float64(max(t.builtChannels, 1)) * nc
	switch {
	case a == Ring && p == LL:
		return base / 2
	case a == Ring && p == LL128:
		return min(base*120/128, gch*float64(perChMaxRingLL128Bw[cci][index2])/nc)
	case a == Tree && p == LL:
		return base / 3.8
	case a == Tree && p == LL128:
		return min(base*120/128, gch*float64(perChMaxTreeLL128Bw[cci][index2])/2/nc)
	case a == Tree:
		return min(base, gch*float64(perChMaxTreeBw[cci][index2])/2/nc)
	case a == NVLSTree:
		nsteps := 2 * (c.NRanks - 1)
		bus := float64(t.NVLS.NChannels) * float64(perChMaxNVLSTreeBw[cci][index2])
		return min(base, bus*float64(c.NRanks)/float64(nsteps)/float64(max(t.NVLSChannels(), used)))
	}
	return base
}

// slowestGPU returns the communicator's GPU model with the slowest
// channel (a mixed job runs at its slowest GPU's pace).
func (c *Comm) slowestGPU() gpu.Model {
	m := c.model(0)
	for i := range c.Servers {
		if x := c.model(i); x.ChannelBW < m.ChannelBW {
			m = x
		}
	}
	return m
}

// llMaxBw is NCCL's cap on LL's bus bandwidth across servers (tuning.cc
// llMaxBws: by CPU vendor and node count), GB/s. The twin applies it to
// the kernel operations that feed or drain the network, shared by the
// call's channels: LL lines reach the NIC a few bytes at a time.
func (c *Comm) llMaxBw() float64 {
	index1 := 0
	if c.Sys.Server.CPU == gpu.AMD {
		index1 = 1
	}
	return float64(llMaxBws[index1][min(c.NNodes(), 3)-1])
}

// nicDMA returns the rate at which the PCIe device of NIC port p moves
// data between the network and its GPUs' memory, GB/s: what its PCIe
// link carries (gpu.Server.NICDMABW), halved when PCIe ACS sends
// peer-to-peer traffic (GPUDirect RDMA) up to the root complex and back
// down the same switch uplink, and no more than its share of the link
// between the CPU sockets when the NIC's GPU is on the other socket
// (SYS). The device is the port, or the card when NCCL merges its ports
// (dmaUnit).
func (c *Comm) nicDMA(p int) float64 {
	srv := c.Sys.Server
	bw := srv.NICDMABW()
	b := c.ports
	g := c.dev.FirstGPU(p / b)
	if srv.ACS && srv.GDR(g, c.Cfg.GDRLevel) {
		bw /= 2
	}
	if srv.PathOf(g) == gpu.SYS {
		far := 0
		for q := 0; q < srv.NICs; q++ {
			if srv.PathOf(c.dev.FirstGPU(q/b)) == gpu.SYS {
				far++
			}
		}
		bw = min(bw, srv.SocketBW()/float64(far))
	}
	return bw
}

// dmaUnit returns the NIC port whose DMA accounting port p shares: the
// first port of its card when NCCL merges the card's ports (a slice is
// then posted in parts over all of them, through the card's one PCIe
// link), else p itself.
func (c *Comm) dmaUnit(p int) int {
	if c.merged {
		return p - p%c.ports
	}
	return p
}

// dmaLine returns the line rate behind one DMA unit, GB/s: a port's, or a
// merged card's.
func (c *Comm) dmaLine() float64 {
	line := gpu.GBps(c.Sys.Server.NICRate)
	if c.merged {
		line *= float64(c.ports)
	}
	return line
}

// treeFactor is NCCL's correction of tree bandwidth by size
// (ncclTopoGetAlgoTime: "trees are not perfectly sticking to the model
// for medium sizes"), which the twin applies to a tree kernel's rate: the
// measured shortfall NCCL keeps in its own model at 256 B to 64 MiB.
func treeFactor(f Func, a Algo, p Proto, nBytes int64, minCC int) float64 {
	if f != AllReduce || !(a == Tree || (a == NVLSTree && minCC >= 100)) {
		return 1
	}
	i := log2i(nBytes >> 6)
	if i < 0 || i >= 23 {
		return 1
	}
	return float64(treeCorrection[p][i])
}

// A CalibrationEntry is one per-step cost of the twin: its value, where it
// is charged and where the value comes from.
type CalibrationEntry struct {
	Name, Value, Charged, Source string
}

// Calibration lists the twin's per-step costs (docs/nccl.md carries it).
func Calibration() []CalibrationEntry {
	f := func(x float32) string { return fmt.Sprintf("%g", x) }
	b200 := gpu.Models["B200"]
	return []CalibrationEntry{
		{"launch", "base latency: Tree " + f(baseLat[Tree][LL]) + "/" + f(baseLat[Tree][LL128]) + "/" + f(baseLat[Tree][Simple]) +
			", Ring " + f(baseLat[Ring][LL]) + "/" + f(baseLat[Ring][LL128]) + "/" + f(baseLat[Ring][Simple]) + " µs (LL/LL128/Simple), NVLS 0",
			"once per call on every rank, before its kernels start", "NCCL tuning.cc baseLatencies"},
		{"NVLink step", "Tree " + f(hwLat[hwNVLink][Tree][LL]) + "/" + f(hwLat[hwNVLink][Tree][LL128]) + "/" + f(hwLat[hwNVLink][Tree][Simple]) +
			", Ring " + f(hwLat[hwNVLink][Ring][LL]) + "/" + f(hwLat[hwNVLink][Ring][LL128]) + "/" + f(hwLat[hwNVLink][Ring][Simple]) + " µs (PCIe: " +
			f(hwLat[hwPCI][Ring][LL]) + "/" + f(hwLat[hwPCI][Ring][LL128]) + "/" + f(hwLat[hwPCI][Ring][Simple]) + "); NVLink × " +
			fmt.Sprintf("%g", b200.NVLinkLatScale()) + " on B200",
			"between a producer and its consumer on the same server (LL/LL128 stream: from the start of the write)",
			"NCCL tuning.cc hwLatencies NVLINK, PCI (one table for every GPU generation); B200: NVIDIA/nccl#1940, 8-byte all_reduce in one server of 8 B200 about 3 µs against 2.3 on 8 H200 or H800 with the same kernels (gpu.Model.NVLinkLat)"},
		{"ring LL128 hop", "one round of the kernel's warps' 2 KiB LL128 slices (40 KiB on the wire at 640 threads), or the whole step when smaller, at the channel rate",
			"each NVLink hop of a Ring/LL128 call: the next GPU sees a step's lines that long after the step starts (not trees, whose rate carries NCCL's tree correction)",
			"NCCL prims_ll128.h GenericOp and recvReduceSendCopy (v2.28.3 lines 182-200, 292-320): a warp stores a slice to the next GPU only once every thread's flag of it is in; nothing fitted"},
		{"ring LL128 step sync", StepSync.String() + "; × " + fmt.Sprintf("%g", b200.NVLinkLatScale()) + " on B200, as its NVLink step", "each step of a Ring/LL128 kernel on a channel, after its data and before the next step (and before a network send's post): overlapped with the wait for the previous GPU's lines, so it binds where a step's data outlasts the hop's latency and lag",
			"NCCL prims_ll128.h GenericOp (v2.28.3 lines 292-324: waitSend, barrier, the slices, barrier, postSend's system fence and tail, postRecv's head) gives the parts, not their times; fitted on the public all_reduce runs' 1-16 MiB rows (0-3 µs in steps of 0.5: calibration 12 → 13 of 15, held out 23 → 25 of 35), checked on the all_gather runs (9 → 16 of 30); B200: the NVLink step's factor (NVIDIA/nccl#1940) for the same kind of synchronization, not fitted: the GKE A4 and A3 Ultra all_gather runs on one network and NCCL put a B200 LL128 ring 14-17 µs a call (15 steps) above an H200's at 1-16 MiB (docs/nccl.md, \"A B200's LL128 step\")"},
		{"network step", "Tree " + f(hwLat[hwNet][Tree][LL]) + "/" + f(hwLat[hwNet][Tree][LL128]) + "/" + f(hwLat[hwNet][Tree][Simple]) +
			", Ring " + f(hwLat[hwNet][Ring][LL]) + "/" + f(hwLat[hwNet][Ring][LL128]) + "/" + f(hwLat[hwNet][Ring][Simple]) +
			", NVLSTree " + f(hwLat[hwNet][NVLSTree][Simple]) + " µs, less " + NominalFabricLatency.String() + " of fabric",
			"sender's proxy before the post (Simple: half at each end), the simulated fabric after it", "NCCL tuning.cc hwLatencies NET; the fabric's own latency is simulated"},
		{"network overhead", "1 µs Intel and ARM, 2 µs AMD, or NCCL_NET_OVERHEAD", "added to every Simple network step's latency, and to LL and LL128 ones but on Intel hosts", "NCCL tuning.cc getNetOverhead; Intel: nccl-tests#309 at NCCL's model latency"},
		{"ProxyPoll", ProxyPoll.String(), "added to an LL or LL128 network step but on Intel hosts (NCCL's Simple latency already holds the proxy's round)",
			"calibrated on the small sizes of the public runs: NVIDIA/nccl-tests#309 (2 and 4 × 8 H100) and NVIDIA/nccl#652 (32 × 8 A100) at NCCL's model latency, the 2-node A100 runs on AMD hosts (OCI BM.GPU4.8, Azure ND96asr_v4) 10-12 µs above it; a pass of the proxy's progress loop"},
		{"ProxyOpStart", ProxyOpStart.String(), "the rank's proxy taking up a call on each network connection: the batch's first call at its start, one connection after the other; later calls as the previous call's operation ends on each connection (NCCL's host thread posts them ahead: enqueue.cc uploadProxyOps, proxy.cc ProxyAppend/removeOp)",
			"fitted on the H200 Spectrum-X run's NVLSTree at 4-8 MiB (32 connections per proxy, one chunk per pipeline), checked on nccl-tests#309; the public runs' small calls grow by 0.3-1.1 µs per channel"},
		{"ProxyOp", ProxyOp.String(), "proxy thread busy per action: the post of a slice and the reap of its send completion (before the send slot frees), the post of a CTS and the reap of the arrival (Simple: before the GPU sees the slice, with the GPUDirect flush on Ampere and earlier), all of a GPU's network connections in turn",
			"calibrated: NVIDIA/nccl-tests#309's 2-server Ring/LL128 at 24 CTAs (157 µs flat at 1-2 MiB: 5.2 µs per ring step, 12 actions of a GPU's proxy per step) and its 8-server Tree/LL128 (7-11 µs per 18 KB chunk); swept 0.1-0.6 µs on all public runs; NCCL net.cc proxy progress (one action per connection per pass)"},
		{"host launch", HostLaunch.String() + " + " + HostLaunchPerChannel.String() + " per channel", "a host thread enqueuing a call on each of its GPUs in turn, running ahead of them (nccl-tests -g N: N GPUs per thread)",
			"calibrated on the H200 Spectrum-X run (-g 8: 43-45 µs at 1-4 KiB on one channel, 81 µs at 128 KiB on 32); NVIDIA/nccl-tests#333 on -g 8's CUDA overheads"},
		{"RingLLPost", RingLLPost.String(), "before each post of a Ring/LL connection across servers, from the later of the step being ready and the connection's previous post, on top of ProxyOp: the connection's own time (the passes of the proxy's loop, which serve its other connections meanwhile), not the thread's",
			"FITTED on the 2 × 8 Ring/LL all_gather and reduce_scatter rows up to 64 KiB (1-2 µs in steps of 0.25: all_gather 27 → 34 of 44, calibration 40 → 41 of 47, no set loses a row); NCCL net.cc sendProxyProgress (v2.28.3 lines 1248-1304: a pass to hand each step's slot to the GPU, then passes that scan the LL lines' flags in host memory before the isend, one action per connection a pass); tuning.cc 371-377 prices each ring step across servers at least the network overhead, whatever the channels"},
		{"RingLLScan", fmt.Sprintf("%g GB/s of LL lines", RingLLScan), "after RingLLPost, before each post of a Ring/LL connection across servers, for the step's wire bytes: the connection's own time, as RingLLPost",
			"FITTED on the Ring/LL rows up to 64 KiB (all_gather, reduce_scatter, the GB10 all_reduce; 5-40 GB/s: 44 → 47 of 53 at 15-20, no row lost; 20 for the runs' growth from 1 to 64 KiB); NCCL net.cc sendProxyProgress (v2.28.3 lines 1271-1304: the pass that posts reads the flags of every line of the step's slot, in host memory)"},
		{"GPUPoll", GPUPoll.String(), "an LL or LL128 slice landing in GPU memory until the kernel sees it", "assumed"},
		{"NVLSHop", NVLSHop.String(), "each NVSwitch crossing of NVLS and NVLSTree (4 per call)", "calibrated on NVIDIA/nccl#1244 (2 × 8 H20 NVLSTree: 47 µs at 8 B)"},
		{"channel rate", "the GPU's channel speed; LL ×1/2 (tree 1/3.8), LL128 ×120/128, under NCCL's per-channel limits (per CTA of a graph channel as connect.cc duplicates it, so that CTAs added by NCCL_MIN_NCHANNELS/NCCL_MIN_CTAS add to them), tree rates × NCCL's tree correction by size",
			"every kernel operation; Tree/Simple across servers: the tree limit on the operations at a network connection, the GPU's channel speed (× the tree correction) on a step that stays on its server",
			"NCCL search.cc speed arrays; tuning.cc perChMax*, llMaxBws, treeCorrectionFactor; the tree limit off the chain's hops: the fills of nccl-tests#380 and Together AI's forced B200 trees (0.37-0.56 ms; 0.98-1.79 ms with the limit on every hop)"},
		{"Blackwell limits by release", "NCCL's per-channel bus limits on Blackwell (1/2/4+ nodes): Ring/LL128 2·36.7 each up to 2.28.6, 2·36.7/34.6/2·36.7 in 2.28.7-2.28.9, 34.5/34.6/34.5 in 2.29.0-2.29.6, 40 from 2.29.7; Tree/LL128 2·36.7/2·36.7/2·29 and Tree 2·38.7/2·41.4/2·36 in 2.25-2.27, 55.6/31.67/20 and 70/42.8/24 from 2.28; NVLSTree 96/43.1 (2 and 4+ nodes) in 2.28.0-2.28.8, 96/43.8 in 2.28.9-2.29.x, 96/80 from 2.30",
			"the tuning model of the communicator's NCCL release, which picks the algorithm and protocol (tunever.go); the kernels' rates keep the newest release's limits (channel rate)",
			"NCCL src/graph/tuning.cc: v2.26.2 lines 162-174 (2.25.1-2.27.7 the same), v2.28.3 179-197, v2.28.7 179, v2.28.9 197, v2.29.2 179, v2.29.7 180-198, v2.30.3 184-205"},
		{"LL network rate", "NCCL's llMaxBw (by CPU vendor and node count) shared by the call's channels", "kernel operations that feed or drain a network connection with LL", "NCCL tuning.cc llMaxBws"},
		{"P2P network channel", fmt.Sprintf("%d GB/s per channel; NCCL_NCHANNELS_PER_NET_PEER channels per network peer (2; from 2.29.2 divUp(NIC GB/s, %d), at least 1)", P2PChannelNetBW, P2PChannelNetBW),
			"the channels NCCL gives a network peer of a send or receive (sendrecv, alltoall)", "NCCL paths.cc NCCL_P2P_PER_CHANNEL_NET_BW and ncclTopoGetNchannels (2.29.2)"},
		{"P2P network channel rate", fmt.Sprintf("%d GB/s per channel", P2PNetChannelRate),
			"kernel operations of a send or receive (sendrecv, alltoall) with a peer on another server",
			"calibrated: what a channel moves in five public runs (Vultr B200 alltoall 11.3 and sendrecv 9.8; Azure NDm A100 v4 alltoall 10.1 on 2 × 8 and 9.6 on 2 × 1, microsoft/mscclpp performance-ndmv4.md; NVIDIA/nccl#1272 GH200 sendrecv 9.2); NCCL's tuning keeps its 14"},
		{"ring QP rate", fmt.Sprintf("%d GB/s per queue pair", RingQPRate),
			"the posts of a Simple ring's network connection: each of its NCCL_IB_QPS_PER_CONNECTION queue pairs carries at most this",
			"calibrated: what a queue pair moves in the 2 × 8 ring all_gather runs with 2 channels a 400G NIC, read with one QP (Vultr B200 19.2-19.4, GKE A3 Ultra 20.3-20.6, GKE A4 23.0-23.6); checked on nccl-tests#309 and Voltage Park's 4- and 8-server rings (18-22.9); with 2 or 4 QPs the runs reach the line; the GKE runs likely had 4 (gIB's environment, GoogleCloudPlatform/PerfKitBenchmarker nvidia_hpl/a4.dockerfile), with which the twin is ×1.05-×1.28 of them, so their figures do not support the rate; refitted without them (20) it trades a held-out row for the Vultr plateaus' (docs/nccl.md, session 28)"},
		{"P2P channel sharing", fmt.Sprintf("a channel's warps of one direction for all the point-to-point works it runs at once (%d a batch); a Simple network connection min(%d, %d/subs) slots", p2pPerBatch, nSteps, sharedSteps),
			"send, receive and copy-to-self operations whose rounds NCCL maps to the same channel (two servers of 8: all of a GPU's peers on the other server)", "NCCL channel.h ncclP2pChannelBaseForRound (ncclChannelComputeBase up to 2.21), sendrecv.h nWarpPerWork, net.cc NCCL_SHARED_STEPS and maxDepth"},
		{"NVLink bytes", "LL ×2, LL128 ×9/7, NVLS at the link × 0.85 (Hopper) or 0.74 (Blackwell)", "each GPU's NVLink, per byte sent to a peer or the switch", "NCCL tuning.cc (LL128 7/9 on one server, nvlsEfficiency)"},
		{"topology file NIC speed", "the file's speed per net device (gpu.Server.TopoNICRate; OCI's H100-topology.xml: 180000 Mb/s, 22.5 GB/s, on 200G ports)",
			"NCCL's view of each NIC in the ring, tree and NVLS searches and the tuning model, in place of the port's rate; the wire keeps the port's rate",
			"NCCL topo.cc ncclTopoAddNet (v2.19.3 lines 338-341: bw = speed / 8000); oracle-quickstart/oci-hpc samples/gpu/H100-topology.xml (125e4359) and nccl_run_allreduce_H100.sbatch (95645e7d: NCCL_TOPO_FILE); with it NVIDIA/nccl#1222's 4-server 2.19.3 ring is 32 channels on 16 ports, ×1.002-×1.009 from 1 to 16 GiB (30 on 15 ports without, ×0.89-×0.95)"},
		{"NIC DMA", "PCIe lanes × raw lane rate × 0.86; ÷2 with ACS; ≤ its share of the socket link for a far-socket NIC", "a NIC's reads of slices to send and writes of slices received, when below its line rate (a merged card's ports share its link)", "PCIe Gen1-6 lane rates; TLP efficiency assumed"},
		{"GDR off", fmt.Sprintf("%g GB/s per channel; %s per network step, half at each end", HostChannelBW, HostBounceLatency),
			"a GPU without GPUDirect RDMA to its NIC (no nvidia_peermem, the NIC farther than NCCL_NET_GDR_LEVEL, or sockets), on RDMA only one whose host interface is PCIe (a GB10 reaches host memory over NVLink-C2C): its kernel operations that feed or drain a network connection, and its network steps through host memory",
			"calibrated on the CCI-MOC log (corpus allreduce-h100-1gpu-roce400g-gdr0-15GBps-ccimoc.txt: 2 × 1 H100, one 400G port, GDR 0, 2 channels, 15.04 GB/s busbw: 2 channels × 2/3 × 11.25 = 15); the latency assumed (one PCIe crossing at each end)"},
		{"A100 Simple ring call", AmpereRingSimpleCall.String(), "once per call of a Simple ring across servers of A100s on AMD hosts, after the launch and the host thread's enqueue",
			"fitted: the intercepts of the calibration-set A100 rings (Azure ND96asr_v4 446, OCI BM.GPU.B4.8 285 µs; the twin 77 without it); none on Intel hosts (nccl-tests#119); checked on the held-out A100 rings (Azure on AKS, OCI on OKE and on Ubuntu)"},
	}
}
