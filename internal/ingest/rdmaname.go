package ingest

import "strings"

// RDMANameLinkLayer returns the link layer an RDMA device's name states
// when rdma-core's udev rules named it (rdma_rename): "ib" for InfiniBand,
// "roce" for RoCE, "iw" for iWARP, then the naming policy's letter and
// position: "p" or "P" for the PCI location ("ibp152s0", "rocep204s0f0",
// "roceP2p1s0f0"), "o" for the firmware's on-board index ("ibo3"), "x" for
// the node GUID ("rocex525400c0fe123455"). It returns "IB", "RoCE" or
// "iWARP", or "" for a kernel name ("mlx5_0", "bnxt_re0") that says
// nothing of the link.
func RDMANameLinkLayer(dev string) string {
	for _, p := range []struct{ prefix, layer string }{{"roce", "RoCE"}, {"ib", "IB"}, {"iw", "iWARP"}} {
		rest, ok := strings.CutPrefix(dev, p.prefix)
		if !ok || len(rest) < 2 {
			continue
		}
		switch c := rest[1]; rest[0] {
		case 'p', 'P', 'o':
			if c >= '0' && c <= '9' {
				return p.layer
			}
		case 'x':
			if c >= '0' && c <= '9' || c >= 'a' && c <= 'f' {
				return p.layer
			}
		}
	}
	return ""
}
