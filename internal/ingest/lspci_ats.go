package ingest

import "strings"

// ATSControl is a device's Address Translation Service control register
// (ATSCtl): with Enable+, the device asks the IOMMU to translate its DMA
// addresses ahead and marks its requests translated, which PCIe ACS can
// let go straight to a peer (DirectTrans+) while it still redirects the
// untranslated ones.
type ATSControl struct {
	Enable   bool
	Evidence Evidence
}

// ats reads "ATSCtl:	Enable+, Smallest Translation Unit: 00".
func (p *lspciParser) ats(rest string, l Line) {
	f := strings.Fields(strings.ReplaceAll(rest, ",", " "))
	if len(f) == 0 || f[0] != "Enable+" && f[0] != "Enable-" {
		p.garble(l, "ATSCtl", len(rest)-len(strings.TrimLeft(rest, " \t")), "Enable+ or Enable- after ATSCtl:")
		return
	}
	p.out.lines.add(l)
	d := p.device(func(d *PCIDevice) bool { return d.ATS != nil })
	if d == nil {
		return
	}
	a := &ATSControl{Enable: f[0] == "Enable+", Evidence: At(p.out.src, l)}
	if d.Evidence.Line == 0 {
		d.Evidence = a.Evidence
	}
	d.ATS = a
}

// numa reads a device's "NUMA node: 1".
func (p *lspciParser) numa(v string, l Line) {
	v = strings.TrimSpace(v)
	if p.cur == nil || !p.named || !isDigits(v) || len(v) > 3 {
		return
	}
	p.out.lines.add(l)
	p.cur.NUMA, p.cur.NUMAEvidence = strings.Clone(v), At(p.out.src, l)
}
