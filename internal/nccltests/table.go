package nccltests

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The output formats of nccl-tests 2.19 (src/util.cu: writeDeviceReport,
// writeResultHeader, writeBenchmarkLinePreamble, writeBenchmarkLineBody,
// writeResultFooter), reproduced with Go's fmt, whose %d, %s, %f and %e
// print as C's do for these widths.

// testsVersion is the nccl-tests release whose format this is.
const testsVersion = "2.19.6"

// floatStr is nccl-tests' getFloatStr: the value in width characters with
// two decimals, else one, else none, else in exponent form.
func floatStr(v float64, width int) string {
	for _, f := range []string{"%*.2f", "%*.1f", "%*.0f"} {
		if s := fmt.Sprintf(f, width, v); len(s) <= width {
			return s
		}
	}
	f := "%*.0e"
	if width >= 7 {
		f = "%*.1e"
	}
	s := fmt.Sprintf(f, width, v)
	if len(s) > width {
		s = s[:width] // snprintf truncates to the buffer
	}
	return s
}

// cG formats v as C's %g: six significant digits, trailing zeros removed.
func cG(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

// versionCode is NCCL_VERSION_CODE of an NCCL release (2.30.7 -> 23007).
func versionCode(major, minor, patch int) int { return major*10000 + minor*100 + patch }

func writePreamble(w io.Writer, o *Options, ncclCode int, devices []string) {
	fmt.Fprintf(w, "# nccl-tests version %s (rocelab twin) nccl-headers=%d nccl-library=%d\n", testsVersion, ncclCode, ncclCode)
	fmt.Fprintf(w, "# Collective test starting: %s\n", o.Binary)
	step, kind := o.StepBytes, "bytes"
	if o.StepFactor > 1 {
		step, kind = o.StepFactor, "factor"
	}
	fmt.Fprintf(w, "# nThread %d nGpus %d minBytes %d maxBytes %d step: %d(%s) warmup iters: %d iters: %d agg iters: %d validation: %d graph: %d unalign: %d\n",
		o.NThreads, o.NGpus, o.MinBytes, o.MaxBytes, step, kind, o.Warmup, o.Iters, o.AggIters, o.Check, 0, 0)
	fmt.Fprintf(w, "#\n# Using devices\n")
	for _, d := range devices {
		fmt.Fprintln(w, d)
	}
	fmt.Fprintf(w, "#\n")
	fmt.Fprintf(w, "# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          \n", "", "", "", "", "")
	fmt.Fprintf(w, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s\n", "size", "count", "type", "redop", "root",
		"time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong", 0, "")
	fmt.Fprintf(w, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s\n", "(B)", "(elements)", "", "", "",
		"(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "", 0, "")
}

// deviceLine is one "#  Rank ..." line.
func deviceLine(rank, pid int, host string, dev, bus int, gpu string) string {
	return fmt.Sprintf("#  Rank %2d Group %2d Pid %6d on %10s device %2d [%04x:%02x:%02x] %s", rank, 0, pid, host, dev, 0, bus, 0, gpu)
}

// Half is the out-of-place or in-place half of a row.
type Half struct {
	// Time is the mean time of one call, µs.
	Time         float64
	AlgBW, BusBW float64
	// Wrong is -1 for N/A.
	Wrong int64
}

func (h Half) format() string {
	if h.Wrong < 0 {
		return fmt.Sprintf("  %7s  %6s  %6s    N/A", floatStr(h.Time, 7), floatStr(h.AlgBW, 6), floatStr(h.BusBW, 6))
	}
	return fmt.Sprintf("  %7s  %6s  %6s  %6s", floatStr(h.Time, 7), floatStr(h.AlgBW, 6), floatStr(h.BusBW, 6), padLeft(cG(float64(h.Wrong)), 6))
}

func padLeft(s string, n int) string {
	if len(s) >= n {
		return s
	}
	return strings.Repeat(" ", n-len(s)) + s
}

// Row is one message size of the table.
type Row struct {
	Size, Count int64
	Type, Redop string
	Root        int
	Out, In     Half
}

// String formats the row as nccl-tests prints it.
func (r Row) String() string {
	return fmt.Sprintf("%12d  %12d  %8s  %6s  %6s", r.Size, r.Count, r.Type, r.Redop, fmt.Sprintf("%6d", r.Root)) + r.Out.format() + r.In.format()
}

func writeFooter(w io.Writer, binary string, avgBus float64) {
	fmt.Fprintf(w, "# %-20s : %d %s\n", "Out of bounds values", 0, "OK")
	fmt.Fprintf(w, "# %-20s : %s %s\n", "Avg bus bandwidth", cG(avgBus), "")
	fmt.Fprintf(w, "#\n")
	fmt.Fprintf(w, "# Collective test concluded: %s\n", binary)
}
