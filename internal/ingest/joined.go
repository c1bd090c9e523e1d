package ingest

import "strings"

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
