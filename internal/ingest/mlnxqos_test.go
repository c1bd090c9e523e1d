package ingest

import "testing"

func TestMlnxQoSCX5Blog(t *testing.T) {
	res := nicReadCorpus(t, "ethtool/mlnx-qos-dcbx-fw-pfc3-showgids-dmesg-pcie-x8-cx5blog.txt")
	if res.Type() != string(KindMlnxQoS) {
		t.Errorf("type %s (contains %v)", res.Type(), nicKinds(res))
	}
	m := nicArtifact[*MlnxQoS](t, res)
	if len(m.Configs) != 1 {
		t.Fatalf("%d configs", len(m.Configs))
	}
	c := m.Configs[0]
	if c.Interface != "mce0" || c.DCBX != "Firmware controlled" || c.Trust != "dscp" || c.CableLen != 7 || c.MaxBuffer != 262016 {
		t.Errorf("config %+v", c)
	}
	if !c.PFCKnown || len(c.PFCPrios()) != 1 || c.PFCPrios()[0] != 3 || !c.BufferKnown || c.Buffer[3] != 1 {
		t.Errorf("pfc %v buffer %v", c.PFC, c.Buffer)
	}
	if len(c.RxBuffers) != 8 || c.RxBuffers[1] != 130944 {
		t.Errorf("rx buffers %v", c.RxBuffers)
	}
	for d, want := range map[int]int{0: 0, 7: 0, 26: 3, 24: 3, 31: 3, 48: 6, 63: 7} {
		if p, ok := c.DSCPPrio(d); !ok || p != want {
			t.Errorf("dscp %d → %d, want %d", d, p, want)
		}
	}
	if len(c.TCs) != 3 {
		t.Fatalf("%d tcs", len(c.TCs))
	}
	if tc, ok := c.TCOf(3); !ok || tc.TC != 3 || tc.TSA != "ets" || tc.BW != 50 {
		t.Errorf("tc of 3: %+v", tc)
	}
	if tc, ok := c.TCOf(6); !ok || tc.TSA != "vendor" || tc.BW != -1 {
		t.Errorf("tc of 6: %+v", tc)
	}
	if tc, _ := c.TCOf(7); tc.TC != 0 || len(tc.Prios) != 6 {
		t.Errorf("tc of 7: %+v", tc)
	}
}

// synthetic: an older tool's trust pcp dump with PFC off, then a condensed
// dump of a second interface.
const syntheticQoS = `# mlnx_qos -i ens1f0
Priority trust mode: pcp
PFC configuration:
	priority    0   1   2   3   4   5   6   7
	enabled     0   0   0   0   0   0   0   0

tc: 0 ratelimit: unlimited, tsa: vendor
	 priority:  1
# mlnx_qos -i ens1f1
DCBX mode: OS controlled
Priority trust state: dscp
pfc enabled: 0 0 0 1 0 0 0 0
`

func TestMlnxQoSVariants(t *testing.T) {
	m := nicArtifact[*MlnxQoS](t, nicReadText(t, "synthetic-qos", syntheticQoS))
	if len(m.Configs) != 2 {
		t.Fatalf("%d configs", len(m.Configs))
	}
	a, b := m.Configs[0], m.Configs[1]
	if a.Interface != "ens1f0" || a.Trust != "pcp" || !a.PFCKnown || len(a.PFCPrios()) != 0 || len(a.TCs) != 1 || a.TCs[0].Prios[0] != 1 {
		t.Errorf("first %+v", a)
	}
	if _, ok := a.DSCPPrio(26); ok {
		t.Error("dscp map from nowhere")
	}
	if b.Interface != "ens1f1" || b.Trust != "dscp" || !b.PFCKnown || len(b.PFCPrios()) != 1 || b.PFCPrios()[0] != 3 {
		t.Errorf("second %+v", b)
	}
}
