package ingest

import (
	"strconv"
	"strings"
)

// Pastes of wrapped terminal output sometimes join several NCCL lines into
// one, each padded to the terminal's width: "...OOB eth0:10.0.0.1<0>
// <spaces>host:11983:12550 [5] NCCL INFO Using network IBext". NCCL prints
// one line per write and never a second "host:pid:tid [dev] NCCL INFO"
// prefix inside it, so such a prefix after a run of spaces starts a line
// of its own.

// minJoinPad is the run of spaces before a prefix that marks a join.
const minJoinPad = 2

// splitJoinedNCCL splits s before every NCCL prefix ("host:pid:tid [dev]
// NCCL INFO", with an optional source location before WARN) that follows
// minJoinPad or more spaces, after the first marker. It returns the pieces,
// trailing spaces trimmed, appended to dst, or dst unchanged when s holds
// no such join.
func splitJoinedNCCL(s string, dst []string) []string {
	first := ncclMarker(s)
	if first < 0 {
		return dst
	}
	var cuts []int
	for off := first + 5; len(cuts) < maxSegments; {
		m := ncclMarker(s[off:])
		if m < 0 {
			break
		}
		m += off
		if at := joinedPrefixStart(s, m); at > 0 {
			cuts = append(cuts, at)
		}
		off = m + 5
	}
	if len(cuts) == 0 {
		return dst
	}
	prev := 0
	for _, c := range cuts {
		dst = append(dst, strings.TrimRight(s[prev:c], " \t"))
		prev = c
	}
	return append(dst, s[prev:])
}

// joinedPrefixStart returns where the NCCL prefix of the marker at m
// starts when that prefix follows a run of padding, else -1. The prefix is
// "host:pid:tid [dev] " and, for WARN lines, a source location
// ("net_ib.cc:1295 ") between the device and the marker.
func joinedPrefixStart(s string, m int) int {
	before := strings.TrimRight(s[:m], " ")
	if n := strings.LastIndexByte(before, ' '); n >= 0 && !strings.HasSuffix(before, "]") {
		before = strings.TrimRight(before[:n], " ") // the source location
	}
	if !strings.HasSuffix(before, "]") {
		return -1
	}
	open := strings.LastIndexByte(before, '[')
	if open < 0 || !isDigits(before[open+1:len(before)-1]) {
		return -1
	}
	head := strings.TrimRight(before[:open], " ")
	sp := strings.LastIndexByte(head, ' ')
	origin := head[sp+1:]
	if sp < minJoinPad-1 || strings.Count(origin, ":") < 2 {
		return -1
	}
	for i := 0; i < minJoinPad; i++ {
		if head[sp-i] != ' ' {
			return -1
		}
	}
	return sp + 1
}

// nccl-tests prints a table row in pieces: the size, count, type, redop
// and root before the collective runs, each half's time, algbw, busbw and
// #wrong after it runs. At NCCL_DEBUG=INFO with a subsystem that logs every
// call (TUNING, COLL), NCCL's lines come in between, the first of them
// right after the piece on its line: "   512   128   float   sum   -1h100:
// 497888:497888 [0] NCCL INFO 512 Bytes -> Algo 0 proto 0 time 25.259054"
// (nccl#1453). The piece's last field runs into the host name, so the
// line reads as an NCCL line of host "-1h100".

// A launcher's tag before each write keeps them apart by a space once
// it is taken off ("[0]    512 ...   -1[0] h100:...", Open MPI's
// --tag-output), or by the tag itself when a second launcher's tag came
// off instead.

// splitGluedPiece splits s where the NCCL prefix of its first marker
// starts when a piece of an nccl-tests row comes before it: fields that
// are all numbers, "N/A", data types or reduction names, the last one
// ending at a space or where the host name starts with a letter. It
// returns the piece and the NCCL line appended to dst, or dst unchanged.
func splitGluedPiece(s string, dst []string) []string {
	if i := firstNonSpace(s); i == len(s) || s[i] < '0' || s[i] > '9' {
		return dst // a piece starts with the row's size or a half's time
	}
	m := ncclMarker(s)
	if m < 0 {
		return dst
	}
	before := strings.TrimRight(s[:m], " ")
	if n := strings.LastIndexByte(before, ' '); n >= 0 && !strings.HasSuffix(before, "]") {
		before = strings.TrimRight(before[:n], " ") // a WARN's source location
	}
	open := strings.LastIndexByte(before, '[')
	if !strings.HasSuffix(before, "]") || open < 0 {
		return dst
	}
	head := strings.TrimRight(before[:open], " ")
	sp := strings.LastIndexByte(head, ' ')
	if sp < 0 || strings.TrimSpace(head[:sp]) == "" {
		return dst // the line starts with its prefix
	}
	tok := head[sp+1:]
	n := gluedFieldLen(tok)
	lead := head[:sp+1]
	if n == 0 {
		lead = cutTrailingTag(lead)
	}
	if strings.Count(tok[n:], ":") < 2 || !rowPiece(lead+tok[:n]) {
		return dst
	}
	cut := sp + 1 + n
	return append(dst, strings.TrimRight(lead+tok[:n], " "), s[cut:])
}

// cutTrailingTag removes the "[0]" a launcher put after the piece, still there
// when the tags are nested and only the outer one came off
// ("[1,0]<stdout>:[0]   512 ...   -1[0] h100:..."), from the end of s.
func cutTrailingTag(s string) string {
	t := strings.TrimRight(s, " ")
	open := strings.LastIndexByte(t, '[')
	if open > 0 && strings.HasSuffix(t, "]") && isDigits(t[open+1:len(t)-1]) && t[open-1] != ' ' {
		return t[:open] + " "
	}
	return s
}

// gluedFieldLen returns the length of the row field at the start of tok,
// an integer or "N/A", when a letter follows it; 0 otherwise.
func gluedFieldLen(tok string) int {
	n := 0
	if strings.HasPrefix(tok, "N/A") {
		n = 3
	} else {
		if strings.HasPrefix(tok, "-") {
			n = 1
		}
		d := n
		for n < len(tok) && tok[n] >= '0' && tok[n] <= '9' {
			n++
		}
		if n == d {
			return 0
		}
	}
	if n < len(tok) && (tok[n] >= 'a' && tok[n] <= 'z' || tok[n] >= 'A' && tok[n] <= 'Z') {
		return n
	}
	return 0
}

// rowPiece reports whether s holds three or more fields of an nccl-tests
// row and nothing else.
func rowPiece(s string) bool {
	f := strings.Fields(s)
	for _, w := range f {
		if _, err := strconv.ParseFloat(w, 64); err == nil || w == "N/A" || TypeSize(w) > 0 || redopNames[w] {
			continue
		}
		return false
	}
	return len(f) >= 3
}

// redopNames are the reduction names an nccl-tests row can carry.
var redopNames = map[string]bool{"sum": true, "prod": true, "max": true, "min": true, "avg": true, "mulsum": true, "none": true}
