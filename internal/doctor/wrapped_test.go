package doctor

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
)

// A wrapping is what a tool that captured a file did to every line of
// it, or to the whole file. SYNTHETIC: the corpus files are real; the
// wrapped copies of them are made here, each as its tool writes.
type wrapping struct {
	name string
	wrap func(lines []string) []byte
	// width is how far the text moved right in the line as read, -1 when
	// it varies (a record's escapes) and columns are not compared.
	width int
}

// eachLine joins lines with "\n", each made by f.
func eachLine(f func(string) string) func([]string) []byte {
	return func(lines []string) []byte {
		var b strings.Builder
		for _, l := range lines {
			b.WriteString(f(l))
			b.WriteByte('\n')
		}
		return []byte(b.String())
	}
}

// utf16Text encodes lines as PowerShell 5.1's `>` and Out-File do:
// UTF-16 with a byte-order mark, CRLF line ends.
func utf16Text(order binary.AppendByteOrder, bom bool) func([]string) []byte {
	return func(lines []string) []byte {
		units := utf16.Encode([]rune(strings.Join(lines, "\r\n") + "\r\n"))
		var out []byte
		if bom {
			out = order.AppendUint16(out, 0xfeff)
		}
		for _, u := range units {
			out = order.AppendUint16(out, u)
		}
		return out
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func csvQuote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

var wrappings = []wrapping{
	{"UTF-16LE with BOM (PowerShell 5.1 >)", utf16Text(binary.LittleEndian, true), 0},
	{"UTF-16BE with BOM", utf16Text(binary.BigEndian, true), 0},
	{"UTF-16LE without BOM", utf16Text(binary.LittleEndian, false), 0},
	{"UTF-8 BOM", func(lines []string) []byte {
		return append([]byte{0xef, 0xbb, 0xbf}, eachLine(func(l string) string { return l })(lines)...)
	}, 0},
	{"colour and tput sgr0", eachLine(func(l string) string { return "\x1b[32m" + l + "\x1b(B\x1b[m" }), 5},
	{"script(1) typescript CRLF", eachLine(func(l string) string { return l + "\r" }), 0},
	{"progress redraw before each line", eachLine(func(l string) string { return "\x1b[2K 37%\r\x1b[K" + l }), 12},
	{"lone CR line ends", func(lines []string) []byte { return []byte(strings.Join(lines, "\r") + "\r") }, 0},
	{"kubectl logs --timestamps", eachLine(func(l string) string { return "2024-05-01T10:00:00.123456789Z " + l }), 31},
	{"GitHub Actions log", eachLine(func(l string) string { return "2024-05-01T10:00:00.1234567Z " + l }), 29},
	{"Kubernetes CRI", eachLine(func(l string) string { return "2024-05-01T10:00:00.123456789Z stderr F " + l }), 40},
	{"srun -l over a time prefix", eachLine(func(l string) string { return "0: [2024-05-01T10:00:00] " + l }), 25},
	{"sbatch output through moreutils ts", eachLine(func(l string) string { return "Dec  4 10:00:01 " + l }), 16},
	{"journalctl -o short-precise", eachLine(func(l string) string { return "Dec 04 10:00:01.123456 gpu01 python[1234]: " + l }), 43},
	{"journalctl -o short-full", eachLine(func(l string) string { return "Wed 2024-12-04 10:00:01 UTC gpu01 python[1234]: " + l }), 48},
	{"pod-name prefix of an MPIJob's workers", eachLine(func(l string) string { return "mpijob-worker-0: " + l }), 17},
	{"torchrun --tee 3", eachLine(func(l string) string { return "[default0]:" + l }), 11},
	{"Ray driver, deduplicated", eachLine(func(l string) string {
		return "(RayTrainWorker pid=1234, ip=10.0.0.1) " + l + " [repeated 7x across cluster]"
	}), 39},
	{"kubectl logs --prefix of a PyTorchJob", eachLine(func(l string) string { return "[pod/pytorchjob-worker-0/pytorch] " + l }), 34},
	{"Docker json-file", eachLine(func(l string) string {
		return `{"log":` + jsonString(l+"\n") + `,"stream":"stderr","time":"2024-05-01T10:00:00.123456789Z"}`
	}), -1},
	{"journalctl -o json", eachLine(func(l string) string {
		return `{"__CURSOR":"s=739ad4;i=4ece7","__REALTIME_TIMESTAMP":"1714557600123456","_HOSTNAME":"gpu01","SYSLOG_IDENTIFIER":"python","_PID":"1234","MESSAGE":` + jsonString(l) + `}`
	}), -1},
	{"Cloud Logging export", eachLine(func(l string) string {
		return `{"insertId":"1x2y","textPayload":` + jsonString(l+"\n") + `,"resource":{"type":"k8s_container"},"timestamp":"2024-05-01T10:00:00.123Z"}`
	}), -1},
	{"CloudWatch Logs Insights CSV", func(lines []string) []byte {
		return append([]byte("@timestamp,@message\n"), eachLine(func(l string) string { return "2024-05-01 10:00:00.123," + csvQuote(l) })(lines)...)
	}, -1},
	{"Azure ContainerLog CSV", func(lines []string) []byte {
		return append([]byte("TimeGenerated [UTC],LogEntry,LogEntrySource,Computer\n"), eachLine(func(l string) string { return `"5/1/2024, 10:00:00.123 AM",` + csvQuote(l) + ",stderr,aks-gpu-0" })(lines)...)
	}, -1},
}

// markdownQuoted tells a file pasted as a Markdown quote: the paster's
// "> " goes outside whatever the collector put before a line, so wrapping
// the quoted lines would make an order no capture writes.
func markdownQuoted(text string) bool {
	quoted, lines := 0, 0
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "#") && lines == 0 {
			continue // the corpus file's source line
		}
		lines++
		if strings.HasPrefix(l, ">") {
			quoted++
		}
	}
	return lines > 0 && 2*quoted > lines
}

// Every real NCCL log, nccl-tests output and counter dump reads the same
// whatever captured it: the same findings citing the same text. Where
// the wrapping moves the text by a fixed width, the columns moved by it;
// the lines are the file's own, one more under a CSV header.
func TestWrappedCorpusSameFindings(t *testing.T) {
	var files []string
	for _, dir := range []string{"nccl-log", "nccl-tests", "ethtool", "hwcounters"} {
		m, _ := filepath.Glob(nicTestdata(filepath.Join("corpus", dir, "*.txt")))
		for i, f := range m {
			if i%9 == 0 { // a sample: every wrapping of every file is slow
				files = append(files, f)
			}
		}
	}
	tried := 0
	for _, path := range files {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		text := strings.TrimSuffix(string(b), "\n")
		if strings.ContainsAny(text, "\r\x1b\b") || markdownQuoted(text) {
			continue
		}
		base := Diagnose([]string{"-"}, strings.NewReader(text+"\n"), Options{}).Findings
		if len(base) == 0 {
			continue
		}
		lines := strings.Split(text, "\n")
		for _, w := range wrappings {
			tried++
			got := Diagnose([]string{"-"}, strings.NewReader(string(w.wrap(lines))), Options{}).Findings
			compareWrapped(t, filepath.Base(path)+" / "+w.name, base, got, w)
		}
	}
	t.Logf("%d wrapped copies diagnosed", tried)
	if tried < 100 {
		t.Errorf("%d wrapped copies diagnosed, want over 100", tried)
	}
}

// compareWrapped checks the findings of a wrapped copy against the
// original's.
func compareWrapped(t *testing.T, name string, base, got []Finding, w wrapping) {
	t.Helper()
	if len(got) != len(base) {
		t.Errorf("%s: %d findings, want %d:\n got  %v\n want %v", name, len(got), len(base), ids(got), ids(base))
		return
	}
	shift := 0
	if strings.HasSuffix(w.name, "CSV") {
		shift = 1
	}
	for i := range base {
		want, g := base[i], got[i]
		if shift > 0 {
			want = shiftLines(want, shift)
		}
		if strings.HasPrefix(w.name, "pod-name") && strings.HasPrefix(g.Title, "mpijob-worker-0 ") && !strings.HasPrefix(want.Title, "mpijob-worker-0 ") {
			want.Title = "mpijob-worker-0 " + want.Title // the prefix names the host of each line
		}
		if gk, wk := findingKey(g), findingKey(want); gk != wk {
			t.Errorf("%s: finding %d\n got  %s\n want %s", name, i, gk, wk)
			continue
		}
		if w.width < 0 {
			continue
		}
		for j, e := range g.Evidence {
			be := base[i].Evidence[j]
			if e.Col == 0 && be.Col == 0 || w.width == 0 && e.Col == be.Col {
				continue
			}
			if wc := max(be.Col, 1) + w.width; e.Col != wc {
				t.Errorf("%s: %s evidence line %d at column %d, want %d", name, g.ID, e.Line, e.Col, wc)
			}
		}
	}
}

// shiftLines moves a finding's evidence n lines down, as a header before
// the file's lines does; the title's "at line N" citations (a NIC dump
// that names no port is named by its line) move with it.
func shiftLines(f Finding, n int) Finding {
	f.Title = regexp.MustCompile(`at line [0-9]+`).ReplaceAllStringFunc(f.Title, func(s string) string {
		l, _ := strconv.Atoi(strings.TrimPrefix(s, "at line "))
		return "at line " + strconv.Itoa(l+n)
	})
	ev := make([]Evidence, len(f.Evidence))
	copy(ev, f.Evidence)
	for i := range ev {
		if ev[i].Line > 0 {
			ev[i].Line += n
		}
	}
	f.Evidence = ev
	return f
}

// A UTF-16 file that stops being text is refused with where and why, and
// nothing of it is diagnosed: before, every UTF-16 file was "binary data".
func TestUndecodableInputRefused(t *testing.T) {
	var b []byte
	for _, r := range "\ufeffgpu01:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\r\ngpu01:1:1 [0] NCCL INFO Using network Socket\r\nab" {
		b = binary.LittleEndian.AppendUint16(b, uint16(r))
	}
	path := filepath.Join(t.TempDir(), "nccl.log")
	if err := os.WriteFile(path, append(b, 0x00, 0xdc), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := Diagnose([]string{path}, nil, Options{})
	if len(rep.Findings) != 1 || rep.Findings[0].ID != "input.unreadable" || rep.ExitCode() != 2 {
		t.Fatalf("findings %v exit %d, want input.unreadable alone and exit 2", ids(rep.Findings), rep.ExitCode())
	}
	if want := path + ":3:3: UTF-16LE text holds an unpaired surrogate 0xDC00"; !strings.HasPrefix(rep.Findings[0].Evidence[0].Text, want) {
		t.Errorf("evidence %q, want it to start %q", rep.Findings[0].Evidence[0].Text, want)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if rep := Diagnose([]string{path}, nil, Options{}); len(rep.Inputs) != 1 || rep.Inputs[0].Encoding != "UTF-16LE" {
		t.Errorf("inputs %+v, want one decoded from UTF-16LE", rep.Inputs)
	}
}

// Switch output diagnose does not judge is named as that command whatever
// captured it: the sniffers of unknown inputs read the cleaned lines, not
// the collector's records (Docker json-file, CRI, a log export's CSV).
// Real NX-OS and Junos captures; their wrapped copies SYNTHETIC.
func TestWrappedUnjudgedSwitchNamed(t *testing.T) {
	for _, rel := range []string{
		"corpus/switch/nxos-show-interface-counters-brief-n9k-rates-zartbot.txt",
		"corpus/switch/junos-show-class-of-service-interface-ge-0-0-2-genieparser.txt",
	} {
		b, err := os.ReadFile(nicTestdata(rel))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		for _, w := range wrappings {
			if !strings.Contains(w.name, "Docker") && !strings.Contains(w.name, "CRI") && !strings.Contains(w.name, "CSV") {
				continue
			}
			fs := Diagnose([]string{"-"}, strings.NewReader(string(w.wrap(lines))), Options{}).Findings
			nicMustFind(t, fs, "input.unrecognized", Info, "switch output diagnose does not judge")
		}
	}
}

// tarFile writes a tar archive named name in a temporary directory, its one
// member holding body, and returns its path.
func tarFile(t *testing.T, name, member string, body []byte) string {
	t.Helper()
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	if err := tw.WriteHeader(&tar.Header{Name: member, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
		t.Fatal(err)
	}
	if _, err := tw.Write(body); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A member of an archive reports the encoding it was decoded from, as a
// file on disk does (it had been left out). SYNTHETIC UTF-16LE log lines.
func TestArchiveMemberEncoding(t *testing.T) {
	var b []byte
	for _, r := range "\ufeffgpu01:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\ngpu01:1:1 [0] NCCL INFO Using network Socket\n" {
		b = binary.LittleEndian.AppendUint16(b, uint16(r))
	}
	rep := Diagnose([]string{tarFile(t, "logs.tar", "nccl.log", b)}, nil, Options{})
	for _, in := range rep.Inputs {
		if strings.HasSuffix(in.Path, "logs.tar:nccl.log") {
			if in.Encoding != "UTF-16LE" || in.Type == "unknown" {
				t.Errorf("member %+v, want read as decoded from UTF-16LE", in)
			}
			return
		}
	}
	t.Errorf("no input for the archive member: %+v", rep.Inputs)
}

// A member of an archive is read as the same file on disk is: a gzipped
// log, a capture, and output a collector wrapped that diagnose names but
// does not judge (the sniffers of unknown inputs had read the member's
// records, not its lines, and a capture had been read as text). The
// files are real (their .source beside them); the archives and the Docker
// json-file records around the switch output SYNTHETIC.
func TestArchiveMemberReadAsFile(t *testing.T) {
	read := func(rel string) []byte {
		b, err := os.ReadFile(nicTestdata(rel))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(read("corpus/nccl-log/gdr-disabled-no-module-netib-channels-issue899.txt"))
	zw.Close()
	nxos := strings.Split(strings.TrimSuffix(string(read("corpus/switch/nxos-show-interface-counters-brief-n9k-rates-zartbot.txt")), "\n"), "\n")
	var docker wrapping
	for _, w := range wrappings {
		if strings.HasPrefix(w.name, "Docker") {
			docker = w
		}
	}
	for _, c := range []struct {
		member   string
		body     []byte
		wantType string
		wantID   string
	}{
		{"node1/nccl.log.gz", gz.Bytes(), "nccl-log", ""},
		{"node1/roce.pcap", read("corpus/pcap-roce/rc-send-two-qps-oferby-proxy.pcap"), "pcap", ""},
		{"leaf1/counters.json.log", docker.wrap(nxos), "unknown", "switch output diagnose does not judge"},
	} {
		rep := Diagnose([]string{tarFile(t, "bundle.tar", c.member, c.body)}, nil, Options{})
		var got *InputInfo
		for i := range rep.Inputs {
			if strings.HasSuffix(rep.Inputs[i].Path, ":"+c.member) {
				got = &rep.Inputs[i]
			}
		}
		if got == nil || got.Type != c.wantType || got.Error != "" {
			t.Errorf("%s: input %+v, want type %s", c.member, got, c.wantType)
			continue
		}
		if c.wantID != "" {
			nicMustFind(t, rep.Findings, "input.unrecognized", Info, c.wantID)
		}
	}
}

// An archive that is no text is named as such, and the input is
// unreadable (exit 2 when nothing else was given), where it had been
// "binary data in no format": a tar or gzipped tar inside an archive, a
// zip archive inside one or given by itself, a tar archive piped in.
// SYNTHETIC archives around a SYNTHETIC line.
func TestArchiveNestedRefused(t *testing.T) {
	line := []byte("gpu01:1:1 [0] NCCL INFO Using network Socket\n")
	inner, err := os.ReadFile(tarFile(t, "inner.tar", "nccl.log", line))
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(inner)
	zw.Close()
	var zb bytes.Buffer
	w := zip.NewWriter(&zb)
	f, err := w.Create("nccl.log")
	if err != nil {
		t.Fatal(err)
	}
	f.Write(line)
	w.Close()
	zipPath := filepath.Join(t.TempDir(), "logs.zip")
	if err := os.WriteFile(zipPath, zb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path  string
		stdin []byte
		want  string
	}{
		{tarFile(t, "b.tar", "node1/logs.tar", inner), nil, "an archive inside the archive: unpack it"},
		{tarFile(t, "b.tar", "node1/logs.tar.gz", gz.Bytes()), nil, "an archive inside the archive: unpack it"},
		{tarFile(t, "b.tar", "node1/logs.zip", zb.Bytes()), nil, "an archive inside the archive: unpack it"},
		{zipPath, nil, "zip archives are not read: unpack it"},
		{"-", gz.Bytes(), "a tar archive is read from a file, not a pipe"},
	} {
		rep := Diagnose([]string{c.path}, bytes.NewReader(c.stdin), Options{})
		if len(rep.Inputs) != 1 || !strings.Contains(rep.Inputs[0].Error, c.want) || rep.ExitCode() != 2 {
			t.Errorf("%s: inputs %+v exit %d, want %q and exit 2", c.path, rep.Inputs, rep.ExitCode(), c.want)
		}
	}
}
