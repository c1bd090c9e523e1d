package ingest

import (
	"strings"
	"testing"

	"rocelab/internal/unit"
)

func TestDevinfoIssue769(t *testing.T) {
	res := nicReadCorpus(t, "ethtool/ibv-devinfo-gid-table-linklocal-v2-fails-issue769.txt")
	d := nicArtifact[*Devinfo](t, res)
	es := d.GIDEntries()
	if len(es) != 4 {
		t.Fatalf("%d GIDs", len(es))
	}
	for i, w := range []struct {
		ver, ipv4 string
		class     GIDClass
	}{{"v1", "", GIDLinkLocal}, {"v2", "", GIDLinkLocal}, {"v1", "200.0.209.6", GIDIPv4}, {"v2", "200.0.209.6", GIDIPv4}} {
		e := es[i]
		c, _ := ClassifyGID(e.GID)
		if e.Index != i || e.Version != w.ver || e.IPv4 != w.ipv4 || c != w.class || e.Device != "mlx5_bond_0" {
			t.Errorf("GID[%d] = %+v", i, e)
		}
	}
}

// synthetic: ibv_devinfo -v on a RoCE port at Ethernet MTU 1500, and an
// InfiniBand port.
const syntheticDevinfo = `hca_id:	mlx5_0
	transport:			InfiniBand (0)
	fw_ver:				16.35.4030
	vendor_part_id:			4119
	phys_port_cnt:			1
		port:	1
			state:			PORT_ACTIVE (4)
			max_mtu:		4096 (5)
			active_mtu:		1024 (3)
			link_layer:		Ethernet
			active_width:		4X (2)
			active_speed:		25.0 Gbps (32)
			phys_state:		LINK_UP (5)
			GID[  0]:		fe80:0000:0000:0000:9640:c9ff:fe8c:a09c
			GID[  3]:		::ffff:192.168.6.132, RoCE v2

hca_id:	mlx5_2
	transport:			InfiniBand (0)
		port:	1
			state:			PORT_DOWN (1)
			active_mtu:		4096 (5)
			link_layer:		InfiniBand
			active_width:		4X (2)
			active_speed:		100.0 Gbps (128)
`

func TestDevinfoVerbose(t *testing.T) {
	d := nicArtifact[*Devinfo](t, nicReadText(t, "synthetic-devinfo", syntheticDevinfo))
	if len(d.Devices) != 2 {
		t.Fatalf("%d devices", len(d.Devices))
	}
	dev := d.Devices[0]
	if dev.Name != "mlx5_0" || dev.FWVer != "16.35.4030" || dev.VendorPartID != 4119 || len(dev.Ports) != 1 {
		t.Fatalf("device %+v", dev)
	}
	p := dev.Ports[0]
	if p.Port != 1 || p.State != "PORT_ACTIVE (4)" || p.MaxMTU != 4096 || p.ActiveMTU != 1024 || p.LinkLayer != "Ethernet" || p.Rate != 100*unit.Gbps {
		t.Errorf("port %+v", p)
	}
	if len(p.GIDs) != 2 || p.GIDs[0].Version != "" || p.GIDs[1].Index != 3 || p.GIDs[1].Port != 1 {
		t.Errorf("GIDs %+v", p.GIDs)
	}
	// mlx5_2's port is down: its 4X 100G is no line rate.
	ls := d.LinkSpeeds()
	if len(ls) != 1 || ls[0].Rate != 100*unit.Gbps || ls[0].Device != "mlx5_0" {
		t.Errorf("speeds %+v", ls)
	}
}

// ibv_devices' table (rdma-core device_list.c) is a device listing: each
// device with its node GUID, a VF given none with zeros.
func TestIbvDevices(t *testing.T) {
	res := readFile(t, "../../testdata/corpus/ethtool/ibv-devices-vfs-zero-node-guid-sriovdp20.txt", "d.txt")
	var d *Devinfo
	for _, a := range res.Artifacts {
		if x, ok := a.(*Devinfo); ok {
			d = x
		}
	}
	if d == nil || len(d.Devices) != 4 {
		t.Fatalf("devinfo %+v", d)
	}
	if x := d.Devices[1]; x.Name != "mlx5_0" || x.NodeGUID != "506b:4b03:0028:5028" || len(x.Ports) != 0 || x.Evidence.Line != 5 {
		t.Errorf("device 1 = %+v", x)
	}
	if x := d.Devices[2]; x.Name != "mlx5_3" || x.NodeGUID != "0000:0000:0000:0000" {
		t.Errorf("device 2 = %+v", x)
	}
}

// ibv_devices as device_list.c prints it, padded and tab-separated
// ("    %-16s\t%016llx"). Synthetic.
func TestIbvDevicesPrintfLayout(t *testing.T) {
	in := "    device          \t   node GUID\n" +
		"    ------          \t----------------\n" +
		"    mlx5_0          \t0c42a103001dd12b\n" +
		"    rxe0            \t5054fffe123456ab\n"
	d := nicArtifact[*Devinfo](t, nicReadText(t, "d.txt", in))
	if len(d.Devices) != 2 || d.Devices[0].NodeGUID != "0c42:a103:001d:d12b" || d.Devices[1].Name != "rxe0" || d.Devices[1].Evidence.Line != 4 {
		t.Errorf("devices %+v", d.Devices)
	}
}

// libibverbs's warning that a provider does not speak its kernel driver's
// ABI (sgl-project/sglang#16242: a container's bnxt_re provider, ABI 1,
// the host's out-of-tree bnxt_re, ABI 6) was no artifact: the file was
// "in no format rocelab recognises". Each device is kept once, with its
// first line; a worker's prefix before the warning is read through
// (synthetic line), a warning with a garbled number is not read.
func TestDevinfoVerbsABIRejected(t *testing.T) {
	d := corpusAs[*Devinfo](t, "ethtool/libibverbs-bnxt-re-kernel-abi-6-provider-supports-1-five-devices-sglang16242.txt", KindDevinfo)
	var devs []string
	for _, r := range d.ABIRejected {
		if r.Provider != "bnxt_re" || r.KernelABI != 6 || r.Min != 1 || r.Max != 1 {
			t.Errorf("%+v", r)
		}
		devs = append(devs, r.Device)
	}
	if strings.Join(devs, " ") != "bnxt_re2 bnxt_re1 bnxt_re0 bnxt_re8 bnxt_re7" || d.ABIRejected[1].Evidence.Line != 3 {
		t.Errorf("devices %v, evidence %+v", devs, d.ABIRejected)
	}
	in := "(Worker pid=1945) libibverbs: Warning: Driver ionic does not support the kernel ABI of 1 (supports 4 to 4) for device /sys/class/infiniband/ionic_0\n" +
		"libibverbs: Warning: Driver ionic does not support the kernel ABI of x (supports 4 to 4) for device /sys/class/infiniband/ionic_1\n"
	s := nicArtifact[*Devinfo](t, nicReadText(t, "synthetic-ionic.txt", in))
	if len(s.ABIRejected) != 1 || s.ABIRejected[0].Device != "ionic_0" || s.ABIRejected[0].Min != 4 || s.ABIRejected[0].KernelABI != 1 {
		t.Errorf("ionic %+v", s.ABIRejected)
	}
}
