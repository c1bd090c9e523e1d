package main

import (
	"fmt"
	"strconv"
	"strings"
)

// fileHead keeps the first two lines of a file given as config.txt, so
// that one without a key of third.cc can be named for what it is: the
// model's other inputs and outputs (topology, flows, trace, a size CDF,
// fct.txt) share its directory, and third.cc, which skips what it does
// not know, would run any of them on its defaults.
type fileHead struct {
	line [2]int
	f    [2][]string
	n    int
	// notCDF: a line that is not two numbers, or a share below the
	// line before's; last: the last line's share
	notCDF bool
	last   float64
}

func (h *fileHead) add(line int, f []string) {
	if h.n < 2 {
		h.line[h.n], h.f[h.n] = line, f
	}
	h.n++
	if h.notCDF = h.notCDF || len(f) != 2 || !nums(f); !h.notCDF {
		share, _ := strconv.ParseFloat(f[1], 64)
		h.notCDF = h.n > 1 && share < h.last
		h.last = share
	}
}

// notConfig refuses a file that sets no key of third.cc and says what
// its first lines read as.
func (h *fileHead) notConfig(file string) error {
	const want = "from-ns3 reads ns-3's config.txt (KEY VALUE lines: CC_MODE, TOPOLOGY_FILE, FLOW_FILE, ...), which names the topology and flow files"
	if h.n == 0 {
		return fmt.Errorf("%s: empty: %s", file, want)
	}
	return fmt.Errorf("%s:%d:1: no key of HPCC's third.cc: %s; %s", file, h.line[0], h.kind(), want)
}

// kind names the file by its first two lines' shape.
func (h *fileHead) kind() string {
	a, b := h.f[0], h.f[1]
	switch {
	case len(a) == 3 && ints(a):
		return "its first line reads as a topology's NODES SWITCHES LINKS (TOPOLOGY_FILE)"
	case len(a) == 4 && ints(a):
		return "its first line reads as a topology's four numbers (ns3-datacenter's NODES SWITCHES TORS LINKS, TOPOLOGY_FILE)"
	case len(a) == 6 && ints(a[:5]) && !ints(a[5:]):
		return "its first line reads as SimAI's topology head (NODES GPUS_PER_SERVER NVSWITCHES SWITCHES LINKS GPU_TYPE)"
	case len(a) == 1 && ints(a) && h.n == 1:
		return "a count and nothing after: an empty flow or trace file"
	case len(a) == 1 && ints(a) && len(b) == 6:
		return "a count, then SRC DST PG DPORT SIZE START: a flow file (FLOW_FILE)"
	case len(a) == 1 && ints(a) && ints(b):
		return "a count, then node ids: a trace file, the nodes whose packets are traced (TRACE_FILE)"
	case !h.notCDF && (h.last == 100 || h.last == 1):
		return "SIZE PERCENT lines to 100: a flow-size CDF, which traffic_gen.py draws a flow file from (traffic_gen.py -c FILE)"
	case len(a) == 8 && hex8(a[0]) && hex8(a[1]):
		return "SIP DIP SPORT DPORT SIZE START FCT STANDALONE_FCT: ns-3's fct.txt, an output (ns3conv compare reads it)"
	case nums(a):
		return fmt.Sprintf("its first line is %d numbers", len(a))
	}
	return fmt.Sprintf("its first word %q is not a key", a[0])
}

// otherFile names the file of the model's that a first line f reads as
// (an fct.txt's line, a topology's head, a flow or trace file's count),
// "" when it reads as none: for a file given in another's place.
func otherFile(f []string) string {
	switch {
	case len(f) == 8 && hex8(f[0]) && hex8(f[1]):
		return "SIP DIP SPORT DPORT SIZE START FCT STANDALONE_FCT, ns-3's fct.txt (an output)"
	case len(f) == 3 && ints(f):
		return "NODES SWITCHES LINKS, a topology's head (TOPOLOGY_FILE)"
	case len(f) == 1 && ints(f):
		return "a count, a flow or trace file's head (FLOW_FILE, TRACE_FILE)"
	}
	return ""
}

func ints(f []string) bool {
	for _, x := range f {
		if _, err := strconv.Atoi(x); err != nil {
			return false
		}
	}
	return len(f) > 0
}

func nums(f []string) bool {
	for _, x := range f {
		if _, err := strconv.ParseFloat(x, 64); err != nil {
			return false
		}
	}
	return len(f) > 0
}

// hex8 reads an address as fct.txt writes it (%08x).
func hex8(s string) bool {
	return len(s) == 8 && strings.Trim(s, "0123456789abcdef") == ""
}
