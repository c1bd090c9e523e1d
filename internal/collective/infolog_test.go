package collective

import (
	"bytes"
	"fmt"
	"net/netip"
	"path/filepath"
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
