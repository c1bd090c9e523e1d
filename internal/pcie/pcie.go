// Package pcie is the PCI Express generation table: each generation's
// transfer rate per lane and its line coding, and the data rate a lane
// carries after coding. lspci and the kernel print the transfer rate
// ("16GT/s", "16.0 GT/s"); the doctor, the GPU model and the twin's
// lspci all read their figures here. The package is a leaf: it imports
// nothing of rocelab.
package pcie

import "strconv"

// A Gen is one PCIe generation.
type Gen struct {
	// N is the generation, 1 to 6.
	N int
	// GTs is the transfer rate per lane, GT/s.
	GTs float64
	// Coding is the share of transferred bits that are data: 8b/10b to
	// Gen2, 128b/130b for Gen3 to Gen5, and Gen6's FLIT mode counted 1:1,
	// as the kernel does (drivers/pci/pci.h PCIE_SPEED2MBS_ENC), so that
	// rates compare with what it prints.
	Coding float64
}

// gens is the table, in order of generation.
var gens = [...]Gen{
	{1, 2.5, 8.0 / 10},
	{2, 5, 8.0 / 10},
	{3, 8, 128.0 / 130},
	{4, 16, 128.0 / 130},
	{5, 32, 128.0 / 130},
	{6, 64, 1},
}

// Generation returns generation n; ok is false outside 1 to 6.
func Generation(n int) (Gen, bool) {
	if n < 1 || n > len(gens) {
		return Gen{}, false
	}
	return gens[n-1], true
}

// OfRate returns the generation whose lanes run at gts GT/s; ok is false
// for a rate no generation has.
func OfRate(gts float64) (Gen, bool) {
	for _, g := range gens {
		if g.GTs == gts {
			return g, true
		}
	}
	return Gen{}, false
}

// LaneGbps is the data rate of one lane after line coding, Gb/s (Gen3:
// 7.877).
func (g Gen) LaneGbps() float64 { return g.GTs * g.Coding }

// LaneGBps is LaneGbps in bytes, GB/s (Gen3: 0.985).
func (g Gen) LaneGBps() float64 { return g.LaneGbps() / 8 }

// Speed is the transfer rate as lspci prints it: "16GT/s".
func (g Gen) Speed() string { return strconv.FormatFloat(g.GTs, 'f', -1, 64) + "GT/s" }

// LaneGbpsAt is the data rate of a lane running at gts GT/s, Gb/s: the
// table's coding for a generation's rate, and otherwise the coding of the
// generations around it (8b/10b to 5 GT/s, 1:1 from 64 GT/s, 128b/130b
// between).
func LaneGbpsAt(gts float64) float64 {
	if g, ok := OfRate(gts); ok {
		return g.LaneGbps()
	}
	coding := gens[2].Coding
	switch {
	case gts <= gens[1].GTs:
		coding = gens[1].Coding
	case gts >= gens[5].GTs:
		coding = gens[5].Coding
	}
	return gts * coding
}
