package doctor

import (
	"strings"
	"testing"

	"rocelab/internal/ingest"
)

// Context stays in its host and file. SYNTHETIC: host
// gpu1's perftest on a ConnectX-5 (firmware 16.x) is not judged against
// gpu2's 400G port, nor gpu1's GPUDirect distance named by gpu2's NCCL.
func TestContextAcrossFiles(t *testing.T) {
	paths := writeFiles(t, map[string][]string{
		"gpu1-devinfo.txt": {
			"[root@gpu1 ~]# ibv_devinfo",
			"hca_id:	mlx5_0",
			"	transport:			InfiniBand (0)",
			"	fw_ver:				16.35.2000",
			"	port:	1",
			"		state:			PORT_ACTIVE (4)",
			"		active_mtu:		4096 (5)",
			"		link_layer:		Ethernet",
		},
		"gpu1-perftest.txt": {
			"[root@gpu1 ~]# ib_write_bw -d mlx5_0 --report_gbits gpu3",
			"                    RDMA_Write BW Test",
			" Device         : mlx5_0",
			" Link type       : Ethernet",
			" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]",
			" 65536      5000             92.00            91.50            0.174",
		},
		"gpu2-ethtool.txt": {
			"[root@gpu2 ~]# ethtool ens1np0",
			"Settings for ens1np0:",
			"	Speed: 400000Mb/s",
			"	Duplex: Full",
		},
	})
	rep := Diagnose(paths, nil, Options{})
	for _, f := range rep.Findings {
		if strings.HasPrefix(f.ID, "perftest.bw") && strings.Contains(f.Title, "400") {
			t.Errorf("gpu1's perftest judged against gpu2's 400G: %s", f.Title)
		}
	}
	nicMustFind(t, rep.Findings, "perftest.bw.unjudged", Info, "line rate is not known")
}

// A fact of NODE-1.cluster.local (a collect archive's `hostname`) applies
// to node-1 (NCCL's prefix, cut at the first dot): one rule compares host
// names everywhere (ingest.HostKey), as the job grouping does.
func TestReachHostNameForms(t *testing.T) {
	subj := ingest.Scope{Source: "nccl.log", Host: ingest.Host{Name: "node-1"}}
	fact := ingest.Scope{Source: "collect/ethtool.txt", Host: ingest.Host{Name: "NODE-1.cluster.local"}}
	if r := reachOf(subj, fact); r != sameHost {
		t.Errorf("reachOf(node-1, NODE-1.cluster.local) = %v, want sameHost", r)
	}
	if ingest.HostKey(fact.Host.Name) != ingest.HostKey(subj.Host.Name) {
		t.Errorf("job grouping keys differ: %q, %q", ingest.HostKey(fact.Host.Name), ingest.HostKey(subj.Host.Name))
	}
}
