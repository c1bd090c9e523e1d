package doctor

import (
	"os"
	"strings"
	"testing"
)

// One pdsh paste states each host's speed of a port of the same name: a
// perftest on gpu02 is judged against gpu02's 400G, not left unjudged
// between gpu01's 100G and gpu02's (before, the speeds were paired by
// interface name alone, and the two rates made it ambiguous). The
// perftest is the SCC24 run (363.47 Gb/s on bnxt_re0) with its prompt's
// host renamed gpu02 and the ethtool paste invented: synthetic.
func TestSpeedPairedByPdshHost(t *testing.T) {
	data, err := os.ReadFile(nicTestdata("corpus/perftest/ib-write-bw-bnxt-re-3qp-rdma-cm-363gbps-mtu1024-scc24.txt"))
	if err != nil {
		t.Fatal(err)
	}
	perf := strings.Split(strings.ReplaceAll(string(data), "mysecretuser@percy", "root@gpu02"), "\n")
	ethtool := []string{"# synthetic", "$ pdsh -w gpu0[1-2] ethtool benic1p1",
		"gpu01: Settings for benic1p1:", "gpu02: Settings for benic1p1:",
		"gpu01: \tSpeed: 100000Mb/s", "gpu02: \tSpeed: 400000Mb/s",
		"gpu01: \tDuplex: Full", "gpu02: \tDuplex: Full"}
	rep := Diagnose(writeFiles(t, map[string][]string{"a-ethtool.txt": ethtool, "b-perftest.txt": perf}), nil, Options{})
	f := nicMustFind(t, rep.Findings, "perftest.bw.ok", Info, "ib_write_bw on bnxt_re0: best 363.5 Gb/s", "91% of the 400.0 Gb/s link rate")
	if !cites(f, "a-ethtool.txt", 6) {
		t.Errorf("evidence %+v", f.Evidence)
	}
}
