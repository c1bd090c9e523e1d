package doctor

import (
	"strings"
	"testing"
)

// ifconfig's and netstat -i's drops are judged as ip -s link's: the two
// RoCE ports of tensorflow#22077 whose receive FIFO overran are NIC drops
// with the ifconfig line as evidence; a netstat -i with no drops raises
// nothing. Before, neither input was recognised.
func TestNetToolsCorpusJudged(t *testing.T) {
	fs := nicFind(diagnoseFiles(t, Options{}, "corpus/ethtool/ifconfig-old-layout-roce-eth2-eth3-rx-overruns-dropped-tf22077.txt"), "counters.discards")
	if len(fs) != 2 || !strings.Contains(fs[0].Title, "eth2: NIC dropped packets: rx_dropped 3189942") || fs[0].Evidence[0].Line != 7 ||
		!strings.Contains(fs[1].Title, "eth3: NIC dropped packets: rx_dropped 2492643") {
		t.Errorf("findings %s", nicTitles(fs))
	}
	wantReadNoFinding(t, "counters.", "corpus/ethtool/netstat-i-met-column-em1-p1p1-perfsonar1085.txt")
}
