package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"rocelab/examples"
)

// The hostile-input campaign: every command of the CLI, run as its own
// process on inputs built to break it — truncated, bit-flipped, binary,
// huge, deeply nested, empty or endless files, FIFOs, directories, missing
// paths, and flag values at and past every edge — and judged on what a
// user sees: no panic, no hang, an exit code that means what the CLI
// documents (0 ok, 1 findings at error level from the commands that judge,
// 2 bad usage or input, with a reason on stderr), and bounded memory. The
// cases are drawn from a seeded generator, so a run is reproducible.
//
//	go test ./cmd/rocelab -run Hostile                      # the CI subset
//	go test ./cmd/rocelab -run Hostile -hostile.n 3000 -v  # the campaign
var (
	hostileN    = flag.Int("hostile.n", 120, "cases of the hostile-input campaign")
	hostileSeed = flag.Uint64("hostile.seed", 3, "seed of the hostile-input campaign")
	hostileLog  = flag.String("hostile.log", "", "write each case's command line and outcome to this file")
)

// hostileChild makes the test binary act as rocelab, so that each case
// runs as a process of its own (exit code, memory, a hang killed).
const hostileChild = "ROCELAB_HOSTILE_CHILD"

// hostileRSS names the file a child writes its peak resident size (kB) to.
const hostileRSS = "ROCELAB_HOSTILE_RSS"

func TestMain(m *testing.M) {
	if os.Getenv(hostileChild) == "1" {
		code := execute(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
		// The child's own peak: rusage's ru_maxrss starts from the test
		// process's size at the fork and survives exec, VmHWM does not.
		if st, err := os.ReadFile("/proc/self/status"); err == nil {
			for _, l := range strings.Split(string(st), "\n") {
				if f := strings.Fields(l); len(f) == 3 && f[0] == "VmHWM:" {
					os.WriteFile(os.Getenv(hostileRSS), []byte(f[1]), 0o644)
				}
			}
		}
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// A hostileCase is one command line with its inputs.
type hostileCase struct {
	name  string
	args  []string
	stdin []byte
	// fifo, when set, is fed into the FIFO named by args' "@FIFO".
	fifo []byte
	// judges says the command may exit 1 (findings at error level).
	judges bool
	// limit bounds the case's resident memory in bytes; 0 means 512 MiB.
	// A limited case must also be done within a second of CPU.
	limit int64
	// server says the command serves until stopped (the exporter): it is
	// sent SIGTERM after a few seconds and must then stop, cleanly.
	server bool
}

// hostileOutcome is what a case did.
type hostileOutcome struct {
	code           int
	stdout, stderr string
	rss            int64 // bytes
	cpu            time.Duration
	timedOut       bool
	killed         bool // did not stop on SIGTERM
}

// verdict says what is wrong with an outcome, "" when nothing.
func (c *hostileCase) verdict(o hostileOutcome) string {
	switch {
	case o.timedOut && !c.server, o.killed:
		return "hang"
	case strings.Contains(o.stderr, "panic:") || strings.Contains(o.stderr, "goroutine 1 ["):
		return "panic"
	case o.code < 0 || o.code > 2:
		return fmt.Sprintf("exit %d", o.code)
	case o.code == 1 && !c.judges:
		return "exit 1 from a command that judges nothing"
	case o.code == 2 && !strings.Contains(o.stderr, "rocelab") && !strings.Contains(o.stdout, "could not be read"):
		return "exit 2 without a reason"
	case o.code == 0 && hasError(o.stderr):
		return "an error printed with exit 0"
	case o.code == 0 && c.args[0] == "run":
		if v := conserved(o.stdout); v != "" {
			return v
		}
	}
	limit := c.limit
	if limit == 0 {
		limit = 512 << 20
	}
	if o.rss > limit {
		return fmt.Sprintf("%d MB resident, more than %d MB", o.rss>>20, limit>>20)
	}
	if c.limit != 0 && o.cpu > time.Second {
		return fmt.Sprintf("%v of CPU, more than 1s", o.cpu.Round(time.Millisecond))
	}
	return ""
}

// totals is the run's byte balance: sent + retransmitted = delivered +
// dropped + discarded + in flight.
var totals = regexp.MustCompile(`sent (\d+) B \+ retransmitted (\d+) = delivered (\d+) \+ dropped (\d+) \+ discarded (\d+) \+ in flight (\d+)`)

// conserved says which totals line of a run's text breaks the balance.
func conserved(stdout string) string {
	for _, m := range totals.FindAllStringSubmatch(stdout, -1) {
		var n [6]uint64
		for i := range n {
			n[i], _ = strconv.ParseUint(m[i+1], 10, 64)
		}
		if n[0]+n[1] != n[2]+n[3]+n[4]+n[5] {
			return "bytes not conserved: " + m[0]
		}
	}
	return ""
}

// hasError reports a "rocelab: " line that is not a warning.
func hasError(stderr string) bool {
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "rocelab: ") && !strings.HasPrefix(l, "rocelab: warning") {
			return true
		}
	}
	return false
}

// runHostile runs one case as a child process in dir.
func runHostile(t testing.TB, dir string, c *hostileCase, timeout time.Duration) hostileOutcome {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	args := append([]string(nil), c.args...)
	fifo := ""
	for i, a := range args {
		if a == "@FIFO" {
			fifo = filepath.Join(dir, fmt.Sprintf("fifo-%d", i))
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			args[i] = fifo
		}
	}
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Dir = dir
	rssFile := filepath.Join(dir, ".rss")
	os.Remove(rssFile)
	cmd.Env = append(os.Environ(), hostileChild+"=1", hostileRSS+"="+rssFile)
	cmd.Stdin = bytes.NewReader(c.stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if fifo != "" {
		go func() {
			if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
				f.Write(c.fifo)
				f.Close()
			}
		}()
	}
	err := cmd.Wait()
	o := hostileOutcome{stdout: out.String(), stderr: errb.String(), timedOut: ctx.Err() != nil}
	if fifo != "" {
		// Unblock the feeder if the command never opened the FIFO.
		if f, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		o.code = ee.ExitCode()
	case cmd.ProcessState != nil && cmd.ProcessState.Exited():
		o.code = cmd.ProcessState.ExitCode() // stopped by the SIGTERM sent
	default:
		o.code = -1
	}
	if st := cmd.ProcessState; st != nil {
		if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			o.killed = ws.Signal() == syscall.SIGKILL
			if ws.Signal() == syscall.SIGTERM && c.server {
				o.code = 0 // stopped by the signal it was sent
			}
		}
		if kb, err := os.ReadFile(rssFile); err == nil {
			n, _ := strconv.ParseInt(string(kb), 10, 64)
			o.rss = n << 10
		} else if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
			o.rss = ru.Maxrss << 10 // an upper bound: see TestMain
		}
		o.cpu = st.UserTime() + st.SystemTime()
	}
	return o
}

// hostileSeeds are the inputs mutated: the examples, the real artifacts
// of the corpus, and a twin's --out incident.
type hostileSeeds struct {
	scenarios [][]byte
	artifacts [][]byte // text artifacts
	captures  [][]byte // pcap/pcapng
}

func loadHostileSeeds(t testing.TB) *hostileSeeds {
	s := &hostileSeeds{}
	ents, _ := examples.FS.ReadDir(".")
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".yaml") {
			data, _ := examples.FS.ReadFile(e.Name())
			s.scenarios = append(s.scenarios, data)
		}
	}
	var files []string
	filepath.WalkDir(filepath.Join("..", "..", "testdata", "corpus"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasSuffix(p, ".source") {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil || len(data) > 4<<20 {
			continue
		}
		if strings.Contains(f, "pcap") {
			s.captures = append(s.captures, data)
		} else {
			s.artifacts = append(s.artifacts, data)
		}
	}
	if len(s.scenarios) == 0 || len(s.artifacts) == 0 || len(s.captures) == 0 {
		t.Fatalf("seeds: %d scenarios, %d artifacts, %d captures", len(s.scenarios), len(s.artifacts), len(s.captures))
	}
	return s
}

// mutate breaks data in one of many ways.
func mutate(r *rand.Rand, data []byte) []byte {
	d := append([]byte(nil), data...)
	switch r.IntN(12) {
	case 0: // truncated
		if len(d) > 0 {
			d = d[:r.IntN(len(d))]
		}
	case 1: // bit flips
		for i := 0; i < 1+r.IntN(16) && len(d) > 0; i++ {
			d[r.IntN(len(d))] ^= byte(1 << r.IntN(8))
		}
	case 2: // binary garbage spliced in
		g := make([]byte, 1+r.IntN(512))
		for i := range g {
			g[i] = byte(r.IntN(256))
		}
		at := r.IntN(len(d) + 1)
		d = append(d[:at:at], append(g, data[at:]...)...)
	case 3: // one huge line
		d = append(d, bytes.Repeat([]byte("x"), 1<<20+r.IntN(1<<20))...)
	case 4: // deep nesting
		n := 100 + r.IntN(20000)
		d = append(d, []byte("\nk: "+strings.Repeat("[", n)+strings.Repeat("]", n)+"\n")...)
	case 5: // lines duplicated
		lines := bytes.Split(d, []byte("\n"))
		if len(lines) > 1 {
			i := r.IntN(len(lines))
			for k := 0; k < 1+r.IntN(200); k++ {
				lines = append(lines[:i+1:i+1], append([][]byte{lines[i]}, lines[i+1:]...)...)
			}
		}
		d = bytes.Join(lines, []byte("\n"))
	case 6: // numbers at the edges
		for _, v := range []string{"0", "-1", "1e308", "NaN", "99999999999999999999", "0x7fffffffffffffff", "-0", "1e-300", "Inf"} {
			if i := bytes.IndexAny(d, "0123456789"); i >= 0 && r.IntN(2) == 0 {
				d = append(d[:i:i], append([]byte(v), d[i+1:]...)...)
			}
		}
	case 7: // CRLF and a BOM
		d = append([]byte("\ufeff"), bytes.ReplaceAll(d, []byte("\n"), []byte("\r\n"))...)
	case 8: // empty
		d = nil
	case 9: // NULs
		for i := 0; i < 1+r.IntN(64) && len(d) > 0; i++ {
			d[r.IntN(len(d))] = 0
		}
	case 10: // two inputs glued
		d = append(d, d...)
	default: // gzip header, then garbage
		d = append([]byte{0x1f, 0x8b, 8, 0}, d...)
	}
	return d
}

// hostileFlagValues are values every flag gets at some point. Paths stay
// inside the campaign's directory (the tests may run as root): a flag that
// names a file to write gets writeValues instead.
var hostileFlagValues = []string{"", "-1", "0", "NaN", "Inf", "-Inf", "1e309", "99999999999999999999", "abc", "1b", "0.5",
	strings.Repeat("9", 400), "\x01\x7f", "100", "100G", "-5s", "1h", "/dev/zero", "1/0", "1,2,,", "h0>h1", "0x0", "é\u202e",
	"--json", "-", "emptydir", "x.yaml", "true", "false", "2", "10ms", "0s", "warn", "400G", "sonic", "targets,incomplete"}

// sensibleValues are values a user would give, for the flags a hostile
// one joins.
var sensibleValues = map[string][]string{
	"nic-speed": {"100G", "400Gbps", "200G"}, "nics-per-node": {"1", "2", "8"}, "interval": {"10s", "1s", "0"},
	"fail-on": {"targets", "incomplete", "targets,incomplete"}, "engine": {"auto", "packet", "fluid"},
	"seed": {"1", "7"}, "pcap-at": {"h0/p0", "h1-p0", "sw0/p1"}, "snaplen": {"0", "128"}, "threads": {"0", "2"},
	"max-memory": {"2GiB", "100MiB"}, "max-events": {"3000000", "100000"}, "nccl-tests": {"all_reduce_perf -b 8M -e 64M -f 2"},
	"shard-count": {"1", "2"}, "shard-index": {"0", "1"}, "workers": {"1", "2"}, "top": {"3"}, "bin": {"10us", "1ms"},
	"count": {"10", "0"}, "qp": {"0x000101", "257"}, "flow": {"h0>h1", "h0<>h17", "10.0.0.1>10.0.0.2"}, "link-speed": {"100G"},
	"target": {"sonic", "mlnx_qos", "mlxconfig", "dcqcn-sysfs", "nccl-env"}, "device": {"mlx5_0", "mlx5_3"},
	"if": {"eth0", "eth0,eth1"}, "ports": {"Ethernet0", "Ethernet0,Ethernet4"}, "space": {"sp.yaml"},
	"speed": {"100G", "0.001", "1"}, "cable": {"3m", "300m"}, "mtu": {"9100", "4096"}, "formula": {"mellanox", "sonic"},
	"log-level": {"debug", "info", "warn", "error"}, "example": {"incast-pfc", "perftest", "single-flow"},
	"env": {"x.yaml"}, "root": {"sys/h0", "emptydir"}, "timeout": {"1s", "0"}, "twin": {"x.yaml"},
	"path.sysfs": {"sys/h0/sys"}, "web.listen-address": {"127.0.0.1:0"}, "web.max-requests": {"1", "0"},
}

// writeValues are the values of flags that name something to write.
var writeValues = []string{"", "\x01", "emptydir", "victim.yaml", "sub/dir/deep", "../up", "out", "out", "-", strings.Repeat("d", 300)}

// A flagSite is a flag of one command.
type flagSite struct {
	path []string // command path under rocelab
	name string
	typ  string // pflag's Value.Type()
}

// hostileSites lists every flag of every command (each command's own and
// the global ones), help aside.
func hostileSites() map[string][]flagSite {
	sites := map[string][]flagSite{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		p := strings.Fields(c.CommandPath())[1:]
		if len(p) > 0 && p[0] != "help" && p[0] != "completion" || len(p) == 2 && p[0] == "completion" {
			key := strings.Join(p, " ")
			c.Flags().VisitAll(func(f *pflag.Flag) {
				if f.Name != "help" && f.Name != "version" {
					sites[key] = append(sites[key], flagSite{p, f.Name, f.Value.Type()})
				}
			})
			c.InheritedFlags().VisitAll(func(f *pflag.Flag) {
				if f.Name != "help" && f.Name != "version" {
					sites[key] = append(sites[key], flagSite{p, f.Name, f.Value.Type()})
				}
			})
			if c.Runnable() && len(sites[key]) == 0 {
				sites[key] = []flagSite{{path: p}}
			}
		}
		for _, cc := range c.Commands() {
			walk(cc)
		}
	}
	walk(newRootCmd())
	return sites
}

// hostileCases builds the campaign: n cases from seed.
func hostileCases(t testing.TB, dir string, seeds *hostileSeeds, n int, seed uint64) []hostileCase {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	file := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return name
	}
	pick := func(xs [][]byte) []byte { return xs[r.IntN(len(xs))] }
	sites := hostileSites()
	var commands []string
	for k := range sites {
		commands = append(commands, k)
	}
	sort.Strings(commands)

	// A twin incident and sysfs trees: what diagnose, collect and the
	// exporter read.
	os.MkdirAll(filepath.Join(dir, "emptydir"), 0o755)
	small, _ := examples.FS.ReadFile("incast-pfc.yaml")
	file("x.yaml", small)
	file("victim.yaml", small)
	if code := execute([]string{"run", "-q", filepath.Join(dir, "x.yaml"), "--out", filepath.Join(dir, "inc"), "--out-sysfs", filepath.Join(dir, "sys")}, nil, io.Discard, io.Discard); code != 0 {
		t.Fatalf("run --out: exit %d", code)
	}
	var incident [][]byte
	filepath.WalkDir(filepath.Join(dir, "inc"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if data, err := os.ReadFile(p); err == nil && len(data) < 1<<20 {
				incident = append(incident, data)
			}
		}
		return nil
	})
	artifacts := append(append([][]byte{}, seeds.artifacts...), incident...)

	// baseline gives a command's arguments that make it do its work, so a
	// hostile flag meets a running command, not a missing argument.
	baseline := func(cmd string, k int) (args []string, judges, server bool) {
		switch cmd {
		case "run":
			if r.IntN(3) == 0 {
				return []string{"-q", "--max-events", "3000000", "--example", "perftest"}, false, false
			}
			return []string{"-q", "--max-events", "3000000", "x.yaml"}, false, false
		case "tune":
			sp := file(fmt.Sprintf("sp%d.yaml", k), []byte("params:\n  switch.ecn.kmin: [150KB, 400KB]\n"))
			return []string{"-q", "--workers", "1", "--max-events", "3000000", "--space", sp, "x.yaml"}, false, false
		case "merge":
			return []string{"shard0.json", "shard1.json"}, false, false
		case "tune merge":
			return []string{"tune0.json"}, false, false
		case "diagnose":
			if r.IntN(3) == 0 {
				return []string{"inc"}, true, false
			}
			return []string{file(fmt.Sprintf("f%d.txt", k), pick(artifacts))}, true, false
		case "capture":
			return []string{file(fmt.Sprintf("c%d.pcap", k), pick(seeds.captures))}, true, false
		case "lint":
			return []string{"x.yaml"}, true, false
		case "config gen":
			return []string{"--target", []string{"sonic", "mlnx_qos", "mlxconfig", "dcqcn-sysfs", "nccl-env"}[r.IntN(5)], "x.yaml"}, false, false
		case "collect":
			return []string{"--root", "sys/h0", "--interval", "0", "--timeout", "2s", "--out", fmt.Sprintf("col%d.tar.gz", k)}, false, false
		case "exporter":
			if r.IntN(2) == 0 {
				return []string{"--web.listen-address", "127.0.0.1:0", "--twin", "x.yaml"}, false, true
			}
			return []string{"--web.listen-address", "127.0.0.1:0", "--path.sysfs", "sys/h0/sys", "--path.ethtool-stats", "sys/h0/ethtool-stats", "--path.mlnx-qos", "sys/h0/mlnx_qos"}, false, true
		case "examples":
			return []string{[]string{"", "incast-pfc", "nope"}[r.IntN(3)]}, false, false
		}
		return nil, false, false
	}
	value := func(f flagSite, hostile bool) string {
		if strings.Contains(f.name, "out") || f.name == "pcap" {
			return writeValues[r.IntN(len(writeValues))]
		}
		if vs, ok := sensibleValues[f.name]; ok && !hostile {
			return vs[r.IntN(len(vs))]
		}
		if !hostile || r.IntN(3) == 0 {
			switch f.typ {
			case "bool":
				return []string{"true", "false", "2", ""}[r.IntN(4)]
			case "int", "int64", "uint64":
				return []string{"0", "1", "2", "-1", "7"}[r.IntN(5)]
			case "duration":
				return []string{"0", "1ms", "1s", "-1s", "1"}[r.IntN(5)]
			}
		}
		return hostileFlagValues[r.IntN(len(hostileFlagValues))]
	}

	// Cases that must stay small and quick (items 11-14 of issue 21).
	cases := []hostileCase{
		{name: "config gen /dev/zero", args: []string{"config", "gen", "--target", "sonic", "/dev/zero"}, limit: 100 << 20},
		{name: "tune /dev/zero", args: []string{"tune", "/dev/zero"}, limit: 100 << 20},
		{name: "tune --space /dev/zero", args: []string{"tune", "--space", "/dev/zero", "x.yaml"}, limit: 100 << 20},
		{name: "run /dev/zero", args: []string{"run", "/dev/zero"}, limit: 100 << 20},
		{name: "lint /dev/zero", args: []string{"lint", "/dev/zero"}, limit: 100 << 20, judges: true},
		{name: "merge /dev/zero", args: []string{"merge", "/dev/zero"}, limit: 100 << 20},
		{name: "diagnose /dev/zero", args: []string{"diagnose", "/dev/zero"}, limit: 100 << 20, judges: true},
		{name: "capture /dev/zero", args: []string{"capture", "/dev/zero"}, limit: 100 << 20, judges: true},
		{name: "exporter --web.config.file /dev/zero", args: []string{"exporter", "--web.config.file", "/dev/zero", "--web.listen-address", "127.0.0.1:0", "--twin", "x.yaml"}, limit: 100 << 20, server: true},
		{name: "run deep nesting", args: []string{"run", file("deep.yaml", []byte("a: "+strings.Repeat("[", 100000)+strings.Repeat("]", 100000)+"\n"))}, limit: 100 << 20},
		{name: "lint deep nesting", args: []string{"lint", file("deep2.yaml", []byte("switch: "+strings.Repeat("[", 100000)+strings.Repeat("]", 100000)+"\n"))}, limit: 100 << 20, judges: true},
		{name: "diagnose FIFO", args: []string{"diagnose", "@FIFO"}, fifo: seeds.artifacts[0], judges: true, limit: 100 << 20},
		{name: "config gen -", args: []string{"config", "gen", "--target", "nccl-env", "-"}, stdin: small},
		{name: "calc nope", args: []string{"calc", "nope"}},
		{name: "completion nope", args: []string{"completion", "nope"}},
		{name: "diagnose empty dir", args: []string{"diagnose", "emptydir"}, judges: true},
		{name: "diagnose incident", args: []string{"diagnose", "inc"}, judges: true},
		{name: "calc headroom NaN", args: []string{"calc", "headroom", "--cell-occupancy", "NaN"}},
	}
	var shards [][]byte
	for i := range 2 {
		var b bytes.Buffer
		if code := execute([]string{"run", "-q", filepath.Join(dir, "x.yaml"), "--shard-index", fmt.Sprint(i), "--shard-count", "2"}, nil, &b, io.Discard); code != 0 {
			t.Fatalf("run --shard-index %d: exit %d", i, code)
		}
		file(fmt.Sprintf("shard%d.json", i), b.Bytes())
		shards = append(shards, b.Bytes())
	}
	var tb bytes.Buffer
	file("sp.yaml", []byte("params:\n  switch.ecn.kmin: [150KB, 400KB]\n"))
	if code := execute([]string{"tune", "-q", "--workers", "1", "--space", filepath.Join(dir, "sp.yaml"), "--shard-index", "0", "--shard-count", "1", "--json", filepath.Join(dir, "x.yaml")}, nil, &tb, io.Discard); code != 0 {
		t.Fatalf("tune --shard-index: exit %d", code)
	}
	file("tune0.json", tb.Bytes())
	// Special files and paths any file argument may meet (the third
	// campaign): /dev/null, links to /dev/zero and to themselves, a path
	// through a file, a missing directory.
	os.Symlink("/dev/zero", filepath.Join(dir, "zero-link"))
	os.Symlink("self-link", filepath.Join(dir, "self-link"))
	specials := []string{"/dev/null", "zero-link", "self-link", "x.yaml/", "x.yaml/y", "nodir/x.yaml", "emptydir", "inc/result.json", "inc/flows.csv", "sys"}
	readers := [][]string{{"run", "-q"}, {"lint"}, {"diagnose"}, {"diagnose", "--json"}, {"capture"}, {"merge"}, {"config", "gen", "--target", "sonic"}, {"tune", "-q"}, {"tune", "-q", "--space", "@", "x.yaml"}}
	for len(cases) < n {
		k := len(cases)
		switch r.IntN(15) {
		case 12: // the twin's incident with one to three files mutated, removed or replaced by a FIFO, diagnosed whole
			d := fmt.Sprintf("inc%d", k)
			var names []string
			filepath.WalkDir(filepath.Join(dir, "inc"), func(p string, e fs.DirEntry, err error) error {
				if err == nil && !e.IsDir() {
					rel, _ := filepath.Rel(filepath.Join(dir, "inc"), p)
					data, _ := os.ReadFile(p)
					q := filepath.Join(dir, d, rel)
					os.MkdirAll(filepath.Dir(q), 0o755)
					os.WriteFile(q, data, 0o644)
					names = append(names, rel)
				}
				return nil
			})
			for j := 0; j < 1+r.IntN(3); j++ {
				p := filepath.Join(dir, d, names[r.IntN(len(names))])
				if st, err := os.Lstat(p); err != nil || !st.Mode().IsRegular() {
					continue // removed or made a FIFO by an earlier draw
				}
				data, _ := os.ReadFile(p)
				switch r.IntN(6) {
				case 0:
					os.Remove(p)
				case 1:
					os.Remove(p)
					syscall.Mkfifo(p, 0o600)
				default:
					os.WriteFile(p, mutate(r, data), 0o644)
				}
			}
			cmd := []string{"diagnose", d}
			if r.IntN(2) == 0 {
				cmd = []string{"diagnose", "--json", d}
			}
			cases = append(cases, hostileCase{name: "diagnose mutated incident", args: cmd, judges: true, limit: 100 << 20})
		case 13: // a special file or path where a command reads a file
			rd := readers[r.IntN(len(readers))]
			sp := specials[r.IntN(len(specials))]
			args := append([]string{}, rd...)
			if len(args) > 2 && args[len(args)-2] == "@" {
				args[len(args)-2] = sp
			} else {
				args = append(args, sp)
			}
			judges := rd[0] == "diagnose" || rd[0] == "lint" || rd[0] == "capture"
			cases = append(cases, hostileCase{name: "special path " + strings.Join(rd, " "), args: args, judges: judges, limit: 100 << 20})
		case 14: // stdin and files together: a mutated artifact on stdin beside the incident
			in := mutate(r, pick(artifacts))
			cases = append(cases, hostileCase{name: "diagnose stdin and incident", args: []string{"diagnose", "-", "inc"}, stdin: in, judges: true})
		case 0, 1: // run on a mutated scenario, bounded
			f := file(fmt.Sprintf("s%d.yaml", k), mutate(r, pick(seeds.scenarios)))
			cases = append(cases, hostileCase{name: "run mutated scenario", args: []string{"run", "-q", "--max-events", "3000000", f}})
		case 2: // lint or config gen on a mutated description
			f := file(fmt.Sprintf("d%d.yaml", k), mutate(r, pick(seeds.scenarios)))
			if r.IntN(2) == 0 {
				cases = append(cases, hostileCase{name: "lint mutated", args: []string{"lint", f}, judges: true})
			} else {
				tg := []string{"sonic", "mlnx_qos", "mlxconfig", "dcqcn-sysfs", "nccl-env"}[r.IntN(5)]
				cases = append(cases, hostileCase{name: "config gen mutated", args: []string{"config", "gen", "--target", tg, f}})
			}
		case 3, 4: // diagnose mutated artifacts, several at once
			cmd := []string{"diagnose"}
			if r.IntN(2) == 0 {
				cmd = append(cmd, "--json")
			}
			for j := 0; j < 1+r.IntN(3); j++ {
				cmd = append(cmd, file(fmt.Sprintf("a%d-%d.txt", k, j), mutate(r, pick(artifacts))))
			}
			cases = append(cases, hostileCase{name: "diagnose mutated", args: cmd, judges: true})
		case 5: // captures
			f := file(fmt.Sprintf("c%d.pcap", k), mutate(r, pick(seeds.captures)))
			cmd := []string{"capture", f}
			if r.IntN(2) == 0 {
				cmd = []string{"diagnose", f}
			}
			cases = append(cases, hostileCase{name: cmd[0] + " mutated capture", args: cmd, judges: true})
		case 6: // tune on a mutated space over a small scenario
			sp := file(fmt.Sprintf("sp%d.yaml", k), mutate(r, []byte("params:\n  switch.ecn.kmin: [150KB, 400KB]\n  seed: {range: [1, 3], steps: 2}\n")))
			cases = append(cases, hostileCase{name: "tune mutated space", args: []string{"tune", "-q", "--workers", "1", "--max-events", "3000000", "--space", sp, "x.yaml"}})
		case 7: // merge mutated shards
			i := r.IntN(2)
			f := file(fmt.Sprintf("m%d.json", k), mutate(r, shards[i]))
			cases = append(cases, hostileCase{name: "merge mutated", args: []string{"merge", f, fmt.Sprintf("shard%d.json", 1-i)}})
		case 8: // stdin
			cmd := [][]string{{"diagnose", "-"}, {"run", "-q", "--max-events", "3000000", "-"}, {"lint", "-"}, {"capture", "-"}, {"merge", "-"}}[r.IntN(5)]
			in := mutate(r, pick(append(append([][]byte{}, seeds.scenarios...), artifacts...)))
			judges := cmd[0] == "diagnose" || cmd[0] == "lint" || cmd[0] == "capture"
			cases = append(cases, hostileCase{name: cmd[0] + " stdin", args: cmd, stdin: in, judges: judges})
		default: // one to three hostile flag values on a working command
			cmd := commands[r.IntN(len(commands))]
			base, judges, server := baseline(cmd, k)
			args := strings.Fields(cmd)
			var names []string
			nf := 1 + r.IntN(3)
			for j := 0; j < nf; j++ {
				f := sites[cmd][r.IntN(len(sites[cmd]))]
				if f.name == "" {
					continue
				}
				v := value(f, j == nf-1) // the last flag hostile, the others sensible
				if r.IntN(4) == 0 && f.typ != "bool" {
					args = append(args, "--"+f.name, v) // the separate form
				} else {
					args = append(args, "--"+f.name+"="+v)
				}
				names = append(names, "--"+f.name)
				judges = judges || f.name == "fail-on"
			}
			args = append(args, base...)
			cases = append(cases, hostileCase{name: "flags " + cmd + " " + strings.Join(names, " "), args: args, judges: judges, server: server})
		}
	}
	return cases[:n]
}

// TestHostileCampaign runs the campaign and fails on any panic, hang,
// wrong exit code or runaway memory, listing each with its command line.
func TestHostileCampaign(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	dir := t.TempDir()
	cases := hostileCases(t, dir, loadHostileSeeds(t), *hostileN, *hostileSeed)
	var log io.Writer
	if *hostileLog != "" {
		f, err := os.Create(*hostileLog)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		log = f
	}
	var bad []string
	counts := map[string]int{}
	var cpu time.Duration
	var maxRSS int64
	for i := range cases {
		c := &cases[i]
		timeout := 120 * time.Second
		if c.server {
			timeout = 3 * time.Second
		}
		o := runHostile(t, dir, c, timeout)
		cpu += o.cpu
		maxRSS = max(maxRSS, o.rss)
		counts[fmt.Sprintf("exit %d", o.code)]++
		if log != nil {
			fmt.Fprintf(log, "%d %s: exit %d %s %dMB %q\n    %s\n", i, c.name, o.code, o.cpu.Round(time.Millisecond), o.rss>>20, c.args, firstLines(o.stderr, 2))
		}
		if v := c.verdict(o); v != "" {
			counts[v]++
			bad = append(bad, fmt.Sprintf("%s: %s\n    rocelab %q\n    %s", c.name, v, c.args, firstLines(o.stderr, 3)))
		}
	}
	t.Logf("%d cases (seed %d): %v; %s CPU, largest %d MB resident", len(cases), *hostileSeed, counts, cpu.Round(time.Millisecond), maxRSS>>20)
	if len(bad) > 0 {
		t.Errorf("%d of %d cases went wrong:\n%s", len(bad), len(cases), strings.Join(bad, "\n"))
	}
}

func firstLines(s string, n int) string {
	ls := strings.SplitN(strings.TrimSpace(s), "\n", n+1)
	if len(ls) > n {
		ls = ls[:n]
	}
	return strings.Join(ls, " | ")
}
