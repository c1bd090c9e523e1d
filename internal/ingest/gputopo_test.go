package ingest

import (
	"strings"
	"testing"
)

// An nvidia-smi topo -m paste whose every GPU row lost the tab between
// its last NIC cell and the CPU affinity ("PH0-115"): the rows are read
// on their other cells, and each bad cell is kept with its column.
// Before, no row was read and the input was "in no format".
func TestGPUTopoGarbledCell(t *testing.T) {
	g := corpusAs[*GPUTopo](t, "topo/nvidia-smi-topo-a100-8nic-phb-last-cell-run-into-affinity-notes.txt", KindGPUTopo)
	if len(g.GPUs) != 8 || len(g.NICs) != 8 || g.NICs[7] != "mlx5_7" {
		t.Fatalf("topology %+v", g)
	}
	if got := g.GPUs[3].ToNIC; got[0] != "PHB" || got[7] != "?" || g.GPUs[3].ToGPU[3] != "X" || g.GPUs[3].ToGPU[0] != "NV12" {
		t.Errorf("GPU3 links %v %v", got, g.GPUs[3].ToGPU)
	}
	if len(g.Garbled) != 8 || g.Garbled[0].Line != 6 || g.Garbled[0].Col != 73 || !strings.HasPrefix(g.Garbled[0].Text[72:], "PH0-115") {
		t.Errorf("garbles %+v", g.Garbled)
	}
}
