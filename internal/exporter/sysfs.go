package exporter

import (
	"bytes"
	"errors"
	"io/fs"
	"path"
	"strings"
)

// A Port is one port of an RDMA device and the netdev behind it.
type Port struct {
	// Device is the RDMA device, e.g. mlx5_0.
	Device string
	// Port is the port number as sysfs names it, e.g. "1".
	Port string
	// Netdev is the Ethernet interface behind the port ("" when none is
	// found, e.g. an InfiniBand port).
	Netdev string

	path string // the sysfs directory, made once
}

// dir is the port's sysfs directory.
func (p *Port) dir() string {
	if p.path == "" {
		p.path = "class/infiniband/" + p.Device + "/ports/" + p.Port
	}
	return p.path
}

// devError is a device discovery could not list.
type devError struct {
	device string
	err    error
}

// Ports returns the RDMA ports of the host, found once per scrape: every
// device under class/infiniband, every port under its ports/, and the
// netdev behind each (the port's gid_attrs/ndevs/0, else the single entry
// of the device's device/net/). Devices that cannot be listed are left out
// and reported by the rdma collector.
func (s *Scrape) Ports() []Port {
	d := s.disc
	if d.done {
		return d.ports
	}
	d.done = true
	devs, err := fs.ReadDir(s.Host.Sys, "class/infiniband")
	if errors.Is(err, fs.ErrNotExist) {
		return nil // no RDMA device (ib_core not loaded): nothing to read, nothing broken
	}
	if err != nil {
		d.errs = append(d.errs, devError{"", err})
		return nil
	}
	for _, de := range devs {
		dev := de.Name()
		ports, err := fs.ReadDir(s.Host.Sys, "class/infiniband/"+dev+"/ports")
		if err != nil {
			d.errs = append(d.errs, devError{dev, err})
			continue
		}
		for _, p := range ports {
			pt := Port{Device: dev, Port: p.Name()}
			pt.Netdev = s.netdevOf(&pt)
			d.ports = append(d.ports, pt)
		}
	}
	return d.ports
}

// netdevOf finds the netdev behind a port, or "".
func (s *Scrape) netdevOf(p *Port) string {
	if b, err := s.readFile(p.dir() + "/gid_attrs/ndevs/0"); err == nil {
		if n := string(bytes.TrimSpace(b)); validName(n) {
			return n
		}
	}
	nets, err := fs.ReadDir(s.Host.Sys, "class/infiniband/"+p.Device+"/device/net")
	if err == nil && len(nets) == 1 && validName(nets[0].Name()) {
		return nets[0].Name()
	}
	return ""
}

// Netdevs returns the ports that have a netdev, each netdev once (the
// first port that names it).
func (s *Scrape) Netdevs() []Port {
	var out []Port
	seen := map[string]bool{}
	for _, p := range s.Ports() {
		if p.Netdev == "" || seen[p.Netdev] {
			continue
		}
		seen[p.Netdev] = true
		out = append(out, p)
	}
	return out
}

// validName reports whether n can be one path element.
func validName(n string) bool {
	return n != "" && n != "." && n != ".." && !strings.ContainsAny(n, "/\x00\n") && fs.ValidPath(n)
}

// netDir is a netdev's sysfs directory.
func netDir(netdev string) string { return path.Join("class/net", netdev) }
