package ingest

import (
	"io"
	"strconv"
	"strings"
)

// NCCL settings outside NCCL's own echo: the NCCL_* variables a job was
// given, in every form engineers paste or keep them in. The parser here is
// the one reader of such settings; `rocelab diagnose` joins them with GID
// tables, logs and counters, and other commands (lint) read env files,
// launcher scripts and manifests with ReadNCCLSettings.

// SetBy says how a setting was made.
type SetBy string

// The ways an NCCL setting is made. The values are stable and appear in
// JSON.
const (
	// SetByEcho is NCCL's own echo: "NCCL_IB_GID_INDEX set by environment
	// to 3." (read by the NCCL log parser).
	SetByEcho SetBy = "nccl-echo"
	// SetByExport is a shell export: "export NCCL_IB_GID_INDEX=4",
	// "declare -x NCCL_X=..." (export -p), "setenv NCCL_X 4" (csh).
	SetByExport SetBy = "export"
	// SetByPrefix is an assignment before a command on one line:
	// "NCCL_IB_HCA=mlx5 ./run.sh", "env NCCL_DEBUG=INFO torchrun ...".
	SetByPrefix SetBy = "command-prefix"
	// SetByEnvList is a bare "NCCL_X=value" line: `env | grep NCCL`
	// output, /etc/nccl.conf, ~/.nccl.conf, a .env file.
	SetByEnvList SetBy = "env-list"
	// SetByMPI is an MPI launcher flag: "mpirun -x NCCL_IB_TC=106",
	// "-genv NCCL_X 1", "-env NCCL_X 1".
	SetByMPI SetBy = "mpi"
	// SetBySlurm is a Slurm export list: "#SBATCH --export=ALL,NCCL_X=1",
	// "srun --export=NCCL_X=1".
	SetBySlurm SetBy = "slurm"
	// SetByKubernetes is a container env list entry: "- name: NCCL_X"
	// then "value: \"4\"" (or the one-line {name: ..., value: ...} form).
	SetByKubernetes SetBy = "kubernetes"
	// SetByDocker is "docker run -e NCCL_X=1" / "--env NCCL_X=1", or a
	// Dockerfile "ENV NCCL_X=1".
	SetByDocker SetBy = "docker"
	// SetByPython is os.environ["NCCL_X"] = "1" (or setdefault).
	SetByPython SetBy = "python"
	// SetByDefault is no setting at all: the value is NCCL's documented
	// default for the version the log prints (see NCCLLog.GIDDefaults).
	SetByDefault SetBy = "nccl-default"
	// SetByAuto is no setting, where NCCL chooses by itself (the GID
	// index since 2.21).
	SetByAuto SetBy = "nccl-auto"
)

// NCCLSetting is one NCCL_* variable given a value, with where and how.
type NCCLSetting struct {
	// Host is the host or pod the setting applies to when the input says
	// (a shell prompt, NCCL's line prefix), else "".
	Host  string
	Name  string // e.g. "NCCL_IB_GID_INDEX"
	Value string // unquoted
	How   SetBy
	// Evidence is the line that gives the value (for a Kubernetes entry,
	// the value line).
	Evidence Evidence
}

// Echoed reports whether NCCL itself printed the setting, so that it is
// certain the process ran with it.
func (s NCCLSetting) Echoed() bool { return s.How == SetByEcho }

// KindNCCLSettings is the kind of NCCLSettings.
const KindNCCLSettings Kind = "nccl-settings"

// NCCLSettings holds the NCCL_* settings of one input in input order, one
// per host, name, value and form.
type NCCLSettings struct {
	Scoped
	artifactHead
	Settings []NCCLSetting
	// Omitted counts settings beyond the cap.
	Omitted int
}

// Kind returns KindNCCLSettings.
func (s *NCCLSettings) Kind() Kind { return KindNCCLSettings }

// Values returns the settings of the named variable, in input order.
func (s *NCCLSettings) Values(name string) []NCCLSetting {
	var out []NCCLSetting
	for _, e := range s.Settings {
		if e.Name == name {
			out = append(out, e)
		}
	}
	return out
}

// GIDUses reports the NCCL_IB_GID_INDEX values set.
func (s *NCCLSettings) GIDUses() []GIDUse {
	var out []GIDUse
	for _, e := range s.Values("NCCL_IB_GID_INDEX") {
		if n, ok := smallInt(e.Value); ok {
			out = append(out, GIDUse{Host: e.Host, Index: n, SetBy: e.How, Evidence: e.Evidence})
		}
	}
	return out
}

// smallInt parses a non-negative decimal below 1<<20.
func smallInt(s string) (int, bool) {
	if s == "" || len(s) > 7 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

// ReadNCCLSettings returns every NCCL setting in r: those NCCL echoed in a
// log and those made in any of the forms of SetBy, in input order.
func ReadNCCLSettings(src string, r io.Reader) ([]NCCLSetting, error) {
	log := NewNCCLLogParser(src).(*NCCLLog)
	set := NewNCCLSettingsParser(src)
	lr := NewLineReader(r)
	for {
		l, err := lr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		log.Feed(l)
		set.Feed(l)
	}
	out := append([]NCCLSetting(nil), log.Env...)
	if a, ok := set.Result().(*NCCLSettings); ok {
		out = append(out, a.Settings...)
	}
	sortByLine(out)
	return out, nil
}

func sortByLine(s []NCCLSetting) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j].Evidence.Line < s[j-1].Evidence.Line; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// maxSettings caps the settings one input keeps.
const maxSettings = 4096

type settingsParser struct {
	out  NCCLSettings
	seen map[settingKey]bool
	// k8sName is a Kubernetes "- name: NCCL_X" awaiting its value line,
	// k8sLine the line it was on.
	k8sName string
	k8sLine int
	host    string // from the last shell prompt
}

// NewNCCLSettingsParser returns a parser for NCCL settings made outside
// NCCL's echo in the input src.
func NewNCCLSettingsParser(src string) Parser {
	return &settingsParser{out: NCCLSettings{artifactHead: artifactHead{src: src}}, seen: map[settingKey]bool{}}
}

// Feed implements Parser.
func (p *settingsParser) Feed(l Line) {
	if l.NCCL {
		return
	}
	t := strings.TrimSpace(l.Text)
	if p.k8sName != "" {
		if p.k8sValue(l, t) {
			return
		}
		if l.Num-p.k8sLine > 2 {
			p.k8sName = ""
		}
	}
	if !strings.Contains(t, "NCCL_") {
		return
	}
	if h := promptHost(t); h != "" {
		p.host = h
	}
	if l.Host != "" {
		p.host = l.Host
	}
	n := len(p.out.Settings)
	switch {
	case p.kubernetes(l, t):
	case strings.Contains(t, "environ"):
		p.python(l, t)
	default:
		p.words(l, t)
	}
	if len(p.out.Settings) > n {
		p.out.lines.add(l)
	}
}

// add records a setting once.
func (p *settingsParser) add(l Line, name, value string, how SetBy) {
	if !validEnvName(name) || !strings.HasPrefix(name, "NCCL_") || len(name) <= len("NCCL_") {
		return
	}
	value = unquote(value)
	k := settingKey{p.host, name, value, how, l.Num}
	if p.seen[k] {
		return
	}
	if len(p.out.Settings) >= maxSettings {
		p.out.Omitted++
		return
	}
	p.seen[k] = true
	p.out.Settings = append(p.out.Settings, NCCLSetting{Host: p.host, Name: strings.Clone(name), Value: strings.Clone(value), How: how, Evidence: At(p.out.src, l)})
}

// shellValue is the value a shell gives a process for the word raw of a
// setting made how: on a command line (mpirun -x, a prefix assignment,
// export, docker -e) the shell drops the backslashes of an unquoted word,
// so mpirun -x NCCL_IB_HCA=mlx5_0\,mlx5_1 (as `printf %q` prints a
// command) sets mlx5_0,mlx5_1; in quotes, a listing or a manifest the
// backslash is the value's own.
func shellValue(raw string, how SetBy) string {
	shell := how == SetByMPI || how == SetByPrefix || how == SetByExport || how == SetByDocker
	if !shell || raw == "" || strings.ContainsAny(raw[:1], `"'`) || !strings.Contains(raw, `\`) {
		return raw
	}
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		if raw[i] == '\\' && i+1 < len(raw) {
			i++
		}
		b.WriteByte(raw[i])
	}
	return b.String()
}

// settingKey identifies a setting made on one line, without the line's
// text (hashing that per setting made long lines quadratic).
type settingKey struct {
	host, name, value string
	how               SetBy
	line              int
}

// unquote strips matching quotes and a trailing comma or semicolon.
// joinQuoted makes one word of an NCCL_X= value a shell quotes across
// blanks (NCCL_IB_HCA="mlx5_0, mlx5_1"), up to the word that closes the
// quote: the blanks are the value's, and NCCL reads them as part of a
// device name (nccl.ib_hca.syntax).
func joinQuoted(f []string) []string {
	for i := 0; i < len(f); i++ {
		_, raw, ok := strings.Cut(f[i], "=")
		if !ok || !strings.Contains(f[i], "NCCL_") || raw == "" || raw[0] != '"' && raw[0] != '\'' {
			continue
		}
		q := raw[:1]
		if strings.HasSuffix(strings.TrimRight(raw[1:], ";)`"), q) {
			continue
		}
		j := i + 1
		for j < len(f) && j-i < 16 && !strings.HasSuffix(strings.TrimRight(f[j], ";)`"), q) {
			j++
		}
		switch {
		case j == len(f):
			j-- // not closed on its line: the value runs to its end
		case j-i == 16:
			continue // too far to be one value: the words stay apart
		}
		f = append(f[:i], append([]string{strings.Join(f[i:j+1], " ")}, f[j+1:]...)...)
	}
	return f
}

func unquote(v string) string {
	v = strings.TrimRight(strings.TrimSpace(v), ",;")
	for len(v) >= 2 && (v[0] == '"' || v[0] == '\'' || v[0] == '`') && v[len(v)-1] == v[0] {
		v = v[1 : len(v)-1]
	}
	return strings.Trim(v, `"'`)
}

// kubernetes reads "- name: NCCL_X" (its value follows on a later line),
// "{name: NCCL_X, value: "4"}" and the JSON form.
func (p *settingsParser) kubernetes(l Line, t string) bool {
	s := strings.TrimLeft(strings.TrimPrefix(t, "-"), " ")
	s = strings.TrimLeft(strings.TrimPrefix(s, "{"), " ")
	var rest string
	switch {
	case strings.HasPrefix(s, "name:"):
		rest = s[len("name:"):]
	case strings.HasPrefix(s, `"name":`):
		rest = s[len(`"name":`):]
	default:
		return false
	}
	name, after, _ := strings.Cut(strings.TrimSpace(rest), ",")
	name = unquote(name)
	if !strings.HasPrefix(name, "NCCL_") || !validEnvName(name) {
		return false
	}
	after = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(after), "}"))
	if v, ok := cutKey(after, "value"); ok {
		p.add(l, name, v, SetByKubernetes)
		return true
	}
	p.k8sName, p.k8sLine = strings.Clone(name), l.Num
	return true
}

// k8sValue reads the value line of a pending Kubernetes entry.
func (p *settingsParser) k8sValue(l Line, t string) bool {
	v, ok := cutKey(strings.TrimSpace(strings.TrimPrefix(t, "-")), "value")
	if !ok {
		return false
	}
	p.add(l, p.k8sName, v, SetByKubernetes)
	p.k8sName = ""
	p.out.lines.add(l)
	return true
}

// cutKey reads `value: "4"` or `"value": "4"`.
func cutKey(s, key string) (string, bool) {
	for _, k := range []string{key + ":", `"` + key + `":`} {
		if v, ok := strings.CutPrefix(s, k); ok {
			return strings.TrimSpace(v), true
		}
	}
	return "", false
}

// python reads os.environ["NCCL_X"] = "1" and
// os.environ.setdefault("NCCL_X", "1").
func (p *settingsParser) python(l Line, t string) bool {
	i := strings.Index(t, "environ")
	rest := t[i+len("environ"):]
	var name, value string
	switch {
	case strings.HasPrefix(rest, "["):
		key, after, ok := strings.Cut(rest[1:], "]")
		if !ok {
			return false
		}
		eq, v, ok := strings.Cut(after, "=")
		if !ok || strings.TrimSpace(eq) != "" || strings.HasPrefix(v, "=") {
			return false
		}
		name, value = unquote(key), v
	case strings.HasPrefix(rest, ".setdefault(") || strings.HasPrefix(rest, ".update("):
		args := strings.TrimSuffix(strings.TrimSpace(rest[strings.IndexByte(rest, '(')+1:]), ")")
		k, v, ok := strings.Cut(args, ",")
		if !ok {
			return false
		}
		name, value = unquote(k), v
	default:
		return false
	}
	value, _, _ = strings.Cut(strings.TrimSpace(value), "#")
	p.add(l, name, value, SetByPython)
	return true
}

// words reads the shell, launcher, Slurm and Docker forms from the line's
// words. Prose that merely mentions "NCCL_X=1" gives nothing: a setting
// counts only when the line starts with it, when a keyword or flag stands
// before it (export, -x, -e, --env, ENV, -genv), or when the line runs a
// launcher (mpirun, srun, torchrun, docker, env, a *_perf binary).
func (p *settingsParser) words(l Line, t string) {
	if strings.HasPrefix(t, "#") && !strings.HasPrefix(t, "#SBATCH") {
		return // a comment, or a commented-out setting
	}
	f := joinQuoted(strings.Fields(stripPrompt(t)))
	if len(f) == 0 {
		return
	}
	launcher := launcherOf(f)
	first := true
	assigns := true // every word before f[i] is an assignment (isAssignment(f[:i]))
	for i := 0; i < len(f); i++ {
		if i > 0 {
			assigns = assigns && isAssignmentWord(f[i-1])
		}
		w := strings.Trim(f[i], "`\"'();")
		prev := ""
		if i > 0 {
			prev = strings.Trim(f[i-1], "`\"'")
		}
		switch {
		case strings.HasPrefix(w, "--export=") || w == "--export" && i+1 < len(f):
			list := strings.TrimPrefix(w, "--export=")
			if w == "--export" {
				list = f[i+1]
				i++
			}
			for _, kv := range strings.Split(strings.Trim(list, `"'`), ",") {
				if n, v, ok := strings.Cut(kv, "="); ok {
					p.add(l, n, v, SetBySlurm)
				}
			}
		case strings.HasPrefix(w, "--env=NCCL_"):
			if n, v, ok := strings.Cut(w[len("--env="):], "="); ok {
				p.add(l, n, v, SetByDocker)
			}
		case (prev == "-genv" || prev == "-env" || prev == "setenv") && strings.HasPrefix(w, "NCCL_") && !strings.Contains(w, "=") && i+1 < len(f):
			how := SetByMPI
			if prev == "setenv" {
				how = SetByExport
			}
			p.add(l, w, shellValue(f[i+1], how), how)
			i++
		case prev == "ENV" && first && strings.HasPrefix(w, "NCCL_") && !strings.Contains(w, "=") && i+1 < len(f):
			p.add(l, w, strings.Join(f[i+1:], " "), SetByDocker)
			return
		case strings.HasPrefix(w, "NCCL_") && strings.Contains(w, "="):
			n, raw, _ := strings.Cut(w, "=")
			v := unquote(raw)
			add := func(how SetBy) { p.add(l, n, unquote(shellValue(raw, how)), how) }
			switch {
			case prev == "export" || prev == "declare" || prev == "-x" && i >= 2 && f[i-2] == "declare":
				add(SetByExport)
			case prev == "-x" || prev == "--env" || prev == "-e":
				how := SetByMPI
				if prev != "-x" {
					how = SetByDocker
				}
				if prev == "-x" && launcher != "" && launcher != SetByMPI {
					how = launcher
				}
				add(how)
			case prev == "ENV":
				p.add(l, n, v, SetByDocker)
			case first || i > 0 && assigns:
				how := SetByPrefix
				if len(f) == i+1 {
					how = SetByEnvList
				}
				add(how)
			case launcher != "":
				add(launcher)
			}
		}
		first = false
	}
}

// launcherOf returns how a command line's own command passes settings on:
// the first word that is not an assignment or a wrapper (sudo, env, time,
// nohup, exec) names the launcher.
func launcherOf(f []string) SetBy {
	for _, w := range f {
		if n, _, ok := strings.Cut(w, "="); ok && envNameFold(n) && n != "" {
			continue
		}
		base := w[strings.LastIndexByte(w, '/')+1:]
		switch {
		case base == "sudo" || base == "time" || base == "nohup" || base == "exec" || base == "-E" || base == "env":
			continue
		case base == "mpirun" || base == "mpiexec" || base == "mpirun.real" || base == "orterun" || base == "prterun":
			return SetByMPI
		case base == "srun" || base == "sbatch" || base == "salloc":
			return SetBySlurm
		case base == "docker" || base == "podman" || base == "nerdctl":
			return SetByDocker
		case base == "torchrun" || base == "deepspeed" || base == "python" || base == "python3" || strings.Contains(base, "_perf"):
			return SetByPrefix
		}
		return ""
	}
	return ""
}

// isAssignmentWord reports whether w is a VAR=value assignment or "env"
// or "export", as before a command: "FOO=1 NCCL_X=2 cmd".
func isAssignmentWord(w string) bool {
	if w == "env" || w == "export" {
		return true
	}
	n, _, ok := strings.Cut(w, "=")
	return ok && n != "" && envNameFold(n)
}

// envNameFold reports whether n is an environment variable name in any
// letter case.
func envNameFold(n string) bool {
	for i := 0; i < len(n); i++ {
		c := n[i]
		if (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '_' {
			return false
		}
	}
	return true
}

// stripPrompt removes a shell prompt ("[root@h ~]# ", "user@h:~$ ", "$ ",
// "# " before a command) from the start of a line.
func stripPrompt(t string) string {
	for _, mark := range []string{"]# ", "]$ ", "$ ", "# "} {
		if i := strings.Index(t, mark); i >= 0 && i < 64 && !strings.Contains(t[:i], "=") {
			if mark == "# " && strings.HasPrefix(t, "#SBATCH") {
				continue
			}
			return t[i+len(mark):]
		}
	}
	return strings.TrimPrefix(t, "#SBATCH ")
}

// Result implements Parser.
func (p *settingsParser) Result() Artifact {
	if len(p.out.Settings) == 0 {
		return nil
	}
	return &p.out
}

// InEffect returns, of the settings of one variable, the one the job ran
// with: NCCL's own echo ("NCCL_IB_DISABLE set by environment to 0") when
// it printed one, else the setting made last in line order, as a
// launcher's -x or -genv on the command line overrides an export made
// before it.
func InEffect(es []NCCLSetting) (NCCLSetting, bool) {
	for _, e := range es {
		if e.Echoed() {
			return e, true
		}
	}
	if len(es) == 0 {
		return NCCLSetting{}, false
	}
	last := es[0]
	for _, e := range es[1:] {
		if e.Evidence.File != last.Evidence.File || e.Evidence.Line >= last.Evidence.Line {
			last = e
		}
	}
	return last, true
}

// IntNonZero reads v as NCCL reads an integer parameter (strtoll with
// base 0: "1", "0x1", "2"); any value it takes other than 0 is set. A
// value it cannot read leaves the default, 0.
func IntNonZero(v string) bool {
	if strings.Contains(v, "_") {
		return false // strtoll has no digit separators
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 0, 64)
	return err == nil && n != 0
}

// IBDisabled returns the NCCL_IB_DISABLE setting in effect among es when
// it turns NCCL's IB transport off, unless NCCL's NET/IB lines show that
// the transport ran anyway: NCCL with IB disabled prints no NET/IB line,
// so a setting it did not echo (an export in a script, a launcher flag)
// that meets such lines never reached NCCL.
func IBDisabled(es []NCCLSetting, ibShown bool) (NCCLSetting, bool) {
	e, ok := InEffect(es)
	if !ok || !IntNonZero(e.Value) || (ibShown && !e.Echoed()) {
		return NCCLSetting{}, false
	}
	return e, true
}

// IBShown reports whether the log has any line of NCCL's NET/IB
// transport: its device list, a device it skipped, no device found, or a
// WARN while it started. NCCL prints none of them with NCCL_IB_DISABLE set.
func (l *NCCLLog) IBShown() bool {
	return len(l.IBDevices) > 0 || l.IBSkipped.Count+l.NoIBDevice.Count+l.IBInitWarns.Count > 0
}
