package ingest

import (
	"strings"
	"testing"
)

// readLines returns the texts of the cleaned lines of text.
func readLines(t *testing.T, text string) []string {
	t.Helper()
	var out []string
	for _, l := range readAllLines(text) {
		out = append(out, l.Text)
	}
	return out
}

// Class 5 of issue 9: launcher tags of every common form are removed from
// the start of a line, and a tag repeated mid-line is handled. SYNTHETIC
// lines built around one real nccl-tests row and one real NCCL line.
func TestLauncherTags(t *testing.T) {
	const row = "     1048576        262144     float     sum      -1    1626.5    0.64    1.24      0    2302.3    0.46    0.87      0"
	const nccl = "node1:100:111 [3] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE ; OOB eth0:10.0.0.1<0>"
	for _, c := range []struct{ name, in, want string }{
		{"short", "[0] " + nccl, nccl},
		{"short colon", "[12]: " + nccl, nccl},
		{"rank word", "rank0: " + nccl, nccl},
		{"rank word bracket", "[rank3]: " + nccl, nccl},
		{"Rank space", "[Rank 3] " + nccl, nccl},
		{"srun label", "0: " + nccl, nccl},
		{"srun label padded", "  7: " + nccl, nccl},
		{"iso timestamp", "2024-05-01T12:00:00.123Z " + nccl, nccl},
		{"bracketed timestamp", "[2026-03-13 22:26:02] " + nccl, nccl},
		{"mpi", "[1,0]<stdout>:" + nccl, nccl},
		{"stacked", "[1,3]<stderr>:[3] 2024-05-01T12:00:00Z " + nccl, nccl}, // Open MPI writes no space after its tag
		{"indented mpi", "        [1,0]<stdout>:" + nccl, nccl},
		{"tab-indented mpi", "\t[1,1]<stderr>: " + nccl, " " + nccl}, // Open MPI writes no space: this one is the line's
		{"indented mpi row", "        [1,0]<stdout>:" + row, row},    // the tag takes no space of the row's own
		{"indented iso timestamp", "  2024-05-01T12:00:00.123Z " + nccl, nccl},
		{"mpi timestamp", "Fri Aug 11 12:31:45 2023[1,0]<stdout>:" + nccl, nccl},
		{"mpi timestamp day padded", "Tue Aug  1 09:00:00 2023<stderr>:" + nccl, nccl},
		{"moreutils ts before a name and a number", "Dec  4 10:00:01 Epoch 0:   6%|##", "Epoch 0:   6%|##"}, // pytorch118369's progress bar
		{"date not a tag", "Fri Aug 11 12:31:45 2023 " + nccl, "Fri Aug 11 12:31:45 2023 " + nccl},
		{"indented rank not tag", "     [0]: rx_bytes: 209487403324", "     [0]: rx_bytes: 209487403324"},
		{"index not tag", "[0]mlx5_0:1/RoCE", "[0]mlx5_0:1/RoCE"},
		{"tag alone", "[0]", "[0]"},
		{"ip link not label", "2: eth0: <BROADCAST,MULTICAST,UP>", "eth0: <BROADCAST,MULTICAST,UP>"},
	} {
		got := readLines(t, c.in)
		if len(got) != 1 || got[0] != c.want {
			t.Errorf("%s: %q -> %q, want %q", c.name, c.in, got, c.want)
		}
	}
	// A row written in pieces, each piece tagged: the pieces are joined.
	pieces := "[0]      1048576        262144     float     sum      -1[0]    1626.5    0.64    1.24      0[0]    2302.3    0.46    0.87      0"
	if got := readLines(t, pieces); len(got) != 1 || strings.Join(strings.Fields(got[0]), " ") != strings.Join(strings.Fields(row), " ") {
		t.Errorf("pieces: %q", got)
	}
	mpiPieces := "[1,0]<stdout>:     1048576        262144     float     sum      -1[1,0]<stdout>:    1626.5    0.64    1.24      0[1,0]<stdout>:    2302.3    0.46    0.87      0"
	if got := readLines(t, mpiPieces); len(got) != 1 || strings.Join(strings.Fields(got[0]), " ") != strings.Join(strings.Fields(row), " ") {
		t.Errorf("mpi pieces: %q", got)
	}
	// Two ranks' output interleaved on one line: each rank's pieces make
	// its own line, in the order the ranks first appear.
	const row2 = "     2097152        524288     float     sum      -1    2325.3    0.90    1.73      0     416.7    5.03    9.65      0"
	inter := "[0]      1048576        262144     float     sum      -1[1]      2097152        524288     float     sum      -1[0]    1626.5    0.64    1.24      0[1]    2325.3    0.90    1.73      0[0]    2302.3    0.46    0.87      0[1]     416.7    5.03    9.65      0"
	got := readLines(t, inter)
	if len(got) != 2 || strings.Join(strings.Fields(got[0]), " ") != strings.Join(strings.Fields(row), " ") || strings.Join(strings.Fields(got[1]), " ") != strings.Join(strings.Fields(row2), " ") {
		t.Errorf("interleaved: %q", got)
	}
	// An NCCL line inside runs to the end of the line: NCCL prints a line in
	// one write, and its "rank[dev]" pairs are not tags.
	ncclIn := "[0]      1048576[1] hostB:2:2 [1] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [receive] via NET/IB/0"
	if got := readLines(t, ncclIn); len(got) != 2 || got[1] != " hostB:2:2 [1] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [receive] via NET/IB/0" {
		t.Errorf("NCCL piece: %q", got)
	}
	mpiInter := "[1,0]<stdout>:" + nccl + "[1,1]<stdout>:hostB:2:2 [1] NCCL INFO Using network IB"
	if got := readLines(t, mpiInter); len(got) != 2 || got[0] != nccl || got[1] != "hostB:2:2 [1] NCCL INFO Using network IB" {
		t.Errorf("mpi interleaved: %q", got)
	}
	// NCCL's own "[dev]" field and "rank[busid]" pairs after a rank tag
	// are not tags.
	ring := "[3] node1:100:111 [3] NCCL INFO Ring 00 : 15[41000] -> 0[3] via NET/IB/0"
	if got := readLines(t, ring); len(got) != 1 || got[0] != ring[4:] {
		t.Errorf("ring: %q", got)
	}
}

// Class 5, real text: NVIDIA/nccl#1453 (rank tag "[0]" repeated mid-row)
// and NVIDIA/nccl#302 (rank tag "[155] " before NCCL's prefix).
func TestLauncherTagsCorpus(t *testing.T) {
	arts := readCorpus(t, "threads/allreduce-rank-tag-repeated-midline-nccl1453.txt")
	nt, ok := arts[KindNCCLTests].(*NCCLTests)
	if !ok || len(nt.Runs) != 1 {
		t.Fatalf("no nccl-tests run read: %v", arts)
	}
	r := nt.Runs[0]
	if len(r.Rows) != 10 || len(r.Ranks) != 14 {
		t.Fatalf("rows %d ranks %d, want 10 and 14", len(r.Rows), len(r.Ranks))
	}
	last := r.Rows[len(r.Rows)-1]
	if last.Size != 536870912 || last.Out.BusBW != 5.31 || last.In.BusBW != 5.33 {
		t.Errorf("last row %+v", last)
	}
	l := readCorpus(t, "threads/nccl-rank-tag-prefix-nccl302.txt")[KindNCCLLog].(*NCCLLog)
	if h := l.Hosts(); len(h) != 1 || h[0] != "crow-ib-new-nccl-256-info-19" || len(l.IBDevices) != 5 || l.Lines() != 10 {
		t.Errorf("hosts %v devices %d lines %d", h, len(l.IBDevices), l.Lines())
	}
}

// Ray's worker tags ("(worker1, rank=1, pid=33870, ip=192.168.0.15) ")
// are stripped: SkyPilot's ib_send_bw run, every line so tagged, is read
// as the perftest run it is (it was read as a run without rows before).
func TestRayTagCorpus(t *testing.T) {
	p := corpusAs[*Perftest](t, "perftest/ib-send-bw-ray-worker-prefix-skypilot-nebius.txt", KindPerftest)
	if len(p.Runs) != 1 {
		t.Fatalf("runs = %d, want 1", len(p.Runs))
	}
	r := p.Runs[0]
	if r.Test != "ib_send_bw" || r.Device != "mlx5_0" || r.MTU != 4096 || r.LinkType != "IB" || len(r.Rows) != 1 {
		t.Fatalf("run %+v", r)
	}
	if got := r.Rows[0].BWAvg.Gbps(); got < 361.66 || got > 361.68 {
		t.Errorf("BW average = %v Gb/s, want 361.67", got)
	}
	for _, c := range []struct{ in, want string }{
		{"(pid=4009) x", "x"},
		{"(RayWorkerWrapper pid=4009, ip=10.0.0.2) x", "x"},
		{"(worker1, rank=1, pid=33870, ip=192.168.0.15)  #bytes", " #bytes"}, // perftest indents its header
		{"(see pid=12 below)", "(see pid=12 below)"},
		{"(x pid=abc) y", "(x pid=abc) y"},
		{"(Open MPI) pid=1 x", "(Open MPI) pid=1 x"},
	} {
		if got := readLines(t, c.in); len(got) != 1 || got[0] != c.want {
			t.Errorf("%q -> %q, want %q", c.in, got, c.want)
		}
	}
	if got := readAllLines("(worker1, rank=1, pid=33870, ip=192.168.0.15) text"); len(got) != 1 || got[0].Rank() != 1 {
		t.Errorf("rank of a Ray tag: %+v", got)
	}
}

// Two ranks' output run together on one line reaches the parsers as two
// Lines of one number; each parser counts that input line once (an
// nccl-tests table and an ethtool dump counted 2 of 1 lines: the fuzzer's
// s8-two-rank-tags-one-line). SYNTHETIC lines.
func TestSplitLineCountedOnce(t *testing.T) {
	for _, in := range []string{
		"[0]<stdout>:0 0 float[00]<stdout>:0 0 float",
		"[0]<stdout>:     rx_prio3_pause: 1[1]<stdout>:     rx_prio3_pause: 2",
		"[0]<stdout>:link mlx5_0/1 np_cnp_sent 1[1]<stdout>:link mlx5_1/1 np_cnp_sent 2",
		"[0]<stdout>:mlx5_0	1	3	0000:0000:0000:0000:0000:ffff:0b00:0048	11.0.0.72  	v2	ens3np0[1]<stdout>:mlx5_1	1	3	0000:0000:0000:0000:0000:ffff:0b00:0049	11.0.0.73  	v2	ens4np0",
		"[0]<stdout>:Priority trust state: dscp[1]<stdout>:Priority trust state: pcp",
	} {
		res, err := Read("split", strings.NewReader(in+"\n"))
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Artifacts) == 0 {
			t.Errorf("%q: no artifact", in)
		}
		for _, a := range res.Artifacts {
			if a.Lines() != 1 {
				t.Errorf("%q: %s recognised %d lines of 1", in, a.Kind(), a.Lines())
			}
		}
	}
}

// A logging library's record prefix is cut through its level: Python
// logging's " - " and "name LEVEL: " forms, and Avocado's job log ("<time>
// process  L0458 DEBUG| [stdout] "), whose ib_send_bw row was not read
// behind it (avocado-misc-tests #1196). Synthetic lines around one real
// NCCL line; a level word further in, or one after other fields with no
// separator, is the message's own.
func TestLogRecordPrefix(t *testing.T) {
	const nccl = "node1:100:111 [3] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE ; OOB eth0:10.0.0.1<0>"
	for _, c := range []struct{ name, in, want string }{
		{"level first is the program's", "2024-05-01 12:00:00,123 WARN: Function: f Line: 1: NET/OFI x", "WARN: Function: f Line: 1: NET/OFI x"},
		{"python dashes", "2024-05-01 12:00:00,123 - trainer - INFO - " + nccl, nccl},
		{"python colon", "2024-05-01 12:00:00,123 trainer.net WARNING: " + nccl, nccl},
		{"avocado", "2019-07-16 03:43:24,132 process          L0458 DEBUG| [stdout] " + nccl, nccl},
		{"avocado stderr", "2019-07-16 03:43:24,132 process          L0458 WARNI| [stderr] " + nccl, nccl},
		{"avocado keeps indentation", "2019-07-16 03:43:24,134 process          L0458 DEBUG| [stdout]  1024       1000", " 1024       1000"},
		{"level far in", "2024-05-01 12:00:00,123 a b c d INFO " + nccl, "a b c d INFO " + nccl},
		{"level without separator", "2024-05-01 12:00:00,123 trainer INFO " + nccl, "trainer INFO " + nccl},
		{"host tag before level", "2024-05-01 12:00:00,123 10.3.35.83: WARN: Function: f Line: 1: NET/OFI x", "10.3.35.83: WARN: Function: f Line: 1: NET/OFI x"},
		{"no level", "2024-05-01 12:00:00,123 " + nccl, nccl},
	} {
		got := readLines(t, c.in)
		if len(got) != 1 || got[0] != c.want {
			t.Errorf("%s: %q -> %q, want %q", c.name, c.in, got, c.want)
		}
	}
	p := corpusAs[*Perftest](t, "perftest/ib-send-bw-ud-multicast-avocado-job-log-python-logging-prefix-avocado1196.txt", KindPerftest)
	if len(p.Runs) != 1 || len(p.Runs[0].Rows) != 1 {
		t.Fatalf("runs %+v", p.Runs)
	}
	if r := p.Runs[0].Rows[0]; r.Bytes != 1024 || r.Iterations != 1000 || r.MsgRateMpps != 1.512181 || r.Evidence.Line != 10 {
		t.Errorf("row %+v", r)
	}
}

// cutClockTime cuts moreutils ts's "Dec 04 10:00:01 " before a command's
// output but keeps a syslog line's time, which the collector-prefix and
// dmesg readers need. Kept as syslog: a program with its process id
// ("host prog[123]: ") and the kernel ("host kernel: "). Cut as ts: a
// line whose first two words read as a host and a pid-less program
// ("DCBX mode: Firmware controlled", mlnx_qos's first line; "host prog:
// msg"), since the pid-less form cannot be told from a program's output.
// The cases hold whether or not cutSyslog requires a program name to
// start with a letter.
func TestCutClockTime(t *testing.T) {
	const ts = "Dec 04 10:00:01 "
	for _, c := range []struct {
		in, want string
		cut      bool
	}{
		{ts + "DCBX mode: Firmware controlled", "DCBX mode: Firmware controlled", true},
		{ts + "gpu01 kernel: mlx5_core 0000:3b:00.0: Port module event", ts + "gpu01 kernel: mlx5_core 0000:3b:00.0: Port module event", false},
		{ts + "gpu01 lldpd[123]: unable to send packet", ts + "gpu01 lldpd[123]: unable to send packet", false},
		{ts + "gpu01 lldpd: unable to send packet", "gpu01 lldpd: unable to send packet", true},
		{ts + "rx_crc_errors_phy: 386", "rx_crc_errors_phy: 386", true},
		{"Dec 04 10:00:01", "Dec 04 10:00:01", false},
	} {
		got, cut := cutClockTime(c.in)
		if got != c.want || cut != c.cut {
			t.Errorf("cutClockTime(%q) = %q, %v; want %q, %v", c.in, got, cut, c.want, c.cut)
		}
	}
}
