package ingest

import (
	"slices"
	"strings"
)

// Launcher and logger tags. What launchers put before each piece of a
// rank's output:
//
//   - Open MPI --tag-output: "[1,0]<stdout>:" (job, rank);
//   - MPICH/Intel MPI -prepend-rank and many wrappers: "[0] ", "[12]:";
//     they tag every write, so a line a program prints in pieces (an
//     nccl-tests row) carries the tag again mid-line: "... -1[0]  1626.5";
//   - rank-named loggers: "rank0: ", "[rank0]: ", "[Rank 3] ";
//   - Slurm srun --label: "0: ", padded to the width of the largest rank
//     ("  3: ");
//   - timestamps of log collectors: "2024-05-01T12:00:00.123Z ",
//     "[2026-03-13 22:26:02] " (kubectl logs --timestamps, docker logs
//     -t, GitHub Actions' raw logs), with the stream and tag a container
//     runtime writes after it in a node's log files ("stdout F ");
//   - torchrun (torch.distributed.elastic) with --tee or --redirects:
//     "[default0]:", the worker role and its local rank, written right
//     before the line ("[trainer3]:"; a TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE
//     may add the global rank, "[trainer0|0]:");
//   - Ray (and the tools built on it: SkyPilot, vLLM) before each line
//     of a remote worker: "(pid=4009) ", "(RayWorkerWrapper pid=4009,
//     ip=10.0.0.2) ", "(worker1, rank=1, pid=33870, ip=192.168.0.15) ";
//   - moreutils' ts before each line of a batch script's output:
//     "Dec 04 10:00:01 ";
//   - Open MPI --timestamp-output: ctime's date run into the tag after
//     it, "Fri Aug 11 12:31:45 2023[1,0]<stdout>:" with --tag-output,
//     "Fri Aug 11 12:31:45 2023<stdout>:" without.
//
// NCCL's own "host:pid:tid [dev]" prefix is not a launcher tag and stays.

// tagKind says which kind of launcher tag starts a line.
type tagKind uint8

const (
	tagNone    tagKind = iota
	tagMPI             // [1,0]<stdout>:
	tagRank            // [0], [12]:
	tagWord            // rank3:, [rank3]:, [Rank 3]
	tagLabel           // srun --label "3: "
	tagTime            // ISO 8601 timestamp
	tagRay             // (worker1, rank=1, pid=33870, ip=192.168.0.15)
	tagElastic         // torchrun's [default0]:
)

// cutTag splits the launcher tag at the start of s from the text after it
// (and after the separator that follows the tag). It returns kind tagNone
// and s unchanged when s starts with no tag.
func cutTag(s string) (tag, rest string, k tagKind) {
	if s == "" {
		return "", s, tagNone
	}
	switch c := s[0]; {
	case c == '[':
		if r, ok := cutMPITag(s); ok {
			return s[:len(s)-len(r)], r, tagMPI
		}
		if r, k := cutRankTag(s); k != tagNone {
			return s[:len(s)-len(r)], r, k
		}
		if r, ok := cutTimestamp(s); ok {
			return s[:len(s)-len(r)], r, tagTime
		}
		if r, ok := cutElasticTag(s); ok {
			return s[:len(s)-len(r)], r, tagElastic
		}
	case c == 'r' || c == 'R':
		if r, k := cutRankTag(s); k != tagNone {
			return s[:len(s)-len(r)], r, k
		}
	case c >= '0' && c <= '9':
		if r, ok := cutTimestamp(s); ok {
			return s[:len(s)-len(r)], r, tagTime
		}
		if r, ok := cutLabel(s); ok {
			return s[:len(s)-len(r)], r, tagLabel
		}
	case c == ' ' || c == '\t':
		if r, ok := cutLabel(s); ok {
			return s[:len(s)-len(r)], r, tagLabel
		}
		if r, k := cutIndentedTag(s); k != tagNone {
			return s[:len(s)-len(r)], r, k
		}
	case c == '(':
		if r, ok := cutRayTag(s); ok {
			return s[:len(s)-len(r)], r, tagRay
		}
	case c >= 'A' && c <= 'Z':
		if r, ok := cutMPITime(s); ok {
			return s[:len(s)-len(r)], r, tagTime
		}
		if r, ok := cutClockTime(s); ok {
			return s[:len(s)-len(r)], r, tagTime
		}
	}
	return "", s, tagNone
}

// cutMPITime cuts the date Open MPI's --timestamp-output puts before a
// line: ctime's "Www Mmm dd hh:mm:ss yyyy" (the day padded with a space,
// "Aug  1"), no separator, then either the --tag-output tag, which is
// left for the next cut, or "<stdout>:"/"<stderr>:", cut with it.
func cutMPITime(s string) (string, bool) {
	const n = len("Fri Aug 11 12:31:45 2023")
	if len(s) <= n || !isDateStamp(s[:n]) || s[7] != ' ' || s[10] != ' ' || !isClock(s[11:19]) || s[19] != ' ' || !isDigits(s[20:n]) ||
		s[8] != ' ' && !isDigits(s[8:9]) || !isDigits(s[9:10]) {
		return s, false
	}
	rest := s[n:]
	if _, ok := cutMPITag(rest); ok {
		return rest, true
	}
	for _, tag := range []string{"<stdout>:", "<stderr>:"} {
		if strings.HasPrefix(rest, tag) {
			return rest[len(tag):], true
		}
	}
	return s, false
}

// cutClockTime cuts the time moreutils' ts puts before each line of a
// command's output by default ("Dec 04 10:00:01 ", a batch script's
// `cmd | ts`), and the space after it. A syslog line (a host and a
// program with its process id after the time, the kernel's too) keeps its
// time: it is a collector prefix (see cutSyslog), or the dmesg reader's.
// Without the process id, "Dec 04 10:00:01 DCBX mode: Firmware
// controlled" is ts before mlnx_qos's first line, not a host and a program,
// and so is "host prog: msg": kept as syslog are "host prog[123]: " and
// "host kernel: " only (TestCutClockTime).
func cutClockTime(s string) (string, bool) {
	if syslogTimeEnd(s) != 15 || len(s) < 16 || s[15] != ' ' {
		return s, false
	}
	rest := s[16:]
	if n, _ := cutSyslog(s); n > 0 && syslogPid(s, n) {
		return s, false
	}
	if h := nameEnd(rest, 0); h > 0 && strings.HasPrefix(rest[h:], " kernel:") {
		return s, false
	}
	return rest, true
}

// cutIndentedTag cuts the indentation a log wrapper adds before a line
// (a Go test log, a CI step, a YAML block quoting a pod's output) together
// with the launcher tag after it. Only tags that cannot start a
// machine-printed line are taken after indentation (Open MPI's, Ray's, an
// ISO timestamp): an indented "[0]: " is bnx2x's per-queue ethtool prefix.
func cutIndentedTag(s string) (string, tagKind) {
	t := strings.TrimLeft(s, " \t")
	if t == "" {
		return s, tagNone
	}
	switch t[0] {
	case '[':
		if r, ok := cutMPITag(t); ok {
			return r, tagMPI
		}
	case '(':
		if r, ok := cutRayTag(t); ok {
			return r, tagRay
		}
	}
	if r, ok := cutTimestamp(t); ok {
		return r, tagTime
	}
	return s, tagNone
}

// stripLauncherTags removes the launcher tags at the start of s, several
// when they run together ("[1,0]<stdout>:[0] 2024-05-01T12:00:00Z ..."),
// and returns the text and the first tag removed that names a rank (else
// the first) with its kind. A line that would be empty without its tag
// keeps it, but for a time or torchrun's tag: a collector stamps blank
// lines too, and torchrun tags them.
func stripLauncherTags(s string) (text, owner string, k tagKind) {
	text = s
	for range 4 {
		tag, rest, kind := cutTag(text)
		if kind == tagNone || strings.TrimSpace(rest) == "" && kind != tagTime && kind != tagElastic {
			break
		}
		if betterTag(k, kind) {
			owner, k = tag, kind
		}
		text = rest
	}
	return text, owner, k
}

// wordTagRank returns the rank of the rank-named logger's tag ("[rank13]:",
// "rank3: ", PyTorch's own) among the launcher tags at the start of s, -1
// when none of them is one. Another tag before it ("[1784] [rank0]:", a
// paste's line number) may be the line's owner tag, but only PyTorch's
// names the job-wide rank of the process that printed the line.
func wordTagRank(s string) int {
	text := s
	for range 4 {
		tag, rest, kind := cutTag(text)
		if kind == tagNone || strings.TrimSpace(rest) == "" {
			break
		}
		if kind == tagWord {
			return tagRankNumber(tag, kind)
		}
		text = rest
	}
	return -1
}

// betterTag reports whether a tag of kind next, found after one of kind
// k, is the one to keep for a line: any tag over none, a rank's over a
// time or torchrun's (which names a local rank), and a tag that repeats
// mid-line (Open MPI's, "[0]") over one that does not, so that
// splitMidTags finds its repeats.
func betterTag(k, next tagKind) bool {
	repeats := func(k tagKind) bool { return k == tagMPI || k == tagRank }
	return next != tagNone && (k == tagNone || k == tagTime || k == tagElastic || !repeats(k) && repeats(next))
}

// cutMPITag cuts an Open MPI --tag-output prefix such as "[1,0]<stdout>:"
// or "[1,12]<stderr>: ".
func cutMPITag(s string) (string, bool) {
	if len(s) < 10 || s[0] != '[' {
		return s, false
	}
	end := strings.Index(s, "]<std")
	if end < 2 || end > 16 {
		return s, false
	}
	for i := 1; i < end; i++ {
		if c := s[i]; (c < '0' || c > '9') && c != ',' {
			return s, false
		}
	}
	rest := s[end+1:]
	for _, tag := range []string{"<stdout>:", "<stderr>:"} {
		if strings.HasPrefix(rest, tag) {
			// Open MPI writes no separator: a space after the tag is
			// the line's own.
			return rest[len(tag):], true
		}
	}
	return s, false
}

// deviceField reports whether rest, the text after a "[N]" that begins a
// line, is the remainder of NCCL's own prefix, the "[N]" being its device
// field with the host:pid:tid before it cut off ("[0] NCCL INFO ...",
// "[0] misc/socket.cc:71 NCCL WARN ...", NVIDIA/nccl-tests#245,
// NVIDIA/nccl#1612): NCCL's marker follows with no host:pid:tid before it.
// A launcher's tag ("[155] host:1:2 [3] NCCL INFO") is followed by one.
func deviceField(rest string) bool {
	i := strings.Index(rest, "NCCL ")
	if i < 0 || !strings.HasPrefix(rest[i:], "NCCL INFO") && !strings.HasPrefix(rest[i:], "NCCL WARN") {
		return false
	}
	return !slices.ContainsFunc(strings.Fields(rest[:i]), hostPidTid)
}

// cutRankTag cuts "[0] ", "[12]:", "rank3: ", "[rank3]: " or "[Rank 3] ".
func cutRankTag(s string) (string, tagKind) {
	t := s
	bracket := t[0] == '['
	if bracket {
		t = t[1:]
	}
	word := false
	if len(t) >= 4 && (t[0] == 'r' || t[0] == 'R') && strings.EqualFold(t[:4], "rank") {
		t, word = strings.TrimPrefix(t[4:], " "), true
	}
	i := 0
	for i < len(t) && i < 6 && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 {
		return s, tagNone
	}
	t = t[i:]
	k := tagRank
	if word {
		k = tagWord
	}
	if bracket {
		if !strings.HasPrefix(t, "]") {
			return s, tagNone
		}
		t = strings.TrimPrefix(t[1:], ":")
		if t != "" && t[0] != ' ' && t[0] != '\t' && !word {
			return s, tagNone // "[0]mlx5_0": an index, not a tag
		}
		if r := cutSeparator(t); !word && deviceField(r) {
			return s, tagNone
		}
		return cutSeparator(t), k
	}
	if !word || !strings.HasPrefix(t, ":") {
		return s, tagNone
	}
	return cutSeparator(t[1:]), k
}

// maxElasticTag bounds the length of a torchrun tag.
const maxElasticTag = 48

// cutElasticTag cuts the tag torchrun puts before each line of a worker it
// tees: "[" the role, which ends in the worker's local rank ("default0",
// "trainer3"), optionally "|" and more digits or words, then "]:" with no
// separator: what follows is the line's own. The role starts with a
// letter and holds letters, digits, '_' and '-'; "[rank0]:" is PyTorch's
// rank-named logger (cutRankTag), read before this.
func cutElasticTag(s string) (string, bool) {
	end := strings.Index(s, "]:")
	if end < 3 || end > maxElasticTag {
		return s, false
	}
	role, extra, _ := strings.Cut(s[1:end], "|")
	if role == "" || !(role[0] >= 'a' && role[0] <= 'z' || role[0] >= 'A' && role[0] <= 'Z') || !isDigits(role[len(role)-1:]) {
		return s, false
	}
	for _, part := range []string{role, extra} {
		for i := 0; i < len(part); i++ {
			if c := part[i]; !isAlnum(c) && c != '_' && c != '-' {
				return s, false
			}
		}
	}
	return s[end+2:], true
}

// cutLabel cuts an srun --label prefix: up to four spaces of padding, a
// task number and ": ".
func cutLabel(s string) (string, bool) {
	i := 0
	for i < len(s) && i < 4 && s[i] == ' ' {
		i++
	}
	j := i
	for j < len(s) && j-i < 6 && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j == i || !strings.HasPrefix(s[j:], ": ") {
		return s, false
	}
	return s[j+2:], true
}

// cutTimestamp cuts an ISO-8601 date and time (optionally bracketed) and
// the separator after it.
func cutTimestamp(s string) (string, bool) {
	t := strings.TrimPrefix(s, "[")
	i := isoTimeEnd(t, "T ", ".,:+-Z")
	if i == 0 {
		i = minuteTimeEnd(t)
	}
	if i == 0 {
		return s, false
	}
	// A zone after a space: "2025-11-09 15:39:31.043 +08:00".
	if z := t[i:]; len(z) >= 4 && z[0] == ' ' && (z[1] == '+' || z[1] == '-') && isDigits(z[2:4]) {
		i += 4
		for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == ':') {
			i++
		}
	}
	rest := strings.TrimPrefix(t[i:], "]")
	// "2024-05-01 10:00:00 | text", "... - text"; a Markdown table row
	// after the time keeps its bar ("... | 2 | 10.09 |").
	if r := strings.TrimLeft(rest, " \t"); r != "" && (r[0] == '|' && !strings.HasSuffix(strings.TrimRight(r, " \t"), "|") || r[0] == '-') {
		rest = r[1:]
	}
	rest = cutSeparator(rest)
	// A time alone is `date`'s output; a time and its separator alone
	// is a blank line that a collector stamped.
	if rest == "" && strings.TrimPrefix(t[i:], "]") == "" || rest != "" && len(rest) == len(t[i:]) && i < len(t) {
		return s, false
	}
	return cutLogRecord(cutCRIStream(rest)), true
}

// cutCRIStream cuts the stream and the tag a container runtime writes
// after the time in a Kubernetes node's log file (/var/log/pods, `crictl
// logs`): "stdout F ", "stderr P ", the tag F for a full line and P for a
// piece of a longer one (containerd cuts lines at 16 KiB; a piece is
// read as a line of its own).
func cutCRIStream(s string) string {
	for _, stream := range []string{"stdout ", "stderr "} {
		if r, ok := strings.CutPrefix(s, stream); ok && (r == "F" || r == "P") {
			return ""
		} else if ok && len(r) >= 2 && (r[0] == 'F' || r[0] == 'P') && r[1] == ' ' {
			return r[2:]
		}
	}
	return s
}

// logLevels are the level names a logging library prints in a record's
// prefix; "WARNI" and "CRITI" are Avocado's, which cuts every level to
// five letters.
var logLevels = []string{"DEBUG", "INFO", "NOTICE", "WARN", "WARNING", "WARNI", "ERROR", "CRITICAL", "CRITI", "FATAL", "TRACE"}

// maxRecordFields bounds the fields a logging record prints between its
// time and its level: the logger's name, a line number ("process  L0458
// DEBUG| ", Avocado's test log).
const maxRecordFields = 3

// cutLogRecord cuts the rest of a logging library's record prefix after
// its time, through the level and the separator after it: Python
// logging's "root - INFO - ", "INFO ", Avocado's "process          L0458
// DEBUG| " and the "[stdout] " its process runner puts before each line
// of a command's output. It returns s unchanged unless a level after one
// to maxRecordFields fields (the logger's) ends the prefix, with its
// separator ('|', ':' or '-') before the message: a level first is the
// program's own text ("WARN: Function: ...", aws-ofi-nccl's old logger;
// "INFO: run ib_write_bw ...").
func cutLogRecord(s string) string {
	i := 0
	for field := 0; field <= maxRecordFields; field++ {
		j := i
		for j < len(s) && s[j] != ' ' && s[j] != '|' {
			j++
		}
		word := s[i:j]
		if word == "" {
			return s
		}
		if w, ok := strings.CutSuffix(word, ":"); ok && slices.Contains(logLevels, w) {
			if field == 0 || j >= len(s) || s[j] != ' ' {
				return s
			}
			return cutRunnerStream(s[j+1:]) // "WARNING: "
		}
		if slices.Contains(logLevels, word) {
			k := j
			for k < len(s) && s[k] == ' ' {
				k++
			}
			if field == 0 || k+1 >= len(s) || s[k] != '|' && s[k] != ':' && s[k] != '-' || s[k+1] != ' ' {
				return s
			}
			return cutRunnerStream(s[k+2:])
		}
		if strings.HasSuffix(word, ":") {
			return s // "gpu01: ", a host's tag (pdsh), not a logger's name
		}
		for j < len(s) && s[j] == ' ' {
			j++
		}
		if strings.HasPrefix(s[j:], "- ") {
			j += 2 // "root - INFO - "
		}
		i = j
	}
	return s
}

// cutRunnerStream cuts the stream tag a test runner puts before each line
// of a command's output it logs ("[stdout] ", "[stderr] ").
func cutRunnerStream(s string) string {
	for _, tag := range []string{"[stdout] ", "[stderr] "} {
		if r, ok := strings.CutPrefix(s, tag); ok {
			return r
		}
	}
	return s
}

// minuteTimeEnd returns where a date and a time to the minute at the
// start of t end ("2025-02-18 12:54 ", a log console's export,
// NVIDIA/nccl#1610), 0 when t starts with none; a space must follow.
func minuteTimeEnd(t string) int {
	if len(t) < 17 || !isDigits(t[0:4]) || t[4] != '-' || !isDigits(t[5:7]) || t[7] != '-' || !isDigits(t[8:10]) ||
		t[10] != ' ' && t[10] != 'T' || !isDigits(t[11:13]) || t[13] != ':' || !isDigits(t[14:16]) || t[16] != ' ' {
		return 0
	}
	return 16
}

// isoTimeEnd returns where an ISO date and time at the start of t ends
// ("YYYY-MM-DD", one of seps, "HH:MM:SS", then any run of digits and of
// tail's characters: fraction and zone), 0 when t starts with none.
func isoTimeEnd(t, seps, tail string) int {
	if len(t) < 19 || !isDigits(t[0:4]) || t[4] != '-' || !isDigits(t[5:7]) || t[7] != '-' || !isDigits(t[8:10]) ||
		strings.IndexByte(seps, t[10]) < 0 || !isClock(t[11:19]) {
		return 0
	}
	i := 19
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || strings.IndexByte(tail, t[i]) >= 0) {
		i++
	}
	return i
}

// cutSeparator cuts the one space or tab after a tag; the spaces after it
// are the line's own indentation.
func cutSeparator(s string) string {
	if s != "" && (s[0] == ' ' || s[0] == '\t') {
		return s[1:]
	}
	return s
}

// maxSegments caps how many tagged pieces one input line is cut into.
const maxSegments = 64

// splitMidTags finds launcher tags of the kind that started the line
// inside the rest of it, s. A launcher that tags every write repeats the
// line's own tag where the program wrote the line in pieces; another
// rank's tag means that rank's output ran into this line. Pieces of the
// same tag are joined back into one line, pieces of other tags become
// lines of their own. It returns the lines (the first one the line's own)
// appended to dst, or dst unchanged when s holds no further tag.
//
// Short rank tags ("[0]") are looked for only where a write would leave
// them: right after other text, with no space before; and never after
// "NCCL INFO" or "NCCL WARN" in the same piece: NCCL prints a line in one
// write, and its "rank[dev]" pairs look alike.
func splitMidTags(s, owner string, k tagKind, dst []string) []string {
	var find func(s string, from int) (at, end int)
	switch k {
	case tagMPI:
		find = findMPITag
	case tagRank:
		find = findRankTag
	default:
		return dst
	}
	at, end := find(s, 0)
	if at < 0 {
		return dst
	}
	type piece struct {
		tag string
		b   []byte
	}
	pieces := []piece{{tag: tagKey(owner), b: []byte(s[:at])}}
	for at >= 0 && len(pieces) <= maxSegments {
		tag := tagKey(s[at:end])
		next, nextEnd := find(s, end)
		text := s[end:]
		if next >= 0 {
			text = s[end:next]
		}
		i := 0
		for i < len(pieces) && pieces[i].tag != tag {
			i++
		}
		if i == len(pieces) {
			if len(pieces) == maxSegments {
				break
			}
			pieces = append(pieces, piece{tag: tag})
		}
		pieces[i].b = append(pieces[i].b, text...)
		at, end = next, nextEnd
	}
	for i := range pieces {
		dst = append(dst, string(pieces[i].b))
	}
	return dst
}

// tagKey is a tag without the separator after it: "[0]:" and "[0] " are
// the same tag.
func tagKey(t string) string { return strings.TrimRight(t, " \t:") }

// findMPITag returns where the next Open MPI tag at or after from starts
// and ends (after its colon and one space), or -1.
func findMPITag(s string, from int) (at, end int) {
	for from < len(s) {
		j := strings.Index(s[from:], "]<std")
		if j < 0 {
			return -1, -1
		}
		e := from + j
		lo := max(from, e-16) // a tag's "[" is at most 16 bytes before its "]<std"
		if k := strings.LastIndexByte(s[lo:e], '['); k >= 0 && lo+k > 0 {
			if r, ok := cutMPITag(s[lo+k:]); ok {
				return lo + k, len(s) - len(r)
			}
		}
		from = e + 5
	}
	return -1, -1
}

// findRankTag returns where the next "[digits]" tag written right after
// other text in the piece that starts at from starts and ends, or -1.
func findRankTag(s string, from int) (at, end int) {
	for i := from; i < len(s); {
		j := strings.IndexByte(s[i:], '[')
		if j < 0 {
			return -1, -1
		}
		k := i + j
		i = k + 1
		if k == 0 || s[k-1] == ' ' || s[k-1] == '\t' {
			continue
		}
		e := k + 1
		for e < len(s) && e-k <= 6 && s[e] >= '0' && s[e] <= '9' {
			e++
		}
		if e == k+1 || e >= len(s) || s[e] != ']' {
			continue
		}
		if ncclMarker(s[from:k]) >= 0 {
			return -1, -1
		}
		return k, e + 1
	}
	return -1, -1
}

// ncclMarker returns where "NCCL INFO" or "NCCL WARN" starts in s, or -1.
func ncclMarker(s string) int {
	for off := 0; ; {
		i := strings.Index(s[off:], "NCCL ")
		if i < 0 {
			return -1
		}
		r := s[off+i+5:]
		if strings.HasPrefix(r, "INFO") || strings.HasPrefix(r, "WARN") {
			return off + i
		}
		off += i + 5
	}
}

// tagRankNumber is the rank a launcher tag names, -1 for none: the second
// number of Open MPI's "[1,3]<stdout>:", the number of "[3]", "rank3:"
// and srun's "3: ".
func tagRankNumber(tag string, k tagKind) int {
	switch k {
	case tagMPI:
		_, after, ok := strings.Cut(tag, ",")
		if !ok {
			return -1
		}
		tag = after
	case tagRay:
		_, after, ok := strings.Cut(tag, "rank=")
		if !ok {
			return -1
		}
		tag = after
	case tagRank, tagWord, tagLabel:
	default:
		return -1
	}
	i := strings.IndexAny(tag, "0123456789")
	if i < 0 {
		return -1
	}
	n := 0
	for ; i < len(tag) && tag[i] >= '0' && tag[i] <= '9' && n < 1<<20; i++ {
		n = n*10 + int(tag[i]-'0')
	}
	return n
}
