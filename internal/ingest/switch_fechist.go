package ingest

import (
	"strconv"
	"strings"
)

// SONiC `show interfaces counters fec-histogram PORT`: the codewords the
// port's RS-FEC decoded, by the number of symbol errors each held:
//
//	Symbol Errors Per Codeword      Codewords
//	----------------------------  -----------
//	BIN0                              1000000
//	BIN7                               300000
//
// The port is the one the echoed command names ("" when the paste left
// the command out).

// FECBin is one bin of a port's FEC histogram.
type FECBin struct {
	Port string
	// Bin is the symbol errors per codeword the row counts.
	Bin       int
	Codewords uint64
	Evidence  Evidence
}

// fecHistHeader reports whether f is the histogram's header.
func fecHistHeader(f []string) bool {
	return len(f) == 5 && f[0] == "Symbol" && f[1] == "Errors" && f[2] == "Per" && f[3] == "Codeword" && f[4] == "Codewords"
}

// fecHistRow reads "BIN7   300000".
func (p *switchParser) fecHistRow(f []string, ev Evidence) bool {
	if len(f) != 2 {
		return false
	}
	n, err := strconv.Atoi(strings.TrimPrefix(f[0], "BIN"))
	if !strings.HasPrefix(f[0], "BIN") || err != nil || n < 0 || n > 64 {
		return false
	}
	v, ok := switchNum(f[1])
	if !ok {
		return f[1] == "N/A"
	}
	p.out.FECBins = appendCapped(p.out.FECBins, FECBin{Port: p.histPort, Bin: n, Codewords: v, Evidence: ev}, maxSwitchRows, &p.out.Omitted)
	return true
}

// commandPort returns the port an echoed command names after sub ("fec-histogram "), "" for none.
func commandPort(t, sub string) string {
	_, rest, ok := strings.Cut(t, sub)
	if !ok {
		return ""
	}
	if f := strings.Fields(rest); len(f) > 0 && isIdentName(f[0]) {
		return strings.Clone(f[0])
	}
	return ""
}
