package ingest

import (
	"path/filepath"
	"testing"
)

var nicConfigCorpus = filepath.Join("..", "..", "testdata", "corpus", "mlxconfig")

func FuzzMlxConfig(f *testing.F) {
	f.Add([]byte("mlxconfig -d /dev/mst/mt4123_pciconf0 -y set ROCE_CC_PRIO_MASK_P1=0x8 CNP_DSCP_P1=48\n"))
	f.Add([]byte("Device #1:\n----------\nDevice type:    ConnectX5\nDevice:         81:00.0\n\nConfigurations:    Default  Current  Next Boot\n*  ROCE_CC_PRIO_MASK_P1   255  255  8\n   LINK_TYPE_P1  ETH(2) ETH(2) ETH(2)\n"))
	nicFuzz(f, NewMlxConfigParser, []string{
		filepath.Join(nicConfigCorpus, "mlxconfig-query-cx5-cc-defaults-dpservice26.txt"),
		filepath.Join(nicConfigCorpus, "mlxconfig-query-e-cx6lx-default-current-nextboot-sriov358.txt"),
	}, func(t *testing.T, a Artifact, lines int) {
		m := a.(*MlxConfig)
		if len(m.Devices) > maxMlxDevices {
			t.Fatalf("%d devices", len(m.Devices))
		}
		total := 0
		for _, d := range m.Devices {
			for _, p := range d.Params {
				nicCheckEvidence(t, p.Evidence, lines)
				if p.Name == "" || p.Value == "" || p.Port < 0 || p.Port > 2 {
					t.Fatalf("param %+v", p)
				}
				total++
			}
		}
		if total > maxMlxParams {
			t.Fatalf("%d params", total)
		}
	})
}

func FuzzDCQCNSysfs(f *testing.F) {
	f.Add([]byte("/sys/class/net/eth0/ecn/roce_rp/rpg_ai_rate:5\n/sys/class/net/eth0/ecn/roce_np/enable/3:1\necho 48 > /sys/class/net/eth0/ecn/roce_np/cnp_dscp\n"))
	f.Add([]byte("$ cat /sys/class/net/eth1/ecn/roce_np/min_time_between_cnps\n4\necho 1 | sudo tee /sys/class/net/eth1/ecn/roce_rp/enable/3\n/sys/kernel/debug/mlx5/0000:81:00.0/cc_params/rp_gd:11\n"))
	nicFuzz(f, NewDCQCNSysfsParser, nil, func(t *testing.T, a Artifact, lines int) {
		d := a.(*DCQCNSysfs)
		if len(d.Interfaces) > maxDCQCNIfaces {
			t.Fatalf("%d interfaces", len(d.Interfaces))
		}
		for _, f := range d.Interfaces {
			for _, v := range f.Params {
				nicCheckEvidence(t, v.Evidence, lines)
			}
			for p, v := range f.RPEnable {
				if p < 0 || p > 7 {
					t.Fatalf("priority %d", p)
				}
				nicCheckEvidence(t, v.Evidence, lines)
			}
		}
	})
}

func FuzzMlnxQoSCommands(f *testing.F) {
	f.Add([]byte("mlnx_qos -i eth0 --trust dscp --pfc 0,0,0,1,0,0,0,0 --dscp2prio set,26,3\nmlnx_qos -i eth1 --trust=pcp\n"))
	nicFuzz(f, NewMlnxQoSCommandParser, nil, func(t *testing.T, a Artifact, lines int) {
		m := a.(*MlnxQoSCommands)
		if len(m.Configs) > maxQoSConfigs {
			t.Fatalf("%d configs", len(m.Configs))
		}
		for _, c := range m.Configs {
			for _, e := range c.Evidence {
				nicCheckEvidence(t, e, lines)
			}
			for d, p := range c.DSCP2Prio {
				if p < -1 || p > 7 {
					t.Fatalf("dscp %d → %d", d, p)
				}
			}
		}
	})
}
