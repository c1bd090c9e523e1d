package ingest

import "testing"

// A connection via a net plugin ("Ring 00 : 7 -> 8 [send] via NET/AWS
// Libfabric/0", aws/aws-ofi-nccl#24) shows that plugin carrying the
// host's data: the host is no socket host, whatever a plugin line of
// another rank says about its own start ("NET/OFI No NIC info for dev 0").
func TestCorpusPluginChannelsNameTheTransport(t *testing.T) {
	l := ncclLog(t, "nccl-log/nccl-2.4-mpirun-stdout-tag-ofi-libfabric-open-av-einval-awsofinccl24.txt")
	plugin := 0
	for _, tr := range l.Transports() {
		if tr.Socket || tr.RDMA {
			t.Errorf("host %s: socket %v, RDMA %v", tr.Host, tr.Socket, tr.RDMA)
		}
		if tr.Plugin == "AWS Libfabric" {
			plugin++
		}
	}
	if plugin != 3 {
		t.Errorf("%d hosts on the plugin, want the 3 whose rings go via NET/AWS Libfabric", plugin)
	}
}

// NCCL 2.19+ prints each queue pair's Enhanced Connection Establishment
// under NCCL_DEBUG_SUBSYS=NET ("NET/IB: IbDev 4 Port 1 qpn 103534
// set_ece={supported=1, ...}", NVIDIA/nccl#1669): the host's data moves
// over NET/IB even when no device list or "Using network" line is in the
// excerpt.
func TestCorpusECELinesShowIB(t *testing.T) {
	l := ncclLog(t, "nccl-log/nccl-2.26.2-ras-listening-ib-set-ece-fifo-tc-signal-nccl1669.txt")
	if l.IBQPLines.Count != 4 || len(l.IBQPLines.Hosts) != 1 || l.IBQPLines.Hosts[0] != "rtptest1625" {
		t.Fatalf("queue-pair lines %d on %v", l.IBQPLines.Count, l.IBQPLines.Hosts)
	}
	for _, tr := range l.Transports() {
		if tr.Host == "rtptest1625" && (!tr.RDMA || tr.RDMAEvidence.Line != 4) {
			t.Errorf("rtptest1625: RDMA %v at line %d", tr.RDMA, tr.RDMAEvidence.Line)
		}
	}
}

// CloudWatch's console, copied, gives an expanded row as the time glued
// to the message, " | " and the message again (aws/aws-ofi-nccl#889): the
// host is not "2025-05-16T16:39:51.208-07:00ip-10-36-29-253", and the rows
// of the ordinary "  | <time> | <message>" shape beside them ("NCCL
// version 2.21.5+cuda12.8") are read too.
func TestCorpusConsoleRowsGluedToTheirTime(t *testing.T) {
	l := ncclLog(t, "nccl-log/nccl-2.21.5-ofi-cloudwatch-pipe-duplicated-lines-efa-empty-awsofinccl889.txt")
	if h := l.Hosts(); len(h) != 1 || h[0] != "ip-10-36-29-253" {
		t.Errorf("hosts %v", h)
	}
	if len(l.Versions) != 1 || l.Versions[0].Version != "2.21.5+cuda12.8" {
		t.Errorf("versions %+v", l.Versions)
	}
	if len(l.BootIfaces) != 1 || l.BootIfaces[0].Host != "ip-10-36-29-253" {
		t.Errorf("bootstrap interfaces %+v", l.BootIfaces)
	}
	for _, s := range []string{"  | 2025-05-16T16:39:51.208-07:00a | b", "  | 2025-05-16T16:39:51.208-07:00x |x"} {
		if n := gluedRowCopy(s[len("  | 2025-05-16T16:39:51.208-07:00"):]); n != 0 {
			t.Errorf("%q read as a glued row (%d)", s, n)
		}
	}
}

// A C++ plugin's WARN location is its function's signature
// ("tcpxResult_t tcpxCommProgress(tcpxComm*):1231", GPUDirect-TCPX,
// NVIDIA/nccl#1652); with no host prefix, or only the device token a
// launcher tag is read as, it is still the WARN's location.
func TestCorpusSignatureLocationWithoutPrefix(t *testing.T) {
	l := ncclLog(t, "nccl-log/nccl-gpudirecttcpx-plugin-rx-ctrl-timeout-warn-no-host-nccl1652.txt")
	if len(l.Warnings) != 2 {
		t.Fatalf("warnings %+v", l.Warnings)
	}
	for _, w := range l.Warnings {
		if w.Where != "tcpxCommProgress:1231" {
			t.Errorf("line %d: location %q", w.Evidence.Line, w.Where)
		}
	}
}

// "[0] NCCL INFO ..." is NCCL's device field with the host:pid:tid before
// it cut off (NVIDIA/nccl-tests#245), not a launcher's rank tag: the
// evidence starts at the line's start and the line's process is not
// made up from a rank. A rank tag before NCCL's whole prefix stays one.
func TestCorpusBareDeviceFieldIsNoRankTag(t *testing.T) {
	l := ncclLog(t, "nccl-log/nccl-ofi-no-host-prefix-dmabuf-available-gdr-disabled-nccltests245.txt")
	if l.PluginGDROff.Count != 2 {
		t.Fatalf("GDR-off lines %d", l.PluginGDROff.Count)
	}
	for _, e := range l.PluginGDROff.Lines {
		if e.Col != 0 {
			t.Errorf("line %d read from column %d", e.Line, e.Col)
		}
	}
	for _, c := range []struct {
		s    string
		kind tagKind
	}{
		{"[0] NCCL INFO Channel 00/02 :    0   1", tagNone},
		{"[3] NCCL WARN NET/OFI x", tagNone},
		{"[155] host:1:2 [3] NCCL INFO x", tagRank},
		{"[rank0]: NCCL INFO x", tagWord},
	} {
		if _, _, k := cutTag(c.s); k != c.kind {
			t.Errorf("%q: tag kind %v, want %v", c.s, k, c.kind)
		}
	}
}
