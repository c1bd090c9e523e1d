package ingest

import "testing"

// Fuzz targets of the host readers: mst status -v, GPU listings, hwloc's
// text and XML, numactl -H, lscpu, systemd-detect-virt and PCI link
// sysfs files.

func FuzzMST(f *testing.F) {
	nicFuzz(f, NewMSTParser, nicSeeds("corpus/mst/*.txt"), func(t *testing.T, a Artifact, n int) {
		m := a.(*MSTStatus)
		if len(m.Devices) > maxMSTDevices {
			t.Fatalf("%d devices", len(m.Devices))
		}
		for _, d := range m.Devices {
			nicCheckEvidence(t, d.Evidence, n)
			if d.NUMA < -1 || d.PCI != "" && !isBDF(d.PCI) {
				t.Fatalf("device %+v", d)
			}
		}
	})
}

func FuzzGPUList(f *testing.F) {
	nicFuzz(f, NewGPUListParser, nicSeeds("corpus/nvsmi/*.txt"), func(t *testing.T, a Artifact, n int) {
		g := a.(*GPUList)
		if len(g.GPUs) > maxListedGPUs {
			t.Fatalf("%d GPUs", len(g.GPUs))
		}
		for _, x := range g.GPUs {
			nicCheckEvidence(t, x.Evidence, n)
			if !gpuModelName(x.Model) || x.BusID != "" && !isBusID(x.BusID) {
				t.Fatalf("GPU %+v", x)
			}
		}
	})
}

func FuzzHostTopology(f *testing.F) {
	nicFuzz(f, NewHostTopoParser, nicSeeds("corpus/hwloc/*.txt", "corpus/hwloc/*.xml"), func(t *testing.T, a Artifact, n int) {
		h := a.(*HostTopology)
		if len(h.Devices) > maxTopoDevices {
			t.Fatalf("%d devices", len(h.Devices))
		}
		for _, d := range h.Devices {
			nicCheckEvidence(t, d.Evidence, n)
			if !isBDF(d.BusID) || d.NUMA != "" && !isDigits(d.NUMA) {
				t.Fatalf("device %+v", d)
			}
		}
	})
}

func FuzzNumactl(f *testing.F) {
	nicFuzz(f, NewNumactlParser, nicSeeds("corpus/numa/*.txt"), func(t *testing.T, a Artifact, n int) {
		m := a.(*Numactl)
		if len(m.Nodes) > maxNUMANodes || len(m.Distance) > maxNUMANodes {
			t.Fatalf("%d nodes, %d rows", len(m.Nodes), len(m.Distance))
		}
		for _, d := range m.Nodes {
			nicCheckEvidence(t, d.Evidence, n)
		}
	})
}

func FuzzLscpu(f *testing.F) {
	nicFuzz(f, NewLscpuParser, nicSeeds("corpus/numa/*.txt"), func(t *testing.T, a Artifact, n int) {
		c := a.(*Lscpu)
		nicCheckEvidence(t, c.Hypervised, n)
		if c.NUMANodes > maxNUMANodes || len(c.NodeCPUs) > maxNUMANodes+1 {
			t.Fatalf("lscpu %+v", c)
		}
	})
}

func FuzzVirt(f *testing.F) {
	f.Add([]byte("$ systemd-detect-virt\nkvm\n"))
	f.Add([]byte("none\n"))
	nicFuzz(f, NewVirtParser, nil, func(t *testing.T, a Artifact, n int) {
		v := a.(*Virt)
		nicCheckEvidence(t, v.Evidence, n)
		if !virtID(v.Tech) || v.Lines() != 1 {
			t.Fatalf("virt %+v", v)
		}
	})
}

func FuzzPCISysfs(f *testing.F) {
	nicFuzz(f, NewPCISysfsParser, nicSeeds("corpus/pci-sysfs/*.txt", "synthetic/pci-sysfs-*.txt"), func(t *testing.T, a Artifact, n int) {
		p := a.(*PCISysfs)
		if len(p.Devices) > maxPCIDevices || len(p.Garbled) > maxGarbled {
			t.Fatalf("%d devices, %d garbled", len(p.Devices), len(p.Garbled))
		}
		for _, d := range p.Devices {
			nicCheckEvidence(t, d.Evidence, n)
			if d.BDF != "" && !isBDF(d.BDF) || d.BDF == "" && d.Name == "" || d.Sta.Width > 32 || d.Cap.Width > 32 || d.NUMA != "" && !isDigits(d.NUMA) {
				t.Fatalf("device %+v", d)
			}
		}
	})
}
