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

// baseLat[algo][proto] and hwLat[hw][algo][proto] (ncclTunerConstantsDefaults).
var (
	baseLat = [2][nProtos]float32{{6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}}
	hwLat   = [3][2][nProtos]float32{
		{{0.6, 1.25, 4.0}, {0.6, 1.9, 3.4}},
		{{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}},
		{{5.0, 8.5, 14}, {2.7, 4.0, 14.0}},
	}
	llMaxBws            = [4][3]float32{{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {2 * 141.0, 2 * 45.0, 2 * 35.0}}
	perChMaxRingLL128Bw = [4][3]float32{{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 36.7}, {40, 40, 40}}
	perChMaxTreeLL128Bw = [4][3]float32{{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}}
	perChMaxTreeBw      = [4][3]float32{{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}}
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
	pciBW              = 12 // PCI_BW, Gen3 x16
)

// Tuning is the tuning model of one communicator.
type Tuning struct {
	NRanks, NNodes int
	Ring, Tree     Graph
	// NChannels is comm->nChannels: the channels the communicator built
	// (twice the graph's, then bounded by NCCL_MIN/MAX_NCHANNELS).
	NChannels int
	// Lat and BW are NCCL's latency (µs) and algorithm bandwidth (GB/s)
	// tables; BW 0 means unavailable.
	Lat, BW    [nTunedFuncs][2][nProtos]float32
	maxThreads [2][nProtos]int
	thresholds [2][nProtos]int64
	minCC      int
}

// compCapIndex is NCCL's architecture index: Volta, Ampere, Hopper,
// Blackwell.
func compCapIndex(cc int) int {
	switch {
	case cc >= 100:
		return 3
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

// newTuning builds the model from the graphs, as ncclTopoTuneModel does,
// then applies NCCL_ALGO and NCCL_PROTO and LL128's topology rule.
func newTuning(cfg *Config, srv gpu.Server, nRanks, nNodes int, ring, tree Graph) *Tuning {
	t := &Tuning{NRanks: nRanks, NNodes: nNodes, Ring: ring, Tree: tree, minCC: srv.GPU.CompCap}
	ch := min(ring.NChannels, tree.NChannels)
	t.Ring.NChannels, t.Tree.NChannels = ch, ch
	t.NChannels = runtimeChannels(cfg, srv, ch, nNodes, ring.BWIntra)

	simpleThreads := simpleMaxThreads
	if ring.BWIntra*float32(ch) <= pciBW {
		simpleThreads = 256
	}
	t.maxThreads = [2][nProtos]int{{llMaxThreads, ll128MaxThreads, simpleMaxThreads}, {llMaxThreads, ll128MaxThreads, simpleThreads}}
	t.thresholds = [2][nProtos]int64{{llThreadThreshold, ll128ThreadThresh, simpleThreadThresh}, {llThreadThreshold * int64(nRanks), ll128ThreadThresh, simpleThreadThresh}}
	if nRanks <= 1 {
		return t
	}

	cci := compCapIndex(srv.GPU.CompCap)
	index2 := min(nNodes, 3) - 1
	index1 := cci
	if nNodes > 1 {
		index1 = 0
		if srv.CPU == gpu.AMD {
			index1 = 1
		}
	}
	llMaxBw := llMaxBws[index1][index2]
	ppn := float32(nRanks) / float32(nNodes)
	graphs := [2]Graph{t.Tree, t.Ring}
	netOverhead := float32(cfg.NetOverhead)
	if netOverhead < 0 {
		netOverhead = 1
		if srv.CPU == gpu.AMD {
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
		for a := Tree; a <= Ring; a++ {
			if a == Tree && f != AllReduce {
				continue // Tree only runs AllReduce
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
				bw := g.BWInter
				if nNodes <= 2 {
					bw = g.BWIntra
				}
				busBw := float32(g.NChannels) * bw
				if a == Ring && p == LL {
					busBw = min(llMaxBw, busBw*.5)
				}
				if a == Ring && p == LL128 {
					busBw = min(busBw*0.92, float32(g.NChannels)*perChMaxRingLL128Bw[cci][index2])
				}
				if a == Tree && f == AllReduce {
					busBw = min(busBw*.92, float32(g.NChannels)*perChMaxTreeBw[cci][index2])
				}
				if a == Tree && p == LL {
					busBw = min(busBw*1.0/3.8, llMaxBw)
				}
				if a == Tree && p == LL128 {
					eff := float32(120.0 / 128.0)
					if nNodes == 1 {
						eff = 7.0 / 9.0
					}
					busBw = min(busBw*eff, float32(g.NChannels)*perChMaxTreeLL128Bw[cci][index2])
				}
				ratio := float32(.5)
				if a == Ring {
					ratio = float32(nRanks) / float32(nsteps)
				}
				t.BW[f][a][p] = busBw * ratio

				lat := baseLat[a][p]
				intraLat := hwLat[intraHw][a][p]
				interLat := hwLat[hwNet][a][p]
				if ppn == 1 {
					interLat = hwLat[hwNet][Tree][p]
				}
				if a == Ring {
					if f == Reduce || f == Broadcast {
						hl := hwLat[hw][a][p]
						if g.SameChannels {
							lat += hl
						} else {
							if p == Simple {
								hl = hwLat[hw][Tree][p]
							}
							lat += float32(nsteps) * hl
						}
					} else {
						var ovh float32
						if nNodes > 1 {
							ovh = netOverhead
							if p == Simple {
								ovh *= 3
							}
						}
						intraLat = max(intraLat, ovh)
						nInter := 0
						if nNodes > 1 {
							nInter = nNodes - 1
							if f == AllReduce {
								nInter = 2 * (nNodes - 1)
							}
						}
						lat += float32(nsteps-nInter)*intraLat + float32(nInter)*interLat
					}
				} else {
					lat += 2 * (float32(nRanks/nNodes-1)*intraLat + float32(log2i(int64(nNodes)))*interLat)
				}
				t.Lat[f][a][p] = lat
			}
		}
	}

	for f := 0; f < nTunedFuncs; f++ {
		for a := Tree; a <= Ring; a++ {
			g := graphs[a]
			for p := LL; p < nProtos; p++ {
				on := cfg.Protos[f][p]
				if on == 2 && p == LL128 {
					on = 0
					okInter := g.TypeInter <= gpu.PXB
					if srv.GPU.CompCap >= 90 {
						okInter = g.TypeInter <= gpu.PXN
					}
					if okInter && g.TypeIntra <= gpu.NVB && srv.GPU.CompCap >= 70 {
						on = 1
					}
				}
				if on == 0 || cfg.Algos[f][a] == 0 {
					t.BW[f][a][p] = 0
				}
			}
		}
	}
	return t
}

// runtimeChannels is comm->nChannels after ncclTopoPostset: the graph's
// channels doubled, doubled again on Hopper and later across nodes above
// 45 GB/s, then bounded by NCCL_MAX_NCHANNELS and raised to
// NCCL_MIN_NCHANNELS.
func runtimeChannels(cfg *Config, srv gpu.Server, graphCh, nNodes int, bwIntra float32) int {
	n := min(64, 2*graphCh)
	if srv.GPU.CompCap >= 90 && nNodes > 1 && bwIntra > 45 && n < 16 {
		n *= 2
	}
	n = min(n, cfg.MaxChannels)
	return max(n, cfg.MinChannels)
}

// Time returns NCCL's predicted time in µs of collective f of nBytes with
// algorithm a and protocol p, or -1 when the pair is unavailable
// (ncclTopoGetAlgoTime with one operation in the pipe).
func (t *Tuning) Time(f Func, a Algo, p Proto, nBytes int64) float32 {
	if f >= nTunedFuncs || a > Ring {
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
	if a == Ring && p == Simple && t.NNodes > 1 && f == AllReduce && nBytes/int64(t.NChannels*t.NRanks) >= 64 {
		if t.minCC < 80 {
			lat *= 1.9
		} else {
			lat *= 1.4
		}
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
	for a := Tree; a <= Ring; a++ {
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
	for nBytes < int64(nc*nt)*thr && nc >= 2 {
		nc--
	}
	for nBytes < int64(nc*nt)*thr && nt%128 == 0 {
		nt /= 2
	}
	best.Channels, best.Threads = nc, nt
	return best, nil
}
