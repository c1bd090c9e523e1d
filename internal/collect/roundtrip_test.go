package collect_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"rocelab/internal/collect"
	"rocelab/internal/doctor"
)

// procModules is a /proc/modules of a GPU host without a peer-memory
// module. Synthetic: the rows are /proc/modules' layout (name, size,
// users, used by, state, address) of modules a GPU server loads.
const procModules = `nvidia_uvm 1605632 4 - Live 0x0000000000000000
nvidia 56823808 37 nvidia_uvm,nvidia_modeset, Live 0x0000000000000000 (POE)
mlx5_ib 462848 0 - Live 0x0000000000000000
ib_uverbs 167936 2 rdma_ucm,mlx5_ib, Live 0x0000000000000000
ib_core 438272 8 rdma_cm,iw_cm,ib_uverbs,mlx5_ib, Live 0x0000000000000000
`

// machineLines returns a corpus paste's bonding file from its first
// machine-printed line (the header comments and the command line are the
// paste's, not the file's).
func machineLines(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("../../testdata/corpus/bonding", name))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "Ethernet Channel Bonding Driver")
	if !ok {
		t.Fatalf("%s holds no bonding file", name)
	}
	return "Ethernet Channel Bonding Driver" + rest
}

// judged returns the findings' rule ids and severities, sorted, leaving
// out collect's own (the archive says the tree has no RDMA device).
func judged(rep *doctor.Report) []string {
	var out []string
	for _, f := range rep.Findings {
		if !strings.HasPrefix(f.ID, "collect.") {
			out = append(out, fmt.Sprintf("%s %s", f.ID, f.Severity))
		}
	}
	slices.Sort(out)
	return out
}

// TestCollectedHostStateDiagnosed: the real /proc/net/bonding files of
// the corpus and a /proc/modules, collected from a tree, give diagnose the
// same findings as the pastes read directly: each bond's degraded or
// active-backup state and the missing peer-memory module. Before collect
// gathered them, the archive gave none of them.
func TestCollectedHostStateDiagnosed(t *testing.T) {
	root := t.TempDir()
	put := func(p, data string) {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put("proc/sys/kernel/hostname", "gpu01\n")
	pastes := []string{
		"bonding-8023ad-no-active-aggregator-accelerated-text387.txt",
		"bonding-8023ad-port-in-other-aggregator-cut-systemd11635.txt",
		"bonding-active-backup-fail-over-mac-40g-cut-bondcni14.txt",
	}
	direct := t.TempDir()
	for i, name := range pastes {
		bond := fmt.Sprintf("bond%d", i)
		body := machineLines(t, name)
		put("proc/net/bonding/"+bond, body)
		if err := os.WriteFile(filepath.Join(direct, bond+".txt"), []byte("$ cat /proc/net/bonding/"+bond+"\n"+body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put("proc/modules", procModules)
	if err := os.WriteFile(filepath.Join(direct, "modules.txt"), []byte("$ cat /proc/modules\n"+procModules), 0o644); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := collect.Collect(context.Background(), collect.Options{Root: root}, &buf); err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(t.TempDir(), "gpu01.tar.gz")
	if err := os.WriteFile(archive, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	got := judged(doctor.Diagnose([]string{archive}, nil, doctor.Options{}))
	want := judged(doctor.Diagnose([]string{direct}, nil, doctor.Options{}))
	wantIDs := []string{"host.bond.degraded error", "host.bond.degraded error", "host.bond.ok info", "host.gdr.module warn"}
	if !slices.Equal(want, wantIDs) {
		t.Fatalf("the pastes read directly give %q, want %q", want, wantIDs)
	}
	if !slices.Equal(got, want) {
		t.Errorf("the collected archive gives %q, the pastes %q", got, want)
	}
}

// TestCollectedLayoutDiagnosed: a tree whose tools print real outputs —
// hwloc's XML of a DGX-2H (open-mpi/hwloc's test input: its 16 GPUs on
// NUMA nodes 0 and 1) as lstopo-no-graphics, the mst status -v of
// k8snetworkplumbingwg/sriov-network-device-plugin#601 (ConnectX-7s on
// nodes 1 to 3) as mst — and a systemd-detect-virt printing kvm: the
// archive gives diagnose the GPUs without a NIC on their node and the VM.
// Before collect gathered them, it gave neither.
func TestCollectedLayoutDiagnosed(t *testing.T) {
	root := t.TempDir()
	put := func(p, data string, mode os.FileMode) {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), mode); err != nil {
			t.Fatal(err)
		}
	}
	corpus := func(rel string) string {
		b, err := os.ReadFile(filepath.Join("../../testdata/corpus", rel))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	put("proc/sys/kernel/hostname", "dgx2\n", 0o644)
	put("srv/lstopo.xml", corpus("hwloc/hwloc-xml-dgx2h-16-v100-two-packages.xml"), 0o644)
	_, mst, _ := strings.Cut(corpus("mst/mst-status-v-cx7-ib-4-numa-blank-lines-cut-sriovdp601.txt"), "mst status -v \n")
	put("srv/mst.txt", mst, 0o644)
	put("usr/bin/lstopo-no-graphics", "#!/bin/sh\ncat "+filepath.Join(root, "srv/lstopo.xml")+"\n", 0o755)
	put("usr/bin/mst", "#!/bin/sh\ncat "+filepath.Join(root, "srv/mst.txt")+"\n", 0o755)
	put("usr/bin/systemd-detect-virt", "#!/bin/sh\necho kvm\n", 0o755)
	var buf bytes.Buffer
	if _, err := collect.Collect(context.Background(), collect.Options{Root: root}, &buf); err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(t.TempDir(), "dgx2.tar.gz")
	if err := os.WriteFile(archive, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	got := judged(doctor.Diagnose([]string{archive}, nil, doctor.Options{}))
	if want := []string{"host.numa.nic_far warn", "host.virt.vm info"}; !slices.Equal(got, want) {
		t.Errorf("the collected archive gives %q, want %q", got, want)
	}
}
