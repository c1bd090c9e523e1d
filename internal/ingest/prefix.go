package ingest

import (
	"slices"
	"strings"
)

// Collector prefixes. What the tools that gather a program's output put
// before each of its lines, whatever the program:
//
//   - docker compose: the service name padded to one width, "svc-1  | ";
//   - kubectl logs --prefix: "[pod/trainer-0/main] ";
//   - journald and syslog: "Dec 04 10:00:01 gpu01 python[1234]: ", also
//     with an RFC 3339 time ("2024-05-01T10:00:00.123+00:00 gpu01 prog: ");
//   - pdsh and clush: the host, "gpu01: ";
//   - a log console's table copied as text (CloudWatch's): "  | <time> | ".
//
// Unlike a launcher tag (see cutTag), which only a launcher writes, each of
// these shapes can be a line's own text ("Name: ConnectX-6" is mlxconfig's,
// "a | b" a table row), so a shape is taken for a prefix only when most
// lines of a block carry it (detectPrefix), and is then cut from the lines
// of that block that carry it. Kernel lines keep their syslog prefix: the
// dmesg parser reads it (stripKernelPrefix).

// prefixKind names a collector prefix.
type prefixKind uint8

const (
	prefixNone    prefixKind = iota
	prefixCompose            // svc-1  |
	prefixKubectl            // [pod/name/container]
	prefixSyslog             // Dec 04 10:00:01 host prog[123]:
	prefixHost               // gpu01:
	prefixTable              //   | 2024-11-28T07:42:11.528Z |
	// prefixTags stands for the launcher tags (see stripLauncherTags)
	// between two collector prefixes: srun's label before pdsh's host.
	prefixTags
)

// prefixKinds lists the kinds detectPrefix tries, in order.
var prefixKinds = [...]prefixKind{prefixCompose, prefixKubectl, prefixSyslog, prefixHost, prefixTable}

// prefixBlockLines is how many lines one detection looks at: the lines
// of a block are read ahead, so it also bounds the read-ahead.
const prefixBlockLines = 64

// cutPrefix returns the length of the prefix of kind k at the start of s,
// with the separator after it, and the prefix's key (the service, pod or
// host it names); n is 0 when s does not start with one.
func cutPrefix(s string, k prefixKind) (n int, key string) {
	switch k {
	case prefixCompose:
		return cutCompose(s)
	case prefixKubectl:
		return cutKubectl(s)
	case prefixSyslog:
		return cutSyslog(s)
	case prefixHost:
		return cutHostPrefix(s)
	case prefixTable:
		return cutTableTime(s), ""
	}
	return 0, ""
}

// detectPrefix returns the collector prefix most of lines carry, or
// prefixNone. Blank lines do not count.
func detectPrefix(lines []string) prefixKind {
	nonBlank := 0
	for _, s := range lines {
		if strings.TrimSpace(s) != "" {
			nonBlank++
		}
	}
	for _, k := range prefixKinds {
		matched := 0
		for _, s := range lines {
			if n, _ := cutPrefix(s, k); n > 0 {
				matched++
			}
		}
		if matched < minPrefixed(k) || 2*matched <= nonBlank || !looksCollected(lines, k, matched) {
			continue
		}
		return k
	}
	return prefixNone
}

// minPrefixed is how many lines must carry a prefix of kind k: a host
// name is common text and needs its repetition seen; the other shapes
// are a collector's alone, and a one-line paste may carry them.
func minPrefixed(k prefixKind) int {
	if k == prefixHost {
		return 2
	}
	return 1
}

// looksCollected checks what only a collector's prefix does: compose
// pads every container name to one width, so its bars stand in one
// column; pdsh names each host on many lines, so its keys repeat.
func looksCollected(lines []string, k prefixKind, matched int) bool {
	if k == prefixSyslog {
		return looksSyslog(lines)
	}
	if k != prefixCompose && k != prefixHost {
		return true
	}
	seen := map[string]bool{}
	bar := -1
	for _, s := range lines {
		n, key := cutPrefix(s, k)
		if n == 0 {
			continue
		}
		seen[key] = true
		if k == prefixCompose {
			b := strings.IndexByte(s, '|')
			if bar >= 0 && b != bar {
				return false
			}
			bar = b
		}
	}
	return k == prefixCompose || 2*len(seen) <= matched
}

// looksSyslog reports whether lines that read as syslog's are a log's:
// some line names its program's process id ("prog[123]: "), or two such
// lines in a row name the same host. One "Dec 04 10:00:01 DCBX mode: ..." is moreutils'
// ts before a command's line, not a host and a program (cutClockTime
// reads it the same way).
func looksSyslog(lines []string) bool {
	var host string
	seen := 0
	for _, s := range lines {
		n, h := cutSyslog(s)
		if n == 0 {
			continue
		}
		if syslogPid(s, n) {
			return true
		}
		if seen > 0 && h == host {
			return true
		}
		host = h
		seen++
	}
	return false
}

// syslogPid reports whether the syslog prefix s[:n] that cutSyslog found
// names the program's process id.
func syslogPid(s string, n int) bool { return n >= 3 && s[n-3] == ']' }

// maxPrefixLayers bounds how many collector prefixes stack on one line
// (docker compose around pdsh around journald).
const maxPrefixLayers = 4

// detectPrefixes returns the collector prefixes most of lines carry,
// outermost first, appended to dst: each is detected on what the ones
// before it leave of the lines.
func detectPrefixes(lines []string, dst []prefixKind) []prefixKind {
	for len(dst) < maxPrefixLayers {
		k := detectPrefix(lines)
		if k == prefixNone {
			if !slices.ContainsFunc(lines, hasLauncherTag) {
				break
			}
			untagged := make([]string, len(lines))
			for i, s := range lines {
				untagged[i], _, _ = stripLauncherTags(s)
			}
			if k = detectPrefix(untagged); k == prefixNone {
				break
			}
			dst, lines = append(dst, prefixTags), untagged
		}
		dst = append(dst, k)
		cut := make([]string, len(lines))
		for i, s := range lines {
			n, _ := cutPrefix(s, k)
			cut[i] = s[n:]
		}
		lines = cut
	}
	return dst
}

// hasLauncherTag reports whether s starts with a launcher tag.
func hasLauncherTag(s string) bool {
	_, _, k := stripLauncherTags(s)
	return k != tagNone
}

// cutPrefixes cuts the prefixes ks, in order, from s where s carries
// them, and returns what is left, the host a pdsh or clush prefix names
// ("" for none), and the first launcher tag cut, with its kind.
func cutPrefixes(s string, ks []prefixKind) (rest, host, owner string, k tagKind) {
	for _, p := range ks {
		if p != prefixTags {
			n, key := cutPrefix(s, p)
			if p == prefixHost && n > 0 && host == "" {
				host = key
			}
			s = s[n:]
			continue
		}
		var o string
		var tk tagKind
		if s, o, tk = stripLauncherTags(s); betterTag(k, tk) {
			owner, k = o, tk
		}
	}
	return s, host, owner, k
}

// cutCompose cuts "svc-1  | ": a container name, padding, a bar and one
// space (none when the line is empty). Compose names a container after its
// service and replica, "svc-1", "project_svc_1": the number at the end
// tells the prefix from a table's first column ("a  | b").
func cutCompose(s string) (int, string) {
	i := nameEnd(s, 0)
	d := i
	for d > 0 && s[d-1] >= '0' && s[d-1] <= '9' {
		d--
	}
	if d == i || d < 2 || s[d-1] != '-' && s[d-1] != '_' {
		return 0, ""
	}
	j := i
	for j < len(s) && s[j] == ' ' {
		j++
	}
	if j == i || j >= len(s) || s[j] != '|' {
		return 0, ""
	}
	j++
	if j < len(s) && s[j] == ' ' {
		j++
	}
	return j, s[:i]
}

// cutKubectl cuts "[pod/name/container] ".
func cutKubectl(s string) (int, string) {
	if !strings.HasPrefix(s, "[") {
		return 0, ""
	}
	end := strings.IndexByte(s, ']')
	if end < 0 || end > 256 {
		return 0, ""
	}
	in := s[1:end]
	parts := strings.Split(in, "/")
	if len(parts) != 3 {
		return 0, ""
	}
	for _, p := range parts {
		if p == "" || nameEnd(p, 0) != len(p) {
			return 0, ""
		}
	}
	n := end + 1
	if n < len(s) && s[n] == ' ' {
		n++
	}
	return n, in
}

// cutSyslog cuts "Dec 04 10:00:01 host prog[123]: " or the same after an
// RFC 3339 time. A kernel line is left whole (see the package comment).
func cutSyslog(s string) (int, string) {
	i := syslogTimeEnd(s)
	if i == 0 || i >= len(s) || s[i] != ' ' {
		return 0, ""
	}
	i++
	h := nameEnd(s, i)
	if h == i || h >= len(s) || s[h] != ' ' {
		return 0, ""
	}
	host := s[i:h]
	p := h + 1
	e := nameEnd(s, p)
	if e == p || s[p:e] == "kernel" || s[p] >= '0' && s[p] <= '9' {
		return 0, "" // a program's name starts with a letter: "Epoch 0: " is text
	}
	if e < len(s) && s[e] == '[' {
		c := strings.IndexByte(s[e:], ']')
		if c < 2 || !isDigits(s[e+1:e+c]) {
			return 0, ""
		}
		e += c + 1
	}
	if !strings.HasPrefix(s[e:], ": ") {
		return 0, ""
	}
	return e + 2, host
}

// syslogTimeEnd returns where the time at the start of s ends, in the
// forms syslog and journalctl's -o short-* print: syslog's "Dec  4
// 10:00:01" (short), with a fraction (short-precise, "Dec 04
// 10:00:01.123456"); "Wed 2024-12-04 10:00:01 UTC" (short-full); seconds
// since the epoch (short-unix, "1733306401.123456"); an ISO date and time
// with its fraction and zone (short-iso, short-iso-precise). 0 when s
// starts with none.
func syslogTimeEnd(s string) int {
	if len(s) >= 15 && isMonthDay(s) && s[6] == ' ' && isClock(s[7:15]) {
		return 15 + fractionEnd(s[15:])
	}
	if len(s) > 24 && isWeekday(s) && isoTimeEnd(s[4:], " ", "") == 19 && s[23] == ' ' {
		z := 24
		for z < len(s) && (s[z] >= 'A' && s[z] <= 'Z' || s[z] == '+' || s[z] == '-' || s[z] >= '0' && s[z] <= '9') {
			z++
		}
		if z > 24 {
			return z
		}
	}
	if len(s) > 11 && isDigits(s[:10]) && s[10] == '.' {
		if f := fractionEnd(s[10:]); f > 1 {
			return 10 + f
		}
	}
	return isoTimeEnd(s, "T", ".:+-Z")
}

// isMonthDay reports whether s starts with syslog's month and day, "Dec
// 04" or "Dec  4".
func isMonthDay(s string) bool {
	return len(s) >= 6 && s[0] >= 'A' && s[0] <= 'Z' && s[1] >= 'a' && s[1] <= 'z' && s[2] >= 'a' && s[2] <= 'z' && s[3] == ' ' &&
		(s[4] == ' ' || s[4] >= '0' && s[4] <= '9') && s[5] >= '0' && s[5] <= '9'
}

// isWeekday reports whether s starts with a day's abbreviated name and a
// space, "Wed ".
func isWeekday(s string) bool {
	return len(s) >= 4 && s[3] == ' ' && slices.Contains([]string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}, s[:3])
}

// fractionEnd returns where the fraction of a second at the start of s
// (".123456") ends, 0 when s starts with none.
func fractionEnd(s string) int {
	if len(s) < 2 || s[0] != '.' {
		return 0
	}
	i := 1
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 1 {
		return 0
	}
	return i
}

// isClock reports whether s is "HH:MM:SS".
func isClock(s string) bool {
	return len(s) == 8 && isDigits(s[0:2]) && s[2] == ':' && isDigits(s[3:5]) && s[5] == ':' && isDigits(s[6:8])
}

// cutTableTime cuts the time column of a log console's table,
// "  | 2024-11-28T07:42:11.528Z | ", and returns its length, 0 when s does not
// start with one.
func cutTableTime(s string) int {
	i := firstNonSpace(s)
	if i >= len(s) || s[i] != '|' {
		return 0
	}
	i += 1 + firstNonSpace(s[i+1:])
	t := syslogTimeEnd(s[i:])
	if t == 0 || s[i] < '0' || s[i] > '9' {
		return 0
	}
	i += t
	if n := gluedRowCopy(s[i:]); n > 0 {
		return i + n
	}
	i += firstNonSpace(s[i:])
	if i >= len(s) || s[i] != '|' {
		return 0
	}
	i++
	if i < len(s) && s[i] == ' ' {
		i++
	}
	return i
}

// gluedRowCopy reads the rest of a console row the copy glued to its
// time, the message then " | " and the message again (CloudWatch's
// expanded row: "  | <time>host:1:2 [0] NCCL INFO x | host:1:2 [0] NCCL
// INFO x"), and returns where the second copy starts; 0 when rest is not
// so.
func gluedRowCopy(rest string) int {
	rest = strings.TrimRight(rest, " \t\r")
	k := (len(rest) - 3) / 2
	if k <= 0 || rest[k:k+3] != " | " || rest[:k] != rest[k+3:] {
		return 0
	}
	return k + 3
}

// cutHostPrefix cuts pdsh's "gpu01: ". The host must hold a digit, as
// the names of a cluster's nodes do ("gpu01", "node-3", "10.0.0.7") and
// the keys of key-value dumps mostly do not ("priority: 1", "tc: 0"),
// and no underscore, which DNS names never hold ("mlx5_0: "). A bare
// number is srun's label (cutLabel), not a host.
func cutHostPrefix(s string) (int, string) {
	i := nameEnd(s, 0)
	if i == 0 || !strings.HasPrefix(s[i:], ": ") || isDigits(s[:i]) ||
		!strings.ContainsAny(s[:i], "0123456789") || strings.Contains(s[:i], "_") {
		return 0, ""
	}
	return i + 2, s[:i]
}

// nameEnd returns where the host, service or program name that starts at
// s[i] ends: letters, digits, '.', '_' and '-', starting with a letter or
// digit; i when none starts there.
func nameEnd(s string, i int) int {
	if i >= len(s) || !isAlnum(s[i]) {
		return i
	}
	j := i + 1
	for j < len(s) && (isAlnum(s[j]) || s[j] == '.' || s[j] == '_' || s[j] == '-') {
		j++
	}
	return j
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
