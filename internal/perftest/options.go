// Package perftest is perftest in the twin: ib_write_bw, ib_read_bw,
// ib_send_bw, ib_write_lat, ib_send_lat and ib_read_lat between two hosts,
// as a workload of RC queue pairs posting what perftest posts, measured as
// perftest measures (src/perftest_parameters.c print_report_bw,
// print_report_lat) and printed line for line in its output format, so that
// the doctor's perftest parser reads it unchanged.
package perftest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"rocelab/internal/workload"
)

// Kind is a test's measure.
type Kind uint8

// Kinds.
const (
	BW Kind = iota
	Lat
)

// A tool is one perftest program.
type tool struct {
	verb  workload.Op
	kind  Kind
	title string // perftest's testsStr, e.g. "RDMA_Write"
}

var tools = map[string]tool{
	"ib_write_bw":  {workload.Write, BW, "RDMA_Write"},
	"ib_read_bw":   {workload.Read, BW, "RDMA_Read"},
	"ib_send_bw":   {workload.Send, BW, "Send"},
	"ib_write_lat": {workload.WriteImm, Lat, "RDMA_Write"},
	"ib_read_lat":  {workload.Read, Lat, "RDMA_Read"},
	"ib_send_lat":  {workload.Send, Lat, "Send"},
}

// Options are the perftest options the twin runs, with perftest's
// defaults (perftest_parameters.h DEF_*).
type Options struct {
	// Tool is the program, e.g. "ib_write_bw"; Command the command line
	// as given.
	Tool, Command string
	// Size is -s, Iters -n, TxDepth -t, QPs -q; All is -a (every size from
	// 2 B to 8 MiB).
	Size, Iters, TxDepth, QPs int
	All                       bool
	// Gbits is --report_gbits: bandwidth in Gb/sec instead of MiB/sec.
	Gbits bool
	// Device, Port and GIDIndex are -d, -i and -x, as printed; DeviceGiven
	// says -d was given (else the client's first RDMA device is).
	Device      string
	DeviceGiven bool
	Port        int
	GIDIndex    int
	// CQMod is perftest's CQ moderation (-Q), 100 for BW tests.
	CQMod int
}

// maxIters bounds -n so that a run's cost stays bounded; perftest allows
// more, but the twin simulates every message.
const maxIters = 1 << 20

// Parse reads a perftest command line ("ib_write_bw -s 65536 -n 5000
// --report_gbits [server]").
func Parse(args []string) (Options, error) {
	if len(args) == 0 {
		return Options{}, fmt.Errorf("empty perftest command")
	}
	t, ok := tools[args[0]]
	if !ok {
		return Options{}, fmt.Errorf("unknown perftest program %q: want one of %s", args[0], strings.Join(slices.Sorted(func(yield func(string) bool) {
			for n := range tools {
				if !yield(n) {
					return
				}
			}
		}), ", "))
	}
	o := Options{Tool: args[0], Command: strings.Join(args, " "), QPs: 1, Port: 1, GIDIndex: 3, Device: "mlx5_0"}
	if t.kind == BW {
		o.Size, o.Iters, o.TxDepth, o.CQMod = 65536, 5000, 128, 100
	} else {
		o.Size, o.Iters, o.TxDepth, o.CQMod = 2, 1000, 1, 1
	}
	positional := 0
	for i := 1; i < len(args); i++ {
		a := args[i]
		name, val, hasVal := strings.Cut(a, "=")
		next := func() (string, error) {
			if hasVal {
				return val, nil
			}
			if i+1 >= len(args) {
				return "", fmt.Errorf("%s needs a value", name)
			}
			i++
			return args[i], nil
		}
		num := func(lo, hi int) (int, error) {
			s, err := next()
			if err != nil {
				return 0, err
			}
			n, err := strconv.Atoi(s)
			if err != nil || n < lo || n > hi {
				return 0, fmt.Errorf("%s %s: expected a number from %d to %d", name, s, lo, hi)
			}
			return n, nil
		}
		var err error
		switch name {
		case "-s", "--size":
			o.Size, err = num(1, 1<<30)
		case "-n", "--iters":
			o.Iters, err = num(5, maxIters)
		case "-t", "--tx-depth":
			o.TxDepth, err = num(1, 1<<15)
		case "-q", "--qp":
			o.QPs, err = num(1, 64)
		case "-Q", "--cq-mod":
			o.CQMod, err = num(1, 1024)
		case "-a", "--all":
			o.All = true
		case "--report_gbits":
			o.Gbits = true
		case "-d", "--ib-dev":
			o.Device, err = next()
			o.DeviceGiven = true
		case "-i", "--ib-port":
			o.Port, err = num(1, 2)
		case "-x", "--gid-index":
			o.GIDIndex, err = num(0, 255)
		case "-F", "--CPU-freq", "-c", "--connection":
			if name == "-c" || name == "--connection" {
				var c string
				if c, err = next(); err == nil && c != "RC" {
					err = fmt.Errorf("-c %s: the twin runs RC queue pairs only", c)
				}
			}
		default:
			if strings.HasPrefix(a, "-") {
				return Options{}, fmt.Errorf("%s: option not modelled by the twin (it runs -s, -n, -t, -q, -Q, -a, -d, -i, -x, -F, -c RC and --report_gbits)", a)
			}
			if positional++; positional > 1 {
				return Options{}, fmt.Errorf("%q: one server address at most", a)
			}
		}
		if err != nil {
			return Options{}, err
		}
	}
	if t.kind == Lat && o.QPs != 1 {
		return Options{}, fmt.Errorf("-q %d: latency tests run one QP", o.QPs)
	}
	return o, nil
}

func (o *Options) tool() tool { return tools[o.Tool] }

// Kind says whether the test measures bandwidth or latency.
func (o *Options) Kind() Kind { return o.tool().kind }

// Sizes are the message sizes the test runs: -s, or with -a every power
// of two from 2 B to 8 MiB.
func (o *Options) Sizes() []int {
	if !o.All {
		return []int{o.Size}
	}
	var out []int
	for s := 2; s <= 1<<23; s *= 2 {
		out = append(out, s)
	}
	return out
}

// Messages is how many messages the test posts over the network (for a
// cost estimate): per size, its iterations on every QP, both ways for a
// SEND or WRITE latency test's ping-pong.
func (o *Options) Messages() (n int64, bytes int64) {
	per := int64(o.Iters) * int64(o.QPs)
	if o.Kind() == Lat && o.tool().verb != workload.Read {
		per *= 2
	}
	for _, s := range o.Sizes() {
		n += per
		bytes += per * int64(s)
	}
	return n, bytes
}
