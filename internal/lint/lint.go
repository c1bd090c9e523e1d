// Package lint checks a RoCE cluster's configuration before it carries
// traffic: a cluster description (a twin scenario's switch, host and
// topology sections) and the real configs engineers have — SONiC
// config_db.json, NVIDIA Cumulus Linux's NVUE (configuration tree, `nv set`
// commands, `nv show qos roce`), mlnx_qos output or commands, mlxconfig query output or set
// commands, NCCL environment files and DCQCN sysfs dumps. It joins them into
// one model of the RoCE class and reports what disagrees or breaks a known
// rule, as doctor findings (same format, severities and, where the fact is
// the same, ids).
package lint

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"rocelab/internal/aoscx"
	"rocelab/internal/doctor"
	"rocelab/internal/eos"
	"rocelab/internal/ingest"
	"rocelab/internal/junos"
	"rocelab/internal/nxos"
	"rocelab/internal/onyx"
	"rocelab/internal/os10"
	"rocelab/internal/scenario"
	"rocelab/internal/sonic"
	"rocelab/internal/swcfg"
	"rocelab/internal/trafficconf"
)

// Input kinds lint reads besides the ingest formats.
const (
	KindClusterDescription = "cluster-description"
	KindSONiCConfigDB      = "sonic-config-db"
	KindEOSConfig          = "arista-eos-config"
	KindNXOSConfig         = "cisco-nxos-config"
	KindKLISHConfig        = "sonic-cli-config"
	KindJunosConfig        = "junos-config"
	KindOS10Config         = "dell-os10-config"
	KindAOSCXConfig        = "aruba-aoscx-config"
	KindFTOSConfig         = "dell-ftos-config"
	KindTrafficConf        = "cumulus-traffic-conf"
	KindOnyxConfig         = "nvidia-onyx-config"
)

// configKinds are the ingest formats lint reads; other recognised formats
// (logs, counters) are left to `rocelab diagnose`.
var configKinds = map[ingest.Kind]bool{
	ingest.KindMlnxQoS: true, ingest.KindMlnxQoSCommands: true, ingest.KindMlxConfig: true,
	ingest.KindDCQCNSysfs: true, ingest.KindShowGIDs: true, ingest.KindDevinfo: true, ingest.KindNCCLSettings: true,
	ingest.KindSwitch: true,
}

// A BadInputError is an input that could not be parsed; lint stops with it
// (exit 2) rather than lint half a configuration.
type BadInputError struct{ Err error }

// Error implements error.
func (e *BadInputError) Error() string { return e.Err.Error() }

// Unwrap returns the parse error.
func (e *BadInputError) Unwrap() error { return e.Err }

// Lint reads every path ("-" is stdin, read as text), joins them and checks
// the result. A file that cannot be parsed is a BadInputError.
func Lint(paths []string, stdin io.Reader) (*doctor.Report, error) {
	m := &Model{}
	rep := &doctor.Report{}
	for _, p := range paths {
		files, dir, err := expand(p)
		if err != nil {
			return nil, &BadInputError{err}
		}
		for _, f := range files {
			info, err := m.read(f, stdin)
			if err != nil && dir != "" && errors.Is(err, errNotConfig) {
				rep.Inputs = append(rep.Inputs, doctor.InputInfo{Path: f, Type: "unknown", InDir: dir})
				continue
			}
			if err != nil {
				return nil, &BadInputError{err}
			}
			info.InDir = dir
			rep.Inputs = append(rep.Inputs, info)
		}
	}
	rep.Findings = Check(m)
	if rep.Findings == nil {
		rep.Findings = []doctor.Finding{}
	}
	return rep, nil
}

// Check runs the doctor's rules over the configs' artifacts and lint's
// rules over the joined model, and returns the sorted findings.
func Check(m *Model) []doctor.Finding {
	opts := doctor.Options{RateHint: "give the switch's config_db.json, whose PORT speed states it, or the hosts' `ibv_devinfo -v`"}
	opts.SwitchRate, opts.SwitchRateHow = m.fastestPort()
	opts.SwitchRTT, opts.SwitchRTTAt, _ = m.statedRTT()
	m.join()
	opts.SwitchXoff = m.lowestXoff()
	fs := doctor.Check(&doctor.Incident{Artifacts: m.Artifacts, Options: opts})
	for _, r := range rules() {
		fs = append(fs, r(m)...)
	}
	doctor.Conform(fs)
	doctor.SortFindings(fs)
	return fs
}

// decodeText returns data decoded to UTF-8 as the doctor's inputs are
// (ingest.DecodeText: UTF-16, a byte-order mark, lone carriage returns),
// and the name of the encoding, or the line and column where it stops
// being text.
func decodeText(name string, data []byte) ([]byte, string, error) {
	br, enc := ingest.DecodeText(bufio.NewReaderSize(bytes.NewReader(data), 64<<10))
	text, err := io.ReadAll(br)
	var de *ingest.DecodeError
	if errors.As(err, &de) {
		de.Src = name
		return nil, "", de
	}
	return text, enc, err
}

// read reads one input into the model.
func (m *Model) read(path string, stdin io.Reader) (doctor.InputInfo, error) {
	name := path
	var data []byte
	var err error
	if path == "-" {
		name = "<stdin>"
		data, err = io.ReadAll(io.LimitReader(stdin, maxFileBytes+1))
		if err == nil && len(data) > maxFileBytes {
			err = fmt.Errorf("%s: larger than %d MiB: not a configuration file", name, maxFileBytes>>20)
		}
	} else {
		data, err = readLimited(path)
	}
	if err != nil {
		return doctor.InputInfo{}, err
	}
	// Text as every reader below takes it: UTF-8 without a byte-order
	// mark, whatever a Windows editor or PowerShell wrote.
	data, enc, err := decodeText(name, data)
	if err != nil {
		return doctor.InputInfo{}, err
	}
	info := doctor.InputInfo{Path: name, Type: "unknown", Encoding: enc}
	ext := strings.ToLower(filepath.Ext(path))
	if db, line, ok := sonic.RedisDB(data); ok {
		return info, fmt.Errorf("%s:%d: a query of %s, which holds %s: lint reads CONFIG_DB (`sonic-db-cli CONFIG_DB hgetall 'TABLE|key'`, config_db.json, `show runningconfiguration all`): %w", name, line, db, sonic.DBHolds(db), errNotConfig)
	}
	if bytes.Contains(data, []byte("hgetall")) {
		if db, ok := sonic.ParseRedis(name, data); ok {
			// CONFIG_DB rows as redis-cli or sonic-db-cli hgetall print
			// them, read before a prompt blanked out leaves sonic-db-cli's
			// {'field': 'value'} looking like JSON.
			m.Sonic = append(m.Sonic, db)
			info.Type = KindSONiCConfigDB
			return info, nil
		}
	}
	commandAbove := false
	if d, ok := sonic.BlankPrompts(data); ok {
		// A CONFIG_DB dump pasted with the command that printed it (other
		// text, a kernel log's "[ 12.3]" lines, keeps its prompt).
		if h := bytes.TrimLeft(d, " \t\r\n"); ext == ".json" || len(h) > 0 && h[0] == '{' {
			if t, ok := sonic.VarJSON(data, d); ok {
				d = t // one table's rows under the command naming it
			}
			commandAbove = pastedCommand(data, d)
			data = d
		}
	}
	if h := bytes.TrimLeft(data, " \t\r\n\ufeff"); len(h) == 0 || h[0] != '{' {
		// NVIDIA Cumulus Linux: NVUE's configuration tree, `nv show qos
		// roce` or `nv set` commands, read before a YAML file is taken
		// for a cluster description.
		sess, pasted := swcfg.ReadSession(data)
		if err := noRoCESwitch(name, data); err != nil {
			return info, err
		}
		for _, r := range nosReaders {
			in := data
			if r.session && pasted {
				// A CLI session pasted with its prompts: the
				// configuration it shows or types.
				in = sess.Text
			}
			if !r.is(in) {
				continue
			}
			db, err := r.read(name, in)
			if err != nil {
				if r.session && pasted {
					err = sess.Place(err)
				}
				return info, err
			}
			if r.session && pasted {
				db.MarkExcerpt(sess.Excerpt, "")
			}
			m.Sonic = append(m.Sonic, db)
			info.Type = r.kind
			return info, nil
		}
		if db, kind, ok, err := readNVUE(name, data); ok {
			if err != nil {
				return info, err
			}
			m.Sonic = append(m.Sonic, db)
			info.Type = kind
			return info, nil
		}
	}
	if line, col, ok := jinjaAt(data); ok {
		return info, fmt.Errorf("%s:%d:%d: a Jinja2 template (SONiC's qos.json.j2, buffers.json.j2, buffers_defaults_t1.j2), not a configuration: expected CONFIG_DB JSON; lint reads what sonic-cfggen renders from it: `config qos reload --dry_run out.json` on the switch, or `show runningconfiguration all`: %w", name, line, col, errNotConfig)
	}
	head := bytes.TrimLeft(data, " \t\r\n\ufeff")
	switch {
	case ingest.IsNCCLTestsJSON(head):
		// Recognised as the doctor recognises it (ingest.Read), before
		// any JSON is read as a config_db.
		return info, fmt.Errorf("%s: an nccl-tests JSON document (-J): the results of a run, not a configuration: use rocelab diagnose %s: %w", name, path, errNotConfig)
	case ext == ".json" || len(head) > 0 && head[0] == '{' || sonic.IsFragment(head):
		dbs, err := sonic.ParseAll(name, data)
		if err != nil {
			return info, err
		}
		if len(dbs) == 1 {
			if at, ok := dbs[0].FieldsOnly(); ok && !commandAbove {
				return info, fmt.Errorf("%s:%d:%d: %q: expected CONFIG_DB tables, each an object of rows, but %q holds plain values: a table's rows or a row's fields without the table that holds them, as `sonic-cfggen -d --var-json TABLE` prints them; paste the command line above them, or write them as {\"TABLE\": {...}}: %w", name, at.Line, at.Col, at.Text, at.Text, errNotConfig)
			}
			if at, foreign := dbs[0].Foreign(); foreign {
				what := "this JSON is not a config_db"
				if strings.Contains(at.Text, ":") {
					what = "TABLE:key is how APPL_DB, STATE_DB and COUNTERS_DB dumps name rows; lint reads CONFIG_DB (config_db.json, `show runningconfiguration all`)"
				}
				return info, fmt.Errorf("%s:%d:%d: %q: expected CONFIG_DB tables, whose names are upper case (PORT, BUFFER_PROFILE, PORT_QOS_MAP): %s: %w", name, at.Line, at.Col, at.Text, what, errNotConfig)
			}
			if at, ok := dbs[0].DatabaseConfig(); ok {
				return info, fmt.Errorf("%s:%d:%d: %q: SONiC's database_config.json (the Redis instances and the databases sonic-db-cli reaches), not CONFIG_DB's contents: lint reads config_db.json or `show runningconfiguration all`: %w", name, at.Line, at.Col, at.Text, errNotConfig)
			}
			if at, state := dbs[0].StateDump(qosTables); state {
				which, like := "STATE_DB", "PORT_TABLE, BUFFER_MAX_PARAM_TABLE, TRANSCEIVER_INFO"
				if strings.HasPrefix(at.Text, "COUNTERS") {
					which, like = "COUNTERS_DB", "COUNTERS:oid:..., COUNTERS_PORT_NAME_MAP"
				}
				return info, fmt.Errorf("%s:%d:%d: %q: a %s dump (its tables are %s's, like %s), which holds %s: lint reads CONFIG_DB (config_db.json, `show runningconfiguration all`, `sonic-db-dump -n CONFIG_DB`): %w", name, at.Line, at.Col, at.Text, which, which, like, sonic.DBHolds(which), errNotConfig)
			}
		}
		for _, db := range dbs {
			if at, ok := db.TemplateKey(); ok {
				return info, fmt.Errorf("%s:%d:%d: %q: a Jinja2 expression as a row's key: a template that sonic-cfggen or Ansible fills in (sonic-mgmt's pfc_wd_config.j2), not a configuration: expected CONFIG_DB JSON; lint reads what it renders (`show runningconfiguration all` once it is loaded): %w", name, at.Line, at.Col, at.Text, errNotConfig)
			}
		}
		m.Sonic = append(m.Sonic, dbs...)
		info.Type = KindSONiCConfigDB
		return info, nil
	case bytes.HasPrefix(head, []byte("# provenance of ")) && bytes.Contains(head[:min(len(head), 200)], []byte("rocelab config gen")):
		// config gen's notes on where each SONiC value came from (FILE.provenance):
		// not a configuration, nothing to check.
		info.Type = "config-gen-provenance"
		return info, nil
	case (ext == ".yaml" || ext == ".yml" || path == "-") && looksLikeDescription(data):
		s, err := scenario.LoadDescription(name, data)
		if err != nil {
			return info, err
		}
		if m.Desc != nil {
			return info, fmt.Errorf("%s: a second cluster description (the first is %s): lint one fabric at a time", name, m.Desc.File)
		}
		m.Desc, m.descLines = s, strings.Split(string(data), "\n")
		info.Type = KindClusterDescription
		return info, nil
	}
	if db, ok := sonic.ParseRedis(name, data); ok {
		// CONFIG_DB rows as redis-cli or sonic-db-cli hgetall print them.
		m.Sonic = append(m.Sonic, db)
		info.Type = KindSONiCConfigDB
		return info, nil
	}
	// `show pfc priority`: PORT_QOS_MAP's pfc_enable per port; the same
	// file may hold other switch CLI output, read below.
	var kinds []string
	if db, ok := sonic.ParseShowPFCPriority(name, data); ok {
		m.Sonic = append(m.Sonic, db)
		kinds = append(kinds, KindSONiCConfigDB)
	}
	// EOS's `show priority-flow-control`: the same per port, read alike.
	if db, ok := sonic.ParseEOSPriorityFlowControl(name, data); ok {
		m.Sonic = append(m.Sonic, db)
		kinds = append(kinds, KindSONiCConfigDB)
	}
	if isMinigraph(data) {
		return info, fmt.Errorf("%s: a SONiC minigraph (DeviceMiniGraph), which holds no QoS tables: `config load_minigraph` renders it into CONFIG_DB with the hwsku's qos.json.j2 and buffers.json.j2, and lint reads the result (`show runningconfiguration all`, or /etc/sonic/config_db.json after `config save`): %w", name, errNotConfig)
	}
	if isPGProfileLookup(data) {
		return info, fmt.Errorf("%s: a pg_profile_lookup.ini (SONiC's static headroom table by speed and cable): lint reads the BUFFER_PROFILE rows SONiC makes from it, in config_db.json; `rocelab calc headroom --speed S --cable L --asic A` computes one row: %w", name, errNotConfig)
	}
	res, err := ingest.Read(name, bytes.NewReader(data))
	if err != nil {
		if len(kinds) == 0 {
			return info, err
		}
		info.Type = kinds[0]
		return info, nil
	}
	for _, a := range res.Artifacts {
		if !configKinds[a.Kind()] {
			continue
		}
		if s, ok := a.(*ingest.SwitchCounters); ok {
			// Read above as CONFIG_DB rows, which lint's rules judge.
			s.EOSPFC = nil
		}
		m.Artifacts = append(m.Artifacts, a)
		kinds = append(kinds, string(a.Kind()))
	}
	if len(kinds) == 0 {
		what := "no configuration lint reads"
		if len(res.Artifacts) > 0 {
			what = fmt.Sprintf("%s is not a configuration: use rocelab diagnose", res.Type())
		}
		return info, fmt.Errorf("%s: %s (expected a cluster description .yaml, a SONiC config_db.json, a Cumulus NVUE config, nv set commands or traffic.conf, an Arista EOS, Cisco NX-OS, Dell OS10 or FTOS, HPE Aruba CX, NVIDIA Onyx or Junos configuration, SONiC's management CLI, mlnx_qos, mlxconfig, DCQCN sysfs, NCCL env or show_gids): %w", name, what, errNotConfig)
	}
	info.Type = kinds[0]
	if len(kinds) > 1 {
		info.Contains = kinds
	}
	return info, nil
}

// nosReaders are the readers of switch operating systems' own
// configurations, in the order they are tried: each writes what its input
// says of QoS as CONFIG_DB rows. OS10 is tried before NX-OS, whose
// policy-map syntax it shares.
var nosReaders = []struct {
	kind string
	is   func([]byte) bool
	read func(name string, data []byte) (*sonic.ConfigDB, error)
	// session: the reader takes a pasted CLI session's configuration
	// (swcfg.ReadSession) where the input carries prompts.
	session bool
}{
	// SONiC's management CLI (Enterprise SONiC): its own tables.
	{KindKLISHConfig, sonic.IsKLISH, sonic.ParseKLISH, true},
	{KindJunosConfig, junos.IsConfig, func(name string, data []byte) (*sonic.ConfigDB, error) {
		root, err := junos.Parse(name, data)
		if err != nil {
			return nil, err
		}
		return sonic.FromJunos(name, strings.Split(string(data), "\n"), root), nil
	}, false},
	// HPE Aruba CX: its `!Version ArubaOS-CX` header or `apply qos`,
	// `qos dscp-map … local-priority`, `flow-control priority` lines.
	{KindAOSCXConfig, aoscx.IsConfig, via(aoscx.Parse, sonic.FromAOSCX), true},
	// Dell Networking OS 9 (FTOS): `dcb-map`/`dcb-input` PFC policies,
	// which OS10 does not have.
	{KindFTOSConfig, sonic.IsFTOS, sonic.ParseFTOS, false},
	{KindOS10Config, os10.IsConfig, via(os10.Parse, sonic.FromOS10), true},
	{KindNXOSConfig, nxos.IsConfig, via(nxos.Parse, sonic.FromNXOS), true},
	// Cumulus Linux 3.x/4.x traffic.conf, 5.x qos_features.conf.
	{KindTrafficConf, trafficconf.IsConfig, via(trafficconf.Parse, sonic.FromTrafficConf), false},
	// NVIDIA Onyx (MLNX-OS): flat `interface ethernet 1/1-1/4 …` lines.
	{KindOnyxConfig, onyx.IsConfig, via(onyx.Parse, sonic.FromOnyx), false},
	{KindEOSConfig, eos.IsConfig, via(eos.Parse, sonic.FromEOS), true},
}

// noRoCESwitch refuses, as not judged, the configuration of a switch that
// carries no RoCE but prints the running-config header of one that does:
// InfiniBand's MLNX-OS (Onyx's header) and a Cisco MDS (NX-OS's).
func noRoCESwitch(name string, data []byte) error {
	what := "an InfiniBand switch's MLNX-OS configuration: InfiniBand carries no RoCE, its QoS is not judged"
	line, text, ok := onyx.InfiniBand(data)
	if !ok {
		what = "a Cisco MDS Fibre Channel switch's configuration: it carries no RoCE, its QoS is not judged"
		line, text, ok = nxos.MDS(data)
	}
	if !ok {
		return nil
	}
	l := strings.Split(string(data), "\n")[line-1]
	return fmt.Errorf("%s:%d:%d: %q: %s: %w", name, line, strings.Index(l, text)+1, text, what, errNotConfig)
}

// via reads a configuration with a reader's parser and writes it as
// CONFIG_DB rows.
func via[C any](parse func(string, []byte) (C, error), rows func(C) *sonic.ConfigDB) func(string, []byte) (*sonic.ConfigDB, error) {
	return func(name string, data []byte) (*sonic.ConfigDB, error) {
		c, err := parse(name, data)
		if err != nil {
			return nil, err
		}
		return rows(c), nil
	}
}

// errNotConfig marks a file that holds no configuration lint reads.
var errNotConfig = errors.New("not a configuration")

// expand returns the files of a directory argument (sorted, without hidden
// files, READMEs and .source provenance notes) and the directory; a file
// argument is itself.
func expand(p string) ([]string, string, error) {
	if p == "-" {
		return []string{p}, "", nil
	}
	st, err := os.Stat(p)
	if err != nil || !st.IsDir() {
		return []string{p}, "", nil
	}
	entries, err := os.ReadDir(p)
	if err != nil {
		return nil, "", err
	}
	var files []string
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || strings.HasPrefix(n, ".") || strings.HasSuffix(n, ".source") || strings.HasSuffix(n, ".md") || strings.HasSuffix(n, ".provenance") || n == "expect.txt" {
			continue
		}
		files = append(files, filepath.Join(p, n))
	}
	return files, p, nil
}

// maxFileBytes bounds a description read into memory: a config_db.json
// of a 128-port switch with its ACLs is a few MiB, and reading stops
// here, so that /dev/zero is refused in well under 100 MB.
const maxFileBytes = 16 << 20

// readLimited reads a file of at most maxFileBytes.
func readLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s: %v", path, pe.Err)
		}
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(bufio.NewReader(f), maxFileBytes+1))
	if err == nil && len(data) > maxFileBytes {
		err = fmt.Errorf("%s: larger than %d MiB: not a configuration file", path, maxFileBytes>>20)
	}
	return data, err
}

// looksLikeDescription reports whether YAML has a top-level topology,
// switch or host key (a Kubernetes manifest with NCCL env has none).
func looksLikeDescription(data []byte) bool {
	for _, line := range strings.Split(string(data), "\n") {
		for _, k := range []string{"topology:", "switch:", "host:"} {
			if strings.HasPrefix(line, k) {
				return true
			}
		}
	}
	return false
}

// isMinigraph reports whether data is a SONiC minigraph.xml: its root
// element, after an XML declaration or comments, is DeviceMiniGraph.
func isMinigraph(data []byte) bool {
	head := data[:min(len(data), 4096)]
	i := bytes.Index(head, []byte("<DeviceMiniGraph"))
	if i < 0 {
		return false
	}
	for _, line := range strings.Split(string(head[:i]), "\n") {
		line = strings.TrimSpace(strings.TrimPrefix(line, "\ufeff"))
		if line != "" && !strings.HasPrefix(line, "<?xml") && !strings.HasPrefix(line, "<!--") {
			return false
		}
	}
	return true
}

// isPGProfileLookup reports whether text is a pg_profile_lookup.ini: rows
// of speed (Mb/s), cable ("5m"), size, xon, xoff and more numbers, and
// comments.
func isPGProfileLookup(data []byte) bool {
	rows := 0
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if len(f) < 5 || !digits(f[0]) || !digits(strings.TrimSuffix(f[1], "m")) || !strings.HasSuffix(f[1], "m") || !digits(f[2]) || !digits(f[3]) || !digits(f[4]) {
			return false
		}
		rows++
	}
	return rows > 0
}

func digits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// pastedCommand reports whether a line blanked above a pasted JSON dump
// (data as given, blanked with its shell lines as spaces) was a command
// or prompt, not only a Markdown fence.
func pastedCommand(data, blanked []byte) bool {
	lines, out := bytes.SplitAfter(data, []byte("\n")), bytes.SplitAfter(blanked, []byte("\n"))
	for i, l := range lines {
		t := bytes.TrimSpace(l)
		if len(t) > 0 && (t[0] == '{' || t[0] == '[') {
			return false
		}
		if i < len(out) && len(t) > 0 && len(bytes.TrimSpace(out[i])) == 0 && !bytes.HasPrefix(t, []byte("```")) {
			return true
		}
	}
	return false
}

// jinjaAt finds the first Jinja2 statement or comment of an input that is
// not JSON (a string value may hold the characters), and where it is,
// 1-based: a "{%" or "{#" closed by its "%}" or "#}" on the same or a later
// line and not preceded by "$", so that a shell script's ${#HOSTS[@]} or
// ${#var} is not taken for a template.
func jinjaAt(data []byte) (line, col int, ok bool) {
	closeAt := map[byte]int{'%': bytes.LastIndex(data, []byte("%}")), '#': bytes.LastIndex(data, []byte("#}"))}
	i := -1
	for k := 0; k+1 < len(data); k++ {
		if data[k] != '{' || data[k+1] != '%' && data[k+1] != '#' || k > 0 && data[k-1] == '$' {
			continue
		}
		if closeAt[data[k+1]] >= k+2 {
			i = k
			break
		}
	}
	if i < 0 || json.Valid(data) {
		return 0, 0, false
	}
	before := data[:i]
	line = bytes.Count(before, []byte("\n")) + 1
	col = i - bytes.LastIndexByte(before, '\n')
	return line, col, true
}
