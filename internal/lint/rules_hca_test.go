package lint

import (
	"path/filepath"
	"strings"
	"testing"
)

// NCCL_IB_HCA against the twelve ConnectX-7 of slurmv4's tpgds-aihub0006
// (ibv_devinfo: mlx5_0..7 rails, mlx5_8 and mlx5_10 active bond ports,
// mlx5_9 and mlx5_11 down), each value in a synthetic env file.
func TestHCAFilter(t *testing.T) {
	devinfo := filepath.Join("..", "..", "testdata", "corpus", "ethtool", "ibv-devinfo-cx7-12-ports-one-host-bond-mgmt-mtu1024-rails-4096-slurmv4.txt")
	for _, c := range []struct {
		value string
		want  map[string]string // finding id → a part of its title
	}{
		{"mlx5_1", map[string]string{"nccl.ib_hca.prefix": "mlx5_1 also takes mlx5_10: NCCL"}},
		{"=mlx5_1", nil},
		{"mlx5_1:1,mlx5_10", nil}, // mlx5_10 named on purpose
		{"^mlx5_1", map[string]string{"nccl.ib_hca.prefix": "mlx5_1 also leaves out mlx5_10"}},
		{"mlx5_9,mlx5_11", map[string]string{"nccl.ib_hca.none": "passes none of the 10 active RDMA ports"}},
		{"=^mlx5_8", map[string]string{"nccl.ib_hca.syntax": `"^mlx5_8" is read as a device name`, "nccl.ib_hca.none": "passes none"}},
		{"mlx5_0:1,^mlx5_8", map[string]string{"nccl.ib_hca.syntax": `"^mlx5_8" is read`}},
		{"mlx5_0:2", map[string]string{"nccl.ib_hca.none": "passes none"}},
		{"mlx5_0,mlx5_1:2", nil}, // port 2 of mlx5_1, mlx5_10 or mlx5_11: none is listed
		{"^=mlx5_8,mlx5_10", nil},
	} {
		env := tempFile(t, "nccl-env-synthetic.sh", "export NCCL_IB_HCA="+c.value+"\n")
		got := map[string]string{}
		for _, f := range lintFiles(t, devinfo, env).Findings {
			if strings.HasPrefix(f.ID, "nccl.ib_hca.") {
				got[f.ID] = f.Title
			}
		}
		if len(got) != len(c.want) {
			t.Errorf("NCCL_IB_HCA=%s: %v, want %v", c.value, got, c.want)
			continue
		}
		for id, part := range c.want {
			if !strings.Contains(got[id], part) {
				t.Errorf("NCCL_IB_HCA=%s: %s %q, want it to say %q", c.value, id, got[id], part)
			}
		}
	}
}

// A blank after a comma is part of the next entry's name for NCCL (its
// parseStringList keeps every character between commas): " mlx5_1" is a
// device no host has, so NCCL runs on mlx5_0 alone (SYNTHETIC, a
// Kubernetes container's env).
func TestHCABlank(t *testing.T) {
	devinfo := filepath.Join("..", "..", "testdata", "corpus", "ethtool", "ibv-devinfo-cx7-12-ports-one-host-bond-mgmt-mtu1024-rails-4096-slurmv4.txt")
	env := tempFile(t, "pod-env-synthetic.yaml", "        env:\n        - name: NCCL_IB_HCA\n          value: \"mlx5_0, mlx5_1\"\n")
	var got []string
	for _, f := range lintFiles(t, devinfo, env).Findings {
		if f.ID == "nccl.ib_hca.syntax" {
			got = append(got, f.Title+" / "+f.Fix)
		}
	}
	if len(got) != 1 || !strings.Contains(got[0], `" mlx5_1" is read as a device name with its blank`) || !strings.Contains(got[0], "NCCL_IB_HCA=mlx5_0,mlx5_1.") {
		t.Errorf("nccl.ib_hca.syntax %q, want one on \" mlx5_1\" fixed to mlx5_0,mlx5_1", got)
	}
}
