package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rocelab/internal/ingest"
)

// `rdma link` lines (ROCm/rccl#1423: an IB port DOWN/POLLING, then
// DOWN/LINK_UP, then ACTIVE) were read as hw_counters (lid, sm_lid and lmc
// taken for counters) and reported nothing; no rule looked at port
// states at all, so ibv_devinfo's PORT_DOWN went unsaid too.
func TestPortDownAndFlap(t *testing.T) {
	const file = "corpus/ethtool/rdma-link-ib-port-down-polling-flapping-rccl1423.txt"
	for _, a := range nicReadArtifacts(t, file) {
		if a.Kind() == ingest.KindHWCounters {
			t.Errorf("rdma link read as hw_counters")
		}
	}
	f := nicMustFind(t, diagnoseFiles(t, Options{}, file), "devinfo.port.down", Error, "mlx5_7 port 1 flapped", "DOWN (physical state POLLING)")
	if !strings.Contains(f.Mechanism, "no link partner") || len(f.Evidence) != 3 {
		t.Errorf("mechanism %q, %d evidence lines", f.Mechanism, len(f.Evidence))
	}
	fs := diagnoseFiles(t, Options{}, "corpus/threads/cx4lx-4port-show-counters-req-cqe-error-no-ack-timeouts-notes.txt")
	nicMustFind(t, fs, "devinfo.port.down", Warn, "mlx5_1 port 1 is not up: DOWN")
}

// ibdev2netdev (stepfun-ai/StepMesh#15) was in no format rocelab
// recognised. Its RoCE ports take their netdev's state (Up is active), its
// IPoIB netdevs (ib*, Down here) say nothing of their InfiniBand ports, and
// the netdev it names is what the fixes of the device's findings name.
func TestIbdev2netdev(t *testing.T) {
	const file = "corpus/ethtool/ibdev2netdev-ib-down-roce-bond-stepmesh15.txt"
	arts := nicReadArtifacts(t, file)
	d, ok := arts[0].(*ingest.Devinfo)
	if !ok || len(d.Devices) != 7 || d.Devices[6].Name != "mlx5_bond_0" || d.Devices[6].Ports[0].Netdev != "bond0" || d.Devices[6].Ports[0].State != "PORT_ACTIVE" {
		t.Fatalf("read %T %+v", arts[0], arts[0])
	}
	nicMustNot(t, diagnoseFiles(t, Options{}, file), "devinfo.port.down")
	// SYNTHETIC: the same line form beside a hw_counters dump.
	fs := synthFindings(t, Options{},
		"mlx5_1 port 1 ==> ens12f0np0 (Up)",
		"mlx5_2 port 1 ==> ens12f1np1 (Down)",
		"/sys/class/infiniband/mlx5_1/ports/1/hw_counters/out_of_sequence:120",
		"/sys/class/infiniband/mlx5_1/ports/1/hw_counters/local_ack_timeout_err:3")
	nicMustFind(t, fs, "devinfo.port.down", Warn, "mlx5_2 port 1 is not up: DOWN")
	if f := nicMustFind(t, fs, "counters.retransmission", Warn); !strings.Contains(f.Fix, "ethtool -S ens12f0np0") {
		t.Errorf("fix does not name mlx5_1's netdev: %s", f.Fix)
	}
}

// ibv_devinfo in a container given one of a host's VFs
// (hustcat/k8s-rdma-device-plugin#8) prints 'Failed to open device' for
// the 8 devices whose uverbs files it lacks, around the one it read: a
// warning naming both. Before, the lines were passed over and the report
// said nothing. A dump without them says nothing of it.
func TestDevinfoOpenFailed(t *testing.T) {
	fs := Diagnose([]string{nicTestdata("corpus/ethtool/ibv-devinfo-failed-to-open-8-vfs-container-mlx4-ib-k8srdmaplugin8.txt")}, nil, Options{}).Findings
	f := nicMustFind(t, fs, "devinfo.open_failed", Warn, "could not open 8 RDMA devices", "it read mlx4_2")
	if len(f.Evidence) != 4 || f.Evidence[3].Line != 7 {
		t.Errorf("evidence %+v", f.Evidence)
	}
	nicMustNot(t, Diagnose([]string{nicTestdata("corpus/ethtool/ibv-devinfo-rxe-no-link-layer-mtu1024-rxedev46.txt")}, nil, Options{}).Findings, "devinfo.open_failed")
	// A container given none of the devices opens none: the same lines
	// alone (synthetic), which were an unrecognised file before.
	none := filepath.Join(t.TempDir(), "devinfo.txt")
	if err := os.WriteFile(none, []byte("Failed to open device\nFailed to open device\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f = nicMustFind(t, Diagnose([]string{none}, nil, Options{}).Findings, "devinfo.open_failed", Warn, "could not open 2 RDMA devices", "it opened none")
	if len(f.Evidence) != 2 || f.Evidence[1].Line != 2 {
		t.Errorf("evidence %+v", f.Evidence)
	}
}

// ibdev2netdev -v (a paste with the plain form before it, found via
// find_string) was in no format rocelab recognised. Each line now gives
// its device the RDMA port's own state (an IPoIB port's too, which the
// plain form leaves unsaid), the firmware and the chip: the five DOWN
// ports warn as the plain form's Down netdevs do, the -v lines alone
// included.
func TestIbdev2netdevVerbose(t *testing.T) {
	const file = "corpus/ethtool/ibdev2netdev-v-cx4lx-cx5-cx6-ib-vfs-down-plain-and-verbose.txt"
	arts := nicReadArtifacts(t, file)
	d, ok := arts[0].(*ingest.Devinfo)
	if !ok {
		t.Fatalf("read %T", arts[0])
	}
	var ib []ingest.DevinfoDevice
	for _, dev := range d.Devices {
		if dev.Name == "mlx5_5" {
			ib = append(ib, dev)
		}
	}
	if len(ib) != 2 || ib[0].Ports[0].State != "" || ib[0].FWVer != "" {
		t.Fatalf("mlx5_5: %+v", ib)
	}
	if v := ib[1]; v.FWVer != "20.30.1004" || v.VendorPartID != 4123 || v.Ports[0].State != "PORT_ACTIVE" || v.Ports[0].LinkLayer != "InfiniBand" || v.Ports[0].Netdev != "ib0" {
		t.Errorf("mlx5_5 from -v: %+v", v)
	}
	b, err := os.ReadFile(nicTestdata(file))
	if err != nil {
		t.Fatal(err)
	}
	_, verbose, _ := strings.Cut(string(b), "ibdev2netdev  -v\n")
	fs := synthFindings(t, Options{}, strings.Split(strings.TrimSpace(verbose), "\n")...)
	if n := len(nicFind(fs, "devinfo.port.down")); n != 5 {
		t.Errorf("%d devinfo.port.down from the -v lines, want 5:\n%s", n, nicTitles(fs))
	}
	nicMustFind(t, fs, "devinfo.port.down", Warn, "mlx5_7 port 1 is not up: DOWN")
}

// libibverbs's warnings that its bnxt_re provider (ABI 1) does not speak
// the host driver's ABI 6 (sgl-project/sglang#16242) were an unrecognised
// file; they say five RDMA devices are invisible to every verbs user: an
// error naming them, the provider and both versions, once for the nine
// lines. A dump with no such warning says nothing of it.
func TestDevinfoVerbsABI(t *testing.T) {
	fs := Diagnose([]string{nicTestdata("corpus/ethtool/libibverbs-bnxt-re-kernel-abi-6-provider-supports-1-five-devices-sglang16242.txt")}, nil, Options{}).Findings
	f := nicMustFind(t, fs, "devinfo.verbs_abi", Error, "left out 5 RDMA devices", "bnxt_re2", "bnxt_re provider supports ABI 1 only, the kernel driver speaks ABI 6")
	if len(f.Evidence) != 3 || f.Evidence[1].Line != 3 || !strings.Contains(f.Fix, "libbnxt_re") {
		t.Errorf("evidence %+v, fix %s", f.Evidence, f.Fix)
	}
	if n := len(nicFind(fs, "devinfo.verbs_abi")); n != 1 {
		t.Errorf("%d findings, want 1", n)
	}
	nicMustNot(t, Diagnose([]string{nicTestdata("corpus/ethtool/ibv-devinfo-failed-to-open-8-vfs-container-mlx4-ib-k8srdmaplugin8.txt")}, nil, Options{}).Findings, "devinfo.verbs_abi")
}

// libibverbs tries each provider in turn: a device one provider turns
// down for its ABI may be taken by the next and listed by ibv_devinfo
// after the warning. Before, such a device was reported as left out. The
// warning is open-mpi/ompi#11623's (a Soft-RoCE device mlx5 turned down,
// then in use); the hca_id block is SYNTHETIC.
func TestVerbsABIDeviceListedAfter(t *testing.T) {
	fs := synthFindings(t, Options{},
		"libibverbs: Warning: Driver mlx5 does not support the kernel ABI of 2 (supports 1 to 1) for device /sys/class/infiniband/rxe_eth0",
		"libibverbs: Warning: Driver bnxt_re does not support the kernel ABI of 6 (supports 1 to 1) for device /sys/class/infiniband/bnxt_re0",
		"hca_id:\trxe_eth0",
		"\ttransport:\t\t\tInfiniBand (0)",
		"\tfw_ver:\t\t\t\t0.0.0",
		"\tvendor_id:\t\t\t0xffffff",
		"\tphys_port_cnt:\t\t\t1",
		"\t\tport:\t1",
		"\t\t\tstate:\t\t\tPORT_ACTIVE (4)",
		"\t\t\tlink_layer:\t\tEthernet")
	nicMustFind(t, fs, "devinfo.verbs_abi", Error, "left out 1 RDMA device (bnxt_re0)")
	if n := len(nicFind(fs, "devinfo.verbs_abi")); n != 1 {
		t.Errorf("%d findings, want only bnxt_re0's: %+v", n, nicFind(fs, "devinfo.verbs_abi"))
	}
}
