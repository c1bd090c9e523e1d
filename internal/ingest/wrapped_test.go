package ingest

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"
)

// le16 encodes s as UTF-16LE with a byte-order mark. SYNTHETIC.
func le16(s string) []byte {
	out := []byte{0xff, 0xfe}
	for _, u := range utf16.Encode([]rune(s)) {
		out = append(out, byte(u), byte(u>>8))
	}
	return out
}

// A UTF-16 file that stops being text is refused where it does, and no
// reader sees the lines before it: an unpaired surrogate at line 2
// column 5 (columns in bytes of the decoded text), an odd byte at the end.
func TestDecodeRefusesBadUTF16(t *testing.T) {
	good := le16("gpu01:1:1 [0] NCCL INFO Using network IB\r\nabcd")
	bad := append(bytes.Clone(good), 0x00, 0xd8, 'x', 0) // a high surrogate, then "x"
	res, err := Read("ps.log", bytes.NewReader(bad))
	var de *DecodeError
	if res != nil || !errors.As(err, &de) || err.Error() != "ps.log:2:5: UTF-16LE text holds an unpaired surrogate 0xD800 (a character needs a high surrogate 0xD800-0xDBFF then a low one 0xDC00-0xDFFF)" {
		t.Errorf("unpaired surrogate: %v, %v", res, err)
	}
	// columns count bytes of the decoded text: "é" is two
	accent := append(le16("gpu01:1:1 [0] NCCL INFO Using network IB\r\nabé"), 0x00, 0xd8, 'x', 0)
	if _, err := Read("ps.log", bytes.NewReader(accent)); err == nil || !strings.HasPrefix(err.Error(), "ps.log:2:5: UTF-16LE text holds an unpaired surrogate 0xD800") {
		t.Errorf("unpaired surrogate after a non-ASCII character: %v", err)
	}
	res, err = Read("ps.log", bytes.NewReader(append(bytes.Clone(good), 'x')))
	if res != nil || err == nil || err.Error() != "ps.log:2:5: UTF-16LE text ends in half a character (an odd number of bytes)" {
		t.Errorf("odd byte: %v, %v", res, err)
	}
	res, err = Read("ps.log", bytes.NewReader(good))
	if err != nil || res.Type() != string(KindNCCLLog) || res.LineCount != 2 {
		t.Errorf("good UTF-16: %v, %v", res, err)
	}
}

// The encodings DecodeText names, and text it leaves alone: UTF-8, and a
// binary capture's NULs (no UTF-16 shape).
func TestDecodeTextNames(t *testing.T) {
	for _, c := range []struct {
		in   []byte
		want string
	}{
		{le16("ab\r\n"), "UTF-16LE"},
		{[]byte{0xfe, 0xff, 0, 'a', 0, 'b', 0, '\n'}, "UTF-16BE"},
		{[]byte("\x00a\x00b\x00c\x00d\x00\n"), "UTF-16BE (no byte-order mark)"},
		{[]byte("\xef\xbb\xbfab\n"), "UTF-8 with a byte-order mark"},
		{[]byte("plain\n"), ""},
		{[]byte{0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0}, ""},
	} {
		if _, got := DecodeText(bufio.NewReader(bytes.NewReader(c.in))); got != c.want {
			t.Errorf("%q: %q, want %q", c.in, got, c.want)
		}
	}
}

// What a terminal shows of a line: redraws, backspaces, erasures and
// charset designations cut, Latin-1 read as such; the column of the text
// is that of the byte that wrote it in the line as read.
func TestRenderTerminalLine(t *testing.T) {
	for _, c := range []struct {
		in, want string
		col      int
	}{
		{"\x1b[32mhost:1:2 [0] NCCL INFO ok\x1b(B\x1b[m", "host:1:2 [0] NCCL INFO ok", 6},
		{" 37%\r 80%\r\x1b[Khost:1:2 [0] NCCL INFO ok", "host:1:2 [0] NCCL INFO ok", 14},
		{"$ cat lgo\b\bog.txt", "$ cat log.txt", 1},
		{"ethtool -S eth0 | grep pausee\x08 ", "ethtool -S eth0 | grep pause ", 1},
		{"long progress bar 100%\rshort", "shortprogress bar 100%", 24},
		{"\x1b]0;title\x07rx_prio3_pause: 7", "rx_prio3_pause: 7", 11},
		{"Z\xfcrich gpu01", "Zürich gpu01", 1},
		{"\x1b7\x1b=x\x1b8", "x", 5},
		{"a\x1b[65000Cb", "a" + strings.Repeat(" ", termColumns-1) + "b", 1},
	} {
		p := cleanRaw([]byte(c.in), false, &recordState{})
		if p.text != c.want {
			t.Errorf("%q: %q, want %q", c.in, p.text, c.want)
			continue
		}
		if p.cols == nil || p.cols[0]+1 != c.col || p.cols[len(p.cols)-1] != len(c.in) {
			t.Errorf("%q: columns %v, want the text at %d", c.in, p.cols, c.col)
		}
	}
}

// Records a log store writes: the line is the record's field, its
// escapes undone (colour codes too), its column where the field's text
// starts in the line as read. A CSV export's header picks the column; a
// message that ends in a newline runs past its line in quotes. A header
// is one only as the input's first line that is not blank.
func TestRecordsUnwrap(t *testing.T) {
	in := strings.Join([]string{
		``,
		`Time,Line`,
		`2024-05-01 10:00:00,"gpu01:1:2 [0] NCCL INFO ""quoted"" ok"`,
		`2024-05-01 10:00:01,"     rx_prio3_pause: 7`,
		`"`,
		`2024-05-01 10:00:02,bare text`,
		`not, a row, of three`,
		`"ok",x`,
		`Time,Line`,
		`2024-05-01 10:00:03,"not a row"`,
		`{"log":"\u001b[31mgpu01:1:2 [0] NCCL WARN NET/IB : \"mlx5_0\" failed\u001b[0m\n","stream":"stderr","time":"2024-05-01T10:00:00.1Z"}`,
		`{"kubernetes":{"log":"no"},"log":"     rx_prio3_pause: 7\n","stream":"stdout"}`,
		`{"level":"info","log":"structured, not a record"}`,
		// The key's letters first stand inside another key or value.
		`{"kubernetes":{"pod_name":"catalog-0"},"log":"gpu01:1:2 [0] NCCL INFO Using network IB\n","stream":"stderr"}`,
		`{"kubernetes":{"container_name":"nccl-logger"},"log":"gpu01:1:2 [0] NCCL INFO Using network IB\n","stream":"stderr"}`,
		`{"SYSLOG_IDENTIFIER":"MESSAGE_PUMP","MESSAGE":"gpu01:1:2 [0] NCCL INFO Using network IB","__CURSOR":"s=1"}`,
		// Loki's logcli --output=jsonl (encoding/json sorts the keys).
		`{"labels":{"job":"train"},"line":"gpu01:1:2 [0] NCCL INFO Using network IB","timestamp":"2024-05-01T10:00:00Z"}`,
	}, "\n")
	want := []struct {
		text string
		col  int
	}{
		{"", 0},
		{"Time,Line", 0},
		{`gpu01:1:2 [0] NCCL INFO "quoted" ok`, 22},
		{"     rx_prio3_pause: 7", 22},
		{"", 0},
		{"bare text", 21},
		{"not, a row, of three", 0},
		{`"ok",x`, 0},
		{"Time,Line", 0},
		{`2024-05-01 10:00:03,"not a row"`, 0},
		{"gpu01:1:2 [0] NCCL WARN NET/IB : \"mlx5_0\" failed", 19},
		{"     rx_prio3_pause: 7", 35},
		{`{"level":"info","log":"structured, not a record"}`, 0},
		{"gpu01:1:2 [0] NCCL INFO Using network IB", 47},
		{"gpu01:1:2 [0] NCCL INFO Using network IB", 55},
		{"gpu01:1:2 [0] NCCL INFO Using network IB", 48},
		{"gpu01:1:2 [0] NCCL INFO Using network IB", 35},
	}
	got := readAllLines(in)
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d", len(got), len(want))
	}
	for i, w := range want {
		if got[i].Text != w.text || w.text != "" && got[i].col+1 != max(w.col, 1) {
			t.Errorf("line %d: %q at column %d, want %q at %d", i+1, got[i].Text, got[i].Col(0), w.text, w.col)
		}
	}
}

// FuzzDecode reads any bytes as a file: no panic; a refusal says where
// (a line and column from 1) and gives no result, and a result comes
// with no error.
func FuzzDecode(f *testing.F) {
	for _, s := range [][]byte{
		le16("gpu01:1:1 [0] NCCL INFO Using network IB\r\n"),
		append(le16("a\r\nb"), 0x00, 0xd8, 'x', 0),
		append(le16("ab"), 'x'),
		// nccl-tests' JSON and rccl-tests' CSV that stop decoding.
		append(le16("{\"version\": 3, \"start_time\": \"x\",\n \"results\": ["), 0x00, 0xd8, 'x', 0),
		append(le16("collective,size,type,redop,inplace,time,algbw,busbw,#wrong\n\"AllReduce\",8"), 0x00, 0xd8, 'x', 0),
		{0xfe, 0xff, 0, 'a', 0xdc, 0, 0, '\n'},
		[]byte("\x00a\x00b\x00c\x00d\x00\n\x00"),
		[]byte("\xef\xbb\xbf# nThread 1 nGpus 8\n"),
		[]byte("a\rb\rc\r"),
		[]byte("Z\xfcrich: 1\n"),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := Read("f", bytes.NewReader(data))
		var de *DecodeError
		switch {
		case errors.As(err, &de) && (de.Line < 1 || de.Col < 1 || res != nil):
			t.Fatalf("refusal %v with result %v", err, res)
		case err == nil && res == nil:
			t.Fatal("no result and no error")
		}
	})
}

// Lone carriage returns end lines only where no line feed follows: a
// head of progress redraws with no "\n" (past what the encoding is
// judged on), then "\r\n" lines, gives no blank line after each real
// one, and the lines keep their numbers. One carriage return, or an
// escape in the head, leaves the input to render.
func TestDecodeLoneCRKeepsCRLF(t *testing.T) {
	head := strings.Repeat("progress 50%\r", sniffBytes/13+1)
	in := head + "gpu01:1:2 [0] NCCL INFO one\r\ngpu01:1:2 [0] NCCL INFO two\r\n"
	br, _ := DecodeText(bufio.NewReader(strings.NewReader(in)))
	lr := NewLineReader(br)
	var got []Line
	for l, err := lr.Next(); err == nil; l, err = lr.Next() {
		got = append(got, l)
	}
	n := sniffBytes/13 + 1
	if len(got) != n+2 || got[n].Text != "gpu01:1:2 [0] NCCL INFO one" || got[n+1].Num != n+2 {
		t.Fatalf("%d lines, want %d; last two %+v", len(got), n+2, got[max(0, len(got)-2):])
	}
	for _, in := range []string{"a 37%\rb\n", "\x1b[K 37%\r 80%\rdone"} {
		br, _ := DecodeText(bufio.NewReader(strings.NewReader(in)))
		if out, _ := br.ReadString(0); out != in {
			t.Errorf("%q read as %q", in, out)
		}
	}
}

// A message that runs past its line in quotes in a column that is not
// the last (Azure's LogEntry is the second of four): the next line
// continues it, the fields after its closing quote end the row, and the
// export's later rows are still unwrapped. SYNTHETIC rows.
func TestRecordsMultiLineMiddleColumn(t *testing.T) {
	in := strings.Join([]string{
		`TimeGenerated [UTC],LogEntry,LogEntrySource,Computer`,
		`"5/1/2024, 10:00:00.123 AM","     rx_prio3_pause: 7`,
		`",stdout,aks-gpu-0`,
		`"5/1/2024, 10:00:00.124 AM","gpu01:1:2 [0] NCCL INFO ok",stderr,aks-gpu-0`,
	}, "\n")
	want := []string{"TimeGenerated [UTC],LogEntry,LogEntrySource,Computer", "     rx_prio3_pause: 7", "", "gpu01:1:2 [0] NCCL INFO ok"}
	got := readAllLines(in)
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		if got[i].Text != w {
			t.Errorf("line %d: %q, want %q", i+1, got[i].Text, w)
		}
	}
}

// Every byte of a line's text has the column of the byte that wrote it
// in the line as read, not only the first: colour codes and a record's
// escapes before it count. SYNTHETIC lines.
func TestColumnsPastEscapes(t *testing.T) {
	for _, c := range []struct {
		in, word string
	}{
		{"\x1b[1mlink\x1b[0m state \x1b[31mDOWN\x1b[0m", "DOWN"},
		{`{"log":"\tlink state\t\u001b[31mDOWN\n","stream":"stdout"}`, "DOWN"},
	} {
		l := readAllLines(c.in)[0]
		if got, want := l.Col(strings.Index(l.Text, c.word)), strings.Index(c.in, c.word)+1; got != want {
			t.Errorf("%q: %q at column %d, want %d", c.in, c.word, got, want)
		}
	}
}

// The readers of whole documents (nccl-tests' JSON, rccl-tests' CSV) get
// the decoded text too: a UTF-16 file of theirs that stops being text is
// refused as a DecodeError naming the file once, where it stops, not
// inside another error that loses the name. The files are real; their
// UTF-16 encoding and the bad tail are SYNTHETIC.
func TestDecodeRefusesBadUTF16Documents(t *testing.T) {
	for _, rel := range []string{
		"../../testdata/corpus/nccl-tests/allreduce-2.19.7-json-J-h100-ndv5-1n-8g-480GBps-clusterhealthmonitor.json",
		"../../testdata/synthetic/rccl-tests-csv-mpi-allreduce-mi300x-2n-16rank-synthetic.csv",
	} {
		text, err := os.ReadFile(rel)
		if err != nil {
			t.Fatal(err)
		}
		bad := append(le16(string(text)), 0x00, 0xd8, 'x', 0)
		name := filepath.Base(rel)
		res, err := Read(name, bytes.NewReader(bad))
		var de *DecodeError
		if res != nil || !errors.As(err, &de) || de.Src != name || strings.Count(err.Error(), ":") != 3 ||
			!strings.HasSuffix(err.Error(), "UTF-16LE text holds an unpaired surrogate 0xD800 (a character needs a high surrogate 0xD800-0xDBFF then a low one 0xDC00-0xDFFF)") {
			t.Errorf("%s: %v, %v", name, res, err)
		}
	}
}
