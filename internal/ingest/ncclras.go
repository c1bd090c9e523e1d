package ingest

import (
	"strconv"
	"strings"
)

// KindNCCLRAS is the report NCCL's RAS client prints (`ncclras`, or the
// RAS socket's STATUS in text form), NCCL 2.24 on.
const KindNCCLRAS Kind = "nccl-ras"

// RASReport is the text report of NCCL's RAS client (src/ras/
// client_support.cc): the job summary, one row per group of alike
// communicators, and the entries of its Errors and Warnings sections.
//
//	Communicators... (0.00s)
//	=============
//
//	Group     Comms     Nodes     Ranks     Ranks     Ranks    Status  Errors
//	    #  in group  per comm  per node  per comm  in group
//	    0         1         4         8        32        32   RUNNING  MISMATCH
//
//	Warnings
//	========
//
//	#0-0 (fa93daea854b060b) MISMATCH
//	  Communicator ranks have different AllGather operation counts
//	  30 ranks have launched up to operation 640
type RASReport struct {
	Scoped
	artifactHead
	// Version is the "NCCL version 2.26.2 compiled with CUDA 12.6" line's
	// version, "" when not shown.
	Version   string
	VersionEv Evidence
	// Groups are the communicator table's rows.
	Groups []RASGroup
	// Entries are the Errors and Warnings sections' entries, in order.
	Entries []RASEntry
}

// A RASGroup is one row of the communicator table: Comms communicators of
// RanksPerComm ranks on Nodes nodes, their Status (RUNNING, INIT,
// FINALIZE, NOCOMM, ...) and Errors (OK, or INCOMPLETE, ERROR, MISMATCH
// joined by commas).
type RASGroup struct {
	Group, Comms, Nodes, RanksPerComm int
	Status, Errors                    string
	Evidence                          Evidence
}

// A RASEntry is one entry of the Errors or Warnings section: its Kind
// (INCOMPLETE, DEAD, ERROR, MISMATCH, TIMEOUT), the communicator it is
// about ("#0-0 (fa93daea854b060b)", "" for the job), and its detail lines.
type RASEntry struct {
	// Section is "Errors" or "Warnings".
	Section, Kind, Comm string
	// Details are the indented lines after the entry's title, the first
	// maxRASDetails of them.
	Details  []string
	Evidence Evidence
	// DetailEv are the details' lines.
	DetailEv []Evidence
}

// Kind returns KindNCCLRAS.
func (r *RASReport) Kind() Kind { return KindNCCLRAS }

// The bounds of one report: NCCL groups alike communicators, so a job of
// thousands of communicators prints few rows; the entries name at most
// the outlier ranks.
const (
	maxRASGroups  = 1024
	maxRASEntries = 1024
	maxRASDetails = 16
)

type rasParser struct {
	out RASReport
	// seen is set once a line only the RAS client prints has been read
	// (a section title over its rule); section is the section being read.
	seen    bool
	section string
	prev    Line // the line before, for a title over its rule of '='
	cur     *RASEntry
}

// NewNCCLRASParser returns a parser for NCCL RAS reports in the input src.
func NewNCCLRASParser(src string) Parser {
	return &rasParser{out: RASReport{artifactHead: artifactHead{src: src}}}
}

// Feed implements Parser.
func (p *rasParser) Feed(l Line) {
	if l.NCCL {
		return
	}
	t := strings.TrimRight(l.Text, " \t")
	prev := p.prev
	p.prev = l
	if rule(t) {
		p.title(prev, l)
		return
	}
	if v, ok := strings.CutPrefix(t, "NCCL version "); ok && strings.Contains(v, " compiled with CUDA ") {
		v, _, _ = strings.Cut(v, " ")
		p.out.Version, p.out.VersionEv = strings.Clone(v), At(p.out.src, l)
		return
	}
	if !p.seen {
		return
	}
	switch p.section {
	case "Communicators":
		p.group(l, t)
	case "Errors", "Warnings":
		p.entry(l, t)
	}
}

// rule reports a line of '=' alone, the RAS client's underline.
func rule(t string) bool {
	return len(t) >= 6 && strings.Trim(t, "=") == ""
}

// title starts a section at its rule: "Job summary", "Communicators...
// (0.00s)" (or "Gathering data about the NCCL communicators (timeout
// 5s)... (0.012s)"), "Errors", "Warnings".
func (p *rasParser) title(prev, l Line) {
	p.finish()
	name := strings.TrimSpace(prev.Text)
	switch {
	case name == "Job summary":
		p.seen = true
	case strings.HasPrefix(name, "Communicators..."), strings.HasPrefix(name, "Gathering data about the NCCL communicators"):
		// 2.26 titles the table "Communicators... (0.00s)"; later
		// versions print the gathering notice before the time.
		p.seen = true
		name = "Communicators"
	case name == "Errors" || name == "Warnings":
		if !p.seen {
			return
		}
	default:
		return
	}
	p.section = name
	p.out.lines.add(prev)
	p.out.lines.add(l)
}

// group reads a row of the communicator table:
// "%5d  %8d  %8d  %8s  %8d  %8d  %8s  %6s".
func (p *rasParser) group(l Line, t string) {
	f := strings.Fields(t)
	if len(f) != 8 || len(p.out.Groups) >= maxRASGroups {
		if len(f) > 0 && (f[0] == "Group" || f[0] == "#") {
			p.out.lines.add(l) // the table's two header lines
		}
		return
	}
	var n [5]int
	for i, j := range []int{0, 1, 2, 4, 5} {
		v, err := strconv.Atoi(f[j])
		if err != nil || v < 0 {
			return
		}
		n[i] = v
	}
	p.out.Groups = append(p.out.Groups, RASGroup{Group: n[0], Comms: n[1], Nodes: n[2], RanksPerComm: n[3],
		Status: strings.Clone(f[6]), Errors: strings.Clone(f[7]), Evidence: At(p.out.src, l)})
	p.out.lines.add(l)
}

// rasKinds are the titles of the Errors and Warnings entries.
var rasKinds = map[string]bool{"INCOMPLETE": true, "DEAD": true, "ERROR": true, "MISMATCH": true, "TIMEOUT": true}

// entry reads an entry's title ("INCOMPLETE", "#0-0 (fa93daea854b060b)
// MISMATCH") or, indented, one of its detail lines.
func (p *rasParser) entry(l Line, t string) {
	if t == "" {
		p.finish()
		return
	}
	if strings.HasPrefix(t, "  ") {
		if p.cur != nil && len(p.cur.Details) < maxRASDetails {
			p.cur.Details = append(p.cur.Details, strings.Clone(strings.TrimSpace(t)))
			p.cur.DetailEv = append(p.cur.DetailEv, At(p.out.src, l))
			p.out.lines.add(l)
		}
		return
	}
	p.finish()
	comm, kind := "", t
	if strings.HasPrefix(t, "#") {
		i := strings.LastIndexByte(t, ' ')
		if i < 0 {
			return
		}
		comm, kind = t[:i], t[i+1:]
	}
	if !rasKinds[kind] || len(p.out.Entries) >= maxRASEntries {
		return
	}
	p.cur = &RASEntry{Section: p.section, Kind: kind, Comm: strings.Clone(comm), Evidence: At(p.out.src, l)}
	p.out.lines.add(l)
}

// finish keeps the entry being read.
func (p *rasParser) finish() {
	if p.cur != nil {
		p.out.Entries = append(p.out.Entries, *p.cur)
		p.cur = nil
	}
}

// Result implements Parser.
func (p *rasParser) Result() Artifact {
	p.finish()
	if !p.seen || len(p.out.Groups) == 0 && len(p.out.Entries) == 0 {
		return nil
	}
	return &p.out
}
