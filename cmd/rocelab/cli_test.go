package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"rocelab/examples"
)

// rocelabIn runs the command line with stdin.
func rocelabIn(t *testing.T, stdin []byte, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := execute(args, bytes.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func gz(data []byte) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(data)
	w.Close()
	return b.Bytes()
}

// Bad flag values are refused with what is expected, before any run.
func TestRunFlagChecks(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--max-events", "0"}, "--max-events: expected a positive number of scheduler events"},
		{[]string{"run", "--max-events", "-5"}, "--max-events: expected a positive number"},
		{[]string{"run", "--example", "single-flow", "--pcap", filepath.Join(t.TempDir(), "x.pcapng"), "--snaplen", "60"}, "--snaplen: 60 bytes cut the RoCE headers"},
		{[]string{"run", "--pcap", filepath.Join(t.TempDir(), "x.pcapng")}, "--pcap and --out-sysfs take one scenario at a time"},
		{[]string{"run", "--snaplen", "-1"}, "--snaplen: expected 0 (whole frames)"},
		{[]string{"run", "--fail-on", "slow"}, "--fail-on: expected targets or incomplete"},
		{[]string{"run", "--force"}, "--force needs --out DIR or --out-sysfs DIR"},
		{[]string{"run", "--log-level", "loud"}, "--log-level: expected debug, info, warn or error"},
		{[]string{"run", "--max-memory", "0"}, "--max-memory: expected a positive size"},
	} {
		code, out, stderr := rocelab(t, c.args...)
		if code != 2 || out != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stdout %d bytes, stderr %q; want exit 2 and %q", c.args, code, len(out), stderr, c.want)
		}
	}
}

// --out is checked before the simulation: a directory holding other files
// is refused, an earlier run's output is replaced only with --force, and
// then only the files that run wrote are removed.
func TestRunOutDirChecks(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine\n"), 0o644)
	code, out, stderr := rocelab(t, "run", "--example", "single-flow", "-o", dir)
	if code != 2 || out != "" || !strings.Contains(stderr, "is not empty (notes.txt) and holds no output of an earlier 'rocelab run --out'") {
		t.Fatalf("foreign dir: exit %d, stdout %d bytes, %s", code, len(out), stderr)
	}
	if code, _, _ := rocelab(t, "run", "--example", "single-flow", "-o", dir, "--force"); code != 2 {
		t.Errorf("--force on a foreign dir: exit %d", code)
	}

	out1 := filepath.Join(t.TempDir(), "out")
	if code, _, stderr := rocelab(t, "run", "--example", "incast-nopfc", "--out", out1); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	code, out, stderr = rocelab(t, "run", "--example", "single-flow", "--out", out1)
	if code != 2 || out != "" || !strings.Contains(stderr, "holds the output of an earlier run") || !strings.Contains(stderr, "--force") {
		t.Fatalf("reused dir: exit %d %s", code, stderr)
	}
	os.WriteFile(filepath.Join(out1, "README"), []byte("kept\n"), 0o644)
	code, _, stderr = rocelab(t, "run", "--example", "single-flow", "--out", out1, "--force")
	if code != 0 || !strings.Contains(stderr, "also holds files rocelab did not write, left in place: README") {
		t.Fatalf("--force: exit %d %s", code, stderr)
	}
	// incast-nopfc has 17 hosts; single-flow 2: the old per-port files are gone.
	if _, err := os.Stat(filepath.Join(out1, "ethtool", "h16-eth0.txt")); !os.IsNotExist(err) {
		t.Errorf("stale h16-eth0.txt: %v", err)
	}
	for _, f := range []string{"README", "ethtool/h1-eth0.txt", "hw_counters/h1.txt", "ibv_devinfo/h1.txt", "result.json", manifestName} {
		if _, err := os.Stat(filepath.Join(out1, f)); err != nil {
			t.Error(err)
		}
	}
}

// Inputs are handled alike: "-" is stdin, gzip is read by its magic, a
// directory is refused with the files it holds and the command that reads
// them all.
func TestInputsAlike(t *testing.T) {
	scen, _ := examples.FS.ReadFile("single-flow.yaml")
	for _, in := range [][]byte{scen, gz(scen)} {
		code, out, stderr := rocelabIn(t, in, "run", "-", "-j")
		if code != 0 || !strings.Contains(out, `"file": "<stdin>"`) {
			t.Errorf("run -: exit %d %s", code, stderr)
		}
	}
	if code, _, stderr := rocelabIn(t, scen, "tune", "-"); code != 2 || !strings.HasPrefix(stderr, "rocelab: <stdin> has no tune: section") {
		t.Errorf("tune - without a space: exit %d %s", code, stderr)
	}
	dir := t.TempDir()
	gzScen := filepath.Join(dir, "s.yaml.gz")
	os.WriteFile(gzScen, gz(scen), 0o644)
	if code, _, stderr := rocelab(t, "run", gzScen, "-q"); code != 0 {
		t.Errorf("run s.yaml.gz: exit %d %s", code, stderr)
	}
	if code, _, stderr := rocelab(t, "run", dir); code != 2 || !strings.Contains(stderr, dir+" is a directory: expected a scenario file such as "+gzScen) {
		t.Errorf("run DIR: exit %d %s", code, stderr)
	}

	pcap := filepath.Join(dir, "twin.pcapng")
	if code, _, stderr := rocelab(t, "run", "--example", "single-flow", "--pcap", pcap, "-q"); code != 0 {
		t.Fatal(stderr)
	}
	data, _ := os.ReadFile(pcap)
	gzPcap := filepath.Join(dir, "twin.pcapng.gz")
	os.WriteFile(gzPcap, gz(data), 0o644)
	_, want, _ := rocelab(t, "capture", pcap)
	want = strings.ReplaceAll(want, pcap, "NAME")
	for name, c := range map[string]struct {
		args  []string
		stdin []byte
	}{
		"stdin":      {[]string{"capture", "-"}, data},
		"gzip stdin": {[]string{"capture", "-"}, gz(data)},
		"gzip file":  {[]string{"capture", gzPcap}, nil},
	} {
		code, out, stderr := rocelabIn(t, c.stdin, c.args...)
		out = strings.NewReplacer(stdinName, "NAME", gzPcap, "NAME").Replace(out)
		if code != 0 || out != want {
			t.Errorf("%s: exit %d %s\n%s", name, code, stderr, out)
		}
	}
	code, _, stderr := rocelab(t, "capture", dir)
	if code != 2 || !strings.Contains(stderr, dir+" is a directory: expected a capture file such as "+pcap+", "+gzPcap+"; 'rocelab diagnose "+dir+"' reads every capture") {
		t.Errorf("capture DIR: exit %d %s", code, stderr)
	}
}

// A cut capture is analysed, with the truncation in its notes and
// findings; the exit status follows the findings (0 here), not 2.
func TestCaptureTruncatedExit(t *testing.T) {
	dir := t.TempDir()
	pcap := filepath.Join(dir, "twin.pcapng")
	if code, _, stderr := rocelab(t, "run", "--example", "single-flow", "--pcap", pcap, "-q"); code != 0 {
		t.Fatal(stderr)
	}
	data, _ := os.ReadFile(pcap)
	cut := filepath.Join(dir, "cut.pcapng")
	os.WriteFile(cut, data[:len(data)-100], 0o644)
	code, out, stderr := rocelab(t, "capture", cut)
	if code != 0 || !strings.Contains(out, "20479 packets") || !strings.Contains(out, "truncated: the capture ends") || !strings.Contains(out, "warn  capture.truncated:") {
		t.Errorf("exit %d %s\n%s", code, stderr, out)
	}
}

// -c and --qp/--flow select packets; hosts are named in --flow.
func TestCaptureFilters(t *testing.T) {
	pcap := filepath.Join(t.TempDir(), "twin.pcapng")
	if code, _, stderr := rocelab(t, "run", "--example", "incast-pfc", "--pcap", pcap, "--pcap-at", "left/p17", "-q"); code != 0 {
		t.Fatal(stderr)
	}
	_, all, _ := rocelab(t, "capture", "-j", pcap)
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"-c", "10"}, []string{`"packets": 10,`, `"stopped_at_count": true`}},
		{[]string{"--qp", "0x101"}, []string{`"qpn": 257`, `"filter": "qp 0x000101"`, `"roce_packets": 2048,`}},
		{[]string{"--flow", "h16>h18"}, []string{`"filter": "flow h16>h18"`, `"src": "10.0.0.17"`, `"roce_packets": 2048,`}},
	} {
		code, out, stderr := rocelab(t, append([]string{"capture", "-j", pcap}, c.args...)...)
		if code == 2 { // 1 is an error-level finding on the packets kept
			t.Fatalf("%v: exit %d %s", c.args, code, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: no %s in the output", c.args, w)
			}
		}
		if len(out) >= len(all) {
			t.Errorf("%v: the filtered analysis is no smaller", c.args)
		}
	}
	for _, bad := range [][]string{{"--qp", "0x1000000"}, {"--flow", "h0"}, {"-c", "-1"}} {
		if code, _, _ := rocelab(t, append([]string{"capture", pcap}, bad...)...); code != 2 {
			t.Errorf("%v: exit %d", bad, code)
		}
	}
}

// --fail-on turns unmet targets or incomplete flows into exit 1; without
// it a run exits 0 whatever it shows.
func TestFailOn(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"run", "-q"}, 0, ""},
		{[]string{"run", "-q", "--fail-on", "targets", "--example", "incast-pfc"}, 1, "--fail-on: health targets FAIL: p99_latency_us, bandwidth_utilization, pfc_pause_ratio"},
		{[]string{"run", "-q", "--fail-on", "targets", "--nccl-tests", "all_reduce_perf -b 64M -e 64M -g 8 -n 1 -w 0"}, 1, "--fail-on: as-found: health targets FAIL: bandwidth_utilization"},
		{[]string{"run", "-q", "--fail-on", "incomplete", "--example", "incast-nopfc"}, 1, "flows did not complete"},
		{[]string{"run", "-q", "--fail-on", "incomplete", "--example", "single-flow"}, 0, ""},
	} {
		code, out, stderr := rocelab(t, c.args...)
		if code != c.code || out == "" || c.want != "" && !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d %q, want %d %q", c.args, code, stderr, c.code, c.want)
		}
	}
}

// Every command's help documents its exit status.
func TestHelpExitStatus(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		_, out, _ := rocelab(t, append(strings.Fields(c.CommandPath())[1:], "--help")...)
		if !strings.Contains(out, "Exit status") {
			t.Errorf("%q --help has no exit status", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd())
}

// --version reports the module version and the VCS revision.
func TestVersion(t *testing.T) {
	code, out, _ := rocelab(t, "--version")
	if code != 0 || !strings.HasPrefix(out, "rocelab ") {
		t.Errorf("exit %d %q", code, out)
	}
	bi := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v0.3.0"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.time", Value: "2026-11-30T12:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	if got, want := describeBuild(bi), "v0.3.0 (revision 0123456789ab of 2026-11-30T12:00:00Z, with local changes), go1.26.0"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// -q leaves only results, warnings and errors; INFO lines show by default
// when no progress bar does, and are off by default on a terminal.
func TestQuietAndLogLevel(t *testing.T) {
	_, _, stderr := rocelab(t, "run", "--example", "single-flow")
	if !strings.Contains(stderr, "level=INFO msg=running") || strings.Contains(stderr, "time=") {
		t.Errorf("default: %q", stderr)
	}
	for _, args := range [][]string{{"-q"}, {"--log-level", "warn"}} {
		_, out, stderr := rocelab(t, append([]string{"run", "--example", "single-flow"}, args...)...)
		if stderr != "" || out == "" {
			t.Errorf("%v: stderr %q", args, stderr)
		}
	}
	var b bytes.Buffer
	ls, _ := newLogSetup(&b, false, "", true)
	if !ls.progress || ls.log.Enabled(context.Background(), slog.LevelInfo) || !ls.log.Enabled(context.Background(), slog.LevelWarn) {
		t.Errorf("terminal: progress %v, info %v", ls.progress, ls.log.Enabled(context.Background(), slog.LevelInfo))
	}
	ls, _ = newLogSetup(&b, false, "info", true)
	if !ls.log.Enabled(context.Background(), slog.LevelInfo) {
		t.Error("--log-level info on a terminal: INFO off")
	}
	ls, _ = newLogSetup(&b, true, "", true)
	if ls.progress {
		t.Error("-q on a terminal: progress bar on")
	}
}

// Scenario warnings reach stderr with their position.
func TestRunWarnings(t *testing.T) {
	scen := []byte("topology: {kind: single-switch, hosts: 2}\ntraffic: {flows: [{src: h0, dst: h1, bytes: 1MiB, rate: 400G}]}\n")
	code, _, stderr := rocelabIn(t, scen, "run", "-", "-q")
	if code != 0 || !strings.Contains(stderr, "rocelab: warning: <stdin>:2:57: traffic.flows[0].rate: 400Gbps is above h0's 100Gbps link") {
		t.Errorf("exit %d %q", code, stderr)
	}
}

// One port spelling: reports say left/p16, files left-p16.txt, and
// --pcap-at takes both (and the older left:16) for the same port.
func TestPortSpelling(t *testing.T) {
	dir := t.TempDir()
	var caps [][]byte
	for _, at := range []string{"left/p16", "left-p16", "left:16"} {
		p := filepath.Join(dir, "c.pcapng")
		if code, _, stderr := rocelab(t, "run", "--example", "incast-pfc", "--pcap", p, "--pcap-at", at, "-q"); code != 0 {
			t.Fatalf("%s: %s", at, stderr)
		}
		data, _ := os.ReadFile(p)
		caps = append(caps, data)
	}
	if !bytes.Equal(caps[0], caps[1]) || !bytes.Equal(caps[0], caps[2]) {
		t.Error("the spellings capture different ports")
	}
	out := filepath.Join(dir, "out")
	code, text, _ := rocelab(t, "run", "--example", "incast-pfc", "-o", out, "-q")
	if code != 0 || !strings.Contains(text, "left/p17 right/p2") {
		t.Fatalf("exit %d", code)
	}
	data, err := os.ReadFile(filepath.Join(out, "ethtool", "left-p16.txt"))
	if err != nil || !strings.Contains(string(data), "switch port left/p16") {
		t.Errorf("left-p16.txt: %v", err)
	}
}

// Completion offers example and port names; short flags work.
func TestCompletionAndShortFlags(t *testing.T) {
	_, out, _ := rocelab(t, "__complete", "examples", "")
	if !strings.Contains(out, "incast-pfc\n") || !strings.Contains(out, "leafspine-permutation\n") {
		t.Errorf("examples: %q", out)
	}
	_, out, _ = rocelab(t, "__complete", "run", "--example", "")
	if !strings.Contains(out, "single-flow\n") {
		t.Errorf("--example: %q", out)
	}
	_, out, _ = rocelab(t, "__complete", "run", "--example", "incast-pfc", "--pcap-at", "left/")
	if !strings.Contains(out, "left/p16\n") || strings.Contains(out, "right/") {
		t.Errorf("--pcap-at: %q", out)
	}
	_, out, _ = rocelab(t, "__complete", "run", "--fail-on", "")
	if !strings.Contains(out, "targets\n") {
		t.Errorf("--fail-on: %q", out)
	}
	code, a, _ := rocelab(t, "run", "-j", "--example", "single-flow", "-q")
	_, b, _ := rocelab(t, "run", "--json", "--example", "single-flow", "-q")
	if code != 0 || a != b || !strings.HasPrefix(a, "{") {
		t.Errorf("-j differs from --json")
	}
}

// TestOutLocked: a run does not write a directory another live run holds
// (its lock names a live process), and takes over a lock left by one that
// has gone.
func TestOutLocked(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, lockName), []byte(fmt.Sprintf("%d\n", os.Getpid())), 0o644)
	code, _, stderr := rocelab(t, "run", "-q", "--example", "single-flow", "--out", dir)
	if code != 2 || !strings.Contains(stderr, "is being written by another rocelab") {
		t.Fatalf("locked dir: exit %d: %s", code, stderr)
	}
	os.WriteFile(filepath.Join(dir, lockName), []byte("999999999\n"), 0o644)
	if code, _, stderr := rocelab(t, "run", "-q", "--example", "single-flow", "--out", dir); code != 0 {
		t.Fatalf("stale lock: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, lockName)); !os.IsNotExist(err) {
		t.Errorf("lock left behind: %v", err)
	}
}

// TestGroupsNeedASubcommand: a command that only groups others exits 2
// without one or with an unknown one, naming the valid ones; cobra's own
// usage errors show the command's usage line.
func TestGroupsNeedASubcommand(t *testing.T) {
	for _, args := range [][]string{{"calc"}, {"calc", "nope"}, {"config"}, {"completion", "nope"}} {
		code, out, stderr := rocelab(t, args...)
		if code != 2 || out != "" || !strings.Contains(stderr, "expected one of") && !strings.Contains(stderr, "needs a subcommand") {
			t.Errorf("%v: exit %d, %q", args, code, stderr)
		}
	}
	if code, _, stderr := rocelab(t, "calc", "mtu"); code != 2 || !strings.Contains(stderr, "rocelab: calc mtu takes one argument, got none\nusage: rocelab calc mtu NETDEV_MTU") {
		t.Errorf("calc mtu: exit %d, %q", code, stderr)
	}
	if code, _, stderr := rocelab(t, "run", "a.yaml", "b.yaml"); code != 2 || !strings.Contains(stderr, "rocelab: run takes at most one argument, got 2 (a.yaml b.yaml)") {
		t.Errorf("run a b: exit %d, %q", code, stderr)
	}
	if code, _, stderr := rocelab(t, "tune", "../../examples/incast-pfc.yaml"); code != 2 || !strings.Contains(stderr, "switch.ecn.kmin: [50KB, 150KB, 400KB]") {
		t.Errorf("tune without a space: exit %d, %q", code, stderr)
	}
	if code, _, stderr := rocelab(t, "run", "--example", ""); code != 2 || !strings.Contains(stderr, "--example") {
		t.Errorf("--example \"\": exit %d, %q", code, stderr)
	}
}

// TestExamplesWholeSentences: the list gives each example's first
// sentence whole, across its comment's lines.
func TestExamplesWholeSentences(t *testing.T) {
	_, out, _ := rocelab(t, "examples")
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.HasSuffix(l, ".") {
			t.Errorf("cut mid-sentence: %q", l)
		}
	}
	if !strings.Contains(out, "(facts: DCQCN, Zhu et al. SIGCOMM 2015; the mlx5 preset of NVIDIA ConnectX NICs).") {
		t.Errorf("dcqcn-fairness line:\n%s", out)
	}
}

// A mistyped example name is answered with the names there are.
func TestUnknownExampleListsNames(t *testing.T) {
	for _, args := range [][]string{{"examples", "incast"}, {"run", "--example", "incast"}} {
		code, _, stderr := rocelab(t, args...)
		if code != 2 || !strings.Contains(stderr, `no embedded example "incast": expected one of cc-compare, dcqcn-fairness,`) {
			t.Errorf("%v: exit %d %s", args, code, stderr)
		}
	}
}

// A run that fails before writing leaves no empty --out directory behind
// (diagnose would then find nothing in it).
func TestFailedRunLeavesNoOutDir(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("name: bad\ntopology: {kind: single-switch, hosts: 2}\nhost: {mtu: 1500}\n"), 0o644)
	out := filepath.Join(dir, "out")
	if code, _, stderr := rocelab(t, "run", "-q", bad, "--out", out); code != 2 || !strings.Contains(stderr, "host.mtu") {
		t.Fatalf("exit %d %s", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("--out %s left behind: %v", out, err)
	}
}
