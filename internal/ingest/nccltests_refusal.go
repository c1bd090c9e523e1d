package ingest

import (
	"path"
	"strings"
)

// A UsageKind is the kind of check with which nccl-tests refused to run
// what its command line asked.
type UsageKind string

// The kinds of refusal.
const (
	// UsageSize: common.cu's refusals of -b, -e and -i (parsesize takes a
	// number with an optional K, M or G) and of -b above -e.
	UsageSize UsageKind = "size"
	// UsageOption: an option the binary does not have, refused by getopt
	// ("all_reduce_perf: invalid option -- 'q'", "unrecognized option
	// '--foo'", "option requires an argument -- 'b'") and then by
	// nccl-tests ("invalid option '?'": it prints getopt_long's return,
	// not the letter), which prints its usage and exits 0 without running
	// anything.
	UsageOption UsageKind = "option"
	// UsageDevice: the device-API options of nccl-tests 2.17 and later
	// (-D device kernels, -V their CTA count, -H host RMA) refused: the
	// NCCL loaded is older than the option needs, -R 2 (symmetric
	// registration) is missing, -D and -H were given together, the test
	// has no device implementation of that number, or nccl-tests was built
	// against an NCCL whose device API the NCCL loaded does not share.
	UsageDevice UsageKind = "device"
)

// refusals are the lines (whole, or their start when the entry ends in a
// space) with which nccl-tests refuses its command line.
var refusals = []struct {
	line string
	kind UsageKind
}{
	{"invalid size specified for 'minbytes'", UsageSize},
	{"invalid size specified for 'maxbytes'", UsageSize},
	{"invalid size specified for 'stepBytes'", UsageSize},
	{"invalid sizes for 'minbytes' and 'maxbytes': ", UsageSize},
	{"Option -D (device implementation) requires NCCL >= ", UsageDevice},
	{"Option -V (device CTA count) requires NCCL >= ", UsageDevice},
	{"Option -H (host RMA implementation) requires NCCL >= ", UsageDevice},
	{"device implementation (-D > 0) requires enabling symmetric memory registration (-R 2)", UsageDevice},
	{"host RMA implementation (-H) requires enabling symmetric memory registration (-R 2)", UsageDevice},
	{"Cannot use both -H (host RMA implementation) and -D (device implementation) at the same time", UsageDevice},
	{"Incompatible NCCL versions. nccl-tests was compiled with NCCL ", UsageDevice},
	// The tests' own checks of the communicator (all_reduce.cu,
	// alltoall.cu): a device kernel that reaches its peers through CUDA
	// P2P, NVLink multimem (NVLS) or GIN the communicator does not have.
	{"This test requires multimem support, but multimem support is not enabled for this communicator.", UsageDevice},
	{"This test requires GIN support, but GIN support is not enabled for this communicator.", UsageDevice},
}

// refused reads a line with which nccl-tests refused what its command line
// asked for.
func (t *NCCLTests) refused(ln Line, s string) bool {
	s = strings.TrimSpace(s)
	kind := refusalKind(s)
	if kind == "" {
		return false
	}
	t.keepFailure(TestFailure{Usage: kind, Message: strings.Clone(s), Evidence: At(t.src, ln)})
	return true
}

// refusalKind returns the kind of refusal s is, or "".
func refusalKind(s string) UsageKind {
	for _, r := range refusals {
		if s == r.line || strings.HasSuffix(r.line, " ") && strings.HasPrefix(s, r.line) && len(s) > len(r.line) {
			return r.kind
		}
	}
	// all_reduce.cu's "DeviceImplementation > 1 requires CUDA P2P
	// connectivity across all ranks. ...", alltoall.cu's "DeviceImplementation
	// 1 and 2 requires ...".
	if strings.HasPrefix(s, "DeviceImplementation ") && strings.Contains(s, " requires CUDA P2P connectivity across all ranks.") {
		return UsageDevice
	}
	// common.cu: "Device implementation %d is not supported by this test".
	if n, ok := strings.CutPrefix(s, "Device implementation "); ok {
		// -D is read with strtol: "-1" too.
		if n, ok = strings.CutSuffix(n, " is not supported by this test"); ok && isDigits(strings.TrimPrefix(n, "-")) {
			return UsageDevice
		}
	}
	// common.cu's printf("invalid option '%c'\n", c) before its usage.
	if c, ok := strings.CutPrefix(s, "invalid option '"); ok && len(c) == 2 && c[1] == '\'' {
		return UsageOption
	}
	if getoptRefusal(s) {
		return UsageOption
	}
	return ""
}

// getoptRefusal reports whether s is glibc getopt_long's complaint about
// an nccl-tests binary's arguments: "./build/all_reduce_perf: invalid
// option -- 'q'", "...: unrecognized option '--foo'", "...: option
// requires an argument -- 'b'", "...: option '--minbytes' requires an
// argument". The program name must be a *_perf binary's.
func getoptRefusal(s string) bool {
	prog, msg, ok := strings.Cut(s, ": ")
	if !ok || strings.ContainsAny(prog, " \t") || !strings.Contains(path.Base(prog), "_perf") {
		return false
	}
	switch {
	case strings.HasPrefix(msg, "invalid option -- "), strings.HasPrefix(msg, "unrecognized option '"),
		strings.HasPrefix(msg, "option requires an argument -- "):
		return true
	case strings.HasPrefix(msg, "option '") && strings.HasSuffix(msg, "' requires an argument"):
		return true
	}
	return false
}
