package ingest

import "testing"

// The shapes real perftest command lines take, with the run's peer and
// device: launcher, pinning and environment prefixes, perftest's options
// that take a value (short and long, from perftest_parameters.c's getopt
// string and has_arg = 1 long options) beside its flags, redirections and
// a second command after a shell operator; and lines that name the tool in
// prose ("INFO: run ib_write_bw client on host: sudo taskset ... ib_write_bw
// -d mlx5_3 peer", a sentence about the tool), where perftest's one bare
// argument (its server) is followed by several bare words: the command is
// the occurrence whose arguments fit, and a sentence sets no peer (synthetic
// lines, one per shape; the first prose one in the shape of
// Mellanox/ngc_multinode_perf#108's log).
func TestPerftestCommandShapes(t *testing.T) {
	for _, c := range []struct{ line, peer, dev string }{
		{"ib_write_bw -d mlx5_0 -x 3 -F --report_gbits 10.0.0.2", "10.0.0.2", "mlx5_0"},
		{"ib_write_bw 10.0.0.2 -d mlx5_0", "10.0.0.2", "mlx5_0"},
		{"mpirun -np 2 -H gpu01,gpu02 ib_write_bw -d mlx5_0 -a", "", "mlx5_0"},
		{"numactl -N 0 -m 0 ib_write_bw -d mlx5_1 -q 4 gpu02", "gpu02", "mlx5_1"},
		{"taskset -c 1 ib_write_bw -d mlx5_0 gpu02", "gpu02", "mlx5_0"},
		{"CUDA_VISIBLE_DEVICES=0 ib_write_bw -d mlx5_0 --use_cuda 0 gpu02", "gpu02", "mlx5_0"},
		{"ib_write_bw --ib-dev mlx5_0 --size 65536 --iters 5000 --mr_per_qp --report_gbits gpu02", "gpu02", "mlx5_0"},
		{"ib_write_bw -d mlx5_0 -s 65536 -D 10 -q 8 -p 18515 --cpu_util --run_infinitely gpu02", "gpu02", "mlx5_0"},
		{"ib_write_bw -d mlx5_0 --report-min-bw=1000 --gid-index 3 --tclass 106 gpu02", "gpu02", "mlx5_0"},
		{"ib_write_bw -d mlx5_0 -x 3 gpu02 2>&1 | tee bw.txt", "gpu02", "mlx5_0"},
		{"ib_write_bw -d mlx5_0 -x 3 gpu02 2> err.txt", "gpu02", "mlx5_0"},
		{"ib_write_bw -d mlx5_0 -x 3 gpu02 && echo done", "gpu02", "mlx5_0"},
		{"ib_write_bw -d mlx5_0 -x 3 -p 18516 gpu02 & sleep 1", "gpu02", "mlx5_0"},
		{"kubectl exec -it rdma-pod -- ib_write_bw -d mlx5_2 -R 192.168.1.20", "192.168.1.20", "mlx5_2"},
		{"ssh gpu01 sudo ib_send_bw -d mlx5_3 -F -a gpu02", "gpu02", "mlx5_3"},
		{"INFO: run ib_write_bw client on clx-host-109: sudo taskset -c 28 ib_write_bw -d mlx5_3 -D 30 clx-host-108 -s 65536 -p 10000 -F --report_gbit -b -q 2 &", "clx-host-108", "mlx5_3"},
		{"# ib_read_bw/ib_write_bw inside a Kubernetes pod on mlx5_2", "", ""},
		{"we ran ib_write_bw between the two pods", "", ""},
		{"[root@gpu01 ~]# ib_write_bw -d mlx5_0 gpu02 & # the client", "gpu02", "mlx5_0"},
	} {
		p := nicArtifact[*Perftest](t, nicReadText(t, "c.txt", "# synthetic\n"+c.line+"\nFailed to create AH\n"))
		if r := p.Runs[0]; r.Peer != c.peer || r.Device != c.dev {
			t.Errorf("%s: peer %q device %q, want %q %q", c.line, r.Peer, r.Device, c.peer, c.dev)
		}
	}
}
