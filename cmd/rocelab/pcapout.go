package main

import (
	"fmt"
	"os"
	"strings"

	"rocelab/internal/scenario"
	"rocelab/internal/twin"
	"rocelab/internal/unit"
)

// pcapOut is the --pcap capture of a run and its file.
type pcapOut struct {
	*scenario.PcapTap
	file *os.File
}

// attachPcap opens --pcap FILE and taps the --pcap-at port (default: the
// first host's NIC) of the packet engine, before the run so that a bad port
// or file fails fast.
func attachPcap(e twin.Engine, file, at string, snaplen int) (*pcapOut, error) {
	tw, ok := e.(*scenario.Twin)
	if !ok {
		return nil, usageError("--pcap: the %s engine carries no packets; run with --engine packet", e.Observe().Engine.Name)
	}
	if at == "" {
		at = tw.Scenario.Topo.Nodes[tw.Scenario.Topo.Hosts[0]].Name + "/p0"
	}
	pt, err := tw.Port(at)
	if err != nil {
		return nil, usageError("--pcap-at: %v", err)
	}
	if min := scenario.MinSnaplen(tw.Scenario.Host.VLAN); snaplen != 0 && snaplen < min {
		return nil, usageError("--snaplen: %d bytes cut the RoCE headers (Ethernet, IPv4, UDP, BTH, RETH: %d bytes here): expected 0 (whole frames) or at least %d", snaplen, min, min)
	}
	f, err := os.Create(file)
	if err != nil {
		return nil, usageError("--pcap: %v", err)
	}
	tap, err := tw.AttachPcap(pt, f, snaplen)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &pcapOut{PcapTap: tap, file: f}, nil
}

// defaultMemoryLimit is 80% of MemAvailable, or 0 (no limit) when unknown.
func defaultMemoryLimit() unit.Bytes {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		var kb int64
		if _, err := fmt.Sscanf(line, "MemAvailable: %d kB", &kb); err == nil {
			return unit.Bytes(kb * 1024 * 8 / 10)
		}
	}
	return 0
}
