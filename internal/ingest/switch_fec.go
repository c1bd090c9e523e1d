package ingest

import (
	"strconv"
	"strings"
)

// PortFEC is one row of SONiC `show interfaces counters fec-stats`
// (portstat -f): the codewords the port's RS-FEC corrected and could not
// correct, the symbol errors, and, where printed, the bit error ratios
// before and after FEC. A count is -1 and a ratio NaN-free -1 when the
// cell is N/A or absent.
type PortFEC struct {
	Port string
	// State is the STATE column: U (up), D (down), X (disabled), N/A.
	State                    string
	Corrected, Uncorrectable int64
	SymbolErrors             int64
	PreBER, PostBER          float64
	// Platform is the switch OS of the output, "" for SONiC's fec-stats.
	Platform Platform
	Evidence Evidence
}

// fecHeader reports whether f is the header of `show interfaces counters
// fec-stats` ("IFACE STATE FEC_CORR FEC_UNCORR FEC_SYMBOL_ERR ...").
func fecHeader(f []string) bool {
	return len(f) >= 5 && f[0] == "IFACE" && f[1] == "STATE" && f[2] == "FEC_CORR" && f[3] == "FEC_UNCORR" && f[4] == "FEC_SYMBOL_ERR"
}

// fecRow reads a fec-stats row by the header's leading columns; the
// columns after the ratios (FLR(O), "FLR(P) (Accuracy)", FEC_MAX_T) may
// hold spaces and are not read.
func (p *switchParser) fecRow(f []string, ev Evidence) bool {
	if len(f) < 5 || !isIdentName(f[0]) || !fecState(f[1]) {
		return false
	}
	r := PortFEC{Port: strings.Clone(f[0]), State: strings.Clone(f[1]), PreBER: -1, PostBER: -1, Evidence: ev}
	for i, c := range p.cols {
		if i >= len(f) {
			break
		}
		switch c {
		case "FEC_CORR":
			r.Corrected = numOr(f[i])
		case "FEC_UNCORR":
			r.Uncorrectable = numOr(f[i])
		case "FEC_SYMBOL_ERR":
			r.SymbolErrors = numOr(f[i])
		case "FEC_PRE_BER":
			r.PreBER = ratioOr(f[i])
		case "FEC_POST_BER":
			r.PostBER = ratioOr(f[i])
		}
	}
	if r.Corrected < 0 && r.Uncorrectable < 0 && r.SymbolErrors < 0 {
		return false
	}
	p.out.FEC = appendCapped(p.out.FEC, r, maxSwitchRows, &p.out.Omitted)
	return true
}

// fecState reports whether s is a portstat STATE cell.
func fecState(s string) bool {
	switch s {
	case "U", "D", "X", "N/A":
		return true
	}
	return false
}

// ratioOr reads a ratio cell ("6.05e-10", "0.00e+00"), -1 for N/A or
// anything else.
func ratioOr(s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 || v > 1 {
		return -1
	}
	return v
}
