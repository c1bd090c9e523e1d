package collective

import (
	"fmt"
	"strings"
)

// Func is an NCCL collective function, in NCCL's order (ncclFuncStr).
type Func uint8

// Functions. SendRecv and AllToAll are grouped point-to-point operations;
// NCCL_ALGO and NCCL_PROTO do not apply to them.
const (
	Broadcast Func = iota
	Reduce
	AllGather
	ReduceScatter
	AllReduce
	SendRecv
	AllToAll
	nTunedFuncs = 5
)

var funcNames = [...]string{"Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllReduce", "SendRecv", "AllToAll"}

// String returns the function's name as NCCL spells it.
func (f Func) String() string {
	if int(f) < len(funcNames) {
		return funcNames[f]
	}
	return fmt.Sprintf("Func(%d)", uint8(f))
}

// p2p says whether f is a point-to-point function (SendRecv, AllToAll).
func (f Func) p2p() bool { return f == SendRecv || f == AllToAll }

// ParseFunc reads a function name (case-insensitive, with or without an
// underscore: "all_reduce", "AllReduce", "alltoall").
func ParseFunc(s string) (Func, error) {
	t := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(s), "_", ""))
	for i, n := range funcNames {
		if strings.ToLower(n) == t {
			return Func(i), nil
		}
	}
	return 0, fmt.Errorf("unknown collective %q: want allreduce, allgather, reducescatter, broadcast, reduce, alltoall or sendrecv", s)
}

// Algo is an NCCL algorithm, in NCCL's order (ncclAlgoStr).
type Algo uint8

// Algorithms. The twin executes Tree and Ring; the others are known by
// name (NCCL_ALGO accepts them) but have no bandwidth in the twin's
// tuning model, as on a system without NVSwitch multicast or SHARP.
const (
	Tree Algo = iota
	Ring
	CollNetDirect
	CollNetChain
	NVLS
	NVLSTree
	PAT
	nAlgos
)

var algoNames = [...]string{"Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT"}

// String returns the algorithm's name as NCCL spells it.
func (a Algo) String() string {
	if int(a) < len(algoNames) {
		return algoNames[a]
	}
	return fmt.Sprintf("Algo(%d)", uint8(a))
}

// Proto is an NCCL protocol, in NCCL's order (ncclProtoStr).
type Proto uint8

// Protocols.
const (
	LL Proto = iota
	LL128
	Simple
	nProtos
)

var protoNames = [...]string{"LL", "LL128", "Simple"}

// String returns the protocol's name as NCCL spells it.
func (p Proto) String() string {
	if int(p) < len(protoNames) {
		return protoNames[p]
	}
	return fmt.Sprintf("Proto(%d)", uint8(p))
}

// An Enable is NCCL's per-function enable table for NCCL_ALGO or
// NCCL_PROTO: 0 off, 1 on, 2 on where the topology allows (LL128's
// default).
type Enable [nTunedFuncs][]uint8

func newEnable(n int, def func(e int) uint8) Enable {
	var t Enable
	for f := range t {
		t[f] = make([]uint8, n)
		for e := range t[f] {
			t[f][e] = def(e)
		}
	}
	return t
}

// ParseList applies an NCCL_ALGO or NCCL_PROTO value to t with the
// semantics of NCCL's parseList (src/graph/tuning.cc): entries separated
// by ';', each "[function:]elem,elem" or "[function:]^elem,elem"; only the
// first entry may omit the function; a plain list turns every other
// element off, a '^' list turns every other element on; names are
// case-insensitive. names are the element names in table order.
func ParseList(s string, names []string, t *Enable) error {
	first := true
	for _, entry := range strings.Split(s, ";") {
		if entry == "" {
			continue // strtok skips empty tokens
		}
		parts := nonEmpty(strings.Split(entry, ":"))
		if len(parts) == 0 {
			continue
		}
		prefix, elems := "", parts[0]
		if len(parts) >= 2 {
			prefix, elems = parts[0], parts[1]
		} else if !first || !strings.HasPrefix(s, entry) {
			return fmt.Errorf("all entries except the first must name a function (\"allreduce:...\"), in %q", s)
		}
		first = false
		set, unset := uint8(1), uint8(0)
		if strings.HasPrefix(elems, "^") {
			set, unset = 0, 1
			elems = elems[1:]
		}
		var idx []int
		for _, e := range nonEmpty(strings.Split(elems, ",")) {
			i := indexFold(names, e)
			if i < 0 {
				return fmt.Errorf("unknown element %q in %q: want one of %s", e, s, strings.Join(names, ", "))
			}
			idx = append(idx, i)
		}
		found := false
		for f := 0; f < nTunedFuncs; f++ {
			if prefix != "" && !strings.EqualFold(prefix, funcNames[f]) {
				continue
			}
			found = true
			for e := range t[f] {
				t[f][e] = unset
			}
			for _, i := range idx {
				t[f][i] = set
			}
		}
		if !found {
			return fmt.Errorf("unknown function %q in %q: want Broadcast, Reduce, AllGather, ReduceScatter or AllReduce", prefix, s)
		}
	}
	return nil
}

func nonEmpty(ss []string) []string {
	out := ss[:0:0]
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

func indexFold(names []string, s string) int {
	for i, n := range names {
		if strings.EqualFold(n, s) {
			return i
		}
	}
	return -1
}
