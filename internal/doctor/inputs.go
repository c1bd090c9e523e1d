package doctor

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"rocelab/internal/capture"
	"rocelab/internal/ingest"
	"rocelab/internal/nvue"
	"rocelab/internal/sonic"
)

// InputInfo describes one input in the report.
type InputInfo struct {
	Path string `json:"path"`
	// Type is the input's main kind ("nccl-log", "pcap", ...) or "unknown".
	Type string `json:"type"`
	// Contains lists every kind found, when there is more than one.
	Contains []string `json:"contains,omitempty"`
	// Error says why the input could not be read, if it could not.
	Error string `json:"error,omitempty"`
	// InDir is the directory argument the file was found in; empty for a
	// file named on the command line (or stdin).
	InDir string `json:"in_dir,omitempty"`
	// InArchive is the archive the file was read from; empty otherwise.
	InArchive string `json:"in_archive,omitempty"`
	// Encoding names the text encoding the input was decoded from
	// (ingest.DecodeText: "UTF-16LE", "UTF-8 with a byte-order mark");
	// empty for UTF-8 read as is.
	Encoding string `json:"encoding,omitempty"`
	// binary is set for a file of binary data in no format rocelab reads.
	binary bool
	// errWhat, errWhy and errFix say what an unreadable input is instead,
	// why it is not read and what to pass in its place, when its reader
	// knows (a remedied error).
	errWhat, errWhy, errFix string
	// config names the configuration an unknown input is, one that
	// `rocelab lint` reads and diagnose does not ("" when none).
	config string
	// switchCmd names the switch command an unknown input is the output
	// of, one that prints nothing diagnose judges, and switchFix the
	// commands that do (ingest.SwitchUnjudged).
	switchCmd, switchFix string
}

// Usable reports whether an artifact was recognised in the input (a
// rocelab run report is recognised, but holds none).
func (i InputInfo) Usable() bool {
	return i.Error == "" && i.Type != "unknown" && i.Type != runReportType
}

// A BinaryFormat reads a non-text input recognised by its first bytes.
type BinaryFormat struct {
	Kind  ingest.Kind
	Match func(head []byte) bool
	Read  func(src string, r io.Reader, opts Options) (ingest.Artifact, error)
}

// binaryFormats lists the binary readers. Add one line per format.
func binaryFormats() []BinaryFormat {
	return []BinaryFormat{
		{Kind: capture.KindPcap, Match: capture.IsCapture, Read: readCapture},
	}
}

// Report is the result of a diagnosis.
type Report struct {
	Inputs   []InputInfo `json:"inputs"`
	Findings []Finding   `json:"findings"`
}

// ExitCode is 2 when no input was usable, 1 when any finding is at error
// level, and 0 otherwise.
func (r *Report) ExitCode() int {
	usable := false
	for _, in := range r.Inputs {
		usable = usable || in.Usable()
	}
	if !usable {
		return 2
	}
	for _, f := range r.Findings {
		if f.Severity == Error {
			return 1
		}
	}
	return 0
}

// Unusable says why no input gave anything to diagnose, "" when one did:
// the reason a report exits 2.
func (r *Report) Unusable() string {
	for _, in := range r.Inputs {
		if in.Usable() {
			return ""
		}
	}
	var bad []string
	for _, in := range r.Inputs {
		why := "no artifact rocelab reads"
		switch {
		case in.Error != "":
			why = in.Error
		case in.Type == runReportType:
			why = "rocelab run's own report, which holds no artifact: diagnose the --out directory it is in"
		case in.config != "":
			why = in.config + ", a configuration: use rocelab lint " + in.Path
		case in.switchCmd != "":
			why = in.switchCmd + ", which diagnose does not judge"
		}
		bad = append(bad, in.Path+": "+why)
	}
	if len(bad) == 0 {
		return "no input to read"
	}
	return "nothing to diagnose: " + list(bad, 4)
}

// Diagnose reads every path (a file, a directory of an incident's files, or
// "-" for stdin), joins what it finds into one incident and checks it.
// Unreadable or unrecognised inputs are reported, never fatal: one bad file
// does not hide the findings of the good ones.
func Diagnose(paths []string, stdin io.Reader, opts Options) *Report {
	inc := &Incident{Options: opts, MTimes: map[string]time.Time{}}
	rep := &Report{}
	for _, in := range expand(paths, rep) {
		if infos, arts, ok := readArchive(in.path, opts, inc.MTimes); ok {
			for i := range infos {
				infos[i].InDir = in.dir
			}
			rep.Inputs = append(rep.Inputs, infos...)
			inc.Artifacts = append(inc.Artifacts, arts...)
			continue
		}
		info, arts := readInput(in.path, stdin, opts)
		if in.path != "-" {
			if st, err := os.Stat(in.path); err == nil {
				inc.MTimes[in.path] = st.ModTime()
			}
		}
		info.InDir = in.dir
		rep.Inputs = append(rep.Inputs, info)
		inc.Artifacts = append(inc.Artifacts, arts...)
	}
	rep.Findings = append(inputFindings(rep.Inputs), Check(inc)...)
	SortFindings(rep.Findings)
	if rep.Findings == nil {
		rep.Findings = []Finding{}
	}
	return rep
}

// inputPath is a file to read and the directory argument it was found in.
type inputPath struct{ path, dir string }

// expand replaces directories by the regular files under them, sorted, and
// skips hidden files. Errors become inputs with Error set.
func expand(paths []string, rep *Report) []inputPath {
	var out []inputPath
	for _, p := range paths {
		if p == "-" {
			out = append(out, inputPath{path: p})
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			rep.Inputs = append(rep.Inputs, InputInfo{Path: p, Type: "unknown", Error: errText(err)})
			continue
		}
		if !st.IsDir() {
			out = append(out, inputPath{path: p})
			continue
		}
		var files []string
		err = filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
			if err != nil {
				rep.Inputs = append(rep.Inputs, InputInfo{Path: q, Type: "unknown", Error: errText(err)})
				return nil
			}
			name := d.Name()
			if q != p && strings.HasPrefix(name, ".") {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.Type().IsRegular() {
				files = append(files, q)
			}
			return nil
		})
		if err != nil {
			rep.Inputs = append(rep.Inputs, InputInfo{Path: p, Type: "unknown", Error: errText(err)})
		}
		if len(files) == 0 && err == nil {
			rep.Inputs = append(rep.Inputs, InputInfo{Path: p, Type: "unknown", Error: "the directory holds no files to read (hidden files are skipped)"})
		}
		sort.Strings(files)
		for _, f := range files {
			out = append(out, inputPath{path: f, dir: p})
		}
	}
	return out
}

func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// readInput opens one input and reads it (readStream).
func readInput(path string, stdin io.Reader, opts Options) (InputInfo, []ingest.Artifact) {
	name := path
	var r io.Reader
	if path == "-" {
		name = "<stdin>"
		r = stdin
	} else {
		f, err := os.Open(path)
		if err != nil {
			return InputInfo{Path: path, Type: "unknown", Error: errText(err)}, nil
		}
		defer f.Close()
		r = f
	}
	return readStream(name, r, false, opts)
}

// readStream reads the input named name from r, a file's or an archive
// member's alike: it undoes gzip, recognises binary formats by their
// magic, and otherwise decodes the text and streams it through every text
// parser; an input none recognises is sniffed for what it is (a config
// lint reads, switch output diagnose does not judge). member is set for
// an archive's member: an archive in it is refused by name (archiveError).
func readStream(name string, r io.Reader, member bool, opts Options) (InputInfo, []ingest.Artifact) {
	info := InputInfo{Path: name, Type: "unknown"}
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(8 << 10)
	if len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			info.Error = "gzip: " + err.Error()
			return info, nil
		}
		defer zr.Close()
		br = bufio.NewReaderSize(zr, 64<<10)
		head, _ = br.Peek(8 << 10)
	}
	if info.Error = archiveError(head, member); info.Error != "" {
		return info, nil
	}
	for _, bf := range binaryFormats() {
		if bf.Match(head) {
			a, err := bf.Read(name, br, opts)
			if err != nil {
				info.Type = string(bf.Kind)
				info.Error = err.Error()
				var r remedied
				if errors.As(err, &r) {
					info.errWhat, info.errWhy, info.errFix = r.Remedy()
				}
				return info, nil
			}
			info.Type = string(bf.Kind)
			if a.Scope().Source == "" {
				a.SetScope(ingest.Scope{Source: name})
			}
			return info, []ingest.Artifact{a}
		}
	}
	br, info.Encoding = ingest.DecodeText(br)
	// A copy: a Peek's bytes are br's buffer, which the reading below
	// refills once the input is past its size, and the sniffers read
	// head after it.
	head, _ = br.Peek(8 << 10)
	head = bytes.Clone(head)
	if looksBinary(head) {
		info.binary = true
		return info, nil
	}
	res, err := ingest.Read(name, br)
	if err != nil {
		info.Error = err.Error()
		return info, nil
	}
	info.Type = res.Type()
	if notPolled(&info, res.Artifacts) {
		return info, nil
	}
	if info.Type == "unknown" {
		// The sniffers read lines, not the records a collector wrapped
		// them in (Docker json-file, CRI, a log export's CSV).
		sniff := cleanHead(head)
		if isRunReport(head) {
			info.Type = runReportType
		} else if info.config = lintConfig(sniff); info.config == "" {
			info.switchCmd, info.switchFix = ingest.SwitchUnjudged(sniff)
		}
	}
	if len(res.Artifacts) > 1 {
		for _, a := range res.Artifacts {
			info.Contains = append(info.Contains, string(a.Kind()))
		}
	}
	return info, res.Artifacts
}

// cleanHead is head as the line reader gives it: each line cleaned of the
// record a collector wrapped it in, its quoting and terminal controls.
func cleanHead(head []byte) []byte {
	lr := ingest.NewLineReader(bytes.NewReader(head))
	var b bytes.Buffer
	for {
		l, err := lr.Next()
		if err != nil {
			return b.Bytes()
		}
		b.WriteString(l.Text)
		b.WriteByte('\n')
	}
}

// notPolled names in info the SONiC tables of which every count is N/A
// (the switch does not poll them) that arts hold, and reports whether
// they are all the input holds: counts all N/A are no reading, and the
// input is then one that holds nothing judged.
func notPolled(info *InputInfo, arts []ingest.Artifact) bool {
	for _, a := range arts {
		s, ok := a.(*ingest.SwitchCounters)
		if !ok {
			continue
		}
		what, fix, only := s.Unpolled()
		if what == "" {
			continue
		}
		info.switchCmd, info.switchFix = what, fix
		if only && len(arts) == 1 {
			info.Type = "unknown"
			return true
		}
	}
	return false
}

// readArchive reads a tar archive (gzip-compressed or not), such as one
// `rocelab collect` writes: every regular file in it is an input of its
// own, named "archive:path". ok is false when path is not a tar archive.
func readArchive(path string, opts Options, mtimes map[string]time.Time) ([]InputInfo, []ingest.Artifact, bool) {
	// Only a regular file is opened twice (to look for a tar header, then
	// as text): a pipe, a FIFO or process substitution (<(cmd)) is read
	// once, as text.
	if st, err := os.Stat(path); path == "-" || err != nil || !st.Mode().IsRegular() {
		return nil, nil, false
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, false
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	var r io.Reader = br
	if head, _ := br.Peek(2); len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, false
		}
		defer zr.Close()
		zb := bufio.NewReaderSize(zr, 64<<10)
		r = zb
		if head, _ := zb.Peek(512); !isTar(head) {
			return nil, nil, false
		}
	} else if head, _ := br.Peek(512); !isTar(head) {
		return nil, nil, false
	}
	var infos []InputInfo
	var arts []ingest.Artifact
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			infos = append(infos, InputInfo{Path: path, Type: "unknown", Error: "tar: " + err.Error()})
			break
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		name := path + ":" + h.Name
		if !h.ModTime.IsZero() {
			mtimes[name] = h.ModTime
		}
		// A member is read as the same file on disk would be.
		info, a := readStream(name, tr, true, opts)
		info.InArchive = path
		infos = append(infos, info)
		arts = append(arts, a...)
	}
	archiveHost(arts)
	return infos, arts, true
}

// archiveHost gives every artifact of a `rocelab collect` archive the host
// its metadata names: the archive is one host's, whatever its members say.
func archiveHost(arts []ingest.Artifact) {
	var h ingest.Host
	for _, a := range arts {
		if m, ok := a.(*ingest.CollectMeta); ok && m.Host != "" {
			h = ingest.Host{Name: m.Host, Evidence: m.Evidence["host"]}
		}
	}
	if h.IsZero() {
		return
	}
	for _, a := range arts {
		sc := a.Scope()
		if same, known := sc.Host.Same(h); !known || same {
			sc.Host = h.Merge(sc.Host)
			a.SetScope(sc)
		}
	}
}

// runReportType is the type of the files `rocelab run --out` writes
// beside its artifacts: its own report (result.json, summary.txt,
// flows.csv, queues.csv). They hold no artifact, and are not unrecognised.
const runReportType = "rocelab-run-report"

// isRunReport reports whether head begins one of rocelab run's own
// reports.
func isRunReport(head []byte) bool {
	for _, p := range []string{
		"{\n  \"schema\": ",                        // result.json
		"id,name,src,dst,bytes,priority,start_us,", // flows.csv
		"port,priority,time_us,bytes\n",            // queues.csv
		"rocelab run: ",                            // summary.txt
		"engine ",                                  // summary.txt, its engine line first
	} {
		if bytes.HasPrefix(head, []byte(p)) {
			return p != "engine " || bytes.Contains(head[:min(len(head), 512)], []byte("\nrocelab run: "))
		}
	}
	return false
}

// isTar reports whether head is the first block of a ustar or GNU tar
// archive.
func isTar(head []byte) bool {
	return len(head) >= 263 && bytes.Equal(head[257:262], []byte("ustar"))
}

// archiveError names an archive readStream does not open, "" for any
// other input: a zip archive, and a tar archive inside an archive or read
// from a pipe (readArchive opens a tar file given by its path). Read as
// text they were binary data in no format.
func archiveError(head []byte, member bool) string {
	zip := bytes.HasPrefix(head, []byte("PK\x03\x04")) || bytes.HasPrefix(head, []byte("PK\x05\x06"))
	switch {
	case member && (zip || isTar(head)):
		return "an archive inside the archive: unpack it"
	case zip:
		return "zip archives are not read: unpack it"
	case isTar(head):
		return "a tar archive is read from a file, not a pipe: pass its path, or unpack it"
	}
	return ""
}

// looksBinary reports whether head has NUL bytes or is mostly not text.
func looksBinary(head []byte) bool {
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	bad := 0
	for _, c := range head {
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != 0x1b {
			bad++
		}
	}
	return len(head) > 0 && bad*10 > len(head)
}

// A remedied error knows what its input is instead of what was expected,
// why that is not read, and what to pass in its place (capture.FormatError
// of an InfiniBand capture).
type remedied interface {
	Remedy() (what, why, fix string)
}

// inputFindings reports inputs that could not be read, and those in which
// nothing was recognised: each named one as a warning, the files found in
// directories (READMEs, provenance notes, screenshots) in one info finding.
func inputFindings(ins []InputInfo) []Finding {
	var fs []Finding
	var skipped []Evidence
	var names []string
	for _, in := range ins {
		what := "no NCCL log, nccl-tests table, counter dump, perftest, GID, QoS, dmesg or capture content found"
		if in.binary {
			what = "binary data in no format rocelab reads (expected text, pcap or pcapng)"
		}
		switch {
		case in.Error != "" && in.errWhat != "":
			fs = append(fs, Finding{
				ID: "input.unreadable", Severity: Warn, Layer: LayerInput,
				Title:     fmt.Sprintf("%s could not be read: %s", in.Path, in.errWhat),
				Evidence:  []Evidence{{File: in.Path, Text: in.Error}},
				Mechanism: in.errWhy,
				Fix:       in.errFix,
			}.per(in.Path, "input", "Inputs that could not be read"))
		case in.Error != "":
			fs = append(fs, Finding{
				ID: "input.unreadable", Severity: Warn, Layer: LayerInput,
				Title:     fmt.Sprintf("%s could not be read", in.Path),
				Evidence:  []Evidence{{File: in.Path, Text: in.Error}},
				Mechanism: "The input could not be opened or decoded, so nothing in it was checked.",
				Fix:       "Check the path and pass the artifact as plain text (or a pcap/pcapng capture).",
			}.per(in.Path, "input", "Inputs that could not be read"))
		case in.switchCmd != "":
			title := fmt.Sprintf("%s is %s: switch output diagnose does not judge, not read", in.Path, in.switchCmd)
			held := "This output holds none of them (the command prints none, or it printed N/A for every count or no table), so nothing in it was checked"
			if in.Type != "unknown" {
				title = fmt.Sprintf("%s holds %s: not judged (the rest of the file is read)", in.Path, in.switchCmd)
				held = "These commands printed N/A for every count, or no table, so what they count was not checked"
			}
			fs = append(fs, Finding{
				ID: "input.unrecognized", Severity: Info, Layer: LayerInput,
				Title:     title,
				Evidence:  []Evidence{{File: in.Path, Text: in.switchCmd}},
				Mechanism: "diagnose judges what a switch counts on the RoCE path: PFC and pause frames, drops per queue and port, ECN marks, buffer use, the PFC watchdog, link errors and FEC. " + held + ", and their silence says nothing about the fabric's health.",
				Fix:       "Pass the output of " + in.switchFix + ".",
			}.per(in.Path, "input", "Switch output diagnose does not judge"))
		case in.Type != "unknown":
		case in.InDir != "" || in.InArchive != "":
			skipped = append(skipped, Evidence{File: in.Path, Text: what})
			names = append(names, in.Path)
		case in.config != "":
			fs = append(fs, Finding{
				ID: "input.unrecognized", Severity: Warn, Layer: LayerInput,
				Title:     fmt.Sprintf("%s is %s: a configuration, which rocelab lint judges, not an artifact diagnose reads", in.Path, in.config),
				Evidence:  []Evidence{{File: in.Path, Text: in.config}},
				Mechanism: "diagnose reads what hosts and switches printed while a job ran (logs, counters, CLI output); a switch's configuration (a SONiC CONFIG_DB, a Cumulus NVUE tree or its nv set commands) says how the fabric is meant to run, and lint holds it against the NICs' settings and SONiC's formulas (PFC, ECN, buffers, the watchdog).",
				Fix:       "rocelab lint " + in.Path + " (with the hosts' mlnx_qos or mlxconfig output beside it to check both ends).",
			}.per(in.Path, "input", "Inputs in no format rocelab recognises"))
		default:
			fs = append(fs, Finding{
				ID: "input.unrecognized", Severity: Warn, Layer: LayerInput,
				Title:     fmt.Sprintf("%s is in no format rocelab recognises", in.Path),
				Evidence:  []Evidence{{File: in.Path, Text: what}},
				Mechanism: "rocelab recognises artifacts by their machine-printed lines; none were found, so the file was skipped.",
				Fix:       unrecognizedFix,
			}.per(in.Path, "input", "Inputs in no format rocelab recognises"))
		}
	}
	if len(skipped) > 0 {
		fs = append(fs, Finding{
			ID: "input.unrecognized", Severity: Info, Layer: LayerInput,
			Title:     fmt.Sprintf("%s found in directories not recognised and skipped: %s", plural(len(skipped), "file", "files"), list(names, 8)),
			Evidence:  skipped,
			Mechanism: "rocelab reads every file under a directory it is given and recognises artifacts by their machine-printed lines; files with none (notes, READMEs, provenance files, images) are skipped without harm.",
			Fix:       "Nothing to do if these are notes. If one should hold an artifact, pass it by name to see why it is not recognised. " + unrecognizedFix,
		})
	}
	return fs
}

const unrecognizedFix = "rocelab reads the unedited output of NCCL_DEBUG=INFO, *_perf, ethtool -S, hw_counters, perftest, show_gids, ibv_devinfo, mlnx_qos, dmesg, and pcap/pcapng captures."

// lintConfig names the configuration that head (an input's first bytes)
// begins, one lint reads: a SONiC CONFIG_DB, as config_db.json, `show
// runningconfiguration all` (its namespaces first on a multi-ASIC switch)
// or a table fragment pasted without its braces, recognised by its first
// key; or a Cumulus NVUE configuration, its tree (`nv config show -o
// yaml`, startup.yaml) or `nv set` commands, recognised by the test lint
// uses. It returns "" for anything else.
func lintConfig(head []byte) string {
	switch {
	case nvue.LooksLikeYAML(head):
		return "a Cumulus NVUE configuration (nv config show -o yaml, startup.yaml)"
	case nvue.IsSetList(head):
		return "a Cumulus NVUE configuration (nv set commands)"
	}
	if key, ok := sonic.FirstTable(head); ok {
		return "a SONiC CONFIG_DB (" + key + ")"
	}
	return ""
}
