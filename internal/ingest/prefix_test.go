package ingest

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// SYNTHETIC blocks around real lines (an NCCL line of NVIDIA/nccl#899,
// mlnx_qos and mlxconfig output of the corpus): a collector prefix is cut
// when most lines carry it, and its shape is left alone when it is the
// artifact's own text.
func TestDetectPrefix(t *testing.T) {
	nccl := "21346d5cefce:5325:5337 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 1 'mlx5_1' (no module)"
	rep := func(prefix string, n int) string {
		return strings.Repeat(prefix+nccl+"\n", n)
	}
	cases := []struct {
		name, text string
		want       string // Text of the first line
	}{
		{"compose", rep("svc-1  | ", 3), nccl},
		{"compose, two services", "svc-1   | " + nccl + "\nworker-1| " + nccl + "\n", "svc-1   | " + nccl},
		{"compose, padded alike", "svc-1     | " + nccl + "\nworker-12 | " + nccl + "\n", nccl},
		{"compose colours", rep("\x1b[36msvc-1  |\x1b[0m ", 3), nccl},
		{"kubectl", rep("[pod/trainer-0/main] ", 3), nccl},
		{"journald", rep("Dec  4 10:00:01 gpu01 python[1234]: ", 3), nccl},
		{"journald, no pid", rep("Dec 04 10:00:01 gpu01 torchrun: ", 3), nccl},
		{"rsyslog ISO", rep("2024-05-01T10:00:00.123456+00:00 gpu01 python[7]: ", 3), nccl},
		// journalctl's other -o short-* forms. SYNTHETIC, as journalctl(1) gives them.
		{"journalctl short-precise", rep("Dec 04 10:00:01.123456 gpu01 python[1234]: ", 3), nccl},
		{"journalctl short-full", rep("Wed 2024-12-04 10:00:01 UTC gpu01 python[1234]: ", 3), nccl},
		{"journalctl short-full zone offset", rep("Wed 2024-12-04 10:00:01 +0530 gpu01 python[1234]: ", 3), nccl},
		{"journalctl short-unix", rep("1733306401.123456 gpu01 python[1234]: ", 3), nccl},
		{"journalctl short-precise kernel", strings.Repeat("Dec 04 10:00:01.123456 gpu01 kernel: mlx5_core 0000:17:00.0: link up\n", 3),
			"Dec 04 10:00:01.123456 gpu01 kernel: mlx5_core 0000:17:00.0: link up"},
		{"not a weekday", rep("e W 2024-12-04 10:00:01 UTC gpu01 python[1234]: ", 3), "e W 2024-12-04 10:00:01 UTC gpu01 python[1234]: " + nccl},
		{"pdsh", rep("gpu01: ", 3), nccl},
		{"pdsh over srun", rep("gpu01: 0: ", 3), nccl},
		{"srun then pdsh", rep("0: gpu01: ", 3), nccl},
		{"compose, journald, pdsh", rep("svc-1  | Dec 04 10:00:01 gpu01 python[1]: gpu01: ", 3), nccl},
		{"console table", rep("  | 2024-11-28T07:42:11.528Z | ", 3), nccl},
		{"quoted kubectl", rep("> [pod/trainer-0/main] ", 3), nccl},
		{"one-line paste", "[pod/trainer-0/main] " + nccl + "\n", nccl},
		{"one pdsh line", "gpu01: " + nccl + "\n", "gpu01: " + nccl},
		// One syslog-shaped line is a log's when it names its pid; without one
		// it is moreutils' ts before a command's line (SYNTHETIC).
		{"one syslog line", "Dec 04 10:00:01 gpu01 python[7]: " + nccl + "\n", nccl},
		{"ts before one line", "Dec 04 10:00:01 DCBX mode: Firmware controlled\n", "DCBX mode: Firmware controlled"},
		{"ts before two lines", "Dec 04 10:00:01 DCBX mode: Firmware controlled\nDec 04 10:00:01 Priority trust state: dscp\n", "DCBX mode: Firmware controlled"},
		// A minority does not make a prefix.
		{"one of three", "svc-1  | " + nccl + "\n" + nccl + "\n" + nccl + "\n", "svc-1  | " + nccl},
		// Kernel lines keep their syslog prefix: the dmesg parser reads it.
		{"kernel", strings.Repeat("Dec  4 10:00:01 gpu01 kernel: mlx5_core 0000:17:00.0: link up\n", 3),
			"Dec  4 10:00:01 gpu01 kernel: mlx5_core 0000:17:00.0: link up"},
		// Key-value output: keys without digits, or each named once.
		{"mlnx_qos unindented", "tc: 0 ratelimit: unlimited, tsa: vendor\npriority:  1\ntc: 1 ratelimit: unlimited, tsa: vendor\npriority:  0\n",
			"tc: 0 ratelimit: unlimited, tsa: vendor"},
		{"one key each", "gpu01: 1\ngpu02: 1\ngpu03: 0\n", "gpu01: 1"},
		{"device names", "mlx5_0: 1\nmlx5_0: 2\nmlx5_0: 3\n", "mlx5_0: 1"},
		{"table rows", "a  | b\nc  | d\ne  | f\n", "a  | b"},
	}
	for _, c := range cases {
		ls := readAllLines(c.text)
		if len(ls) == 0 || ls[0].Text != c.want {
			t.Errorf("%s: first line %q, want %q", c.name, texts(ls), c.want)
		}
	}
}

func texts(ls []Line) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.Text)
	}
	return out
}

// Columns count in the line as read: past the prefix, the quoting and the
// colour codes before the text.
func TestPrefixColumns(t *testing.T) {
	cases := []struct {
		name, line string
	}{
		{"compose", "svc-1  | text here"},
		{"compose colours", "\x1b[36msvc-1  |\x1b[0m text here"},
		{"quoted pdsh over mpirun", "> gpu01: [1,0]<stdout>:text here"},
		{"journald", "Dec 04 10:00:01 gpu01 python[1234]: text here"},
	}
	for _, c := range cases {
		ls := readAllLines(strings.Repeat(c.line+"\n", 3))
		l := ls[0]
		want := strings.Index(c.line, "text here") + 1
		if l.Text != "text here" || l.Col(0) != want {
			t.Errorf("%s: %q at column %d, want %q at %d", c.name, l.Text, l.Col(0), "text here", want)
		}
		if e := At("f", l); e.Col != want || e.String() != "f:1:"+strconv.Itoa(want)+": text here" {
			t.Errorf("%s: evidence %q", c.name, e.String())
		}
	}
	// No prefix: no column, as before.
	if e := At("f", readAllLines("text here\n")[0]); e.Col != 0 {
		t.Errorf("unprefixed evidence has column %d", e.Col)
	}
}

// A garbled perftest row read through a compose prefix names the column
// of the bad value in the line as written.
func TestPrefixGarbleColumn(t *testing.T) {
	run := []string{
		"                    RDMA_Write BW Test",
		" Dual-port       : OFF\t\tDevice         : mlx5_0",
		" Number of qps   : 1\t\tTransport type : IB",
		" Link type       : Ethernet",
		" GID index       : 3",
		" MTU             : 4096[B]",
		"---------------------------------------------------------------------------------------",
		" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]",
		" 65536      5000             97.51              x97.50               0.185965",
		"---------------------------------------------------------------------------------------",
	}
	for _, prefix := range []string{"", "svc-1  | "} {
		text := prefix + strings.Join(run, "\n"+prefix) + "\n"
		res, err := Read("p.txt", strings.NewReader(text))
		if err != nil {
			t.Fatal(err)
		}
		var p *Perftest
		for _, a := range res.Artifacts {
			if x, ok := a.(*Perftest); ok {
				p = x
			}
		}
		if p == nil || len(p.Garbled) != 1 {
			t.Fatalf("prefix %q: perftest %+v, want one garbled row", prefix, p)
		}
		g := p.Garbled[0]
		line := strings.Split(text, "\n")[g.Line-1]
		if want := strings.Index(line, "x97.50") + 1; g.Col != want || !strings.Contains(g.Error("p.txt"), `got "x97.50`) {
			t.Errorf("prefix %q: %s, want column %d", prefix, g.Error("p.txt"), want)
		}
	}
}

// FuzzPrefix reads any block of lines: no panic, and every line's column
// lies within the line as read, where its text (when no terminal control,
// record escape or autolink changed it) starts. Only the first byte is compared: launcher
// tags mid-line join a rank's pieces into one text.
func FuzzPrefix(f *testing.F) {
	for _, s := range []string{
		"svc-1  | a\nsvc-1  | b\n",
		"[pod/p/c] x\n[pod/p/c] y\n",
		"Dec 04 10:00:01 h p[1]: x\nDec 04 10:00:01 h p[1]: y\n",
		"gpu01: gpu01: 0: x\ngpu01: gpu01: 1: y\n",
		"  | 2024-11-28T07:42:11.528Z | a\n  | 2024-11-28T07:42:11.528Z | b\n",
		"\x1b[36msvc-1  |\x1b[0m a\n\x1b[36msvc-1  |\x1b[0m b\n",
		"> svc-1  | [1,0]<stdout>:a\n> svc-1  | [1,0]<stdout>:b\n",
		"Fri Aug 11 12:31:45 2023[1,0]<stdout>:a\nFri Aug  1 12:31:45 2023<stderr>:b\n",
		"2019-07-16 03:43:24,132 process          L0458 DEBUG| [stdout]  a\n2024-05-01 10:00:00,123 - t - WARNING: b\n2024-05-01 10:00:00 x INFO|",
		"2024-05-01T10:00:00.123456789Z stderr F a\n2024-05-01T10:00:00.123456789Z stdout P b\n2024-05-01T10:00:00Z stdout F\n",
		"{\"log\":\"\\u001b[32ma\\\"b\\n\",\"stream\":\"stderr\",\"time\":\"t\"}\n{\"log\":\"\\ud83d\\ude00\",\"time\":1}\n",
		"@timestamp,@message\n1,\"a \"\"b\"\" c\"\n2,\"open\n\"\n3,bare\nx\n",
		" 37%\r 80%\r\x1b[Ka\n$ cat lgo\b\bog\n\x1b(B\x1b[m\x1b]0;t\x07b\x1b[5D\x1b[3Gc\n",
		"[default0]:[rank0]: a\n[trainer0|0]:b\n[default1]:\n",
		"Dec 04 10:00:01.123456 h p[1]: a\nWed 2024-12-04 10:00:01 UTC h p[1]: b\n1733306401.123456 h p: c\n",
		"{\"__CURSOR\":\"s\",\"MESSAGE\":\"a\\u001b[1mb\"}\n{\"textPayload\":\"c\\n\",\"timestamp\":1}\n{\"@timestamp\":0,\"message\":\"d\"}\n",
		"(MapBatches(f) pid=1) a [repeated 3x across cluster]\n(W pid=2) b [repeated 2x across cluster] (Ray deduplicates logs)\n((((pid=1\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		raw := bytes.Split(data, []byte("\n"))
		for _, l := range readAllLines(string(data)) {
			if l.Num < 1 || l.Num > len(raw) {
				t.Fatalf("line %d of %d", l.Num, len(raw))
			}
			r := bytes.TrimRight(raw[l.Num-1], "\r")
			if l.col < 0 || l.col > len(r) {
				t.Fatalf("line %d: column %d beyond %q", l.Num, l.Col(0), r)
			}
			for i := range len(l.Text) + 1 {
				if c := l.Col(i); c < 1 || c > len(r)+1 {
					t.Fatalf("line %d: byte %d of %q at column %d beyond %q", l.Num, i, l.Text, c, r)
				}
			}
			// Lines a record held or a terminal drew have their own
			// columns (l.at); every other line's text is where it was.
			plain := l.at == nil && !needsRender(r) && !bytes.Contains(r, []byte("](http")) && len(r) <= MaxLineBytes
			if plain && l.col > 0 && l.Text != "" && !bytes.HasPrefix(r[l.col:], []byte(l.Text[:1])) && utf8.Valid(r) {
				t.Fatalf("line %d: text %q is not at column %d of %q", l.Num, l.Text, l.Col(0), r)
			}
		}
	})
}
