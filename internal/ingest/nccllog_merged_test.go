package ingest

import (
	"fmt"
	"strings"
	"testing"
)

// NCCL 2.20 and later list the ports of a merged NIC (NCCL_IB_MERGE_NICS)
// as one device: "[0]={[0] mlx5_2:1/RoCE, [1] mlx5_3:1/RoCE}". Each port is
// read with its own name, port and link layer, as the flat form lists them.
func TestNetDevicesMerged(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		// NVIDIA/nccl-tests#373 (testdata/corpus/nccl-log/ibext-merged-...).
		{"NET/IB : Using [0]={[0] mlx5_2:1/RoCE, [1] mlx5_3:1/RoCE} [1]={[2] mlx5_0:1/RoCE, [3] mlx5_1:1/RoCE} [RO]; OOB bond0.526:169.136.106.9<0>",
			"0 mlx5_2:1/RoCE, 1 mlx5_3:1/RoCE, 2 mlx5_0:1/RoCE, 3 mlx5_1:1/RoCE"},
		// One port alone in its device, beside a merged pair.
		{"NET/IB : Using [0]={[0] mlx5_0:1/IB} [1]={[1] mlx5_1:1/IB, [2] mlx5_2:1/IB} [RO]; OOB ib0:10.0.0.1<0>",
			"0 mlx5_0:1/IB, 1 mlx5_1:1/IB, 2 mlx5_2:1/IB"},
		// The flat form is unchanged.
		{"NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [RO]; OOB eth0:10.0.0.1<0>",
			"0 mlx5_0:1/RoCE, 1 mlx5_1:1/RoCE"},
	} {
		l := parseLog(t, "h1:11:12 [0] NCCL INFO "+c.line)
		var got []string
		for _, d := range l.IBDevices {
			got = append(got, fmt.Sprintf("%d %s:%d/%s", d.Index, d.Name, d.Port, d.LinkLayer))
		}
		if g := strings.Join(got, ", "); g != c.want {
			t.Errorf("%s:\n got  %s\n want %s", c.line, g, c.want)
		}
	}
}
