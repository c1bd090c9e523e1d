package collect

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// readArchive returns the archive's files by base name.
func readArchive(t *testing.T, data []byte) map[string]string {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	out := map[string]string{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(tr)
		out[filepath.Base(h.Name)] = string(b)
	}
	return out
}

func write(t *testing.T, root, path, data string) {
	t.Helper()
	p := filepath.Join(root, path)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestCollectNoRDMA: a tree without /sys/class/infiniband gives an archive
// that says so, and a command the tree lacks is recorded as not run, never
// taken from this host's PATH.
func TestCollectNoRDMA(t *testing.T) {
	root := t.TempDir()
	write(t, root, "proc/sys/kernel/hostname", "box\n")
	write(t, root, "proc/sys/kernel/osrelease", "6.1.0\n")
	var buf bytes.Buffer
	meta, err := Collect(context.Background(), Options{Root: root}, &buf)
	if err != nil {
		t.Fatal(err)
	}
	files := readArchive(t, buf.Bytes())
	m := files["meta.txt"]
	if meta.Host != "box" || !strings.Contains(m, "rdma_devices: 0") || !strings.Contains(m, "missing: /sys/class/infiniband: no RDMA device") || !strings.Contains(m, "missing: ibv_devinfo -v: not run: --root") {
		t.Errorf("meta:\n%s", m)
	}
}

// TestCollectFixtureTree collects from a fake /sys built from the corpus's
// real GID table (NVIDIA/nccl#1131) and fake commands on PATH: both
// counter snapshots with their date lines, the GID table with types and
// netdevs, the DCQCN settings and the port's traffic class, the bonds and
// modules under /proc, the firmware settings by mstflint's tool where MFT's
// is absent, the host's layout (numactl -H, lscpu, lstopo's XML, mst
// status -v, systemd-detect-virt's "none" despite its exit status 1),
// every command's output, and a command that hangs stopped by its timeout.
func TestCollectFixtureTree(t *testing.T) {
	root := t.TempDir()
	write(t, root, "proc/sys/kernel/hostname", "gpu01\n")
	write(t, root, "proc/sys/kernel/osrelease", "5.15.0-91-generic\n")
	port := "sys/class/infiniband/mlx5_0/ports/1/"
	for i, g := range []string{"fe80:0000:0000:0000:1270:fdff:fe6e:3ad8", "fe80:0000:0000:0000:1270:fdff:fe6e:3ad8", "0000:0000:0000:0000:0000:ffff:0b00:0048", "0000:0000:0000:0000:0000:ffff:0b00:0048", "0000:0000:0000:0000:0000:0000:0000:0000"} {
		n := string(rune('0' + i))
		write(t, root, port+"gids/"+n, g+"\n")
		typ := "IB/RoCE v1"
		if i%2 == 1 {
			typ = "RoCE v2"
		}
		write(t, root, port+"gid_attrs/types/"+n, typ+"\n")
		write(t, root, port+"gid_attrs/ndevs/"+n, "ens3np0\n")
	}
	write(t, root, port+"hw_counters/np_cnp_sent", "1333\n")
	write(t, root, port+"hw_counters/out_of_sequence", "7\n")
	write(t, root, port+"counters/port_rcv_packets", "900000\n")
	write(t, root, "sys/class/net/ens3np0/ecn/roce_np/enable/3", "1\n")
	write(t, root, "sys/class/net/ens3np0/ecn/roce_np/cnp_dscp", "48\n")
	write(t, root, "sys/class/net/ens3np0/ecn/roce_rp/enable/3", "1\n")
	// The tree's own commands: a tree's outputs, never this host's.
	bin := filepath.Join(root, "usr", "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	script := func(name, body string) { write(t, bin, name, "#!/bin/sh\n"+body+"\n") }
	state := filepath.Join(t.TempDir(), "n")
	script("ethtool", `case "$1" in
-S) n=$(cat `+state+` 2>/dev/null || echo 0); n=$((n+1)); echo $n > `+state+`
echo "NIC statistics:"; echo "     rx_prio3_bytes: $((n*1000000))"; echo "     rx_prio3_pause_duration: $((n*50))"; echo "     rx_prio3_pause: $((n*10))";;
-i) echo "driver: mlx5_core";;
-m) echo "netlink error: Operation not supported" >&2; exit 1;;
*) echo "Settings for $2:"; echo "	Speed: 400000Mb/s";;
esac`)
	script("mlnx_qos", `echo "Priority trust state: dscp"`)
	script("ibv_devinfo", `echo "hca_id:	mlx5_0"`)
	script("rdma", `echo "link mlx5_0/1 state ACTIVE physical_state LINK_UP netdev ens3np0"`)
	script("ip", `echo "$*"; echo "2: ens3np0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000"`)
	script("lspci", `exec sleep 60`)
	script("nvidia-smi", `echo "GPU0 X NODE"`)
	script("devlink", `echo "pci/0000:43:00.0:"; echo "  reporter fw"; echo "    state healthy error 0 recover 0"`)
	script("mstconfig", `echo "Device #1:"; echo "Device:         $2"; echo "Configurations:                              Next Boot"; echo "         ATS_ENABLED                         False(0)"`)
	// The bonds and modules of the host, and the RDMA device on its PCI
	// function (sysfs's device link).
	write(t, root, "proc/net/bonding/bond0", "Ethernet Channel Bonding Driver: v5.15.0\n\nBonding Mode: IEEE 802.3ad Dynamic link aggregation\n\nSlave Interface: ens3np0\nMII Status: up\n")
	// Synthetic: a 1G management bond beside it, which is none of RoCE's.
	write(t, root, "proc/net/bonding/bond1", "Ethernet Channel Bonding Driver: v5.15.0\n\nBonding Mode: adaptive load balancing\n\nSlave Interface: eno1\nMII Status: down\n")
	write(t, root, "proc/modules", "nvidia_peermem 16384 0 - Live 0x0000000000000000\n")
	write(t, root, "sys/class/infiniband/mlx5_0/tc/1/traffic_class", "Global tclass=106\n")
	if err := os.Symlink("../../../0000:43:00.0", filepath.Join(root, "sys/class/infiniband/mlx5_0/device")); err != nil {
		t.Fatal(err)
	}
	script("dmesg", `echo "[    8.387840] mlx5_core 0000:43:00.0: 63.008 Gb/s available PCIe bandwidth"; echo "[    9.0] usb 1-1: new device"`)
	// The host's layout: its NUMA nodes, hwloc's tree, MFT's table, and a
	// bare-metal systemd-detect-virt, which prints "none" and exits 1.
	script("numactl", `echo "available: 2 nodes (0-1)"; echo "node 0 cpus: 0 1"`)
	script("lscpu", `echo "NUMA node(s):        2"`)
	script("lstopo-no-graphics", `echo "<topology version=\"2.0\">"; echo "args $*"`)
	script("mst", `echo "DEVICE_TYPE MST PCI RDMA NET NUMA"; echo "args $*"`)
	script("systemd-detect-virt", `echo none; exit 1`)
	t.Setenv("PATH", "/usr/bin:/bin")
	env := filepath.Join(t.TempDir(), "job.env")
	write(t, filepath.Dir(env), "job.env", "export NCCL_IB_GID_INDEX=3\n")
	now := time.Unix(1732999999, 0)
	var buf bytes.Buffer
	meta, err := Collect(context.Background(), Options{
		// Timeout: long enough for the scripts on a loaded machine, far
		// below lspci's sleep.
		Root: root, Interval: 10 * time.Second, Timeout: 3 * time.Second, EnvFile: env,
		Now:   func() time.Time { t := now; now = now.Add(5 * time.Second); return t },
		Sleep: func(context.Context, time.Duration) error { return nil },
	}, &buf)
	if err != nil {
		t.Fatal(err)
	}
	f := readArchive(t, buf.Bytes())
	if meta.Host != "gpu01" || len(meta.Devices) != 1 || len(meta.Netdevs) != 1 || meta.Netdevs[0] != "ens3np0" {
		t.Fatalf("meta %+v", meta)
	}
	if m := strings.Join(meta.Missing, "\n"); len(meta.Missing) != 3 || !strings.Contains(m, "lspci -vv: timed out") || !strings.Contains(m, "ethtool -m ens3np0: netlink error: Operation not supported") || !strings.Contains(m, "mlxlink -d 0000:43:00.0 -c: neither mlxlink nor mstlink is installed") {
		t.Errorf("missing %v, want the lspci timeout, the module EEPROM and mlxlink", meta.Missing)
	}
	if b := f["bonding.txt"]; !strings.Contains(b, "$ cat /proc/net/bonding/bond0\nEthernet Channel Bonding Driver: v5.15.0\n\nBonding Mode: IEEE 802.3ad") || strings.Contains(b, "bond1") {
		t.Errorf("bonding.txt, want bond0 (on the RDMA netdev) and not the management bond1:\n%s", b)
	}
	// Every netdev's details, the counters of the RDMA netdev alone.
	if l, s := f["ip_link.txt"], f["ip_stats.txt"]; !strings.Contains(l, "$ ip -d link\n-d link\n") || strings.Contains(l, "-s") || !strings.Contains(s, "$ ip -s -s link show dev ens3np0\n-s -s link show dev ens3np0\n") {
		t.Errorf("ip_link.txt:\n%s\nip_stats.txt:\n%s", l, s)
	}
	if m := f["modules.txt"]; !strings.Contains(m, "$ cat /proc/modules\nnvidia_peermem 16384 0 - Live") {
		t.Errorf("modules.txt:\n%s", m)
	}
	if d := f["dcqcn_sysfs.txt"]; !strings.Contains(d, "/sys/class/infiniband/mlx5_0/tc/1/traffic_class:Global tclass=106") {
		t.Errorf("dcqcn_sysfs.txt has no traffic class:\n%s", d)
	}
	if m := f["mlxconfig_mlx5_0.txt"]; !strings.Contains(m, "$ mstconfig -d 0000:43:00.0 query\nDevice #1:") || !strings.Contains(m, "ATS_ENABLED") {
		t.Errorf("mlxconfig_mlx5_0.txt:\n%s", m)
	}
	if e := f["ethtool_info_ens3np0.txt"]; !strings.Contains(e, "$ ethtool -i ens3np0\ndriver: mlx5_core") || !strings.Contains(e, "$ ethtool --show-fec ens3np0\n") || !strings.Contains(e, "Speed: 400000Mb/s") {
		t.Errorf("ethtool_info_ens3np0.txt:\n%s", e)
	}
	rc := f["rdma_counters.txt"]
	if strings.Count(rc, "$ date +%s.%N") != 2 || strings.Count(rc, "/ports/1/hw_counters/np_cnp_sent:1333") != 2 || !strings.Contains(rc, "/ports/1/counters/port_rcv_packets:900000") || !strings.HasPrefix(rc, "$ hostname\ngpu01\n") {
		t.Errorf("rdma_counters.txt:\n%s", rc)
	}
	eth := f["ethtool_ens3np0.txt"]
	if strings.Count(eth, "NIC statistics:") != 2 || !strings.Contains(eth, "rx_prio3_pause_duration: 100") {
		t.Errorf("ethtool:\n%s", eth)
	}
	g := f["show_gids.txt"]
	if !strings.Contains(g, "mlx5_0\t1\t3\t0000:0000:0000:0000:0000:ffff:0b00:0048\t11.0.0.72\tv2\tens3np0") || strings.Contains(g, "\t4\t") || !strings.Contains(g, "n_gids_found=4") {
		t.Errorf("show_gids:\n%s", g)
	}
	if d := f["dcqcn_sysfs.txt"]; !strings.Contains(d, "/sys/class/net/ens3np0/ecn/roce_np/enable/3:1") || !strings.Contains(d, "roce_np/cnp_dscp:48") {
		t.Errorf("dcqcn:\n%s", d)
	}
	if d := f["dmesg.txt"]; !strings.Contains(d, "mlx5_core") || strings.Contains(d, "usb") {
		t.Errorf("dmesg:\n%s", d)
	}
	for name, want := range map[string]string{
		"numactl.txt":    "$ numactl -H\navailable: 2 nodes (0-1)\n",
		"lscpu.txt":      "$ lscpu\nNUMA node(s):        2\n",
		"lstopo.txt":     "$ lstopo-no-graphics --of xml\n<topology version=\"2.0\">\nargs --of xml\n",
		"mst_status.txt": "$ mst status -v\nDEVICE_TYPE MST PCI RDMA NET NUMA\nargs status -v\n",
		"virt.txt":       "$ systemd-detect-virt\nnone\n",
		"gpus.txt":       "$ nvidia-smi --query-gpu=index,name,pci.bus_id --format=csv\n",
	} {
		if !strings.Contains(f[name], want) {
			t.Errorf("%s, want %q:\n%s", name, want, f[name])
		}
	}
	for _, name := range []string{"mlnx_qos_ens3np0.txt", "ibv_devinfo.txt", "rdma_link.txt", "ip_link.txt", "nvidia_smi_topo.txt", "nccl_env.txt", "devlink_health.txt", "nvidia_smi_q.txt", "nvlink.txt"} {
		if f[name] == "" {
			t.Errorf("%s missing from the archive", name)
		}
	}
}

// TestCollectEnvFileBounded: an --env that is no settings file (a device
// that never ends, here /dev/zero) is recorded as missing after reading at
// most maxEnvFile+1 bytes, instead of filling memory and hanging.
func TestCollectEnvFileBounded(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	root := t.TempDir()
	write(t, root, "proc/sys/kernel/hostname", "box\n")
	var buf bytes.Buffer
	if _, err := Collect(context.Background(), Options{Root: root, EnvFile: "/dev/zero"}, &buf); err != nil {
		t.Fatal(err)
	}
	files := readArchive(t, buf.Bytes())
	if m := files["meta.txt"]; !strings.Contains(m, "missing: NCCL environment file /dev/zero: more than 1048576 bytes") {
		t.Errorf("meta:\n%s", m)
	}
	if _, ok := files["nccl_env.txt"]; ok {
		t.Error("a partial nccl_env.txt was written")
	}
}
