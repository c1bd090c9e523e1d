package ingest

import (
	"slices"
	"strings"
)

// SONiC's watermarks in JSON (watermarkstat -j, sonic-utilities#3875,
// 2025: `show priority-group [persistent-]watermark shared|headroom -j`,
// `show queue [persistent-]watermark unicast|multicast|all -j`): a list of
// one object per port, as json.dumps prints it with an indent, one key a
// line:
//
//	[
//	    {
//	        "Port": "Ethernet0",
//	        "PG0": "100",
//	        "PG3": "103"
//	    },
//	]
//
// The list has no title: the echoed command says whether a PG list is the
// shared or the headroom watermark, and without one the rows are read as a
// table pasted without its title (PGWatermark.Untitled). Queue columns
// name their kind (UCn, MCn, ALLn). An object with any other key is not
// watermarkstat's and is dropped whole; a document printed on one line is
// not read.

// wmJSON follows a watermark list being read.
type wmJSON struct {
	inList, inObj bool
	// pg is the PG table the last echoed command names: swPGShared,
	// swPGHeadroom, or swNone when no command named one.
	pg    swTable
	port  string
	cells []wmCell
	bad   bool // the open object holds a key no watermark list has
}

// wmCell is one key of the open object, with the line it is on.
type wmCell struct {
	col, val string
	l        Line
}

// feed reads l when it belongs to a watermark list and reports whether
// it did.
func (w *wmJSON) feed(p *switchParser, l Line, t string) bool {
	if !w.inList {
		if t == "[" {
			w.inList, w.inObj = true, false
			return false // an opening bracket alone is no watermark
		}
		if t != "" {
			// Any other line between the command and its list (a prompt, a
			// command's output) ends what the command named.
			w.pg = wmCommand(t)
		}
		return false
	}
	switch {
	case t == "]":
		w.inList = false
		return false
	case !w.inObj && t == "{":
		w.inObj, w.port, w.cells, w.bad = true, "", w.cells[:0], false
		return false
	case w.inObj && (t == "}" || t == "},"):
		w.inObj = false
		return w.close(p)
	case !w.inObj:
		w.inList = false
		return false
	}
	key, val, ok := jsonLine(t)
	switch {
	case !ok || w.bad:
		w.bad = true
	case key == "Port" && slashedName(val) && w.port == "":
		w.port = strings.Clone(val)
	case pgColumn(key) >= 0 || wmQueueColumn(key):
		// watermarkstat prints at most 16 PGs or 64 queues a port: an
		// object with more is not its own.
		w.bad = len(w.cells) >= 64
		w.cells = append(w.cells, wmCell{col: key, val: val, l: l})
	default:
		w.bad = true
	}
	return false
}

// wmQueueColumn reports whether c names a queue of a watermark list.
func wmQueueColumn(c string) bool {
	typ, _ := splitQueueName(c)
	return typ == "UC" || typ == "MC" || typ == "ALL"
}

// close ends the open object, keeping its watermarks when it is one port's
// of one kind (PGs or queues), and reports whether it was.
func (w *wmJSON) close(p *switchParser) bool {
	if w.bad || w.port == "" || len(w.cells) == 0 {
		return false
	}
	pgs := pgColumn(w.cells[0].col) >= 0
	for _, c := range w.cells {
		if (pgColumn(c.col) >= 0) != pgs {
			return false
		}
	}
	for _, c := range w.cells {
		ev := At(p.out.src, c.l)
		p.out.lines.add(c.l)
		if !pgs {
			typ, q := splitQueueName(c.col)
			p.out.QueueWMs = appendCapped(p.out.QueueWMs, QueueWatermark{Port: w.port, Queue: q, Type: typ, Bytes: numOr(c.val), Evidence: ev}, maxSwitchRows, &p.out.Omitted)
			continue
		}
		v, ok := switchNum(c.val)
		p.noteNA(naPGWM, c.val == "N/A", ev)
		if !ok {
			continue // N/A
		}
		p.out.PGs = appendCapped(p.out.PGs, PGWatermark{Port: w.port, PG: pgColumn(c.col), Headroom: w.pg == swPGHeadroom, Untitled: w.pg == swNone, Bytes: v, Evidence: ev}, maxSwitchRows, &p.out.Omitted)
	}
	return true
}

// wmCommand returns the PG watermark table the command t echoes prints:
// `show priority-group [persistent-]watermark shared|headroom` (SONiC
// takes any prefix of a word of three letters or more: "show
// priority-group watermark head"), with sudo or not, or `watermarkstat -t
// pg_shared|pg_headroom`; swNone for any other line.
func wmCommand(t string) swTable {
	if !strings.Contains(t, "watermark") {
		return swNone
	}
	cmd, _, _ := strings.Cut(t, "|")
	f := strings.Fields(cmd)
	for i := range f {
		f[i] = strings.Trim(f[i], "`*")
	}
	f = slices.DeleteFunc(f, func(a string) bool { return a == "sudo" })
	for i, a := range f {
		switch {
		case a == "watermarkstat" || strings.HasSuffix(a, "/watermarkstat"):
			for k := i + 1; k+1 < len(f); k++ {
				if f[k] == "-t" || f[k] == "--type" {
					return pgTableNamed(strings.TrimPrefix(f[k+1], "pg_"))
				}
			}
			return swNone
		case a == "show" && (i == 0 || strings.ContainsAny(f[i-1], "$#>")):
			w := f[i+1:]
			if len(w) >= 3 && wordPrefix(w[0], "priority-group") && (wordPrefix(w[1], "watermark") || wordPrefix(w[1], "persistent-watermark")) {
				return pgTableNamed(w[2])
			}
			return swNone
		}
	}
	return swNone
}

// pgTableNamed returns the PG watermark table a command word names.
func pgTableNamed(w string) swTable {
	switch {
	case wordPrefix(w, "headroom"):
		return swPGHeadroom
	case wordPrefix(w, "shared"):
		return swPGShared
	}
	return swNone
}

// wordPrefix reports whether typed is word or a prefix of it of three
// letters or more, as SONiC's CLI takes.
func wordPrefix(typed, word string) bool {
	return typed == word || len(typed) >= 3 && strings.HasPrefix(word, typed)
}
