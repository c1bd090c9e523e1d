package ingest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readOne[T Artifact](t *testing.T, name, text string) T {
	t.Helper()
	res, err := Read(name, strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range res.Artifacts {
		if v, ok := a.(T); ok {
			return v
		}
	}
	var zero T
	t.Fatalf("%s: no %T among %d artifacts", name, zero, len(res.Artifacts))
	return zero
}

func corpusText(t *testing.T, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "corpus", rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestMlxConfigQueryCorpus(t *testing.T) {
	m := readOne[*MlxConfig](t, "dpservice26", corpusText(t, "mlxconfig/mlxconfig-query-cx5-cc-defaults-dpservice26.txt"))
	if len(m.Devices) != 1 {
		t.Fatalf("%d devices", len(m.Devices))
	}
	d := &m.Devices[0]
	if len(d.Params) != 27 {
		t.Errorf("%d params, want 27", len(d.Params))
	}
	for _, c := range []struct {
		name string
		port int
		want int64
	}{{"ROCE_CC_PRIO_MASK", 1, 255}, {"ROCE_CC_PRIO_MASK", 2, 255}, {"CLAMP_TGT_RATE_AFTER_TIME_INC", 1, 1},
		{"DCE_TCP_G", 1, 1019}, {"CNP_DSCP", 1, 48}, {"CNP_802P_PRIO", 1, 6}, {"RPG_TIME_RESET", 2, 300}} {
		p, ok := d.Param(c.name, c.port)
		if !ok {
			t.Errorf("no %s port %d", c.name, c.port)
			continue
		}
		if v, ok := p.Int(); !ok || v != c.want {
			t.Errorf("%s_P%d = %q, want %d", c.name, c.port, p.Value, c.want)
		}
	}
	p, _ := d.Param("ROCE_CC_PRIO_MASK", 1)
	if p.Evidence.Line != 4 || !strings.Contains(p.Evidence.Text, "ROCE_CC_PRIO_MASK_P1") {
		t.Errorf("evidence %+v", p.Evidence)
	}
}

func TestMlxConfigThreeColumns(t *testing.T) {
	m := readOne[*MlxConfig](t, "sriov358", corpusText(t, "mlxconfig/mlxconfig-query-e-cx6lx-default-current-nextboot-sriov358.txt"))
	d := &m.Devices[0]
	p, ok := d.Param("DCE_TCP_G", 1)
	if !ok || p.Value != "1019" || p.NextBoot != "" {
		t.Errorf("DCE_TCP_G %+v", p)
	}
	if p, _ := d.Param("MEMIC_SIZE_LIMIT", 0); p.Value != "_256KB(1)" {
		t.Errorf("MEMIC_SIZE_LIMIT %q", p.Value)
	}
	// A pending change: Current differs from Next Boot, marked with "*".
	m = readOne[*MlxConfig](t, "x", "Configurations:                              Default         Current         Next Boot\n"+
		"*        ROCE_CC_PRIO_MASK_P1                255             255             8\n")
	p, _ = m.Devices[0].Param("ROCE_CC_PRIO_MASK", 1)
	if p.Value != "255" || p.NextBoot != "8" {
		t.Errorf("pending change read as %+v", p)
	}
}

// The seed's commands (seed 002 §4.2), and set output with its "New" column.
func TestMlxConfigSet(t *testing.T) {
	text := `mlxconfig -d /dev/mst/mt4123_pciconf0 set ROCE_CC_ALG=DCQCN
mlxconfig -d /dev/mst/mt4123_pciconf0 set ROCE_CC_PRIO_MASK=0x8
mlxconfig -d /dev/mst/mt4123_pciconf0 -y set CNP_DSCP_P1=48 CNP_802P_PRIO_P1=6
`
	m := readOne[*MlxConfig](t, "seed", text)
	if len(m.Devices) != 1 || m.Devices[0].Device != "/dev/mst/mt4123_pciconf0" {
		t.Fatalf("devices %+v", m.Devices)
	}
	d := &m.Devices[0]
	if p, ok := d.Param("ROCE_CC_PRIO_MASK", 1); !ok || p.Value != "0x8" {
		t.Errorf("device-wide mask not found for port 1: %+v", p)
	}
	if v, _ := mustParam(t, d, "ROCE_CC_PRIO_MASK", 0).Int(); v != 8 {
		t.Errorf("mask %d", v)
	}
	if p := mustParam(t, d, "CNP_802P_PRIO", 1); p.Evidence.Line != 3 {
		t.Errorf("evidence line %d", p.Evidence.Line)
	}
	m = readOne[*MlxConfig](t, "new", "Configurations:                                          Next Boot       New\n"+
		"         ROCE_CC_PRIO_MASK_P1                        255                  8\n")
	if p := mustParam(t, &m.Devices[0], "ROCE_CC_PRIO_MASK", 1); p.Value != "8" {
		t.Errorf("set table read as %+v", p)
	}
}

func mustParam(t *testing.T, d *MlxDevice, name string, port int) MlxParam {
	t.Helper()
	p, ok := d.Param(name, port)
	if !ok {
		t.Fatalf("no %s", name)
	}
	return p
}

// Rows of other formats are not taken for NVConfig rows.
func TestMlxConfigIgnoresOthers(t *testing.T) {
	res, _ := Read("x", strings.NewReader("  ROCE_MODE: 2\nNCCL_IB_TC=106\n   rx_prio3_pause: 7\n  LINK_TYPE is set\n"))
	for _, a := range res.Artifacts {
		if a.Kind() == KindMlxConfig {
			t.Errorf("read an mlxconfig artifact from unrelated lines")
		}
	}
}

func TestDCQCNSysfsForms(t *testing.T) {
	text := `$ grep . /sys/class/net/ens1f0/ecn/roce_rp/* /sys/class/net/ens1f0/ecn/roce_np/*
/sys/class/net/ens1f0/ecn/roce_rp/rpg_ai_rate:5
/sys/class/net/ens1f0/ecn/roce_rp/dce_tcp_g:1019
/sys/class/net/ens1f0/ecn/roce_rp/enable/3:1
/sys/class/net/ens1f0/ecn/roce_rp/enable/0:0
grep: /sys/class/net/ens1f0/ecn/roce_rp/enable: Is a directory
/sys/class/net/ens1f0/ecn/roce_np/cnp_dscp:48
echo 6 > /sys/class/net/ens1f1/ecn/roce_np/cnp_802p_prio
echo 1 | sudo tee /sys/class/net/ens1f1/ecn/roce_np/enable/3
# cat /sys/class/net/ens1f1/ecn/roce_np/min_time_between_cnps
4
/sys/kernel/debug/mlx5/0000:81:00.0/cc_params/rp_time_reset:300
/sys/kernel/debug/mlx5/0000:81:00.0/cc_params/np_cnp_prio:6
`
	d := readOne[*DCQCNSysfs](t, "dump", text)
	if len(d.Interfaces) != 3 {
		t.Fatalf("%d interfaces: %+v", len(d.Interfaces), d.Interfaces)
	}
	a, b, c := d.Interfaces[0], d.Interfaces[1], d.Interfaces[2]
	if v, _ := a.Params["rpg_ai_rate"].Int(); v != 5 || a.Params["rpg_ai_rate"].Evidence.Line != 2 {
		t.Errorf("rpg_ai_rate %+v", a.Params["rpg_ai_rate"])
	}
	if m, ok := EnabledMask(a.RPEnable); !ok || m != 1<<3 {
		t.Errorf("rp enable mask %#x", m)
	}
	if b.Params["cnp_802p_prio"].Text != "6" || b.Params["min_time_between_cnps"].Text != "4" {
		t.Errorf("echo/cat forms: %+v", b.Params)
	}
	if m, _ := EnabledMask(b.NPEnable); m != 1<<3 {
		t.Errorf("np enable mask %#x", m)
	}
	if c.Name != "0000:81:00.0" || c.Params["rpg_time_reset"].Text != "300" || c.Params["cnp_802p_prio"].Text != "6" {
		t.Errorf("debugfs: %+v", c)
	}
}

func TestMlnxQoSCommands(t *testing.T) {
	text := `mlnx_qos -i eth0 --trust dscp
mlnx_qos -i eth0 --pfc 0,0,0,1,0,0,0,0
mlnx_qos -i eth0 --dscp2prio set,26,3 --dscp2prio set,48,6
mlnx_qos -i eth1 --trust=pcp
mlnx_qos -i eth0
`
	m := readOne[*MlnxQoSCommands](t, "cmds", text)
	if len(m.Configs) != 2 || m.Lines() != 4 {
		t.Fatalf("%d configs, %d lines", len(m.Configs), m.Lines())
	}
	c := &m.Configs[0]
	if c.Trust != "dscp" || !c.PFCKnown || c.PFCPrios()[0] != 3 || len(c.PFCPrios()) != 1 {
		t.Errorf("eth0 %+v", c)
	}
	if p, ok := c.DSCPPrio(26); !ok || p != 3 {
		t.Errorf("dscp 26 → %d %v", p, ok)
	}
	if _, ok := c.DSCPPrio(10); ok {
		t.Error("unset DSCP known")
	}
	if c.Evidence["pfc"].Line != 2 || c.Evidence["dscp2prio:6"].Line != 3 {
		t.Errorf("evidence %+v", c.Evidence)
	}
	if m.Configs[1].Trust != "pcp" {
		t.Errorf("eth1 %+v", m.Configs[1])
	}
}

// A script's "label: PATH = VALUE" lines and the RDMA device's forced
// traffic class (spiderpool's `rdma-qos.sh q`, real output) are read.
func TestDCQCNSysfsScriptAndTrafficClass(t *testing.T) {
	d := corpusAs[*DCQCNSysfs](t, "ethtool/mlnx-qos-pfc5-ecn-tclass160-rdma-qos-script-spiderpool.txt", KindDCQCNSysfs)
	if len(d.TrafficClasses) != 1 {
		t.Fatalf("traffic classes %+v", d.TrafficClasses)
	}
	if tc := d.TrafficClasses[0]; tc.Device != "mlx5_0" || tc.Port != 1 || tc.TClass != 160 || tc.DSCP() != 40 || tc.Evidence.Line != 27 {
		t.Errorf("traffic class %+v", tc)
	}
	if len(d.Interfaces) != 1 || d.Interfaces[0].Name != "eth0" {
		t.Fatalf("interfaces %+v", d.Interfaces)
	}
	f := d.Interfaces[0]
	if m, ok := EnabledMask(f.NPEnable); !ok || m != 0xff {
		t.Errorf("np enable mask %#x", m)
	}
	if v, ok := f.Params["cnp_dscp"].Int(); !ok || v != 48 {
		t.Errorf("cnp_dscp %+v", f.Params["cnp_dscp"])
	}
}
