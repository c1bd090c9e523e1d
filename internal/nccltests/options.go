// Package nccltests is nccl-tests in the twin: an *_perf sweep over
// message sizes on an NCCL communicator, with nccl-tests' command line
// (-b, -e, -f, -i, -n, -w, -d, -o, -r, -c, -g, -t) and its output table,
// byte for byte as nccl-tests 2.19 prints it, so that the doctor's
// nccl-tests parser reads it unchanged.
package nccltests

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"rocelab/internal/collective"
	"rocelab/internal/unit"
)

// Options are nccl-tests' command-line options that matter to the twin,
// with nccl-tests' defaults (src/common.cu).
type Options struct {
	// Binary is the test, e.g. "all_reduce_perf".
	Binary string
	Func   collective.Func
	// MinBytes and MaxBytes are -b and -e; StepFactor is -f (1 means
	// StepBytes, -i, is added instead).
	MinBytes, MaxBytes int64
	StepFactor         int64
	StepBytes          int64
	Iters, Warmup      int // -n, -w
	AggIters           int // -m
	NThreads, NGpus    int // -t, -g
	DType, Op          string
	Root               int // -r
	Check              int // -c
}

// Binaries maps nccl-tests programs to collectives.
var Binaries = map[string]collective.Func{
	"all_reduce_perf":     collective.AllReduce,
	"all_gather_perf":     collective.AllGather,
	"reduce_scatter_perf": collective.ReduceScatter,
	"broadcast_perf":      collective.Broadcast,
	"reduce_perf":         collective.Reduce,
	"alltoall_perf":       collective.AllToAll,
	"sendrecv_perf":       collective.SendRecv,
}

// typeSizes are nccl-tests' data types and their sizes.
var typeSizes = map[string]int64{
	"int8": 1, "char": 1, "uint8": 1, "int32": 4, "int": 4, "uint32": 4, "int64": 8, "uint64": 8,
	"half": 2, "float16": 2, "float": 4, "float32": 4, "double": 8, "float64": 8, "bfloat16": 2,
	"f8e4m3": 1, "f8e5m2": 1,
}

// canonical type names as nccl-tests prints them.
var typeNames = map[string]string{"char": "int8", "int": "int32", "float16": "half", "float32": "float", "float64": "double"}

var opNames = []string{"sum", "prod", "max", "min", "avg", "mulsum"}

// Default returns nccl-tests' defaults for a binary.
func Default(binary string) (Options, error) {
	f, ok := Binaries[binary]
	if !ok {
		names := make([]string, 0, len(Binaries))
		for b := range Binaries {
			names = append(names, b)
		}
		return Options{}, fmt.Errorf("unknown nccl-tests binary %q: want one of %s", binary, strings.Join(slices.Sorted(slices.Values(names)), ", "))
	}
	return Options{Binary: binary, Func: f, MinBytes: 32 << 20, MaxBytes: 32 << 20, StepFactor: 1, StepBytes: 1 << 20,
		Iters: 20, Warmup: 1, AggIters: 1, NThreads: 1, NGpus: 1, DType: "float", Op: "sum", Check: 1}, nil
}

// Parse reads a command line: the binary name first (a path is fine),
// then options in short (-b 8) or long (--minbytes 8 or --minbytes=8)
// form.
func Parse(args []string) (Options, error) {
	if len(args) == 0 {
		return Options{}, fmt.Errorf("empty command: want e.g. all_reduce_perf -b 8 -e 128M -f 2 -g 8")
	}
	bin := args[0]
	if i := strings.LastIndexByte(bin, '/'); i >= 0 {
		bin = bin[i+1:]
	}
	o, err := Default(bin)
	if err != nil {
		return o, err
	}
	long := map[string]byte{"nthreads": 't', "ngpus": 'g', "minbytes": 'b', "maxbytes": 'e', "stepbytes": 'i', "stepfactor": 'f',
		"iters": 'n', "agg_iters": 'm', "warmup_iters": 'w', "check": 'c', "op": 'o', "datatype": 'd', "root": 'r'}
	for i := 1; i < len(args); i++ {
		a := args[i]
		var key byte
		var val string
		hasVal := false
		switch {
		case strings.HasPrefix(a, "--"):
			name := a[2:]
			if k, v, ok := strings.Cut(name, "="); ok {
				name, val, hasVal = k, v, true
			}
			k, ok := long[name]
			if !ok {
				return o, fmt.Errorf("option %q: not an nccl-tests option the twin models (want -b -e -i -f -n -m -w -c -o -d -r -g -t)", a)
			}
			key = k
		case len(a) >= 2 && a[0] == '-':
			key = a[1]
			if len(a) > 2 {
				val, hasVal = a[2:], true
			}
		default:
			return o, fmt.Errorf("argument %q: want an option", a)
		}
		if !hasVal {
			if i+1 >= len(args) {
				return o, fmt.Errorf("option %q needs a value", a)
			}
			i++
			val = args[i]
		}
		if err := o.set(key, val); err != nil {
			return o, fmt.Errorf("option %q: %v", a, err)
		}
	}
	return o, o.Validate()
}

func (o *Options) set(key byte, val string) error {
	num := func() (int, error) {
		v, err := strconv.ParseInt(strings.TrimSpace(val), 0, 32)
		if err != nil {
			return 0, fmt.Errorf("%q is not an integer", val)
		}
		return int(v), nil
	}
	var err error
	switch key {
	case 'b':
		o.MinBytes, err = unit.ParseBinarySize(val)
	case 'e':
		o.MaxBytes, err = unit.ParseBinarySize(val)
	case 'i':
		o.StepBytes, err = unit.ParseBinarySize(val)
	case 'f':
		var n int
		n, err = num()
		o.StepFactor = int64(n)
	case 'n':
		o.Iters, err = num()
	case 'm':
		o.AggIters, err = num()
	case 'w':
		o.Warmup, err = num()
	case 't':
		o.NThreads, err = num()
	case 'g':
		o.NGpus, err = num()
	case 'c':
		o.Check, err = num()
	case 'r':
		o.Root, err = num()
	case 'd':
		d := strings.ToLower(strings.TrimSpace(val))
		if _, ok := typeSizes[d]; !ok {
			return fmt.Errorf("unknown data type %q", val)
		}
		if c, ok := typeNames[d]; ok {
			d = c
		}
		o.DType = d
	case 'o':
		op := strings.ToLower(strings.TrimSpace(val))
		if !slices.Contains(opNames, op) {
			return fmt.Errorf("unknown reduction %q: want sum, prod, max, min, avg or mulsum", val)
		}
		o.Op = op
	default:
		return fmt.Errorf("not an nccl-tests option the twin models")
	}
	return err
}

// Validate reports the first option out of range.
func (o *Options) Validate() error {
	switch {
	case o.MinBytes > o.MaxBytes:
		return fmt.Errorf("-b %d is above -e %d", o.MinBytes, o.MaxBytes)
	case o.StepFactor < 1 || (o.StepFactor == 1 && o.StepBytes < 1):
		return fmt.Errorf("-f %d with -i %d: the sweep would not advance", o.StepFactor, o.StepBytes)
	case o.Iters < 1 || o.Iters > 1000000:
		return fmt.Errorf("-n %d: want 1 to 1000000 iterations", o.Iters)
	case o.Warmup < 0 || o.Warmup > 1000000:
		return fmt.Errorf("-w %d: want 0 to 1000000", o.Warmup)
	case o.AggIters != 1:
		return fmt.Errorf("-m %d: aggregated iterations are not modelled (want 1)", o.AggIters)
	case o.NThreads < 1 || o.NGpus < 1 || o.NThreads*o.NGpus > 64:
		return fmt.Errorf("-t %d -g %d: want 1 to 64 GPUs per process", o.NThreads, o.NGpus)
	case o.Root < 0:
		return fmt.Errorf("-r %d: want a rank", o.Root)
	case o.Check < 0:
		return fmt.Errorf("-c %d: want 0 or more", o.Check)
	}
	if n := len(o.Sizes()); n > 4096 {
		return fmt.Errorf("%d message sizes from -b %d to -e %d: too many (max 4096)", n, o.MinBytes, o.MaxBytes)
	}
	return nil
}

// Sizes returns the sizes of the timed sweep: from -b to -e, times -f or
// plus -i.
func (o *Options) Sizes() []int64 {
	var s []int64
	for b := o.MinBytes; b <= o.MaxBytes && len(s) <= 4096; {
		s = append(s, b)
		if o.StepFactor > 1 {
			if b == 0 {
				break
			}
			b *= o.StepFactor
		} else {
			b += o.StepBytes
		}
	}
	return s
}

// Command returns the options as a command line.
func (o *Options) Command() string {
	c := fmt.Sprintf("%s -b %d -e %d", o.Binary, o.MinBytes, o.MaxBytes)
	if o.StepFactor > 1 {
		c += fmt.Sprintf(" -f %d", o.StepFactor)
	} else {
		c += fmt.Sprintf(" -i %d", o.StepBytes)
	}
	return c + fmt.Sprintf(" -g %d -n %d -w %d", o.NGpus*o.NThreads, o.Iters, o.Warmup)
}
