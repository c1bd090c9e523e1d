package lint

import (
	"strings"
	"testing"

	"rocelab/internal/sonic"
	"rocelab/internal/unit"
)

// TestPGXoff works out RoCE's priority group's XOFF point by hand: the
// profile's reserved size plus α/(1+α) of the pool, or its static_th in a
// static pool; a group whose profile or pool size the config lacks, or
// whose dynamic_th Spectrum's SAI reads as α = 0, is not judged.
func TestPGXoff(t *testing.T) {
	const body = `{
 "DEVICE_METADATA": {"localhost": {"platform": "%PLATFORM%"}},
 "BUFFER_POOL": {"ingress_lossless_pool": {"mode": "%MODE%", "size": "12766208"}, "nosize": {"mode": "dynamic"}},
 "BUFFER_PROFILE": {
  "dyn": {"pool": "ingress_lossless_pool", "size": "1248", "xoff": "165984", "dynamic_th": "%TH%"},
  "stat": {"pool": "ingress_lossless_pool", "size": "0", "xoff": "165984", "static_th": "500000"},
  "lossy": {"pool": "ingress_lossless_pool", "size": "0", "dynamic_th": "-4"},
  "unsized": {"pool": "nosize", "size": "1248", "xoff": "165984", "dynamic_th": "-4"}
 },
 "BUFFER_PG": {"Ethernet0|3": {"profile": "dyn"}, "Ethernet4|3": {"profile": "stat"}, "Ethernet8|3": {"profile": "lossy"},
  "Ethernet12|3": {"profile": "unsized"}, "Ethernet16|3": {"profile": "NULL"}}
}`
	cases := []struct {
		platform, mode, th, port string
		want                     unit.Bytes // 0: not judged
	}{
		{"x86_64-dell_s6100_c2538-r0", "dynamic", "-4", "Ethernet0", 1248 + 12766208/17},
		{"x86_64-dell_s6100_c2538-r0", "dynamic", "-3", "Ethernet0", 1248 + 12766208/9},
		{"x86_64-dell_s6100_c2538-r0", "dynamic", "1", "Ethernet0", 1248 + 12766208*2/3},
		{"x86_64-dell_s6100_c2538-r0", "static", "-4", "Ethernet4", 500000},
		{"x86_64-dell_s6100_c2538-r0", "dynamic", "-4", "Ethernet4", 0}, // static_th in a dynamic pool
		{"x86_64-dell_s6100_c2538-r0", "dynamic", "-4", "Ethernet8", 0}, // no xoff: not lossless
		{"x86_64-dell_s6100_c2538-r0", "dynamic", "-4", "Ethernet12", 0},
		{"x86_64-dell_s6100_c2538-r0", "dynamic", "-4", "Ethernet16", 0},
		{"x86_64-dell_s6100_c2538-r0", "dynamic", "-4", "Ethernet20", 0}, // no row
		{"x86_64-mlnx_msn2700-r0", "dynamic", "-8", "Ethernet0", 0},
		{"x86_64-mlnx_msn2700-r0", "dynamic", "0", "Ethernet0", 1248 + 12766208/2},
	}
	for _, c := range cases {
		r := strings.NewReplacer("%PLATFORM%", c.platform, "%MODE%", c.mode, "%TH%", c.th)
		db, err := sonic.Parse("synthetic.json", []byte(r.Replace(body)))
		if err != nil {
			t.Fatal(err)
		}
		x, ok := pgXoffOf(db, sonic.PortQoS{Port: c.port, PFCEnable: []int{3}}, 3)
		if got := x.At(); ok != (c.want > 0) || ok && (got < c.want-1 || got > c.want+1) {
			t.Errorf("%+v: XOFF at %v (judged %v), want %v", c, got, ok, c.want)
		}
	}
}
