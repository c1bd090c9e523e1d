package collective

import (
	"bytes"
	"fmt"
	"net/netip"
	"path/filepath"
	"strings"
	"testing"

	"rocelab/internal/golden"
	"rocelab/internal/gpu"
	"rocelab/internal/ingest"
)

func logHosts(servers, nics int) []LogHost {
	hs := make([]LogHost, servers)
	for s := range hs {
		hs[s].Name = fmt.Sprintf("node%d", s)
		for n := 0; n < nics; n++ {
			hs[s].Netdevs = append(hs[s].Netdevs, Netdev(n))
			hs[s].IPs = append(hs[s].IPs, netip.AddrFrom4([4]byte{10, 0, 0, byte(s*nics + n + 1)}))
		}
	}
	return hs
}

// readLog parses a written log with the doctor's NCCL log parser.
func readLog(t *testing.T, log []byte) *ingest.NCCLLog {
	t.Helper()
	res, err := ingest.Read("nccl.log", bytes.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range res.Artifacts {
		if l, ok := a.(*ingest.NCCLLog); ok {
			return l
		}
	}
	t.Fatalf("no NCCL log recognised in\n%s", log)
	return nil
}

// TestInfoLogReadsBack: the log of four servers of eight A100 with two
// 100G NICs each, read by the doctor's parser, gives what the
// communicator is: every server's two NICs, IB over RoCE, 32 ranks on 4
// nodes, the ring channels, one NET connection line per ring neighbour
// across servers, and GPUDirect RDMA as NCCL_NET_GDR_LEVEL decides.
func TestInfoLogReadsBack(t *testing.T) {
	srv := preset(t, "a100-1nic")
	srv.NICs = 2
	for _, gdr := range []bool{true, false} {
		srv.GPUNIC = gpu.PXB
		if !gdr {
			srv.GPUNIC = gpu.SYS
		}
		c := mustComm(t, srv, 4, 8, map[string]string{"NCCL_IB_GID_INDEX": "3"})
		var b bytes.Buffer
		if err := c.WriteInfoLog(&b, logHosts(4, 2)); err != nil {
			t.Fatal(err)
		}
		l := readLog(t, b.Bytes())
		perHost := map[string]int{}
		for _, d := range l.IBDevices {
			perHost[d.Host]++
		}
		if len(perHost) != 4 || perHost["node3"] != 2 {
			t.Errorf("IB devices per host %v, want 2 on each of 4", perHost)
		}
		if len(l.Networks) != 4 || l.Networks[0].Name != "IB" {
			t.Errorf("networks %+v", l.Networks)
		}
		if l.Comm.Ranks != 32 || l.Comm.Nodes != 4 || l.Comm.LocalRanks != 8 {
			t.Errorf("comm %+v, want 32 ranks, 4 nodes, 8 local", l.Comm)
		}
		if l.NChannels != c.Tuning.NChannels {
			t.Errorf("channels %d, want %d", l.NChannels, c.Tuning.NChannels)
		}
		var send, recv, sendGDR int
		for _, ch := range l.Channels {
			if ch.Kind == "NET" {
				send += ch.Send
				recv += ch.Recv
				sendGDR += ch.SendGDR
			}
		}
		// Ring: each channel crosses each of the 4 server boundaries once;
		// trees add their inter-server edges.
		if send < 4*c.Tuning.NChannels || send != recv {
			t.Errorf("NET connection lines: %d send, %d receive, want at least %d each", send, recv, 4*c.Tuning.NChannels)
		}
		if gdr != (sendGDR == send) || (!gdr && sendGDR != 0) {
			t.Errorf("GDR %v: %d of %d send lines with /GDRDMA", gdr, sendGDR, send)
		}
		for _, r := range l.Rings {
			if (r.GDR == 1) != gdr {
				t.Errorf("ring summary GDR %d, want %v", r.GDR, gdr)
			}
		}
		for _, d := range l.GDR {
			if d.Enabled != gdr || d.Reason == "" && !gdr {
				t.Errorf("GDR decision %+v, want enabled %v with a reason", d, gdr)
			}
		}
		if len(l.Env) == 0 || l.Env[0].Name != "NCCL_IB_GID_INDEX" {
			t.Errorf("env echo %+v", l.Env)
		}
	}
}

// TestInfoLogGolden keeps the log of a small communicator (two servers of
// two GPUs and two NICs) as a reviewable golden: go test -update rewrites
// it.
func TestInfoLogGolden(t *testing.T) {
	srv := preset(t, "a100-1nic")
	srv.NICs, srv.GPUs = 2, 2
	c := mustComm(t, srv, 2, 2, map[string]string{"NCCL_IB_HCA": "mlx5_0,mlx5_1", "NCCL_IB_GID_INDEX": "3"})
	var b bytes.Buffer
	if err := c.WriteInfoLog(&b, logHosts(2, 2)); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "infolog_2x2.txt"), b.Bytes(), *update)
}

// TestInfoLogSocket: with NCCL_IB_DISABLE=1 the log says so and lists the
// socket devices.
func TestInfoLogSocket(t *testing.T) {
	srv := preset(t, "a100-1nic")
	c := mustComm(t, srv, 2, 8, map[string]string{"NCCL_IB_DISABLE": "1"})
	var b bytes.Buffer
	if err := c.WriteInfoLog(&b, logHosts(2, 1)); err != nil {
		t.Fatal(err)
	}
	l := readLog(t, b.Bytes())
	if len(l.SocketDevices) != 2 || len(l.IBDevices) != 0 || l.Networks[0].Name != "Socket" {
		t.Errorf("socket devices %+v, IB %+v, networks %+v", l.SocketDevices, l.IBDevices, l.Networks)
	}
}

// TestInfoLogTuning: with NCCL_DEBUG_SUBSYS naming TUNING, rank 0 prints
// the model's table at init and a line per call in its release's format
// (2.24 on: the planner's channels and, for AllGather, one rank's bytes;
// 2.23: the model's indices and predicted time; before: none); without
// it, no TUNING line; with TUNING alone, no INIT line. The doctor still
// reads the log.
func TestInfoLogTuning(t *testing.T) {
	srv := preset(t, "dgx-a100")
	calls := []Call{{Func: AllReduce, Bytes: 1 << 20}, {Func: AllGather, Bytes: 16 << 20}}
	for _, c := range []struct {
		version, subsys string
		table, first    string
		lines           []string
		init            bool
	}{
		{"2.30.7", "INIT,TUNING", "  Algorithm   |", "AllReduce", []string{
			"AllReduce: 1048576 Bytes -> Algo Tree proto LL128 channel{Lo..Hi}={0..15}",
			"AllGather: 1048576 Bytes -> Algo Ring proto LL128 channel{Lo..Hi}={0..15}"}, true},
		{"2.23.4", "ALL", "  Algorithm   |", "AllReduce", []string{"AllReduce: 1048576 Bytes -> Algo 0 proto 1 time "}, true},
		{"2.19.3", "INIT,TUNING", "  Algorithm   |", "", nil, true},
		{"2.17.1", "TUNING", "Latency/AlgBw |", "", nil, false},
		{"2.30.7", "", "", "", nil, true},
	} {
		v, _ := ParseVersion(c.version)
		env := map[string]string{"NCCL_IB_GID_INDEX": "3"}
		if c.subsys != "" {
			env["NCCL_DEBUG_SUBSYS"] = c.subsys
		}
		cfg, err := NewConfig(env, v)
		if err != nil {
			t.Fatal(err)
		}
		cm, err := NewComm(cfg, System{Server: srv, Hosts: DenseHosts(2, srv.NICs)}, []int{0, 1}, AllGPUs(8))
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := cm.WriteInfoLog(&b, logHosts(2, srv.NICs), calls...); err != nil {
			t.Fatal(err)
		}
		log := b.String()
		name := c.version + " " + c.subsys
		if got := strings.Contains(log, "NCCL INFO "+c.table); c.table != "" && !got {
			t.Errorf("%s: no tuning table %q", name, c.table)
		}
		if c.table == "" && strings.Contains(log, "Algorithm   |") {
			t.Errorf("%s: a tuning table without TUNING", name)
		}
		if c.table != "" && strings.Count(log, c.table) != strings.Count(strings.Join(cm.Tuning.TuningTable(), "\n"), c.table) {
			t.Errorf("%s: the table is printed by more than rank 0", name)
		}
		for _, want := range c.lines {
			if !strings.Contains(log, "NCCL INFO "+want) {
				t.Errorf("%s: no line %q in\n%s", name, want, log)
			}
		}
		if c.lines == nil && strings.Contains(log, "Bytes -> Algo") {
			t.Errorf("%s: a per-call TUNING line", name)
		}
		if got := strings.Contains(log, "Init COMPLETE"); got != c.init {
			t.Errorf("%s: INIT lines %v, want %v", name, got, c.init)
		}
		if c.init {
			readLog(t, b.Bytes())
		}
	}
}

// TestInfoLogNVLSChannels: the init line of channel counts gives
// comm->nvlsChannels as NCCL prints it (init.cc, "%d nvls channels"): 0
// without NVLink SHARP (A100), 16 on 2 × 8 H100, 32 on 2 × 8 B200 (NCCL
// 2.29.7), 24 on 4 × 8 B200 with 400G NICs from NCCL 2.30
// (ncclNvlsTreeSm100Tuning). The line's fields follow the release: no
// "collnet channels" before 2.20, no "nvls channels" before 2.17.
func TestInfoLogNVLSChannels(t *testing.T) {
	b200 := preset(t, "hgx-h100")
	b200.GPU, _ = gpu.LookupModel("B200")
	for _, c := range []struct {
		srv     gpu.Server
		v       Version
		servers int
		want    string
	}{
		{preset(t, "dgx-a100"), DefaultVersion, 2, " 0 nvls channels"},
		{preset(t, "hgx-h100"), DefaultVersion, 2, " 16 nvls channels"},
		{b200, Version{2, 29, 7}, 2, " 32 nvls channels"},
		{b200, Version{2, 30, 7}, 4, " 24 nvls channels"},
		{preset(t, "hgx-h100"), Version{2, 19, 4}, 2, "16 coll channels, 16 nvls channels, 16 p2p channels"},
		{preset(t, "hgx-h100"), Version{2, 16, 5}, 2, "16 coll channels, 16 p2p channels"},
	} {
		cm := mustCommOf(t, c.v, c.srv, c.servers, 8, map[string]string{"NCCL_IB_GID_INDEX": "3"})
		var b bytes.Buffer
		if err := cm.WriteInfoLog(&b, logHosts(c.servers, c.srv.NICs)); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), c.want) {
			t.Errorf("%s %s, %d servers: no %q in the init lines", c.srv.GPU.Name, c.v, c.servers, c.want)
		}
		readLog(t, b.Bytes())
	}
}

// A server whose NIC ports pair up on dual-port cards logs each card as
// one device of two ports, as NCCL 2.20 and later print merged devices
// ("[0]={[0] mlx5_0:1/RoCE, [1] mlx5_1:1/RoCE}"), and the doctor's parser
// reads back every port.
func TestInfoLogMergedNICs(t *testing.T) {
	srv := preset(t, "a100-1nic")
	srv.NICs, srv.CardPorts = 4, 2
	c := mustComm(t, srv, 2, 8, map[string]string{"NCCL_IB_GID_INDEX": "3"})
	if !c.merged {
		t.Fatalf("NCCL %s did not merge the cards' ports", c.Cfg.Version)
	}
	var b bytes.Buffer
	if err := c.WriteInfoLog(&b, logHosts(2, 4)); err != nil {
		t.Fatal(err)
	}
	want := "NET/IB : Using [0]={[0] mlx5_0:1/RoCE, [1] mlx5_1:1/RoCE} [1]={[2] mlx5_2:1/RoCE, [3] mlx5_3:1/RoCE} [RO]"
	if !strings.Contains(b.String(), want) {
		t.Fatalf("no %q in\n%s", want, b.String())
	}
	l := readLog(t, b.Bytes())
	perHost := map[string]int{}
	for _, d := range l.IBDevices {
		if d.LinkLayer != "RoCE" {
			t.Errorf("%s %s:%d read with link layer %q", d.Host, d.Name, d.Port, d.LinkLayer)
		}
		perHost[d.Host]++
	}
	if len(perHost) != 2 || perHost["node1"] != 4 {
		t.Errorf("IB ports per host %v, want 4 on each of 2", perHost)
	}
}
