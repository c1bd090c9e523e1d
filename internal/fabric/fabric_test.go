package fabric_test

import (
	"math"
	"testing"

	"rocelab/internal/fabric"
	"rocelab/internal/nic"
	"rocelab/internal/packet"
	"rocelab/internal/unit"
)

// star builds n hosts on one switch at rate over cables of length cable.
func star(t testing.TB, n int, rate unit.BitRate, cable unit.Length, cfg fabric.SwitchConfig, ncfg nic.Config) (*fabric.Network, *fabric.Switch) {
	net := fabric.NewNetwork(1)
	sw := net.NewSwitch("sw0", n, cfg)
	routes := make([][]int16, n)
	for i := 0; i < n; i++ {
		h := nic.NewStandin(net, int32(i), "h"+itoa(i), ncfg)
		net.AddHost(h)
		net.Link(h.Port(), sw.Ports()[i], rate, cable)
		routes[i] = []int16{int16(i)}
	}
	sw.SetRoutes(routes)
	if err := sw.Start(); err != nil {
		t.Fatal(err)
	}
	return net, sw
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

func defaultSwitch() fabric.SwitchConfig {
	c := fabric.SwitchConfig{
		Buffer: 32 * unit.MiB, Alpha: 1.0 / 8, AlphaLossy: 1.0 / 8,
		Lossless: 1 << 3, PFC: fabric.PFCConfig{Quanta: 0xffff, XON: true},
		Strict: 1<<6 | 1<<7, HashFields: fabric.FiveTuple,
		Headroom: func(*fabric.Port) unit.Bytes { return 200 * unit.KiB },
	}
	for d := range c.DSCPToPrio {
		c.DSCPToPrio[d] = uint8(d >> 3)
	}
	for p := range c.Weights {
		c.Weights[p] = 1
	}
	return c
}

func defaultNIC(mtu int32) nic.Config {
	c := nic.Config{MTU: mtu, ECT: true}
	for d := range c.DSCPToPrio {
		c.DSCPToPrio[d] = uint8(d >> 3)
	}
	return c
}

func TestSingleFlowGoodput(t *testing.T) {
	for _, mtu := range []int32{4096, 1024} {
		net, _ := star(t, 2, 100*unit.Gbps, 3*unit.Metre, defaultSwitch(), defaultNIC(mtu))
		const size = 64 << 20
		if err := net.AddFlow(fabric.Flow{Src: 0, Dst: 1, Bytes: size, DSCP: 26, Prio: 3, SrcPort: 49152, DstQP: 0x100}); err != nil {
			t.Fatal(err)
		}
		net.Run(unit.Second)
		f := net.Flows[0]
		fct, ok := f.FCT()
		if !ok {
			t.Fatalf("mtu %d: flow did not complete", mtu)
		}
		good := float64(size*8) / fct.Seconds() / 1e9
		// RETH on the first packet only: negligible. Analytic: rate*MTU/(MTU+82).
		want := 100 * float64(mtu) / float64(mtu+packet.Overhead(false))
		if math.Abs(good-want)/want > 0.01 {
			t.Errorf("mtu %d: goodput %.3f Gbps, analytic %.3f", mtu, good, want)
		}
		t.Logf("mtu %d: goodput %.4f Gbps (analytic %.4f), fct %v", mtu, good, want, fct)
	}
}

// A pause quantum is 512 bit times: 5.12 ns at 100G, 1.28 ns at 400G; the
// largest pause, 0xFFFF quanta, is 335.5392 us at 100G (IEEE 802.1Qbb: a
// pause quantum is 512 bit times).
func TestQuantaTime(t *testing.T) {
	net, _ := star(t, 2, 100*unit.Gbps, 3*unit.Metre, defaultSwitch(), defaultNIC(4096))
	pt := net.Ports[0]
	if got := pt.QuantaTime(1); got != 5120*unit.Picosecond {
		t.Errorf("one quantum at 100G = %v", got)
	}
	if got := pt.QuantaTime(0xFFFF); got != 335539200*unit.Picosecond {
		t.Errorf("0xFFFF quanta at 100G = %v, want 335.5392us", got)
	}
	net2, _ := star(t, 2, 400*unit.Gbps, 3*unit.Metre, defaultSwitch(), defaultNIC(4096))
	if got := net2.Ports[0].QuantaTime(0xFFFF); got != 83884800*unit.Picosecond {
		t.Errorf("0xFFFF quanta at 400G = %v, want 83.8848us", got)
	}
}
