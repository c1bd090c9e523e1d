package ingest

import (
	"strconv"
	"strings"
)

// PyTorch's ProcessGroupNCCL watchdog lines: the timeout of one
// collective, and the progress of the process group it printed beside it.

// parseWatchdogTimeout reads a ProcessGroupNCCL watchdog timeout line:
// the rank ("[Rank 0]" or "[PG 1 Rank 0]" before "Watchdog"), the
// WorkNCCL(...) fields and how long the collective ran (-1 when a wrapped
// line leaves it to the next).
func parseWatchdogTimeout(s string) (CollectiveTimeout, bool) {
	t := CollectiveTimeout{Rank: -1, Global: -1, SeqNum: -1, NumelIn: -1, NumelOut: -1, TimeoutMS: -1, RanMS: -1}
	w := strings.Index(s, "Watchdog caught collective operation timeout")
	if r := strings.LastIndex(s[:w], "Rank "); r >= 0 {
		t.Rank = atoiOr(strings.TrimRight(wordAfter(s[r:], "Rank "), "]"), -1)
	}
	t.PG, t.GUID = processGroup(s[:w])
	body, ok := strings.CutPrefix(s[w:], "Watchdog caught collective operation timeout: WorkNCCL(")
	if !ok {
		return t, false
	}
	// A terminal that wrapped the line leaves its end, ") ran for N
	// milliseconds", on the next line: the fields before are still read.
	fields, after, _ := strings.Cut(body, ") ran for ")
	for _, f := range strings.Split(fields, ", ") {
		k, v, _ := strings.Cut(f, "=")
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			n = -1
		}
		switch k {
		case "SeqNum":
			t.SeqNum = n
		case "OpType":
			t.OpType = strings.Clone(v)
		case "NumelIn":
			t.NumelIn = n
		case "NumelOut":
			t.NumelOut = n
		case "Timeout(ms)":
			t.TimeoutMS = n
		}
	}
	ran, _, _ := strings.Cut(after, " ")
	if n, err := strconv.ParseInt(ran, 10, 64); err == nil {
		t.RanMS = n
	}
	return t, t.OpType != "" || t.SeqNum >= 0
}

// WatchdogProgress is the line PyTorch's watchdog prints after a timeout
// with how far its process group had got: "[PG 1 Rank 0] Exception (either
// an error or timeout) detected by watchdog at work: 1580, last enqueued
// NCCL work: 1582, last completed NCCL work: 1579." (PyTorch 2.2-2.5), or
// "[PG ID 0 PG GUID 0(default_pg) Rank 118]  failure detected by watchdog
// at work sequence id: 2398459 PG status: last enqueued work: 2398578,
// last completed work: 2398458" (2.6 and later).
type WatchdogProgress struct {
	// Rank is the reporting rank, -1 when the line does not say.
	Rank int
	// PG is the process group's id as printed ("1", "0"), "" when absent.
	// PyTorch numbers a process's groups in the order it creates them, so
	// two ranks' "PG ID 11" need not be one group; GUID, the group's
	// job-wide id ("PG GUID 119", PyTorch 2.4 and later), tells them
	// apart ("" when not printed).
	PG, GUID string
	// Global is the job-wide rank PyTorch's own tag before the line names
	// ("[rank13]:"), -1 without one: Rank is the rank within the group.
	Global int
	// At is the sequence number the watchdog stopped at; Enqueued and
	// Completed the last ones the rank launched and finished (-1 when not
	// printed).
	At, Enqueued, Completed int64
	Evidence                Evidence
}

// processGroup reads the process group's id and GUID from the prefix
// PyTorch puts before a watchdog line ("[PG 1 Rank 0]", "[PG ID 11 PG GUID
// 119 Rank 1]", "[PG ID 0 PG GUID 0(default_pg) Rank 118]"), "" for each
// the prefix does not print.
func processGroup(head string) (pg, guid string) {
	if g := strings.LastIndex(head, "[PG "); g >= 0 {
		id := strings.TrimPrefix(head[g+len("[PG "):], "ID ")
		pg, _, _ = strings.Cut(id, " ")
		pg = strings.Clone(strings.TrimRight(pg, "]("))
	}
	if g := strings.LastIndex(head, "PG GUID "); g >= 0 {
		id := wordAfter(head[g:], "PG GUID ")
		if k := strings.IndexAny(id, "(]"); k >= 0 {
			id = id[:k]
		}
		guid = strings.Clone(id)
	}
	return pg, guid
}

// parseWatchdogProgress reads a WatchdogProgress line.
func parseWatchdogProgress(s string) (WatchdogProgress, bool) {
	p := WatchdogProgress{Rank: -1, Global: -1, At: -1, Enqueued: -1, Completed: -1}
	w := strings.Index(s, "detected by watchdog at work")
	head := s[:w]
	if r := strings.LastIndex(head, "Rank "); r >= 0 {
		p.Rank = atoiOr(strings.TrimRight(wordAfter(head[r:], "Rank "), "]"), -1)
	}
	p.PG, p.GUID = processGroup(head)
	num := func(rest string, keys ...string) int64 {
		for _, k := range keys {
			if i := strings.Index(rest, k); i >= 0 {
				f := strings.TrimLeft(rest[i+len(k):], " ")
				j := 0
				for j < len(f) && f[j] >= '0' && f[j] <= '9' {
					j++
				}
				if n, err := strconv.ParseInt(f[:j], 10, 64); err == nil {
					return n
				}
			}
		}
		return -1
	}
	rest := s[w:]
	p.At = num(rest, "sequence id:", "at work:")
	p.Enqueued = num(rest, "last enqueued NCCL work:", "last enqueued work:")
	p.Completed = num(rest, "last completed NCCL work:", "last completed work:")
	return p, p.Completed >= 0 || p.Enqueued >= 0
}

// WatchdogStuck is PyTorch's heartbeat monitor saying a rank's watchdog
// thread itself stopped: "[PG ID 0 PG GUID 0(default_pg) Rank 7]
// ProcessGroupNCCL's watchdog got stuck for 480 seconds without making
// progress in monitoring enqueued collectives." (PyTorch 2.4 and later;
// TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC). The monitor then aborts the process.
type WatchdogStuck struct {
	// Rank is the reporting rank, -1 when the line does not say.
	Rank int
	// Seconds is how long the watchdog made no progress, -1 when unread.
	Seconds  int
	Evidence Evidence
}

// parseWatchdogStuck reads a WatchdogStuck line.
func parseWatchdogStuck(s string) (WatchdogStuck, bool) {
	w := strings.Index(s, "watchdog got stuck for ")
	if w < 0 {
		return WatchdogStuck{}, false
	}
	st := WatchdogStuck{Rank: -1, Seconds: atoiOr(wordAfter(s[w:], "watchdog got stuck for "), -1)}
	if r := strings.LastIndex(s[:w], "Rank "); r >= 0 {
		st.Rank = atoiOr(strings.TrimRight(wordAfter(s[r:], "Rank "), "]"), -1)
	}
	return st, st.Seconds >= 0
}

// keepOnce records a watchdog line that parsed (ok): the line is read, and
// v is kept unless its key was seen or the list is full. It reports ok.
func keepOnce[T any](l *NCCLLog, ln Line, list *[]T, v T, ok bool, key seenKey) bool {
	if !ok {
		return false
	}
	l.lines.add(ln)
	if len(*list) < maxKept && l.once(key) {
		*list = append(*list, v)
	}
	return true
}
