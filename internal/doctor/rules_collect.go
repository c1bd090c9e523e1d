package doctor

import (
	"fmt"
	"strings"

	"rocelab/internal/ingest"
)

// Rules over `rocelab collect` archives: what the collector found and what
// it could not read.

func collectRules() []Rule {
	return []Rule{
		{IDs: []string{"collect.no_rdma_device", "collect.missing"}, Check: checkCollect},
	}
}

func checkCollect(inc *Incident) []Finding {
	var fs []Finding
	for _, m := range All[*ingest.CollectMeta](inc) {
		if m.Devices == 0 {
			ev := []Evidence{m.Evidence["rdma_devices"]}
			for _, e := range m.Missing {
				if strings.Contains(e.Text, "/sys/class/infiniband") {
					ev = append(ev, e)
				}
			}
			fs = append(fs, Finding{
				ID: "collect.no_rdma_device", Severity: Warn, Layer: LayerRDMA,
				Title:    fmt.Sprintf("%s: no RDMA device: /sys/class/infiniband lists none, so nothing on this host can use RoCE", m.Host),
				Evidence: evidenceInOrder(ev),
				Mechanism: "RDMA devices (mlx5_0, ...) appear under /sys/class/infiniband once the NIC's RDMA driver is loaded (mlx5_ib for ConnectX, bnxt_re, irdma). Without one, NCCL finds no IB device and falls back to TCP sockets, and no RoCE counter exists to read. " +
					"That is expected on a host without an RDMA NIC (a laptop, a CI runner, a cloud VM without SR-IOV RDMA).",
				Fix: "If this host should do RoCE: `lspci | grep -i mellanox` (is the NIC there?), `lsmod | grep -E 'mlx5_ib|ib_uverbs'` (modprobe mlx5_ib), `rdma link`, and in a container pass the RDMA devices (/dev/infiniband, the RDMA device plugin).",
			}.per(m.Host, "host", "Hosts without an RDMA device"))
		}
		if len(m.Missing) > 0 {
			var parts []string
			for _, e := range m.Missing {
				src, _, _ := strings.Cut(strings.TrimPrefix(e.Text, "missing: "), ": ")
				parts = append(parts, src)
			}
			fs = append(fs, Finding{
				ID: "collect.missing", Severity: Info, Layer: LayerInput,
				Title:     fmt.Sprintf("%s: collect could not read %s: %s", m.Host, plural(len(m.Missing), "source", "sources"), list(parts, 6)),
				Evidence:  m.Missing,
				Mechanism: "rocelab collect records every source it could not read (a tool not installed, a file absent, a timeout) instead of failing, so the findings rest on what the archive holds; checks that need a missing source are silent.",
				Fix:       "Install the missing tools where they matter (mlnx_qos from MLNX_OFED or mstflint's mlnx-tools, rdma-core's ibv_devinfo and rdma, pciutils) and collect again, as root for dmesg and lspci -vv.",
			}.per(m.Host, "host", "Sources collect could not read"))
		}
	}
	return fs
}
