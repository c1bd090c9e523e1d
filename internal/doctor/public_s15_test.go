package doctor

import (
	"os"
	"path/filepath"
	"testing"
)

// Artifacts of the fifteenth sweep. Each test failed before the change it
// covers.

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
