package ingest

import "testing"

// TestNCCLSocketPluginNotRDMA: a TCP net plugin (Google's FastSocket,
// NVIDIA/nccl#1519) lists network interfaces and prints GPUDirect RDMA
// decisions under its own name. Neither is an IB device nor a GPUDirect
// RDMA verdict: the plugin carries the data over TCP.
func TestNCCLSocketPluginNotRDMA(t *testing.T) {
	for _, name := range []string{
		"nccl-2.20.5-fastsocket-plugin-v6-tcp-device-list-5-nics-nccl1519.txt",
		"nccl-fastsocket-gdr-disabled-per-eth-topology-unreadable-nccl1519.txt",
	} {
		l := ncclLog(t, "nccl-log/"+name)
		if len(l.IBDevices) != 0 {
			t.Errorf("%s: FastSocket interfaces read as IB devices: %+v", name, l.IBDevices)
		}
		if len(l.GDR) != 0 {
			t.Errorf("%s: FastSocket GDR lines read as GPUDirect RDMA decisions: %+v", name, l.GDR)
		}
		for _, tr := range l.Transports() {
			if tr.RDMA {
				t.Errorf("%s: host %s read as RDMA", name, tr.Host)
			}
		}
	}
	l := parseLog(t, "h1:1:2 [0] NCCL INFO NET/FastSocket : Using [0]enp0s12:10.0.0.6<0> [1]enp6s0f0:10.0.1.4<0>\n"+
		"h1:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1 ; OOB eth0:10.0.0.6<0>\n")
	if len(l.PluginDevices) != 1 || l.PluginDevices[0].Name != "FastSocket" || l.PluginDevices[0].Host != "h1" {
		t.Errorf("plugin devices %+v", l.PluginDevices)
	}
	if tr := l.Transports(); len(tr) != 1 || tr[0].Plugin != "FastSocket" || !tr[0].RDMA {
		t.Errorf("transports %+v", tr)
	}
	// NCCL's own IB list stays IB, a port cut before its link layer too.
	if len(l.IBDevices) != 2 {
		t.Errorf("IB devices %+v", l.IBDevices)
	}
	// So does an IB plugin's list cut before its link layer: its devices
	// have no address.
	l = parseLog(t, "h1:1:2 [0] NCCL INFO NET/IBext_v8 : Using [0]mlx5_0:1 [1]mlx5_1:1\n")
	if len(l.PluginDevices) != 0 || len(l.IBDevices) != 2 {
		t.Errorf("IBext list cut before its link layer: plugin devices %+v, IB devices %+v", l.PluginDevices, l.IBDevices)
	}
}

// TestNCCLPluginLoaderNone: the loader's lines that say no external plugin
// is in use (NVIDIA/nccl#1059) name no network; a loaded plugin does.
func TestNCCLPluginLoaderNone(t *testing.T) {
	const p = "h1:1:1 [0] NCCL INFO "
	for _, c := range []struct {
		line string
		want int
	}{
		{"NET/Plugin : No plugin found, using internal implementation", 0},
		{"NET/Plugin : Plugin load (libnccl-net.so) returned 2 : libnccl-net.so: cannot open shared object file: No such file or directory", 0},
		{"NET/Plugin: Could not find: libnccl-net.so.", 0},
		{"NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation", 0},
		{"Using non-device net plugin version 0", 0},
		{"NET/Plugin: Using internal network plugin.", 0},
		{"NET/Plugin: Loaded net plugin FastSocket (v6)", 1},
		{"Plugin Path : /opt/hpcx/nccl_rdma_sharp_plugin/lib/libnccl-net.so", 1},
		{"P2P plugin IBext_v8", 1},
	} {
		if l := parseLog(t, p+c.line); l.Plugins.Count != c.want {
			t.Errorf("%s: %d plugin lines, want %d", c.line, l.Plugins.Count, c.want)
		}
	}
}

// TestNCCLPluginDevicesSameNameTwoMachines: two machines that share a
// name and state two bootstrap addresses are two hosts; a net plugin's
// device list printed before the second address took the shared name and
// goes with its machine, not a third host.
func TestNCCLPluginDevicesSameNameTwoMachines(t *testing.T) {
	l := parseLog(t, "n:1:1 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"+
		"n:1:1 [0] NCCL INFO NET/FastSocket : Using [0]eth0:10.0.0.1<0>\n"+
		"n:1:1 [0] NCCL INFO Using network FastSocket\n"+
		"n:2:2 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.2<0>\n"+
		"n:2:2 [0] NCCL INFO NET/FastSocket : Using [0]eth0:10.0.0.2<0>\n")
	var hosts []string
	for _, tr := range l.Transports() {
		hosts = append(hosts, tr.Host)
	}
	if len(hosts) != 2 {
		t.Errorf("hosts %q, want the two machines", hosts)
	}
}
