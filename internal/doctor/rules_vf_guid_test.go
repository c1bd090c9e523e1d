package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const vfGUIDIbstat = "corpus/ethtool/ibstat-cx6-vf-zero-node-guid-roce-down-rdma-cm-segfault-sriovop267.txt"

// A ConnectX VF with a zero node GUID said nothing. On RoCE (the ibstat of
// sriov-network-operator#267, link layer Ethernet) it is a note naming
// RDMA CM; in an ibv_devices listing (sriov-network-device-plugin#20),
// which gives no link layer, a note naming both VFs by their rows.
func TestVFGUIDZero(t *testing.T) {
	fs := Diagnose([]string{nicTestdata(vfGUIDIbstat)}, nil, Options{}).Findings
	f := nicMustFind(t, fs, "devinfo.vf.guid_zero", Info, "mlx5_8 has node GUID 0000:0000:0000:0000", "RoCE traffic does not use it")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 8 || f.Evidence[1].Line != 19 {
		t.Errorf("evidence %+v, want the Node GUID (8) and Link layer (19) lines", f.Evidence)
	}
	if !strings.Contains(f.Mechanism, "RDMA CM") || !strings.Contains(f.Mechanism, "NCCL") {
		t.Errorf("mechanism %q", f.Mechanism)
	}

	fs = Diagnose([]string{nicTestdata("corpus/ethtool/ibv-devices-vfs-zero-node-guid-sriovdp20.txt")}, nil, Options{}).Findings
	f = nicMustFind(t, fs, "devinfo.vf.guid_zero", Info, "mlx5_2, mlx5_3 have node GUID", "matters on InfiniBand")
	if len(f.Evidence) != 2 || f.Evidence[0].Line != 4 || f.Evidence[1].Line != 6 {
		t.Errorf("evidence %+v, want the rows of mlx5_2 (4) and mlx5_3 (6)", f.Evidence)
	}

	// A RoCE VF Active with zero node and port GUIDs beside its two PFs
	// (koordinator.sh's GPU and RDMA allocation guide): the VF alone.
	fs = Diagnose([]string{nicTestdata("corpus/ethtool/ibstat-cx5-roce-vf-zero-node-port-guid-active-beside-pfs-koordinator.txt")}, nil, Options{}).Findings
	f = nicMustFind(t, fs, "devinfo.vf.guid_zero", Info, "mlx5_2 has node GUID", "RoCE traffic does not use it")
	if len(nicFind(fs, "devinfo.vf.guid_zero")) != 1 || len(f.Evidence) != 2 || f.Evidence[0].Line != 42 {
		t.Errorf("findings %s, evidence %+v", nicTitles(fs), f.Evidence)
	}

	// A physical function's burned-in GUID is no VF's.
	nicMustNot(t, Diagnose([]string{nicTestdata("corpus/ethtool/ibstat-cx6dx-100g-ethernet-l2fwdnv6.txt")}, nil, Options{}).Findings, "devinfo.vf.guid_zero")
}

// An InfiniBand VF with zero node and port GUIDs (ibstat in a VM given a
// ConnectX-6 VF, cai-fuqiang/md case/ib/sriov.md: Down, LinkUp, LID
// 65535) warns, naming its port down: an IB VF needs a port GUID before
// its link comes up. An EFA device, whose ibv_devinfo prints zero GUIDs
// for every device (synthetic, in the form public AWS notes show), is no
// VF without one.
func TestVFGUIDZeroInfiniBandAndEFA(t *testing.T) {
	fs := Diagnose([]string{nicTestdata("corpus/ethtool/ibstat-cx6-ib-vf-in-vm-zero-node-port-guid-down-lid-65535-caifuqiang.txt")}, nil, Options{}).Findings
	f := nicMustFind(t, fs, "devinfo.vf.guid_zero", Warn, "mlx5_0 has node GUID", "InfiniBand VF needs one", "its port is down")
	if !strings.Contains(f.Mechanism, "sriov-network-device-plugin#269") || len(f.Evidence) != 2 || f.Evidence[0].Line != 8 || f.Evidence[1].Line != 19 {
		t.Errorf("mechanism %q, evidence %+v", f.Mechanism, f.Evidence)
	}

	efa := filepath.Join(t.TempDir(), "devinfo.txt")
	const efaDevinfo = "hca_id:\tefa_0\n\ttransport:\t\t\tunspecified (4)\n\tfw_ver:\t\t\t\t0.0.0.0\n\tnode_guid:\t\t\t0000:0000:0000:0000\n\tsys_image_guid:\t\t\t0000:0000:0000:0000\n\tvendor_id:\t\t\t0x1d0f\n\tvendor_part_id:\t\t\t61344\n\thw_ver:\t\t\t\t0xEFA0\n\tphys_port_cnt:\t\t\t1\n\t\tport:\t1\n\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n"
	if err := os.WriteFile(efa, []byte(efaDevinfo), 0o644); err != nil {
		t.Fatal(err)
	}
	nicMustNot(t, Diagnose([]string{efa}, nil, Options{}).Findings, "devinfo.vf.guid_zero")
}

// A VF whose name names no driver (udev's persistent naming, Azure's
// mlx5_ib0) is known by its part number: the real ibstat blocks above with
// the CA renamed (variants, not captures) still give the finding, by CA
// type MT4126 and MT4124, VF parts in mlx5_core's PCI table; with a
// physical function's part instead (MT4125 ConnectX-6 Dx, MT4123
// ConnectX-6) they do not.
func TestVFGUIDZeroRenamedDevice(t *testing.T) {
	for _, c := range []struct {
		file, name, vf, pf string
		sev                Severity
	}{
		{vfGUIDIbstat, "mlx5_8", "MT4126", "MT4125", Info},
		{"corpus/ethtool/ibstat-cx6-ib-vf-in-vm-zero-node-port-guid-down-lid-65535-caifuqiang.txt", "mlx5_0", "MT4124", "MT4123", Warn},
	} {
		b, err := os.ReadFile(nicTestdata(c.file))
		if err != nil {
			t.Fatal(err)
		}
		for _, to := range []string{"rocep59s0f0v0", "mlx5_ib3"} {
			renamed := strings.Replace(string(b), "CA '"+c.name+"'", "CA '"+to+"'", 1)
			p := filepath.Join(t.TempDir(), "ibstat.txt")
			if err := os.WriteFile(p, []byte(renamed), 0o644); err != nil {
				t.Fatal(err)
			}
			nicMustFind(t, Diagnose([]string{p}, nil, Options{}).Findings, "devinfo.vf.guid_zero", c.sev, to+" has node GUID")

			pf := strings.Replace(renamed, "CA type: "+c.vf, "CA type: "+c.pf, 1)
			if err := os.WriteFile(p, []byte(pf), 0o644); err != nil {
				t.Fatal(err)
			}
			nicMustNot(t, Diagnose([]string{p}, nil, Options{}).Findings, "devinfo.vf.guid_zero")
		}
	}
}
