package ingest

import (
	"slices"
	"strconv"
	"strings"

	"rocelab/internal/unit"
)

// The "#" lines around an nccl-tests table: version, parameters, the
// collective, one line per rank, and the trailer with the average bus
// bandwidth and out-of-bounds count; and command lines naming a *_perf
// binary.

// ToolRCCL names AMD's port of nccl-tests in TestRun.Tool.
const ToolRCCL = "rccl-tests"

// preamble handles the "#" lines (also pasted without their "#").
func (t *NCCLTests) preamble(ln Line, s string) bool {
	ev := At(t.src, ln)
	switch {
	case strings.HasPrefix(s, "nccl-tests version ") || strings.HasPrefix(s, "rccl-tests version "):
		// rccl-tests prints its own name: "# rccl-tests version
		// 2.17.9-develop:4a65e8d rccl-headers=22707 rccl-library=22707".
		r := t.opening()
		r.Version = strings.Clone(strings.TrimSpace(s[len("nccl-tests version "):]))
		r.VersionLine = ev
		if s[0] == 'r' {
			r.Tool = ToolRCCL
		}
	case strings.HasPrefix(s, "rccl-tests: Version "):
		// Older rccl-tests, without "#", after the parameters line.
		r := t.cur(false)
		if r.Version == "" {
			r.Version = strings.Clone("rccl-tests " + strings.TrimSpace(s[len("rccl-tests: Version "):]))
		}
		r.Tool = ToolRCCL
	case isRCCLVersionBlock(s) || isRCCLVersionLine(s):
		// RCCL prints its version block once per process at
		// NCCL_DEBUG=VERSION (init.cc showVersion): "RCCL version : ...",
		// "HIP version  : ...", "ROCm version : ...", "Hostname     :
		// ...", "Librccl path : ...". NCCL prints none of them, so the
		// tests ran on RCCL: rccl-tests, even in an excerpt without its
		// version line or a rank line naming an AMD GPU. It comes before
		// its run's table, and says nothing of other runs pasted with it.
		// So does the line RCCL prints in place of NCCL's "NCCL version
		// 2.x" at init: "RCCL version 2.17.1+hip5.7 HEAD:cbbb3d8+".
		t.cur(true).rcclLib = true
	case strings.HasPrefix(s, "Collective test starting:"):
		r := t.opening()
		r.Banner = ev
		if name := collectiveName(strings.TrimSpace(s[len("Collective test starting:"):])); name != "" {
			r.Collective, r.CollectiveFrom = name, FromBanner
		}
	case strings.HasPrefix(s, "Collective test concluded:"):
		// An excerpt may keep a table's end and not its start.
		if n := len(t.Runs); n > 0 && t.Runs[n-1].CollectiveFrom != FromBanner {
			if name := collectiveName(strings.TrimSpace(s[len("Collective test concluded:"):])); name != "" {
				t.Runs[n-1].Collective, t.Runs[n-1].CollectiveFrom = name, FromBanner
			}
		}
	case strings.HasPrefix(s, "nThread ") || strings.HasPrefix(s, "nThreads: "):
		p := readParams(s)
		r := t.cur(true)
		if r.NThread > 0 {
			// Processes of one launch print the same banner, each before
			// its rank line; a banner of other parameters, or one after
			// a failure, is the next command of a session.
			same := r.params() == p && r.failuresAt == t.FailureCount
			if same && r.RankCount == 0 && len(r.Rows) == 0 && len(t.BackToBack) < maxKept {
				t.BackToBack = append(t.BackToBack, ev)
			}
			r = t.newRun()
		}
		r.NThread, r.NGpus, r.MinBytes, r.MaxBytes = p.nThread, p.nGpus, p.minBytes, p.maxBytes
		r.failuresAt, r.Params = t.FailureCount, ev
	case strings.HasPrefix(s, "Using devices"):
	case strings.HasPrefix(s, "Rank "):
		return t.rank(s, ev)
	case strings.HasPrefix(s, "size ") && isHeader(s):
		t.header(s, ev)
	case strings.HasPrefix(s, "size ") && isOneHalfHeader(s):
		t.oneHalfHeader(s, len(ln.Text)-len(s), ev)
	case strings.HasPrefix(s, "(B)"):
		// The units line ends in "(GB/s)" in every layout; one that stops
		// before it was cut mid-line: the output ends inside the header.
		if r := t.cur(false); r.Header.Line > 0 && len(r.Rows) == 0 && !strings.HasSuffix(strings.TrimRight(s, " \t\r"), "(GB/s)") {
			r.HeaderCut = ev
		}
	case strings.HasPrefix(s, "out-of-place") && strings.Contains(s, "in-place"):
	case strings.HasPrefix(s, "Out of bounds values"):
		r := t.cur(false)
		_, v, _ := strings.Cut(s, ":")
		f := strings.Fields(v)
		if len(f) > 0 {
			r.OutOfBounds = atoiOr(f[0], -1)
			r.OutOfBoundsEvidence = ev
		}
	case strings.HasPrefix(s, "Avg bus bandwidth"):
		r := t.cur(false)
		_, v, _ := strings.Cut(s, ":")
		// "15.0183", or "15.0183 OK" (or FAILED) when NCCL_TESTS_MIN_BW is set.
		if f := strings.Fields(v); len(f) > 0 {
			if bw, err := strconv.ParseFloat(f[0], 64); err == nil {
				r.AvgBusBW, r.AvgEvidence = bw, ev
				if len(f) > 1 && (f[1] == AvgOK || f[1] == AvgFailed) {
					r.AvgCheck = f[1]
				}
			}
		}
	case strings.HasPrefix(s, "Errors with asterisks"):
		// Only rccl-tests prints this line, under its table.
		if r := t.cur(false); r.Tool == "" {
			r.Tool = ToolRCCL
		}
	default:
		return t.mscclppLine(s, ev)
	}
	return true
}

// isRCCLVersionBlock reports whether s is a line of RCCL's version
// block other than its host name: a key, spaces, " : " and a value.
func isRCCLVersionBlock(s string) bool {
	k, v, ok := strings.Cut(s, ":")
	if !ok || strings.TrimSpace(v) == "" {
		return false
	}
	switch strings.TrimRight(k, " ") {
	case "RCCL version", "HIP version", "ROCm version", "Librccl path":
		return true
	}
	return false
}

// isRCCLVersionLine reports whether s is RCCL's init line "RCCL version
// 2.17.1+hip5.7 HEAD:cbbb3d8+": the word, then a release number.
func isRCCLVersionLine(s string) bool {
	v, ok := strings.CutPrefix(s, "RCCL version ")
	return ok && v != "" && v[0] >= '0' && v[0] <= '9'
}

// params are the sweep the "nThread 1 nGpus 8 minBytes 8 maxBytes
// 134217728 ..." line gives.
type params struct {
	nThread, nGpus     int
	minBytes, maxBytes int64
}

func readParams(s string) params {
	var p params
	f := strings.Fields(s)
	for i := 0; i+1 < len(f); i++ {
		switch strings.TrimSuffix(f[i], ":") {
		case "nThread", "nThreads":
			p.nThread = atoiOr(f[i+1], 0)
		case "nGpus":
			p.nGpus = atoiOr(f[i+1], 0)
		case "minBytes":
			p.minBytes, _ = strconv.ParseInt(f[i+1], 10, 64)
		case "maxBytes":
			p.maxBytes, _ = strconv.ParseInt(f[i+1], 10, 64)
		}
	}
	return p
}

// params returns the sweep of the run's parameters line.
func (r *TestRun) params() params { return params{r.NThread, r.NGpus, r.MinBytes, r.MaxBytes} }

// binary notes a pasted command line naming a *_perf binary. It is context,
// not nccl-tests output, so it is not counted as a recognised line.
// inCommand is whether the line continues an earlier one or follows a
// launcher's: the binary then is not started on its own.
func (t *NCCLTests) binary(s string, inCommand bool) {
	f := strings.Fields(s)
	for i, w := range f {
		w = w[strings.LastIndexByte(w, '/')+1:]
		base, _, _ := strings.Cut(w, "_perf")
		if len(base) < len(w) {
			if name := collectiveName(base + "_perf"); name != "" {
				lo, hi := sweepArgs(f[i+1:])
				direct := 0
				if !inCommand && launcherless(f[:i]) {
					direct = processRanks(f[i+1:])
				}
				if n := len(t.Runs); n > 0 && len(t.Runs[n-1].Rows) == 0 && t.Runs[n-1].Collective == "" {
					r := t.Runs[n-1]
					r.Collective, r.CollectiveFrom = name, FromBinary
					if r.MaxBytes == 0 {
						r.MinBytes, r.MaxBytes = lo, hi
					}
					r.DirectRanks = direct
				} else {
					t.pendingBinary, t.pendingMin, t.pendingMax, t.pendingDirect = name, lo, hi, direct
				}
				return
			}
		}
	}
}

// launcherless reports whether the words before a command line's *_perf
// binary start it without a launcher: nothing but a shell prompt ("$",
// "root@node:~/nccl-tests#", bash's "[user@host dir]$", after a conda or
// virtualenv's "(base)"), environment assignments (NCCL_ALGO=Ring), and
// the words commandLead takes. Under mpirun, srun or any other word the
// binary may run as many processes on many hosts. A leading ">" is not a
// prompt that starts a command: it is the shell's continuation prompt.
func launcherless(pre []string) bool {
	return !slices.ContainsFunc(skipPrompt(pre), func(w string) bool { return !commandLead(w) })
}

// commandLead reports whether w may come before a command and leaves it
// one process on this host: an environment assignment (NCCL_ALGO=Ring),
// or sudo, env, time, nohup or exec.
func commandLead(w string) bool {
	switch w {
	case "sudo", "env", "time", "nohup", "exec":
		return true
	}
	return envAssignment(w)
}

// skipPrompt drops a shell prompt from the start of a command line's
// words: an environment's "(base)", then "$", "#", "host:~$", or a
// bracketed "[user@host dir]#" whose directory may be words long, or the
// shell's "+"/"++" trace of a command under set -x. Words that are no
// prompt are kept.
func skipPrompt(w []string) []string {
	if len(w) > 1 && strings.HasPrefix(w[0], "(") && strings.HasSuffix(w[0], ")") {
		w = w[1:]
	}
	if len(w) > 0 && (w[0] == "+" || w[0] == "++") {
		return w[1:]
	}
	if len(w) == 0 {
		return w
	}
	if strings.HasPrefix(w[0], "[") && strings.Contains(w[0], "@") {
		for i, x := range w {
			if strings.HasSuffix(x, "]$") || strings.HasSuffix(x, "]#") {
				return w[i+1:]
			}
		}
		return w
	}
	if strings.HasSuffix(w[0], "$") || strings.HasSuffix(w[0], "#") {
		return w[1:]
	}
	return w
}

// launchers are the programs that start a binary as many processes,
// possibly on many hosts.
var launchers = map[string]bool{
	"mpirun": true, "mpiexec": true, "srun": true, "jsrun": true, "flux": true, "horovodrun": true,
	"torchrun": true, "prun": true, "aprun": true, "orterun": true,
}

// namesLauncher reports whether s runs a launcher, named with or without
// its directory ("/usr/bin/mpirun"): as the command after a prompt and
// the words commandLead takes, or after a word that ends in
// a colon ("command: mpirun -np 2") or a backquote ("`srun"); or
// anywhere when an option follows it or the line continues with '\'
// ("nohup torchrun --nnodes 2", "singularity exec img mpirun -np 2",
// "salloc -N2 srun \"). A launcher named in prose ("it works without
// mpirun") runs nothing.
func namesLauncher(s string) bool {
	f := skipPrompt(strings.Fields(s))
	continues := strings.HasSuffix(strings.TrimSpace(s), `\`)
	lead := true
	for i, w := range f {
		quoted := strings.HasPrefix(w, "`")
		w = strings.TrimLeft(w, "`")
		run := lead || quoted || continues || i+1 < len(f) && strings.HasPrefix(f[i+1], "-")
		if run && launchers[w[strings.LastIndexByte(w, '/')+1:]] {
			return true
		}
		lead = lead && commandLead(w) || strings.HasSuffix(w, ":")
	}
	return false
}

// envAssignment reports whether w is a shell environment assignment,
// NAME=value with NAME of letters, digits and '_'.
func envAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	if !ok || name == "" || name[0] >= '0' && name[0] <= '9' {
		return false
	}
	for _, c := range name {
		if c != '_' && (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// processRanks returns the ranks one nccl-tests process runs, -t
// (--nthreads) × -g (--ngpus), each 1 unless given ("-g8" and "-g 8"
// alike); 0 when one does not read as a positive count.
func processRanks(args []string) int {
	n := 1
	for i, a := range args {
		var v string
		switch {
		case a == "-t" || a == "-g" || a == "--nthreads" || a == "--ngpus":
			if i+1 >= len(args) {
				return 0
			}
			v = args[i+1]
		case len(a) > 2 && (strings.HasPrefix(a, "-t") || strings.HasPrefix(a, "-g")) && isDigits(a[2:]):
			v = a[2:]
		case strings.HasPrefix(a, "--nthreads=") || strings.HasPrefix(a, "--ngpus="):
			_, v, _ = strings.Cut(a, "=")
		default:
			continue
		}
		k := atoiOr(v, 0)
		if !isDigits(v) || k <= 0 || k > 1024 {
			return 0
		}
		n *= k
	}
	return n
}

// sweepArgs reads the sizes a command line's -b/--minbytes and
// -e/--maxbytes give, as nccl-tests reads them (1M = 1048576). It returns
// 0, 0 unless both are given.
func sweepArgs(args []string) (lo, hi int64) {
	for i := 0; i+1 < len(args); i++ {
		var err error
		switch args[i] {
		case "-b", "--minbytes":
			lo, err = unit.ParseBinarySize(args[i+1])
		case "-e", "--maxbytes":
			hi, err = unit.ParseBinarySize(args[i+1])
		}
		if err != nil {
			return 0, 0
		}
	}
	if lo == 0 || hi == 0 {
		return 0, 0
	}
	return lo, hi
}

// collectiveName maps "all_reduce_perf" (or "all_reduce_perf_mpi") to
// "all_reduce"; it returns "" for anything else.
func collectiveName(bin string) string {
	base, _, ok := strings.Cut(bin, "_perf")
	if !ok {
		return ""
	}
	switch base {
	case "all_reduce", "all_gather", "reduce_scatter", "alltoall", "alltoallv", "broadcast", "reduce", "sendrecv", "gather", "scatter", "hypercube":
		return base
	}
	return mscclppCollective(bin)
}

// rank reads "Rank  0 Group  0 Pid 1666603 on spark-d708 device  0
// [000f:01:00] NVIDIA GB10" (older: no Group).
func (t *NCCLTests) rank(s string, ev Evidence) bool {
	f := strings.Fields(s)
	k := TestRank{Rank: -1, Group: -1, PID: -1, Device: -1, Evidence: ev}
	i := 0
pairs:
	for ; i+1 < len(f); i += 2 {
		switch f[i] {
		case "Rank":
			k.Rank = atoiOr(f[i+1], -1)
		case "Group":
			k.Group = atoiOr(f[i+1], -1)
		case "Pid":
			k.PID = atoiOr(f[i+1], -1)
		case "on":
			switch j := rankDeviceField(f, i); {
			case j == i+1:
				// The host printed blank ("on        device  0", a
				// name blanked out): the pair is the device's.
				k.Host = blankHost
				i--
			case j > i+2:
				// A host name redacted with spaces ("NODE A"): the
				// host runs up to the "device N" pair.
				k.Host = strings.Join(f[i+1:j], " ")
				i = j - 2
			default:
				k.Host = f[i+1]
			}
		case "device":
			k.Device = atoiOr(f[i+1], -1)
		default:
			break pairs
		}
	}
	if k.Host == "" && k.PID >= 0 && k.Device >= 0 && !slices.Contains(f, "on") {
		// "Pid 221599 device  0": a paste whose author took out "on
		// <host>"; TestRun.finish keeps it a host only for one process.
		k.Host = hostNotPrinted
	}
	if k.Rank < 0 || k.Host == "" {
		return false
	}
	if i < len(f) && strings.HasPrefix(f[i], "[") {
		k.BusID = strings.Clone(strings.Trim(f[i], "[]"))
		i++
	}
	if i < len(f) {
		k.GPU = strings.Clone(strings.Join(f[i:], " "))
	}
	k.Host = strings.Clone(k.Host)
	r := t.cur(true)
	if r.Tool == "" && (strings.HasPrefix(k.GPU, "AMD ") || strings.HasPrefix(k.GPU, "Radeon ")) {
		// nccl-tests runs on NVIDIA GPUs only: an AMD GPU ("AMD Instinct
		// MI300X", "AMD Radeon Graphics", or ROCm 5's "Radeon RX 7900
		// XTX" without the maker) is rccl-tests' HIP device.
		r.Tool = ToolRCCL
	}
	t.addRank(r, k)
	return true
}

// rankDeviceField returns the index of the "device" field ("device" then a
// number) that follows the host after f[on], the "on" field: on+1 when
// the host is blank, -1 when the line has none within a few fields (a
// line cut inside its host).
func rankDeviceField(f []string, on int) int {
	for j := on + 1; j+1 < len(f) && j <= on+1+maxHostFields; j++ {
		if f[j] == "device" && atoiOr(f[j+1], -1) >= 0 {
			return j
		}
	}
	return -1
}

// blankHost names the host of a rank line that prints none.
const blankHost = "(host name blank)"

// hostNotPrinted names the host of rank lines that have no "on <host>".
const hostNotPrinted = "(host not printed)"

// maxHostFields bounds the words of a redacted host name in a rank line.
const maxHostFields = 4

// addRank counts a device line's rank in run r.
func (t *NCCLTests) addRank(r *TestRun, k TestRank) {
	r.RankCount++
	r.RankSpan = max(r.RankSpan, k.Rank+1)
	if k.Rank == 0 && len(r.RankZero) < maxKept {
		r.RankZero = append(r.RankZero, k.Evidence)
	}
	// A line cut before its "device" field (an excerpt that stops in
	// "on computeins") names part of a host: its rank counts, its host
	// is none of the job's.
	if _, ok := r.hostSeen[k.Host]; k.Device >= 0 && (ok || len(r.hostSeen) < maxRankHost) {
		r.hostSeen[k.Host]++
	}
	if len(r.Ranks) < maxRanks {
		r.Ranks = append(r.Ranks, k)
	}
}
