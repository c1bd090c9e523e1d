package collective

// NCCL's tuning model changed from release to release: its constants
// (base and hardware latencies, per-channel bandwidth limits) and its
// refinements (which factors apply to which algorithm, how a ring's
// network steps and its large-size plateau are counted, how NVLS is
// rated). A communicator is tuned with the model of its NCCL version, so
// that the twin picks the algorithm and protocol the run's NCCL picked;
// the per-step costs of the execution stay the current constants (they
// estimate the hardware, which the version does not change). Each era
// below is read from src/graph/tuning.cc, src/graph/connect.cc and
// src/enqueue.cc at the first release that has it.

// tunerModel is one era of NCCL's tuning model.
type tunerModel struct {
	// since is the first release of the era.
	since   Version
	baseLat [nAlgos][nProtos]float32
	hwLat   [3][nAlgos][nProtos]float32
	// llMaxBws[index1][index2], per-channel limits [compCapIndex][index2]
	// (index2: 1, 2, more nodes; index1: the GPU on one node, else the
	// CPU vendor).
	llMaxBws                                                     [4][3]float32
	perChMaxRingLL128, perChMaxTreeLL128, perChMaxTree, perChNVT [4][3]float32
	nvlsEff                                                      [4]float32
	// busCap caps every bus bandwidth by architecture (≤ 2.17: Ampere
	// 235, Hopper 370 GB/s); 0 for none.
	busCap [4]float32
	// ringLLQuarter: Ring/LL at a quarter of the bus bandwidth (a third
	// for single-node AllGather, ReduceScatter and Broadcast), ≤ 2.20.
	ringLLQuarter bool
	// ringLL128Ppn: Ring/LL128 at 0.7 with one GPU per node, ≤ 2.22.
	ringLL128Ppn bool
	// llIntra18: LL's intra-node latency ×1.8 across nodes, ≤ 2.17.
	llIntra18 bool
	// oldInterSteps: a ring AllReduce counts 2·nNodes network steps
	// (Broadcast/Reduce nNodes), ≤ 2.22; later 2·(nNodes-1).
	oldInterSteps bool
	// netOverhead: a ring's intra-node steps cost at least NCCL's network
	// overhead (×3 for Simple) across nodes, ≥ 2.18.
	netOverhead bool
	// ppn1TreeLat: with one GPU per node the network latency is the
	// tree's, ≥ 2.23.
	ppn1TreeLat bool
	// plateau is the ring Simple plateau rule: 1 (≤ 2.16: ×1.9 from
	// nRanks/16·64 KiB), 2 (2.17: ×1.9, Hopper ×1.5, same threshold), 3
	// (≥ 2.18: ×1.9 before Ampere, ×1.4 after, from 64 bytes per channel
	// and rank).
	plateau int
	// nvls is the NVLS model: 0 none (≤ 2.16), 1 NVLS on one node at 3/4
	// of the ring's bus bandwidth (2.17), 2 NVLS 5/6 and NVLSTree 0.7 of
	// the graph's (2.18), 3 the NVLS graph's min(intra, inter) at 5/6
	// (2.19-2.27), 4 NVLS efficiency and perChMaxNVLSTreeBw (≥ 2.28).
	nvls int
	// strictCompCap: the architecture index needs every GPU of the
	// generation (≤ 2.16: Ampere and Hopper only when minCompCap =
	// maxCompCap, 2.12-2.14 Ampere only).
	strictCompCap int
	// hopperDouble: runtime channels doubled again on Hopper across nodes
	// above 45 GB/s: 0 never (≤ 2.17), 1 while 2·n ≤ 32 (2.18-2.19), 2
	// while n < 16 (from 2.20.3, connect.cc).
	hopperDouble int
	// maxArch is the newest architecture index the release knows
	// (Blackwell from 2.25; before, it is rated as Hopper).
	maxArch int
}

var (
	// hwLat2_30 is the current table (2.28.9 onwards: NVLSTree 20.9 µs
	// across the network).
	hwLat2_30 = [3][nAlgos][nProtos]float32{
		{{0.6, 1.25, 4.0}, {0.6, 1.9, 3.4}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 25}, {0, 0, 25}, {0, 0, 4.0}},
		{{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 0}, {0, 0, 0}, {0, 0, 4.0}},
		{{5.0, 8.5, 14}, {2.7, 4.0, 14.0}, {0, 0, 31}, {0, 0, 30}, {0, 0, 18}, {0, 0, 20.9}, {0, 0, 14}},
	}
	// llMaxBwsOld has Hopper's LL limits as Ampere's (before 2.21).
	llMaxBwsOld = [4][3]float32{{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {87.7, 22.5, 19.0}, {87.7, 22.5, 19.0}}
)

// tunerModels are the eras, oldest first; modelFor picks the last whose
// release the version has reached.
var tunerModels = func() []tunerModel {
	cur := tunerModel{
		since:   Version{2, 30, 0},
		baseLat: baseLat, hwLat: hwLat2_30, llMaxBws: llMaxBws,
		perChMaxRingLL128: perChMaxRingLL128Bw, perChMaxTreeLL128: perChMaxTreeLL128Bw,
		perChMaxTree: perChMaxTreeBw, perChNVT: perChMaxNVLSTreeBw, nvlsEff: nvlsEfficiency,
		netOverhead: true, ppn1TreeLat: true, plateau: 3, nvls: 4, hopperDouble: 2, maxArch: 3,
	}
	// Blackwell's per-channel limits moved within releases (index
	// blackwell; v2.26.2 src/graph/tuning.cc:162-174, v2.28.3 :179-197,
	// v2.28.7 :179, v2.28.9 :197, v2.29.2 :179, v2.29.7 :180-198, v2.30.3
	// :184-205). 2.29.7-2.29.x: NVLSTree at 43.8 GB/s a channel on 4 or
	// more nodes (80 from 2.30).
	v2297 := cur
	v2297.since = Version{2, 29, 7}
	v2297.perChNVT[blackwell] = [3]float32{0, 96, 43.8}
	// 2.29.0-2.29.6: Blackwell's Ring/LL128 at 34.5/34.6/34.5 (40 from
	// 2.29.7).
	v229 := v2297
	v229.since = Version{2, 29, 0}
	v229.perChMaxRingLL128[blackwell] = [3]float32{34.5, 34.6, 34.5}
	// 2.28.9: Blackwell's Ring/LL128 at 2·36.7 but 34.6 on two nodes.
	v2289 := v229
	v2289.since = Version{2, 28, 9}
	v2289.perChMaxRingLL128[blackwell] = [3]float32{2 * 36.7, 34.6, 2 * 36.7}
	// 2.28.7-2.28.8: NVLSTree at 14 µs across the network (20.9 from
	// 2.28.9); Blackwell's NVLSTree at 43.1 on 4 or more nodes.
	v2287 := v2289
	v2287.since = Version{2, 28, 7}
	v2287.hwLat[hwNet][NVLSTree][Simple] = 14
	v2287.perChNVT[blackwell] = [3]float32{0, 96, 43.1}
	// 2.28.0-2.28.6: Blackwell's Ring/LL128 at 2·36.7 on any node count.
	v228 := v2287
	v228.since = Version{2, 28, 0}
	v228.perChMaxRingLL128[blackwell] = [3]float32{2 * 36.7, 2 * 36.7, 2 * 36.7}
	// 2.25-2.27: NVLS at 5/6 of the NVLS graph; Blackwell's tree limits
	// twice Hopper's (Tree/LL128 2·36.7, 2·36.7, 2·29; Tree 2·38.7,
	// 2·41.4, 2·36).
	v225 := v228
	v225.since, v225.nvls = Version{2, 25, 0}, 3
	v225.perChMaxTreeLL128[blackwell] = [3]float32{2 * 36.7, 2 * 36.7, 2 * 29.0}
	v225.perChMaxTree[blackwell] = [3]float32{2 * 38.7, 2 * 41.4, 2 * 36.0}
	// 2.23-2.24: Blackwell unknown.
	v223 := v225
	v223.since, v223.maxArch = Version{2, 23, 0}, 2
	// 2.21-2.22: Tree/Simple at 28 µs everywhere and no base latency;
	// one GPU per node still uses the algorithm's network latency; a
	// ring AllReduce counts 2·nNodes network steps; LL128 at 0.7 on one
	// GPU per node.
	v221 := v223
	v221.since = Version{2, 21, 0}
	v221.baseLat[Tree][Simple] = 0
	for hw := range 3 {
		v221.hwLat[hw][Tree][Simple] = 28
	}
	v221.ppn1TreeLat, v221.oldInterSteps, v221.ringLL128Ppn = false, true, true
	// 2.20: Ring/LL at a quarter; NVLS and NVLSTree at 23 µs on NVLink;
	// Hopper's LL limits as Ampere's.
	v220 := v221
	v220.since, v220.ringLLQuarter = Version{2, 20, 0}, true
	v220.hwLat[hwNVLink][NVLS][Simple], v220.hwLat[hwNVLink][NVLSTree][Simple] = 23, 23
	v220.llMaxBws = llMaxBwsOld
	// 2.19: as 2.20, with Hopper's doubling up to 32 channels (2.20.3
	// stops it at 16, connect.cc).
	v219 := v220
	v219.since, v219.hopperDouble = Version{2, 19, 0}, 1
	// 2.18: Tree/Simple at 4/6/14 µs (NVLink/PCI/network), NVLS and
	// NVLSTree base 23 µs, NVLSTree 19 µs across the network, the
	// NVLSTree ratio 0.7·n/(2(n-1)).
	v218 := v219
	v218.since, v218.nvls = Version{2, 18, 0}, 2
	v218.baseLat[NVLS][Simple], v218.baseLat[NVLSTree][Simple] = 23, 23
	v218.hwLat[hwNVLink][Tree][Simple], v218.hwLat[hwPCI][Tree][Simple], v218.hwLat[hwNet][Tree][Simple] = 4, 6, 14
	v218.hwLat[hwNVLink][NVLS][Simple], v218.hwLat[hwNVLink][NVLSTree][Simple] = 0, 0
	v218.hwLat[hwNet][NVLSTree][Simple] = 19
	// 2.17: the older constants (Tree 4.4/4.4/0, Ring 3.6/10/8.4 µs
	// base; Tree/Simple 28 µs; Ring/Simple 9.6 µs across the network),
	// the per-architecture bus caps, LL's intra-node latency ×1.8 across
	// nodes, no network overhead, the old plateau rule, NVLS on one node
	// only, no Hopper doubling.
	v217 := v218
	v217.since, v217.nvls, v217.plateau, v217.hopperDouble = Version{2, 17, 0}, 1, 2, 0
	v217.llIntra18, v217.netOverhead = true, false
	v217.baseLat = [nAlgos][nProtos]float32{{4.4, 4.4, 0}, {3.6, 10.0, 8.4}, {4.4, 4.4, 0}, {4.4, 4.4, 0}, {0, 0, 40.0}, {0, 0, 0}, {0, 0, 0}}
	v217.hwLat = [3][nAlgos][nProtos]float32{
		{{.52, 1.25, 28}, {.47, 1.9, 3.4}, {0, 0, 8.0}, {0, 0, 8.0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}},
		{{1.0, 1.9, 28}, {1.0, 2.5, 5.7}, {0, 0, 8.0}, {0, 0, 8.0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}},
		{{5.0, 8.5, 28}, {2.7, 4.0, 9.6}, {0, 0, 10.7}, {0, 0, 10.7}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}},
	}
	v217.busCap = [4]float32{0, 235, 370, 0}
	v217.perChMaxRingLL128 = [4][3]float32{{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 36.7}, {36.7, 36.7, 36.7}}
	v217.perChMaxTreeLL128 = v217.perChMaxRingLL128
	v217.perChMaxTree[2] = [3]float32{38.7, 41.4, 33.0}
	// 2.15-2.16: one LL128 limit of 20 GB/s, Hopper's tree limits as
	// Ampere's, the architecture only when all GPUs share it, plateau
	// ×1.9 everywhere, no NVLS.
	v215 := v217
	v215.since, v215.nvls, v215.plateau, v215.strictCompCap = Version{2, 15, 0}, 0, 1, 1
	v215.busCap[2] = 0
	v215.perChMaxRingLL128 = [4][3]float32{{20, 20, 20}, {20, 20, 20}, {20, 20, 20}, {20, 20, 20}}
	v215.perChMaxTreeLL128 = v215.perChMaxRingLL128
	v215.perChMaxTree[2] = perChMaxTreeBw[1]
	// 2.12-2.14: Ampere only when every GPU is an A100 (Hopper is
	// rated as Volta).
	v212 := v215
	v212.since, v212.strictCompCap = Version{2, 12, 0}, 2
	return []tunerModel{v212, v215, v217, v218, v219, v220, v221, v223, v225, v228, v2287, v2289, v229, v2297, cur}
}()

// modelFor returns the tuning model of NCCL version v (releases before
// 2.12 get 2.12's).
func modelFor(v Version) *tunerModel {
	m := &tunerModels[0]
	for i := range tunerModels {
		if v.AtLeast(tunerModels[i].since.Major, tunerModels[i].since.Minor, tunerModels[i].since.Patch) {
			m = &tunerModels[i]
		}
	}
	return m
}

// compCapIndex returns the model's architecture index for the
// communicator's lowest and highest compute capability.
func (m *tunerModel) compCapIndex(minCC, maxCC int) int {
	switch m.strictCompCap {
	case 2:
		if minCC == 80 && maxCC == 80 {
			return 1
		}
		return 0
	case 1:
		switch {
		case minCC == 80 && maxCC == 80:
			return 1
		case minCC == 90 && maxCC == 90:
			return 2
		}
		return 0
	}
	return min(compCapIndex(minCC), m.maxArch)
}

// plateauFactor is the model's multiplier of a multi-node ring Simple
// AllReduce's latency at large sizes ("plateau effect of ring").
func (m *tunerModel) plateauFactor(minCC int, nBytes int64, nChannels, nRanks int) float32 {
	switch m.plateau {
	case 1, 2:
		if float64(nBytes) < float64(nRanks)/16.0*65536 {
			return 1
		}
		if m.plateau == 2 && minCC >= 90 {
			return 1.5
		}
		return 1.9
	}
	if nBytes/int64(nChannels*nRanks) < 64 {
		return 1
	}
	if minCC < 80 {
		return 1.9
	}
	return 1.4
}
