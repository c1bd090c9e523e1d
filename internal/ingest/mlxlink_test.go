package ingest

import (
	"strings"
	"testing"

	"rocelab/internal/unit"
)

// A ConnectX-7's `mlxlink --show_mo`: one port, IB-NDR 4x is 400 Gb/s
// (4 lanes of 100), the device the command's -d; the module's hundred
// "Key : value" lines are not read as a port of their own.
func TestMlxlinkNDRShowModule(t *testing.T) {
	m := corpusAs[*Mlxlink](t, "ethtool/mlxlink-show-mo-cx7-ib-ndr-4x-copper-osfp-notes.txt", KindMlxlink)
	if len(m.Ports) != 1 {
		t.Fatalf("%d ports, want 1: %+v", len(m.Ports), m.Ports)
	}
	p := m.Ports[0]
	if p.Device != "/dev/mst/mt4129_pciconf0" || p.State != "Active" || p.PhysState != "LinkUp" || p.Speed != "IB-NDR" || p.Width != "4x" {
		t.Errorf("port %+v", p)
	}
	if p.Rate != 400*unit.Gbps || p.StatusOpcode != 0 || p.Recommendation != "No issue was observed" || p.EffectiveErrors != -1 {
		t.Errorf("rate %v, opcode %d, %q, effective %d", p.Rate, p.StatusOpcode, p.Recommendation, p.EffectiveErrors)
	}
	if e := p.Evidence["Speed"]; e.Line != 10 {
		t.Errorf("Speed evidence %+v, want line 10", e)
	}
	if ls := m.LinkSpeeds(); len(ls) != 1 || ls[0].Rate != 400*unit.Gbps {
		t.Errorf("link speeds %+v", ls)
	}
}

// A loop over eight ConnectX-6 HDR100 ports: the banner of each run
// names its device, IB-HDR 2x is 100 Gb/s, and the grepped counters of
// the second loop are eight ports more (a key seen again starts the next).
func TestMlxlinkLoopHDR100(t *testing.T) {
	m := corpusAs[*Mlxlink](t, "ethtool/mlxlink-loop-cx6-ib-hdr-2x-8-devices-fec-counters-a100-notes.txt", KindMlxlink)
	if len(m.Ports) != 10 {
		t.Fatalf("%d ports, want 2 runs + 8 counter dumps", len(m.Ports))
	}
	if p := m.Ports[1]; p.Device != "mt4123_pciconf1" || p.Rate != 100*unit.Gbps || p.FEC != "RS-FEC - (544,514) + PLR" {
		t.Errorf("second run %+v", p)
	}
	for i, want := range []string{"3E-8", "1E-7"} {
		p := m.Ports[4+i]
		if p.Device != "mlx5_"+string(rune('2'+i)) || p.RawBER != want || p.EffectiveErrors != 0 || p.ErrorRecoveries != 0 || p.EffectiveBER != "15E-255" {
			t.Errorf("counters of port %d: %+v", 4+i, p)
		}
	}
}

// The line rate of each speed mlxlink prints. SYNTHETIC values.
func TestMlxlinkRate(t *testing.T) {
	for _, c := range []struct {
		speed, width string
		want         unit.BitRate
	}{
		{"IB-HDR", "2x", 100 * unit.Gbps},
		{"IB-EDR", "4x", 100 * unit.Gbps},
		{"IB-XDR", "4x", 800 * unit.Gbps},
		{"IB-FDR", "4x", unit.BitRate(56.25 * float64(unit.Gbps))},
		{"25GbE", "1x", 25 * unit.Gbps},
		{"400G", "8x", 400 * unit.Gbps},
		{"NVLink-XDR", "2x", 0},
		{"IB-HDR", "", 0},
		{"N/A", "N/A", 0},
	} {
		p := MlxlinkPort{Speed: c.speed, Width: c.width}
		if got := p.rate(); got != c.want {
			t.Errorf("%s %s: %v, want %v", c.speed, c.width, got, c.want)
		}
	}
}

// On a switch every port is one device: the command's -p names the port.
// SYNTHETIC lines in mlxlink's form.
func TestMlxlinkSwitchPort(t *testing.T) {
	res, err := Read("sw", strings.NewReader("admin@sonic:~$ sudo mlxlink -d /dev/mst/mt52100_pci_cr0 -p 0x2\nOperational Info\n----------------\nState : Active\nSpeed : 25GbE\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range res.Artifacts {
		if m, ok := a.(*Mlxlink); ok {
			if len(m.Ports) != 1 || m.Ports[0].Device != "/dev/mst/mt52100_pci_cr0 port 0x2" || m.Ports[0].Rate != 25*unit.Gbps {
				t.Errorf("ports %+v", m.Ports)
			}
			return
		}
	}
	t.Fatal("no mlxlink artifact")
}

// A command copied from a guide with its placeholder left in names no
// device: `mlxlink -d <device>` gives the port no name (SYNTHETIC).
func TestMlxlinkPlaceholderDevice(t *testing.T) {
	res, err := Read("guide", strings.NewReader("$ sudo mlxlink -d <device>\nOperational Info\n----------------\nState : Active\nSpeed : 25GbE\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range res.Artifacts {
		if m, ok := a.(*Mlxlink); ok {
			if len(m.Ports) != 1 || m.Ports[0].Device != "" {
				t.Errorf("ports %+v", m.Ports)
			}
			return
		}
	}
	t.Fatal("no mlxlink artifact")
}
