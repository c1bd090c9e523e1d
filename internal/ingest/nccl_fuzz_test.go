package ingest

import (
	"bytes"
	"math/bits"
	"os"
	"path/filepath"
	"testing"

	"rocelab/internal/unit"
)

// addCorpusSeeds seeds a fuzz target with every real corpus file of dir.
func addCorpusSeeds(f *testing.F, dir string) {
	paths, err := filepath.Glob(filepath.Join(corpusDir, dir, "*.txt"))
	if err != nil || len(paths) == 0 {
		f.Fatalf("no corpus in %s: %v", dir, err)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// checkArtifact runs every parser over data and checks the invariants
// that must hold for any input: no panic, evidence inside the input, caps
// respected.
func checkArtifact(t *testing.T, data []byte) *Result {
	res, err := Read("fuzz", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range res.Artifacts {
		if a.Lines() <= 0 || a.Lines() > res.LineCount {
			t.Fatalf("%s recognised %d of %d lines", a.Kind(), a.Lines(), res.LineCount)
		}
	}
	return res
}

func FuzzNCCLLog(f *testing.F) {
	addCorpusSeeds(f, "nccl-log")
	addCorpusSeeds(f, "threads")
	f.Add([]byte("h:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]... ...[5]mlx5_5:1/IB [...][7]mlx5_7:1/IB […] [RO]; OOB eth0:10.0.0.1<0>\n"))
	f.Add([]byte(baseLogText()))
	f.Add([]byte("h:1:1 [0] NCCL INFO NET/IB: [3] mlx5_3:uverbs3:1/RoCE provider=Mlx5 speed=400000 context=0x1 pciPath=/sys/devices/pci0000:00/0000:17:00.0 ar=0\nh:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_3:1/RoCE [RO]; OOB eth0:10.0.0.1<0>\nh:1:1 [0] NCCL INFO Assigned NET plugin IB to comm\nh:1:1 [0] NCCL INFO comm 0x1 rank 0 nRanks 4 nNodes 1 localRanks 4 localRank 0 MNNVL 1\n"))
	f.Add([]byte("localhost:1:1 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\nlocalhost:2:2 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.2<0>\n:3:3 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE ; OOB eth0:10.0.0.3<0>\n[0] NCCL INFO NET/IB: Dev 0 Port 1 qpn 305 mtu 5 GID 3 (0/1000A0AFFFF0000)\n"))
	f.Add([]byte("h:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_2:1/IB [RO]; OOB ib0:10.0.0.1<0>\nNCCL version 2.16.5+cuda11.8\nh:1:1 [0] NCCL INFO Channel 00/0 : 1[81000] -> 0[81000] [receive] via NET/IB/1/GDRDMA\nh:1:1 [0] NCCL INFO Channel 01/1 : 1[81000] -> 0[81000] [send] via NET/IB/1(3)/GDRDMA/Shared\nh:1:1 [0] NCCL INFO Channel 02/0 : 1[0] -> 0[0] via NET/IB/64\nh:1:1 [0] NCCL INFO Channel 03/0 : 1[0] -> 0[0] via NET/IB\n"))
	f.Add([]byte("n:1:2 [4] NCCL INFO Channel 05/0 : 4[4] -> 12[4] [receive] via NET/NCCL RDMA Plugin v8/4/GDRDMA\nn:1:2 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [send] via NET/AWS Libfabric/3/GDRDMA\nn:1:2 [0] NCCL INFO Ring 00 : 6 -> 2 [send] via NET/gIB/7\nn:1:2 [0] NCCL INFO Channel 00/0 : -1[0] ->  [receive] via NET/Socket/1\n"))
	// Line families read late: NET/IB's set_ece lines, a console row
	// glued to its time, a plugin's signature location without a prefix,
	// connections via a plugin beside a plugin's WARN.
	f.Add([]byte("r:1:2 [7] NCCL INFO NET/IB: IbDev 4 Port 1 qpn 103534 set_ece={supported=1, vendor_id=0x15b3, options=0x0, comp_mask=0x0}\nr:1:2 [7] NCCL INFO NET/IB: IbDev 4 Port 1 qpn 7 query_ece={supported=0}\n"))
	f.Add([]byte("  | 2025-05-16T16:39:51.208-07:00 | h:79:79 [0] NCCL INFO cudaDriverVersion 12040\n  | 2025-05-16T16:39:51.208-07:00h:79:79 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0> | h:79:79 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n  | 2025-05-16T16:39:51.208-07:00 | NCCL version 2.21.5+cuda12.8\n  | 2025-05-16T16:39:51.208-07:00a | \n"))
	f.Add([]byte("[0] tcpxResult_t tcpxCommProgress(tcpxComm*):1231 NCCL WARN 0x1:0x2, nic 0, enp12s0, 172.16.0.11<39187><-172.16.0.95<46723> rx rx ctrl timeout cnt 7, nanos 10\n\ntcpxResult_t tcpxCommProgress(tcpxComm*):1231 NCCL WARN x\n(tcpx):1 NCCL WARN y\n"))
	f.Add([]byte("[1,7]<stdout>:h:1:2 [7] NCCL INFO Ring 00 : 7 -> 8 [send] via NET/AWS Libfabric/0\n[1,23]<stdout>:g:3:4 [7] create_nccl_ofi_component:459 NCCL WARN NET/OFI Couldn't open AV. RC: -22, ERROR: Invalid argument\n"))
	// NCCL 2.30.7's function after each location.
	f.Add([]byte("h:1:2 [0] nccl/src/allocator.cc:229 (ncclSpaceAlloc) NCCL WARN x\nh:1:2 [0] NCCL INFO nccl/src/dev_runtime.cc:602 (symMemoryObtain) -> 3\n[0] a.cc:1 () NCCL WARN y\n[0] NCCL INFO (f) -> 2\n"))
	// Device lists shortened by their poster.
	f.Add([]byte("h:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE … [7]mlx5_7:1/RoCE [RO]; OOB eth0:10.0.0.1<0>\n  NCCL INFO NET/IB : Using [9]a:1/IB ... [2]b:1/IB [...] …\n"))
	// PyTorch's error wrapped after its location, complete and not.
	f.Add([]byte("[rank0]: DistBackendError: NCCL error in:\n\n[rank0]: a/ProcessGroupNCCL.cpp:1333,\n\n[rank0]: remote error, NCCL version 2.21.5\nNCCL error in:\nx\nNCCL error in: b.cpp:1,\n"))
	f.Add([]byte("DistBackendError: NCCL error in: a/NCCLSymmetricMemory.cu:9, unhandled cuda error, NCCL version 2.29.7\nncclMemAlloc failed\nnccl\nFailed to window register segment\nNCCL error in: b.cpp:1, invalid usage\nncclX\n"))
	f.Add([]byte("torch.distributed.DistBackendError: NCCL error in: a/NCCLSymmetricMemory.cu:174,\ninvalid argument (run with NCCL_DEBUG=WARN for details), NCCL version 2.29.7\nx: NCCL error in: b.cpp:1,\n,\nNCCL error in: ,\n"))
	// PyTorch's description of a result without PyTorch's line, tagged,
	// bare, cut, and inside prose.
	f.Add([]byte("[t0|0]:ncclInternalError: Internal check failed.\n[t0|0]:Last error:\n[t0|0]:x family 7 is neither AF_INET(2)\nncclSystemError: \nncclInvalidUsage:x\na b ncclRemoteError: y\nLast error:\n"))
	f.Add([]byte("\tncclInternalError: Internal check failed.\n\tncclSystemError: x failed\n\tLast error:\n\tncclInvalidUsage: y failed\nncclRemoteError: z\n"))
	// Under a description alone: a launcher's line, the application's, and
	// NCCL-shaped texts (a function, NET/, Call to), some cut.
	f.Add([]byte("ncclInternalError: Internal check failed.\nsrun: error: n1: task 3: Exited\nncclSystemError: x\nERROR: step failed\nncclRemoteError: y\nsocketStartConnect: Connect failed\nncclInternalError: z\nNET/IB : error\nncclInvalidUsage: w\nCall to \nncclSystemError: v\nnccl: failed\nsocket:\n"))
	// Init and bootstrap timings of both releases' forms, cut and garbled.
	f.Add([]byte("h:1:2 [0] NCCL INFO Init timings: rank 5 nranks 8 total 2.46 (kernels 0.18, bootstrap 1.60, rest 0.02)\nh:1:2 [0] NCCL INFO Init timings - ncclCommInitRankConfig: rank 3 nranks 8 total 55.01 (kernels 52.45, alloc 0.41\nh:1:2 [0] NCCL INFO Bootstrap timings total 0.633247 (create 0.000033, recv 0.632491, delay -1)\nh:1:2 [0] NCCL INFO Init timings total NaN (x 1e400, , y)\n"))
	// Async events in each release's words, an event number past the
	// enum, and cut or garbled ones.
	f.Add([]byte("h:1:2 [0] transport/net_ib.cc:171 NCCL WARN NET/IB : mlx5_0:1 Got async error event: port error\nh:1:2 [0] transport/net_ib/common.cc:179 NCCL WARN NET/IB : mlx5_0:1 Got non-fatal async event: port active(9)\nh:1:2 [0] transport/net_ib.cc:176 NCCL WARN NET/IB : mlx5_0:1 unknown event type (18)\nh:1:2 [0] NCCL WARN NET/IB : mlx5_1:2 unknown event type (99)\nh:1:2 [0] NCCL WARN NET/IB : unknown event type (-1)\nh:1:2 [0] NCCL WARN NET/IB : mlx5_0:1 GID table changed\nh:1:2 [0] NCCL WARN NET/IB : x:1 async fatal event on QP (0x1) qpn=3 state=6 rq_psn=0: WQ fatal\nh:1:2 [0] NCCL WARN NET/IB : async fatal event on CQ (\nh:1:2 [0] NCCL WARN Got non-fatal async event: (10)\n"))
	f.Add([]byte("h:1:2 [1] transport/net_ib/p2p_resiliency.cc:376 NCCL WARN NET/IB: Device 0 marked as failed. Initiating recovery? No (recv comm=0x1, outstandingRecovery=0)\nh:1:2 [1] transport/net_ib/connect.cc:9 NCCL WARN NET/IB: x\nh:1:2 [1] net_ib/ NCCL WARN NET/IB: y\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		res := checkArtifact(t, data)
		for _, a := range res.Artifacts {
			l, ok := a.(*NCCLLog)
			if !ok {
				continue
			}
			if len(l.ConnRanks) > 4*maxDistinct {
				t.Fatal("connection ranks beyond their cap")
			}
			for _, hr := range l.ConnRanks {
				if hr.Rank < 0 {
					t.Fatalf("connection rank %+v negative", hr)
				}
			}
			for _, c := range l.Channels {
				if n := bits.OnesCount64(c.Devs) + c.NoDev; c.Kind == "NET" && (n < 1 || n > c.Count) || c.Kind != "NET" && n > 0 {
					t.Fatalf("channel %+v: devices counted %d times", c, n)
				}
			}
			if len(l.InitTimings) > maxKept || len(l.LastArrivals) > maxKept {
				t.Fatal("init timings beyond their cap")
			}
			for _, it := range l.InitTimings {
				if it.TotalMS < 0 || len(it.Phases) == 0 || len(it.Phases) > 16 {
					t.Fatalf("init timing %+v", it)
				}
			}
			if len(l.Completions) > l.CompletionCount || len(l.Setup) > l.SetupCount || len(l.Warnings) > l.WarningCount {
				t.Fatal("kept more lines than counted")
			}
			for _, c := range l.Completions {
				if c.Evidence.Line < 1 || c.Evidence.Line > res.LineCount {
					t.Fatalf("evidence line %d outside 1..%d", c.Evidence.Line, res.LineCount)
				}
			}
			if len(l.MTUs) > maxKept || len(l.origins) > maxCachedOrigins || len(l.vias) > maxDistinct {
				t.Fatal("caches or MTUs beyond their caps")
			}
			for _, m := range l.MTUs {
				if m.MTU < 256 || m.MTU > 4096 {
					t.Fatalf("MTU %d", m.MTU)
				}
			}
			if len(l.QPs) > maxKept || len(l.procBoot) > maxDistinct {
				t.Fatal("queue pairs or processes beyond their caps")
			}
			for _, q := range l.QPs {
				if q.Evidence.Line < 1 || q.Evidence.Line > res.LineCount {
					t.Fatalf("QP evidence line %d outside 1..%d", q.Evidence.Line, res.LineCount)
				}
			}
			if len(l.RankGPUs) > maxDistinct {
				t.Fatal("rank GPUs beyond their cap")
			}
			for _, g := range l.RankGPUs {
				if g.BusID == "" || g.Evidence.Line < 1 || g.Evidence.Line > res.LineCount {
					t.Fatalf("rank GPU %+v", g)
				}
			}
			if len(l.IBPorts) > maxKept || len(l.IBDevices) > maxDistinct || len(l.ibIdx) != len(l.IBDevices) {
				t.Fatalf("%d ports, %d devices, %d indexed", len(l.IBPorts), len(l.IBDevices), len(l.ibIdx))
			}
			for _, p := range l.IBPorts {
				if p.Port <= 0 || p.Device == "" || p.Speed < 0 || p.Speed > 2400*unit.Gbps || p.AR < -1 || p.AR > 1 || p.Evidence.Line < 1 || p.Evidence.Line > res.LineCount {
					t.Fatalf("port %+v", p)
				}
				if a := p.PCIAddr(); a != "" && !isBDF(a) {
					t.Fatalf("PCI address %q", a)
				}
			}
			for _, s := range l.LinkSpeeds() {
				if s.Rate <= 0 {
					t.Fatalf("speed %+v", s)
				}
			}
			for _, h := range l.HostIdents() {
				if h.IsZero() {
					t.Fatal("a host with no name, address or GUID")
				}
			}
			l.GIDDefaults()
			l.GDRReport()
			l.GIDUses()
			l.GIDEntries()
			l.Transports()
			l.SocketEvidence(4)
			l.Bottlenecks()
			l.VersionAtLeast(2, 21)
		}
	})
}

func FuzzNCCLTests(f *testing.F) {
	addCorpusSeeds(f, "nccl-tests")
	f.Add([]byte("#  Rank  0 Group  0 Pid 1 on h device  0 [0000:08:00] NVIDIA H20\n[h:1:0:2] Caught signal 11 (Segmentation fault: addres\n[h:1] Caught signal x (y)\n[] Caught signal 7\n"))
	f.Add([]byte("# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\nrccl-tests: Version develop:448c4c7\n#  Rank  0 Group  0 Pid 1 on h device  0 [0000:05:00] AMD Instinct MI300X\n# rccl-tests version \n"))
	for _, l := range []string{"+ mpirun -np 16 -H a,b", "nohup torchrun --nnodes 2 --no-python \\", "timeout 600 mpirun -np 16", "/usr/bin/time -v mpirun -np 16", "salloc -N2 srun \\", "singularity exec img.sif mpirun -np 16", "kubectl exec pod -- mpirun -np 16", "++ srun"} {
		f.Add([]byte(l + "\n./build/all_reduce_perf -g 1\n#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n        1024           256     float     sum      -1    20.00    0.05    0.09      0    20.00    0.05    0.09      0\n"))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		res := checkArtifact(t, data)
		for _, a := range res.Artifacts {
			x, ok := a.(*NCCLTests)
			if !ok {
				continue
			}
			for _, r := range x.Runs {
				if len(r.Rows) > maxRows || len(r.Ranks) > maxRanks {
					t.Fatal("caps exceeded")
				}
				if p, ok := r.Plateau(); ok && (p.Max < p.BusBW || p.BusBW < p.Min || len(p.Rows) == 0) {
					t.Fatalf("plateau %+v out of order", p)
				}
				r.RanksPerHost()
				if n, lo, hi := r.RatioRanks(); n < 0 || n > maxRanks || n > 0 && (lo > hi || busFactor(r.Collective, n) < lo || busFactor(r.Collective, n) > hi) {
					t.Fatalf("ratio ranks %d outside its bounds %g-%g", n, lo, hi)
				}
				if r.Tool != "" && r.Tool != ToolMSCCLPP && r.Tool != ToolRCCL {
					t.Fatalf("tool %q", r.Tool)
				}
			}
			for _, g := range x.Garbled {
				if g.Line < 1 || g.Col < 1 {
					t.Fatalf("garble at %d:%d", g.Line, g.Col)
				}
				g.Error("f")
			}
		}
	})
}

func baseLogText() string {
	var b bytes.Buffer
	for _, l := range baseLog {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}
