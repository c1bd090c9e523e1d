package ingest

import "strings"

// Ray. A Ray cluster prints each remote worker's line under a tag that
// names the worker's process, deduplicates lines that several workers
// printed alike, and a copy of its output can run several lines into one.

// splitRayTags splits s, the rest of a line that started with a Ray tag,
// before every further Ray tag in it that follows a space and that text
// follows: Ray prints each
// line of a worker under its own tag, so a tag inside a line is where a
// copy that lost its line ends ran the next one into it (a paste flattened
// to one line, "... 18.4 GB (RayWorkerWrapper pid=394715, ip=10.65.144.3)
// DEBUG ..."). The pieces, each without its tag and Ray's deduplication
// count, are appended to dst; dst is returned unchanged when s holds no
// further tag. A tag at the line's end, or after a Ray task's name
// ("ray::train_fn() (pid=2286, ip=10.0.0.2)"), is Ray's error text naming
// where a task ran, not a copied line.
func splitRayTags(s string, dst []string) []string {
	n := len(dst)
	start := 0
	for i := 0; len(dst)-n < maxSegments-1; i++ {
		j := strings.Index(s[i:], " (")
		if j < 0 {
			break
		}
		i += j
		rest, ok := cutRayTag(s[i+1:])
		if !ok || strings.TrimSpace(rest) == "" || strings.HasPrefix(s[strings.LastIndexByte(s[:i], ' ')+1:i], "ray::") {
			continue // Ray's own error text: "ray::train_fn() (pid=2286, ip=10.0.0.2)" ends the line
		}
		dst = append(dst, cutRayRepeat(strings.TrimRight(s[start:i], " \t")))
		start = len(s) - len(rest)
		i = start - 1
	}
	if len(dst) == n {
		return dst
	}
	return append(dst, cutRayRepeat(s[start:]))
}

// maxRayTag bounds the length of a Ray worker tag.
const maxRayTag = 120

// cutRayTag cuts the tag Ray puts before a remote worker's line: a
// parenthesis that holds "pid=N", optionally after the worker's name and
// rank and before its address ("(RayWorkerWrapper pid=4009, ip=10.0.0.2)",
// "(worker1, rank=1, pid=33870, ip=192.168.0.15)"), and the space after it.
// A Ray Data worker's name holds the parentheses of its operator
// ("(MapBatches(Embed) pid=5362, ip=10.0.32.44)"), fused operators joined
// by "->" and a lambda's "<lambda>" ("(ReadRange->MapBatches(<lambda>)
// pid=9, ip=10.0.0.3)"); the pid and address hold neither.
func cutRayTag(s string) (string, bool) {
	end := closingParen(s, maxRayTag)
	if end < 0 {
		return s, false
	}
	in := s[1:end]
	i := strings.Index(in, "pid=")
	if i < 0 || (i > 0 && in[i-1] != ' ' && in[i-1] != '(') || !isDigits(wordAt(in[i+4:])) {
		return s, false
	}
	if after := in[i+4+len(wordAt(in[i+4:])):]; after != "" && after[0] != ',' {
		return s, false // "(see pid=12 below)": prose, Ray puts the address or nothing after the pid
	}
	for j := 0; j < len(in); j++ {
		c := in[j]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(" ,=._:-()", c) >= 0 || j < i && (c == '<' || c == '>')) {
			return s, false
		}
	}
	return cutSeparator(s[end+1:]), true
}

// closingParen returns where the parenthesis that opens s closes, nested
// ones counted, -1 when it does not within limit bytes.
func closingParen(s string, limit int) int {
	depth := 0
	for i := 0; i < len(s) && i <= limit; i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

// rayRepeat is what Ray's log deduplication appends to a line it printed
// once for several workers, before the count.
const rayRepeat = " [repeated "

// cutRayRepeat cuts what Ray's log deduplication appends to a line: " [repeated
// 7x across cluster]", and on the first such line of a run the note after
// it, " (Ray deduplicates logs by default. Set RAY_DEDUP_LOGS=0 ...)". The
// line is then the one each worker printed.
func cutRayRepeat(s string) string {
	i := strings.LastIndex(s, rayRepeat)
	if i < 0 {
		return s
	}
	rest := s[i+len(rayRepeat):]
	n := 0
	for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	tail, ok := strings.CutPrefix(rest[n:], "x across cluster]")
	if !ok || n == 0 {
		return s
	}
	if tail = strings.TrimRight(tail, " \t"); tail == "" || strings.HasPrefix(tail, " (Ray deduplicates logs") && strings.HasSuffix(tail, ")") {
		return s[:i]
	}
	return s
}

// wordAt returns the run of characters at the start of s up to a comma,
// space or the end.
func wordAt(s string) string {
	if i := strings.IndexAny(s, ", "); i >= 0 {
		return s[:i]
	}
	return s
}
