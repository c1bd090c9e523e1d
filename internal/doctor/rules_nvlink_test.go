package doctor

import (
	"strings"
	"testing"
)

// nvidia-smi nvlink -s was not read at all: a V100 with two of six links
// <inactive>, and a GB200 whose 18 links run at 53.125 GB/s.
func TestNVLinkStatus(t *testing.T) {
	fs := diagnoseFiles(t, Options{}, "corpus/nvlink/nvidia-smi-nvlink-s-v100-links-inactive-azhpc73.txt")
	f := nicMustFind(t, fs, "nvlink.inactive", Warn, "GPU 3 4 of 6 active (links 3 and 5 <inactive>)")
	if len(f.Evidence) != 2 || !strings.Contains(f.Evidence[1].Text, "Link 3: <inactive>") {
		t.Errorf("evidence %v", f.Evidence)
	}
	fs = diagnoseFiles(t, Options{}, "corpus/nvlink/nvidia-smi-nvlink-s-gb200-18-links-k8stestinfra371.txt")
	nicMustFind(t, fs, "nvlink.ok", Info, "GPU 0 has its 18 NVLinks active at 53.125 GB/s, 956.25 GB/s per GPU", "GPU 1's block ends after 2 links: the paste is cut")
	nicMustNot(t, fs, "nvlink.inactive")
}
