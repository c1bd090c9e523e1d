package collective

import (
	"fmt"
	"math/bits"

	"rocelab/internal/gpu"
)

// The tuning model of src/graph/tuning.cc (NCCL 2.30.7), for Ring and Tree
// with the LL, LL128 and Simple protocols: a latency in µs and a bandwidth
// in GB/s per collective, algorithm and protocol, from which NCCL predicts
// time = latency + bytes / (1000 · bandwidth) and picks the fastest. NCCL
// computes in float; so does this code, so that ties break as NCCL's do.

// Hardware latencies index.
const (
	hwNVLink = iota
	hwPCI
	hwNet
)

// baseLat[algo][proto] and hwLat[hw][algo][proto]
// (ncclTunerConstantsDefaults), for every algorithm in NCCL's order.
var (
	baseLat = [nAlgos][nProtos]float32{
		{6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}, // Tree, Ring
		{0, 0, 0}, {0, 0, 0}, // CollNetDirect, CollNetChain
		{0, 0, 0}, {0, 0, 0}, // NVLS, NVLSTree
		{8.0, 8.0, 8.0}, // PAT
	}
	hwLat = [3][nAlgos][nProtos]float32{
		{{0.6, 1.25, 4.0}, {0.6, 1.9, 3.4}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 25}, {0, 0, 25}, {0, 0, 4.0}},
		{{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 0}, {0, 0, 0}, {0, 0, 4.0}},
		{{5.0, 8.5, 14}, {2.7, 4.0, 14.0}, {0, 0, 31}, {0, 0, 30}, {0, 0, 18}, {0, 0, 20.9}, {0, 0, 14}},
	}
	llMaxBws            = [4][3]float32{{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {2 * 141.0, 2 * 45.0, 2 * 35.0}}
	perChMaxRingLL128Bw = [4][3]float32{{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 36.7}, {40, 40, 40}}
	perChMaxTreeLL128Bw = [4][3]float32{{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}}
	perChMaxTreeBw      = [4][3]float32{{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}}
	perChMaxNVLSTreeBw  = [4][3]float32{{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0.0, 57.7, 45.5}, {0.0, 96.0, 80.0}}
	nvlsEfficiency      = [4]float32{0, 0, 0.85, 0.74}
	// treeCorrection[proto][log2(bytes/64)] (ncclTopoGetAlgoTime).
	treeCorrection = [nProtos][24]float32{
		{1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},
		{1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0, 1.0},
		{.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9},
	}
)

// Thread counts and thresholds (device.h, comm.h).
const (
	simpleMaxThreads   = 512
	llMaxThreads       = 512
	ll128MaxThreads    = 640
	llThreadThreshold  = 8
	ll128ThreadThresh  = 8
	simpleThreadThresh = 64
	maxThreadsAll      = 640 // NCCL_MAX_NTHREADS: CollNet, NVLS and PAT
	pciBW              = 12  // PCI_BW, Gen3 x16
)

// Tuning is the tuning model of one communicator.
type Tuning struct {
	NRanks, NNodes int
	Ring, Tree     Graph
	// NVLS is the NVLS graph (NVLink SHARP heads); NChannels 0 when the
	// servers have no NVSwitch multicast.
	NVLS Graph
	// NChannels is comm->nChannels: the channels the communicator built
	// (twice the graph's, then bounded by NCCL_MIN/MAX_NCHANNELS).
	NChannels int
	// nvlsTune is NCCL's NVLS set-up: the channels and the chunk sizes.
	nvlsTune nvlsTune
	// builtChannels is what comm->nChannels would be without
	// NCCL_MIN/MAX_NCHANNELS and NCCL_MIN/MAX_CTAS: the graph's channels
	// as connect.cc duplicates them.
	builtChannels int
	// Lat and BW are NCCL's latency (µs) and algorithm bandwidth (GB/s)
	// tables; BW 0 means unavailable.
	Lat, BW    [nTunedFuncs][nAlgos][nProtos]float32
	maxThreads [nAlgos][nProtos]int
	thresholds [nAlgos][nProtos]int64
	minCC      int
	// model is the tuning model of the communicator's NCCL version.
	model   *tunerModel
	version Version
}

// blackwell is Blackwell's architecture index (compCapIndex).
const blackwell = 3

// compCapIndex is NCCL's architecture index: Volta, Ampere, Hopper,
// Blackwell.
func compCapIndex(cc int) int {
	switch {
	case cc >= 100:
		return blackwell
	case cc >= 90:
		return 2
	case cc >= 80:
		return 1
	}
	return 0
}

func log2i(n int64) int {
	if n <= 0 {
		return -1
	}
	return 63 - bits.LeadingZeros64(uint64(n))
}

// tuneIn is what ncclTopoTuneModel reads besides the graphs.
type tuneIn struct {
	srv          gpu.Server // CPU vendor
	minCC, maxCC int        // the communicator's lowest and highest compute capability
	nRanks       int
	nNodes       int
	ring, tree   Graph
	nvls         Graph
	nvlsTune     nvlsTune
}

// NVLSChannels is comm->nvlsChannels, the channels of every NVLS and
// NVLSTree call (0 without NVLS).
func (t *Tuning) NVLSChannels() int { return t.nvlsTune.channels }

// newTuning builds the model from the graphs, as ncclTopoTuneModel does,
// then applies NCCL_ALGO and NCCL_PROTO, the algorithms the system cannot
// run (NVLSTree on one node, NVLS across nodes without CollNet, CollNet
// without SHARP) and LL128's topology rule.
func newTuning(cfg *Config, in tuneIn) *Tuning {
	nRanks, nNodes := in.nRanks, in.nNodes
	m := modelFor(cfg.Version)
	t := &Tuning{NRanks: nRanks, NNodes: nNodes, Ring: in.ring, Tree: in.tree, NVLS: in.nvls, minCC: in.minCC, nvlsTune: in.nvlsTune, model: m, version: cfg.Version}
	ch := min(in.ring.NChannels, in.tree.NChannels)
	t.Ring.NChannels, t.Tree.NChannels = ch, ch
	t.NChannels = runtimeChannels(cfg, m, in.minCC, ch, nNodes, in.ring.BWIntra)
	unbounded := *cfg
	unbounded.MinChannels, unbounded.MaxChannels, unbounded.MinCTAs, unbounded.MaxCTAs = 0, 64, 0, 0
	t.builtChannels = runtimeChannels(&unbounded, m, in.minCC, ch, nNodes, in.ring.BWIntra)

	simpleThreads := simpleMaxThreads
	if in.ring.BWIntra*float32(ch) <= pciBW {
		simpleThreads = 256
	}
	for a := range t.maxThreads {
		t.maxThreads[a] = [nProtos]int{llMaxThreads, ll128MaxThreads, maxThreadsAll}
		t.thresholds[a] = [nProtos]int64{llThreadThreshold, ll128ThreadThresh, simpleThreadThresh}
	}
	t.maxThreads[Tree][Simple], t.maxThreads[Ring][Simple] = simpleMaxThreads, simpleThreads
	t.thresholds[Ring][LL] *= int64(nRanks)
	t.thresholds[CollNetDirect][Simple], t.thresholds[CollNetChain][Simple] = 512, 512
	if nRanks <= 1 {
		return t
	}

	cci := m.compCapIndex(in.minCC, in.maxCC)
	index2 := min(nNodes, 3) - 1
	index1 := cci
	if nNodes > 1 {
		index1 = 0
		if in.srv.CPU == gpu.AMD {
			index1 = 1
		}
	}
	llMaxBw := m.llMaxBws[index1][index2]
	ppn := float32(nRanks) / float32(nNodes)
	graphs := [nAlgos]Graph{t.Tree, t.Ring, {}, {}, t.NVLS, t.NVLS, t.Ring}
	if m.nvls == 1 {
		graphs[NVLS] = t.Ring // 2.17 rates NVLS by the ring graph's NVLink speed
	}
	netOverhead := float32(cfg.NetOverhead)
	if netOverhead < 0 {
		netOverhead = 1
		if in.srv.CPU == gpu.AMD {
			netOverhead = 2
		}
	}

	for f := Func(0); f < nTunedFuncs; f++ {
		nsteps := nRanks
		switch f {
		case AllReduce:
			nsteps = 2 * (nRanks - 1)
		case ReduceScatter, AllGather:
			nsteps = nRanks - 1
		}
		for a := Tree; a < nAlgos; a++ {
			if !algoApplies(f, a) {
				continue
			}
			g := graphs[a]
			intraHw := hwPCI
			if g.TypeIntra == gpu.NVL {
				intraHw = hwNVLink
			}
			hw := hwNet
			if nNodes == 1 {
				hw = intraHw
			}
			for p := LL; p < nProtos; p++ {
				if (a == NVLS || a == NVLSTree || a == CollNetDirect || a == CollNetChain || a == PAT) && p != Simple {
					continue
				}
				bw := g.BWInter
				if nNodes <= 2 {
					bw = g.BWIntra
				}
				if a == NVLS || a == NVLSTree {
					if m.nvls >= 4 && g.NChannels < 2 {
						continue
					}
					bw = m.nvlsBW(f, a, g, cci, index2, nNodes, ppn)
				}
				busBw := float32(g.NChannels) * bw
				if m.busCap[cci] > 0 {
					busBw = min(busBw, m.busCap[cci])
				}
				if a == Ring && p == LL {
					x := float32(.5)
					if m.ringLLQuarter {
						x = 1.0 / 3.0
						if nNodes > 1 || f == AllReduce || f == Reduce {
							x = 1.0 / 4.0
						}
					}
					busBw = min(llMaxBw, busBw*x)
				}
				if a == Ring && p == LL128 {
					x := float32(0.92)
					if m.ringLL128Ppn && ppn < 2 {
						x = 0.7
					}
					busBw = min(busBw*x, float32(g.NChannels)*m.perChMaxRingLL128[cci][index2])
				}
				if a == Tree && f == AllReduce {
					busBw = min(busBw*.92, float32(g.NChannels)*m.perChMaxTree[cci][index2])
				}
				if a == Tree && p == LL {
					busBw = min(busBw*1.0/3.8, llMaxBw)
				}
				if a == Tree && p == LL128 {
					eff := float32(120.0 / 128.0)
					if nNodes == 1 {
						eff = 7.0 / 9.0
					}
					busBw = min(busBw*eff, float32(g.NChannels)*m.perChMaxTreeLL128[cci][index2])
				}
				if a == PAT {
					busBw *= .75
				}
				if a == NVLS && (f == AllGather || f == ReduceScatter) && nNodes > 1 {
					busBw = 0 // needs CollNet (SHARP) across nodes
				}
				busBw *= m.busToAlg(f, a, nRanks, nNodes, nsteps)
				t.BW[f][a][p] = busBw
				t.Lat[f][a][p] = m.latency(f, a, p, in, graphs[a], nsteps, netOverhead, intraHw, hw)
			}
		}
	}
	t.applyEnables(cfg, m, in, graphs)
	return t
}

// algoApplies says whether NCCL's model has an entry for algorithm a of
// function f: Broadcast and Reduce run only on rings; AllGather and
// ReduceScatter on Ring, NVLS, CollNetDirect and PAT; AllReduce on all
// but PAT.
func algoApplies(f Func, a Algo) bool {
	switch f {
	case Broadcast, Reduce:
		return a == Ring
	case AllGather, ReduceScatter:
		return a == Ring || a == NVLS || a == CollNetDirect || a == PAT
	}
	return a != PAT
}

// latency is NCCL's latency of algorithm a and protocol p for f, µs.
func (m *tunerModel) latency(f Func, a Algo, p Proto, in tuneIn, g Graph, nsteps int, netOverhead float32, intraHw, hw int) float32 {
	nRanks, nNodes := in.nRanks, in.nNodes
	lat := m.baseLat[a][p]
	intraLat := m.hwLat[intraHw][a][p]
	interLat := m.hwLat[hwNet][a][p]
	if m.ppn1TreeLat && nRanks == nNodes {
		interLat = m.hwLat[hwNet][Tree][p]
	}
	if m.llIntra18 && nNodes > 1 && p == LL {
		intraLat *= 1.8
	}
	switch a {
	case Ring:
		if f == Reduce || f == Broadcast {
			hl := m.hwLat[hw][a][p]
			if g.SameChannels {
				return lat + hl
			}
			if p == Simple {
				hl = m.hwLat[hw][Tree][p]
			}
			return lat + float32(nsteps)*hl
		}
		if m.netOverhead && nNodes > 1 {
			ovh := netOverhead
			if p == Simple {
				ovh *= 3
			}
			intraLat = max(intraLat, ovh)
		}
		nInter := 0
		switch {
		case m.oldInterSteps && f == AllReduce && nNodes > 1:
			nInter = 2 * nNodes
		case m.oldInterSteps && f != AllReduce:
			nInter = nNodes
			if f == AllGather || f == ReduceScatter {
				nInter = nNodes - 1
			}
		case nNodes > 1:
			nInter = nNodes - 1
			if f == AllReduce {
				nInter = 2 * (nNodes - 1)
			}
		}
		return lat + float32(nsteps-nInter)*intraLat + float32(nInter)*interLat
	case Tree:
		return lat + 2*(float32(nRanks/nNodes-1)*intraLat+float32(log2i(int64(nNodes)))*interLat)
	case NVLS:
		if m.nvls <= 2 {
			if nNodes > 1 {
				return lat + m.hwLat[hwNet][a][p]
			}
			return lat
		}
		if nNodes > 1 {
			return intraLat + interLat
		}
		return intraLat
	case NVLSTree:
		if m.nvls <= 2 {
			return lat + 2*float32(nNodes-1)*m.hwLat[hwNet][a][p]
		}
		return lat + intraLat + 2*float32(log2i(int64(nNodes)))*interLat
	case PAT:
		// A log-step latency and a part linear in the ranks.
		return lat + float32(log2i(int64(nNodes)))*(interLat/3.5) + float32(nRanks)*2.8
	}
	return lat
}

// nvlsBW is the per-channel bandwidth NCCL's model gives NVLS or NVLSTree
// (before the channel count and the bus-to-algorithm ratio).
func (m *tunerModel) nvlsBW(f Func, a Algo, g Graph, cci, index2, nNodes int, ppn float32) float32 {
	switch m.nvls {
	case 1, 2:
		if nNodes <= 2 {
			return g.BWIntra
		}
		return g.BWInter
	case 3:
		if a == NVLS {
			return min(g.BWIntra, g.BWInter)
		}
		inter := g.BWInter
		if nNodes > 2 {
			inter /= 2
		}
		return min(g.BWIntra, inter)
	}
	intraBw := g.BWIntra * m.nvlsEff[cci] * float32(g.NChannels-1) / float32(g.NChannels)
	if f == AllReduce {
		intraBw *= 2
	} else {
		intraBw *= (ppn - 1) / ppn
	}
	interBw := g.BWInter
	if nNodes <= 2 && a == NVLSTree {
		interBw *= 2
	}
	bw := min(intraBw, interBw)
	if a == NVLSTree {
		bw = min(bw, m.perChNVT[cci][index2])
	}
	return bw
}

// busToAlg is the model's ratio of algorithm to bus bandwidth.
func (m *tunerModel) busToAlg(f Func, a Algo, nRanks, nNodes, nsteps int) float32 {
	ring := float32(nRanks) / float32(nsteps)
	switch {
	case a == Ring:
		return ring
	case a == NVLS && m.nvls == 1:
		return .75
	case (a == NVLS || a == NVLSTree) && m.nvls == 2:
		if a == NVLSTree {
			return .70 * float32(nNodes) / float32(2*(nNodes-1))
		}
		return 5.0 / 6.0
	case a != Ring && (f == AllGather || f == ReduceScatter):
		// From 2.23 NCCL keeps their bus bandwidth as the algorithm's.
		if m.since.AtLeast(2, 23, 0) || a != NVLS {
			return 1
		}
		return 5.0 / 6.0
	case (a == NVLS || a == NVLSTree) && m.nvls == 3:
		return 5.0 / 6.0
	case a == NVLS || a == NVLSTree:
		return ring
	}
	return .5
}

// applyEnables zeroes the bandwidth of what NCCL will not run: NCCL_ALGO
// and NCCL_PROTO, NVLSTree on one node, NVLS across nodes and CollNet
// (no SHARP: NCCL_COLLNET_ENABLE is off), PAT where patEnabled says NCCL
// leaves it out, and LL128 where its topology rule forbids it.
func (t *Tuning) applyEnables(cfg *Config, m *tunerModel, in tuneIn, graphs [nAlgos]Graph) {
	v := cfg.Version
	for f := 0; f < nTunedFuncs; f++ {
		for a := Tree; a < nAlgos; a++ {
			off := cfg.Algos[f][a] == 0 || a == CollNetDirect || a == CollNetChain || (a == PAT && !patEnabled(cfg, in)) ||
				(a == NVLSTree && in.nNodes == 1) || (a == NVLS && in.nNodes > 1) ||
				(a == NVLS && m.nvls == 0) || (a == NVLSTree && m.nvls <= 1)
			g := graphs[a]
			for p := LL; p < nProtos; p++ {
				on := cfg.Protos[f][p]
				if on == 2 && p == LL128 {
					on = 0
					if ll128Enabled(v, g, in.minCC, in.maxCC) {
						on = 1
					}
				}
				if on == 0 || off {
					t.BW[f][a][p] = 0
				}
			}
		}
	}
}

// patEnabled is tuning.cc's ncclPatEnable: PAT exists from 2.23, needs
// CUDA atomics (SM60 on), and by default (NCCL_PAT_ENABLE=2) runs only
// with one GPU per node; the twin's network is the host's (no device
// offload).
func patEnabled(cfg *Config, in tuneIn) bool {
	if !cfg.Version.AtLeast(2, 23, 0) || in.minCC < 60 {
		return false
	}
	if cfg.PATEnable != 2 {
		return cfg.PATEnable == 1
	}
	return in.nNodes == in.nRanks
}

// ll128Enabled is LL128's default enable rule of release v for a graph:
// GPUs to NIC no farther than PXB (Hopper and later: PXN, from 2.17), GPUs
// joined by NVLink, one GPU generation (from 2.30 Hopper and later may
// mix) among those the release validated (Volta and Ampere; Hopper from
// 2.15; Blackwell from 2.25).
func ll128Enabled(v Version, g Graph, minCC, maxCC int) bool {
	okInter := g.TypeInter <= gpu.PXB
	if minCC >= 90 && v.AtLeast(2, 17, 0) {
		okInter = g.TypeInter <= gpu.PXN
	}
	if !okInter || g.TypeIntra > gpu.NVB || minCC < 70 {
		return false
	}
	if v.AtLeast(2, 30, 0) {
		return minCC == maxCC || minCC >= 90
	}
	if minCC != maxCC {
		return false
	}
	switch {
	case minCC == 70 || minCC == 80:
		return true
	case minCC == 90:
		return v.AtLeast(2, 15, 0)
	case minCC == 100 || minCC == 120:
		return v.AtLeast(2, 25, 0)
	}
	return false
}

// runtimeChannels is comm->nChannels after ncclTopoPostset: the graph's
// channels doubled, doubled again on Hopper and later across nodes above
// 45 GB/s, then bounded by NCCL_MAX_NCHANNELS and NCCL_MAX_CTAS and raised
// to NCCL_MIN_NCHANNELS or NCCL_MIN_CTAS, whichever is larger (connect.cc;
// the CTA bounds capped at MAXCHANNELS, a minimum above the maximum
// lowered to it, init.cc).
func runtimeChannels(cfg *Config, m *tunerModel, minCC, graphCh, nNodes int, bwIntra float32) int {
	maxCh := maxChannels(cfg.Version)
	n := min(maxCh, 2*graphCh)
	if minCC >= 90 && nNodes > 1 && bwIntra > 45 &&
		((m.hopperDouble == 1 && 2*n <= maxCh) || (m.hopperDouble == 2 && n < 16)) {
		n *= 2
	}
	minCTAs, maxCTAs := ctaBounds(cfg)
	n = min(n, cfg.MaxChannels, maxCTAs)
	return max(n, cfg.MinChannels, minCTAs)
}

// maxChannels is MAXCHANNELS of the communicator's release: 32 before
// 2.25, 64 from it.
func maxChannels(v Version) int {
	if !v.AtLeast(2, 25, 0) {
		return 32
	}
	return 64
}

// ctaBounds is the communicator config's minCTAs and maxCTAs as init.cc
// settles them: NCCL_MIN_CTAS (1 when unset) and NCCL_MAX_CTAS
// (MAXCHANNELS when unset), both capped at MAXCHANNELS, a minimum above
// the maximum lowered to it.
func ctaBounds(cfg *Config) (minCTAs, maxCTAs int) {
	maxCh := maxChannels(cfg.Version)
	minCTAs, maxCTAs = min(max(cfg.MinCTAs, 1), maxCh), maxCh
	if cfg.MaxCTAs > 0 {
		maxCTAs = min(cfg.MaxCTAs, maxCh)
	}
	return min(minCTAs, maxCTAs), maxCTAs
}

// Time returns NCCL's predicted time in µs of collective f of nBytes with
// algorithm a and protocol p, or -1 when the pair is unavailable
// (ncclTopoGetAlgoTime with one operation in the pipe).
func (t *Tuning) Time(f Func, a Algo, p Proto, nBytes int64) float32 {
	if f >= nTunedFuncs || a >= nAlgos {
		return -1
	}
	bw, lat := t.BW[f][a][p], t.Lat[f][a][p]
	if bw == 0 {
		return -1
	}
	logSize := log2i(nBytes >> 6)
	if a == Tree && f == AllReduce && logSize >= 0 && logSize < 23 {
		bw *= treeCorrection[p][logSize]
	}
	if a == NVLSTree && f == AllReduce && logSize >= 0 && logSize < 24 && t.minCC >= 100 && t.model.since.AtLeast(2, 29, 0) {
		bw *= treeCorrection[p][logSize] // x86 hosts, the only CPUs the twin models
	}
	if a == Ring && p == Simple && t.NNodes > 1 && f == AllReduce {
		lat *= t.model.plateauFactor(t.minCC, nBytes, t.NChannels, t.NRanks)
	}
	return lat + float32(nBytes)/(1000*bw)
}

// Choice is the algorithm, protocol and channel count NCCL picks for one
// collective call, and the time it predicts.
type Choice struct {
	Algo     Algo
	Proto    Proto
	Channels int
	Threads  int
	// Predicted is the model's time in µs.
	Predicted float32
}

// Choose picks the fastest available algorithm and protocol for
// collective f of nBytes (enqueue.cc topoGetAlgoInfo), then reduces the
// channels and threads while there is too little data for them.
func (t *Tuning) Choose(f Func, nBytes int64) (Choice, error) {
	if t.NRanks == 1 {
		return Choice{Algo: Ring, Proto: Simple, Channels: 1, Threads: 32 * 3}, nil
	}
	best := Choice{Predicted: -1}
	for a := Tree; a < nAlgos; a++ {
		for p := LL; p < nProtos; p++ {
			tm := t.Time(f, a, p, nBytes)
			if tm >= 0 && (best.Predicted < 0 || tm < best.Predicted) {
				best = Choice{Algo: a, Proto: p, Predicted: tm}
			}
		}
	}
	if best.Predicted < 0 {
		return best, fmt.Errorf("no algorithm/protocol available for %s (NCCL_ALGO and NCCL_PROTO leave none the twin can run)", f)
	}
	nc := t.NChannels
	nt := t.maxThreads[best.Algo][best.Proto]
	thr := t.thresholds[best.Algo][best.Proto]
	if best.Algo == NVLS || best.Algo == NVLSTree {
		// NVLS uses its own channel count whatever the size.
		best.Channels, best.Threads = t.NVLSChannels(), nt
		return best, nil
	}
	for nBytes < int64(nc*nt)*thr && nc >= 2 {
		nc--
	}
	for nBytes < int64(nc*nt)*thr && nt%128 == 0 {
		nt /= 2
	}
	if best.Algo == PAT {
		nt = maxThreadsAll // PAT always runs NCCL_MAX_NTHREADS
	}
	best.Channels, best.Threads = nc, nt
	return best, nil
}
