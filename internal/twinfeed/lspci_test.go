package twinfeed

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"rocelab/internal/collective"
	"rocelab/internal/ingest"
	"rocelab/internal/twin"
	"rocelab/internal/unit"
)

// server is a GPU server of nics ports at rate, as Hosts gives it.
func server(nics int, rate unit.BitRate, p twin.ServerPCIe) Host {
	h := Host{Name: "node0", PCIe: &p}
	for n := 0; n < nics; n++ {
		h.Devices = append(h.Devices, Device{Name: collective.RDMADevice(n), Port: 1, Netdev: collective.Netdev(n), Rate: rate, MTU: 4096})
	}
	return h
}

// readIncident renders h's incident and reads its lspci and ethtool -i
// files with the doctor's parsers.
func readIncident(t *testing.T, h Host) (*ingest.Lspci, map[string]string, string) {
	t.Helper()
	var lspci *ingest.Lspci
	busInfo := map[string]string{}
	first := ""
	for _, f := range Incident([]Host{h}, unit.Millisecond, "# source: rocelab twin, scenario \"t\" seed 1 (simulated, not a real host)\n") {
		var b bytes.Buffer
		if err := f.Fill(&b); err != nil {
			t.Fatal(err)
		}
		switch {
		case strings.HasPrefix(f.Path, "lspci"):
			first = strings.SplitN(b.String(), "\n", 3)[1]
			res, err := ingest.Read(f.Path, &b)
			if err != nil {
				t.Fatal(err)
			}
			if res.Type() != string(ingest.KindLspci) {
				t.Fatalf("%s reads as %s, not lspci", f.Path, res.Type())
			}
			lspci = res.Artifacts[0].(*ingest.Lspci)
		case strings.HasPrefix(f.Path, "ethtool"):
			for _, l := range strings.Split(b.String(), "\n") {
				if v, ok := strings.CutPrefix(l, "bus-info: "); ok {
					busInfo[f.Path] = v
				}
			}
		}
	}
	if lspci == nil {
		t.Fatal("no lspci file for a GPU server")
	}
	return lspci, busInfo, first
}

// TestLspciReadsAsTheScenario: a server's lspci, read by the doctor's
// parser, shows what the scenario configures: every GPU on the bus NCCL's
// log gives it and every NIC port at the address its ethtool -i names,
// each below a bridge; links at the configured generation and width
// under the devices' own; ACS redirecting on the switches' downstream
// ports only when acs is on.
func TestLspciReadsAsTheScenario(t *testing.T) {
	h100 := twin.ServerPCIe{GPUs: []string{"H100"}, GPUGen: []int{5}, NICLink: 5, CPU: "intel", CardPorts: 1}
	paths := func(p string) []string { return strings.Split(strings.Repeat(p+" ", 8), " ")[:8] }
	cases := []struct {
		name     string
		host     Host
		nicSta   string // "8GT/s x8"
		nicCap   string
		gpuSta   string
		acs      bool
		nicUnder string // role of the bridge above the first NIC
	}{
		{"healthy PHB", server(1, 400*unit.Gbps, with(h100, func(p *twin.ServerPCIe) { p.Paths = paths("PHB") })), "32GT/s x16", "32GT/s x16", "32GT/s x16", false, ingest.RoleRoot},
		{"ACS PXB", server(1, 400*unit.Gbps, with(h100, func(p *twin.ServerPCIe) { p.Paths, p.ACS = paths("PXB"), true })), "32GT/s x16", "32GT/s x16", "32GT/s x16", true, ingest.RoleSwitch},
		{"NIC Gen3 x8", server(1, 400*unit.Gbps, with(h100, func(p *twin.ServerPCIe) { p.Paths, p.NICLink, p.NICWidth = paths("PHB"), 3, 8 })), "8GT/s x8", "32GT/s x16", "32GT/s x16", false, ingest.RoleRoot},
		{"A100 dual-port 100G, GPUs at Gen3", server(2, 100*unit.Gbps, twin.ServerPCIe{GPUs: []string{"A100"}, GPUGen: []int{4}, GPULink: 3, NICLink: 4, CPU: "amd", CardPorts: 2, Paths: paths("PXB")}),
			"16GT/s x16", "16GT/s x16", "8GT/s x16", false, ingest.RoleSwitch},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, busInfo, what := readIncident(t, c.host)
			if !strings.Contains(what, "the twin's rendering, not a real server") {
				t.Errorf("second line %q does not say it is the twin's rendering", what)
			}
			if len(p.Garbled) > 0 {
				t.Errorf("garbled: %s", p.Garbled[0].Error(p.Source()))
			}
			var gpus, nics []ingest.PCIDevice
			for _, d := range p.Devices {
				if d.Host != "node0" || d.BDF == "" {
					t.Errorf("%s: host %q, address %q", d.Label(), d.Host, d.BDF)
				}
				switch d.Role {
				case ingest.RoleGPU:
					gpus = append(gpus, d)
				case ingest.RoleNIC:
					nics = append(nics, d)
				case ingest.RoleSwitch:
					redirects := d.ACS != nil && d.ACS.Redirects()
					if d.Port == "Downstream Port" && redirects != c.acs {
						t.Errorf("%s: ACS redirects %v, want %v", d.Label(), redirects, c.acs)
					}
				}
			}
			if len(gpus) != 8 || len(nics) != len(c.host.Devices) {
				t.Fatalf("%d GPUs and %d NICs, want 8 and %d", len(gpus), len(nics), len(c.host.Devices))
			}
			for g, d := range gpus {
				if want := fmt.Sprintf("0000:%02x:00.0", collective.BusID(g)); d.BDF != want {
					t.Errorf("GPU %d at %s, NCCL's log says %s", g, d.BDF, want)
				}
				if d.Sta.String() != c.gpuSta || d.Cap.Width != 16 {
					t.Errorf("GPU %s: LnkSta %s LnkCap %s, want LnkSta %s", d.BDF, d.Sta, d.Cap, c.gpuSta)
				}
				if b, ok := p.Above(d); !ok || b.Role != ingest.RoleSwitch || b.Sta.String() != d.Sta.String() {
					t.Errorf("GPU %s: above it %s (%v), want a switch port at its link", d.BDF, b.Label(), ok)
				}
			}
			for n, d := range nics {
				if got := busInfo["ethtool/node0-"+collective.Netdev(n)+".txt"]; got != d.BDF {
					t.Errorf("NIC %d: ethtool -i bus-info %s, lspci %s", n, got, d.BDF)
				}
				if d.Sta.String() != c.nicSta || d.Cap.String() != c.nicCap || d.Downgraded() != (c.nicSta != c.nicCap) {
					t.Errorf("NIC %s: LnkSta %s LnkCap %s, want %s of %s", d.BDF, d.Sta, d.Cap, c.nicSta, c.nicCap)
				}
				if b, ok := p.Above(d); n == 0 && (!ok || b.Role != c.nicUnder || b.Sta.String() != d.Sta.String()) {
					t.Errorf("NIC %s: above it %q %s, want a %s at its link", d.BDF, b.Role, b.Sta, c.nicUnder)
				}
			}
		})
	}
}

func with(p twin.ServerPCIe, f func(*twin.ServerPCIe)) twin.ServerPCIe {
	f(&p)
	return p
}
