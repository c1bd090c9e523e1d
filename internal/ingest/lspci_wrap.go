package ingest

import "strings"

// Pastes of lspci -vvv that a mail client or a terminal wrapped at about
// 80 columns: a line cut in two goes on at column 0 on the next line,
// which lspci never prints inside a device block. The parser holds the
// line above (and its garble, if reading it alone failed) until the next
// line says whether it carried it on, then reads the two joined.

// A heldLine is a line the next one may carry on: its key ("LnkSta", or
// "" for a device header), what follows the key, and the line; counted
// once it was counted as read.
type heldLine struct {
	key, rest    string
	l            Line
	set, counted bool
}

// wrapped reports a line that starts at column 0 inside a device block:
// lspci indents every line but a device's header, so such a line is the
// rest of the line above, which a mail client or a terminal wrapped at
// about 80 columns ("SltSta: Status: AttnBtn- PowerFlt- MRL- CmdCplt-"
// then "PresDet+ Interlock-").
// A line that opens with a key of its own ("LnkSta:" grepped without its
// indent, "Physical Slot: 3" of a paste that lost every indent) or with a
// shell prompt is a line, not the rest of one.
func wrapped(text string) bool {
	if text == "" || text[0] == ' ' || text[0] == '\t' || promptLine(strings.TrimSpace(text)) {
		return false
	}
	key, _, ok := strings.Cut(text, ":")
	return !ok || strings.ContainsAny(key, " \t") && !lspciSpacedKeys[key]
}

// lspciSpacedKeys are the keys with a space in them that lspci prints at
// a device's first indent (lspci.c show_verbose, ls-kernel.c): at column
// 0 they open a line of their own.
var lspciSpacedKeys = map[string]bool{
	"Physical Slot": true, "Device tree node": true, "NUMA node": true, "IOMMU group": true,
	"Kernel driver in use": true, "Kernel modules": true, "Driver in use": true, "BIST result": true,
	"Secondary status": true, "I/O behind bridge": true, "Memory behind bridge": true,
	"Prefetchable memory behind bridge": true,
}

// rejoin reads the line above again with this one, the rest of it, after
// it: a device header's name, or a link, slot or ACS line, whose value
// read from the first part alone (or whose garble) it replaces.
func (p *lspciParser) rejoin(last heldLine, t string, l Line) {
	p.held = nil
	joined := last.rest + " " + t
	p.last = heldLine{key: last.key, rest: joined, l: last.l, set: true}
	if last.key == "" {
		if p.cur != nil && p.named {
			p.cur.Name = strings.Clone(trimRevision(joined))
			p.cur.Role = pciRole(p.cur.Class, p.cur.Name)
		}
		p.out.lines.add(l)
		return
	}
	if d := p.cur; d != nil && d.Evidence.Line != 0 {
		switch {
		case last.key == "LnkCap" && d.Cap.Evidence.Line == last.l.Num:
			d.Cap = PCIeLinkState{}
		case last.key == "LnkSta" && d.Sta.Evidence.Line == last.l.Num:
			d.Sta = PCIeLinkState{}
		case last.key == "ACSCtl" && d.ACS != nil && d.ACS.Evidence.Line == last.l.Num:
			d.ACS = nil
		case last.key == "ACSCap" && d.ACSCap != nil && d.ACSCap.Evidence.Line == last.l.Num:
			d.ACSCap = nil
		case last.key == "SltSta" && d.Slot != nil && d.Slot.Evidence.Line == last.l.Num:
			d.Slot = nil
		}
	}
	// The line above, read again, counts once however many lines carry
	// it on (a counted line above the last counted one counts again).
	before := p.out.lines
	p.keyed(last.key, joined, last.l)
	if last.counted {
		p.out.lines = before
	}
	p.last.counted = last.counted || p.out.lines.n > before.n
	p.out.lines.add(l)
}

// flush reports the held garble: the line after it did not carry it on.
func (p *lspciParser) flush() {
	if p.held != nil && len(p.out.Garbled) < maxGarbled {
		p.out.Garbled = append(p.out.Garbled, *p.held)
	}
	p.held = nil
}

// garble holds a line that starts as lspci's key but does not go on as
// it does, until the next line says whether it was wrapped; col is the
// offset after "key:" where reading stopped, the end of the line when
// reading stopped in the wrapped rest.
func (p *lspciParser) garble(l Line, key string, col int, expected string) {
	p.out.lines.add(l)
	at := strings.Index(l.Text, key+":")
	g := garbleAt(l, min(at+len(key)+1+col, len(l.Text)), expected)
	p.held = &g
}
