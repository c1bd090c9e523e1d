package ingest

import "testing"

func TestRDMANameLinkLayer(t *testing.T) {
	for dev, want := range map[string]string{
		"ibp152s0": "IB", "ibo3": "IB", "ibp0s12f4": "IB",
		"rocep204s0f0": "RoCE", "roceP2p1s0f0": "RoCE", "rocex525400c0fe123455": "RoCE",
		"iwp1s0f0": "iWARP",
		"mlx5_0":   "", "ib0": "", "ibs1130": "", "roce": "", "rocep": "", "bnxt_re0": "", "": "",
	} {
		if got := RDMANameLinkLayer(dev); got != want {
			t.Errorf("%q: %q, want %q", dev, got, want)
		}
	}
}
