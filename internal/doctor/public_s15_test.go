package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Artifacts of the fifteenth sweep. Each test failed before the change it
// covers.

// `show pfcwd config` of a two-ASIC switch (sonic-utilities' test vectors)
// prints "BIG_RED_SWITCH status is enable on asic0": the watchdog's
// emergency mode holds every lossless queue in its storm action, an error
// per namespace. Before, the line was passed over and the times judged
// fine.
func TestBigRedSwitchShown(t *testing.T) {
	fs := Diagnose([]string{nicTestdata("corpus/switch/sonic-pfcwd-config-multiasic-big-red-switch-enable-sonic-utilities.txt")}, nil, Options{}).Findings
	for _, ns := range []string{"asic0", "asic1"} {
		f := nicMustFind(t, fs, "pfc.watchdog.big_red_switch", Error, "show pfcwd config "+ns+": BIG_RED_SWITCH is enable")
		if len(f.Evidence) != 1 || !strings.HasSuffix(f.Evidence[0].Text, "on "+ns) {
			t.Errorf("evidence %+v", f.Evidence)
		}
	}
	for _, f := range Diagnose([]string{nicTestdata("corpus/switch/sonic-pfcwd-config-sonic-utilities.txt")}, nil, Options{}).Findings {
		if f.ID == "pfc.watchdog.big_red_switch" {
			t.Errorf("no BIG_RED_SWITCH line: %s", f.Title)
		}
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
